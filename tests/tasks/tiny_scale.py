# Test task: outputs far below atol = 1e-2 (x * 1e-4, |x| ~ 1), so an all-zeros output passes an elementwise
# tolerance check: a degenerate task. `cawb tasks audit` lists it; the evaluator rejects trivial outputs on it
# (degenerate_output) and still accepts a kernel that computes it.
import torch
import torch.nn as nn

rows, cols = 4096, 4096
PRESETS = {"cpu": dict(rows=64, cols=1024), "gpu": dict(rows=4096, cols=4096)}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 1e-4


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
