# Single op: elementwise ReLU. In bfloat16: inputs and parameters are cast to bf16 by the harness, and the reference computes in bf16.
import torch
import torch.nn as nn

batch_size, dim = 4096, 16384
DTYPE = "bf16"
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
