import torch
import torch.nn as nn
import torch.nn.functional as F
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        B, T, C = x.shape
        h = cawb_ext.linear_forward(x.reshape(B * T, C).contiguous(), self.up.weight, self.up.bias)
        h = F.gelu(h)
        y = cawb_ext.linear_forward(h, self.down.weight, self.down.bias)
        return x + y.view(B, T, C)
