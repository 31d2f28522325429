# 2-op fusion: multiply by a scalar, then GELU (tanh approximation). In bfloat16: inputs and parameters are cast to bf16 by the harness, and the reference computes in bf16.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, dim = 8192, 8192
scale = 0.5
DTYPE = "bf16"
PRESETS = {"cpu": dict(batch_size=64, dim=1024), "gpu": dict(batch_size=8192, dim=8192)}


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return F.gelu(x * self.scale, approximate="tanh")


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
