import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)   # holds fc.weight / fc.bias

    def forward(self, x):
        return cawb_ext.linear_relu_forward(x.contiguous(), self.fc.weight, self.fc.bias)
