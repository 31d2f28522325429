import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))   # overwritten by the reference's state_dict
        self.eps = eps

    def forward(self, x):
        return cawb_ext.rmsnorm_silu_mul_forward(x.contiguous(), self.weight, float(self.eps))
