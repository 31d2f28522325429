import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_silu_mul_kernel(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    # one program per row, the row in registers: x read once, the result written once
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=m, other=0.0)
    r = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    y = x * r * w
    tl.store(y_ptr + row * cols + offs, y * y * tl.sigmoid(y), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols
        out = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        warps = 4 if block <= 1024 else (8 if block <= 4096 else 16)
        rmsnorm_silu_mul_kernel[(rows,)](x, self.weight.contiguous(), out, cols, self.eps, BLOCK=block, num_warps=warps)
        return out
