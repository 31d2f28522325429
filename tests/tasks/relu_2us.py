# ReLU sized for a GPU kernel of about 2 µs on an H100 (tests/test_gpu.py: every stream counts).
import torch
import torch.nn as nn

batch_size, dim = 16, 1024
PRESETS = {"cpu": dict(batch_size=4, dim=64), "gpu": dict(batch_size=16, dim=1024)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
