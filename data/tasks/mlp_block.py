# Block: a transformer MLP (Linear, GELU, Linear) with a residual connection.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, seq_len, hidden, ffn = 8, 1024, 1024, 4096
PRESETS = {"cpu": dict(batch_size=2, seq_len=16, hidden=64, ffn=256),
           "gpu": dict(batch_size=8, seq_len=1024, hidden=1024, ffn=4096)}


class Model(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(x)))


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden)]


def get_init_inputs():
    return [hidden, ffn]
