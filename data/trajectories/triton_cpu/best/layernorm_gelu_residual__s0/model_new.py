import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(m, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * cols + offs, d * rstd * w + b, mask=m)


@triton.jit
def gelu_residual_kernel(x_ptr, h_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # y = x + gelu(h), exact (erf) GELU
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    h = tl.load(h_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, x + 0.5 * h * (1.0 + tl.math.erf(h * 0.7071067811865476)), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)    # holds norm.weight / norm.bias; never called

    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols
        h = torch.empty_like(x)
        y = torch.empty_like(x)
        layernorm_kernel[(rows,)](x, self.norm.weight.contiguous(), self.norm.bias.contiguous(), h, cols, self.norm.eps,
                                  BLOCK=triton.next_power_of_2(cols))
        gelu_residual_kernel[(triton.cdiv(x.numel(), 1024),)](x, h, y, x.numel(), BLOCK=1024)
        return y
