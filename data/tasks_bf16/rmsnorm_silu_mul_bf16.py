# 3-op fusion: RMSNorm with a learned weight, then SiLU(x) * x gating. In bfloat16: inputs and parameters are cast to bf16 by the harness, and the reference computes in bf16.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, hidden = 16384, 4096
eps = 1e-6
DTYPE = "bf16"
PRESETS = {"cpu": dict(batch_size=64, hidden=512), "gpu": dict(batch_size=16384, hidden=4096)}


class Model(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return F.silu(y) * y


def get_inputs():
    return [torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [hidden, eps]
