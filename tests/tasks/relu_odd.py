# Test task: ReLU on sizes that no power-of-two block divides (5 x 333 = 1665 elements), so a Triton kernel must
# mask its tail. Small, for Triton's interpreter on the CPU.
import torch
import torch.nn as nn

batch_size, dim = 4096, 16383
PRESETS = {"cpu": dict(batch_size=5, dim=333), "gpu": dict(batch_size=4096, dim=16383)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
