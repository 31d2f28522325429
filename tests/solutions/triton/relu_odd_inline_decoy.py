# task relu_odd. A decoy (KernelBench single-file format): a Triton kernel is defined but never launched; torch.relu
# does the work. Expect: under --rules kernelbench, no_custom_kernel (custom_kernel_share 0); under cuda-agent rules,
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
        return torch.relu(x)
