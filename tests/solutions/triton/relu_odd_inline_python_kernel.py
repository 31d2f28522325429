# task relu_odd. Adversarial, the interpreter only: the "@triton.jit" function calls torch on a tensor it kept, which
# Triton's interpreter runs as plain Python (a GPU compile would refuse it). Expect: forbidden_op (the relu inside the
# launch is torch compute, not the launch's own copies).
import torch
import torch.nn as nn
import triton
import triton.language as tl

KEPT = {}


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    KEPT["y"].copy_(torch.relu(KEPT["x"]))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        KEPT["x"], KEPT["y"] = x, y
        relu_kernel[(1,)](x, y, x.numel(), BLOCK=256)
        return y
