import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)   # parameter holder only

    def forward(self, x):
        return cawb_ext.ln_gelu_res_forward(x.contiguous(), self.norm.weight, self.norm.bias, float(self.norm.eps))
