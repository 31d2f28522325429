import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    "Builds the reference's Linear under the same seed, then keeps only folded copies of its parameters."
    def __init__(self, in_features, out_features):
        super().__init__()
        fc = nn.Linear(in_features, out_features)
        self.folded_weight = nn.Parameter(fc.weight.detach().clone().contiguous())
        self.folded_bias = nn.Parameter(fc.bias.detach().clone())

    def forward(self, x):
        return cawb_ext.linear_relu_forward(x.contiguous(), self.folded_weight, self.folded_bias)
