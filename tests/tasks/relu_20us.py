# ReLU sized for a GPU kernel of about 20 µs on an H100 (tests/test_gpu.py: every stream counts).
import torch
import torch.nn as nn

batch_size, dim = 4096, 2048
PRESETS = {"cpu": dict(batch_size=4, dim=64), "gpu": dict(batch_size=4096, dim=2048)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
