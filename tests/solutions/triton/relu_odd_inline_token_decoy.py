# task relu_odd. A decoy (KernelBench single-file format): one token Triton launch on one element, torch.relu does the
# work. Under the interpreter the token launch takes most of the time, so the evaluator caps the share at the elements
# the launches stored over the output's. Expect: under --rules kernelbench, no_custom_kernel; under cuda-agent rules,
# forbidden_op.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        relu_kernel[(1,)](x, torch.empty(1), 1, BLOCK=16)   # a token launch on one element
        return torch.relu(x)
