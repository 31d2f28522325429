import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)   # holds ln.weight / ln.bias; never called

    def forward(self, x):
        return cawb_ext.layernorm_forward(x.contiguous(), self.ln.weight, self.ln.bias, float(self.ln.eps))
