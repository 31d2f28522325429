# Single op: square matrix multiplication. In bfloat16: inputs and parameters are cast to bf16 by the harness, and the reference computes in bf16.
import torch
import torch.nn as nn

N = 4096
DTYPE = "bf16"
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
