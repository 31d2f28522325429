# Single op: square matrix multiplication.
import torch
import torch.nn as nn

N = 4096
PRESETS = {"cpu": dict(N=128), "gpu": dict(N=4096)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
