import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    # one program per row, three sweeps over the row in BLOCK-wide chunks: mean, variance, normalise
    row = tl.program_id(0).to(tl.int64)
    base = row * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0)
    mean = tl.sum(acc, axis=0) / cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        d = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0) - mean
        acc += tl.where(offs < cols, d * d, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for i in range(0, cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0)
        w = tl.load(w_ptr + offs, mask=m, other=0.0)
        b = tl.load(b_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)      # holds ln.weight / ln.bias; never called

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        cols = x.shape[-1]
        rows = x.numel() // cols
        layernorm_kernel[(rows,)](x, self.ln.weight.contiguous(), self.ln.bias.contiguous(), y, cols, self.ln.eps, BLOCK=256)
        return y
