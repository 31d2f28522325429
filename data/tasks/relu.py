# Single op: elementwise ReLU.
import torch
import torch.nn as nn

batch_size, dim = 4096, 16384
PRESETS = {"cpu": dict(batch_size=64, dim=1024), "gpu": dict(batch_size=4096, dim=16384)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
