import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    # one program per row, the whole row in registers: one read, one write; one division per row
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float('inf'))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * cols + offs, e * (1.0 / tl.sum(e, axis=0)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        cols = x.shape[-1]
        rows = x.numel() // cols
        block = triton.next_power_of_2(cols)
        warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)    # enough threads that the row fits in registers
        softmax_kernel[(rows,)](x, y, cols, BLOCK=block, num_warps=warps)
        return y
