# Single op: sum over dimension 1, keeping it.
import torch
import torch.nn as nn

batch_size, dim1, dim2 = 256, 4096, 1024
reduce_dim = 1
PRESETS = {"cpu": dict(batch_size=8, dim1=256, dim2=128), "gpu": dict(batch_size=256, dim1=4096, dim2=1024)}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
