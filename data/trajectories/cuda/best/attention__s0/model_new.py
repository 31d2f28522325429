import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)   # parameter holders only
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x):
        return cawb_ext.attention_forward(x.contiguous(), self.qkv.weight, self.qkv.bias, self.out.weight, self.out.bias,
                                          int(self.heads))
