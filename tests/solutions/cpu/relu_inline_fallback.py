# task relu. A published-solution pattern: load_inline with cpp_sources="" and functions=[...] (the build fails: the
# function is declared nowhere), inside try/except with a PyTorch fallback. Run as written it runs torch.relu.
# Expect: the failed build ahead is recorded (build_ahead.ok False, the compiler's error), not a verdict; under
# cuda-agent rules forbidden_op (torch compute in forward), not compile_error.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

try:
    ext = load_inline(name="cawb_relu_missing_source", cpp_sources="", functions=["relu_forward"], verbose=False)
except Exception:
    ext = None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_forward(x) if ext is not None else torch.relu(x)
