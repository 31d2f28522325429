import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)      # parameter holders only
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        return cawb_ext.mlp_forward(x.contiguous(), self.up.weight, self.up.bias, self.down.weight, self.down.bias)
