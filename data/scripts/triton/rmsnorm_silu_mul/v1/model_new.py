import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def inv_rms_kernel(x_ptr, r_ptr, cols, eps, BLOCK: tl.constexpr):
    # r[row] = 1 / sqrt(mean(x[row]^2) + eps)
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
        acc += x * x
    tl.store(r_ptr + row, 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps))


@triton.jit
def silu_mul_kernel(x_ptr, r_ptr, w_ptr, y_ptr, n, cols, BLOCK: tl.constexpr):
    # y = x * r * w; out = silu(y) * y = y * y * sigmoid(y)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    r = tl.load(r_ptr + offs // cols, mask=m, other=0.0)
    w = tl.load(w_ptr + offs % cols, mask=m, other=0.0)
    y = x * r * w
    tl.store(y_ptr + offs, y * y * tl.sigmoid(y), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols
        r = torch.empty(rows, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        inv_rms_kernel[(rows,)](x, r, cols, BLOCK=512)
        silu_mul_kernel[(triton.cdiv(x.numel(), 1024),)](x, r, self.weight.contiguous(), out, x.numel(), cols, BLOCK=1024)
        return out
