# Test task: a mean over many values, scaled down — every output is far below atol = 1e-2, so returning zeros
# passes an elementwise tolerance check. The evaluator's signal check must reject that.
import torch
import torch.nn as nn

batch_size, dim = 256, 4096
PRESETS = {"cpu": dict(batch_size=256, dim=4096), "gpu": dict(batch_size=8192, dim=8192)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean(dim=-1) * 0.01


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
