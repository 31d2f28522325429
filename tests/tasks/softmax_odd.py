# Test task: softmax over rows of 300 (no power of two), so a one-block-per-row Triton kernel must mask the row's
# tail in its loads. Small, for Triton's interpreter on the CPU.
import torch
import torch.nn as nn

batch_size, dim = 4096, 3000
PRESETS = {"cpu": dict(batch_size=6, dim=300), "gpu": dict(batch_size=4096, dim=3000)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
