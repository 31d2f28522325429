# A copy of 1,024 floats: eager's time for it is the floor of any timed call (one launch, almost no work).
# bench/timing_fair.py times a candidate that launches one copy kernel (tests/solutions/cuda/copy_1k_null.py) beside it.
import torch
import torch.nn as nn

n = 1024
PRESETS = {"cpu": dict(n=1024), "gpu": dict(n=1024)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.clone()


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []
