import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_gelu_residual_kernel(x_ptr, w_ptr, b_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    # one program per row: layer norm, exact GELU and the residual add fused, x read once and y written once
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(m, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    h = d * rstd * w + b
    tl.store(y_ptr + row * cols + offs, x + 0.5 * h * (1.0 + tl.math.erf(h * 0.7071067811865476)), mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)    # holds norm.weight / norm.bias; never called

    def forward(self, x):
        x = x.contiguous()
        cols = x.shape[-1]
        rows = x.numel() // cols
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        warps = 4 if block <= 1024 else (8 if block <= 4096 else 16)
        layernorm_gelu_residual_kernel[(rows,)](x, self.norm.weight.contiguous(), self.norm.bias.contiguous(), y, cols,
                                                self.norm.eps, BLOCK=block, num_warps=warps)
        return y
