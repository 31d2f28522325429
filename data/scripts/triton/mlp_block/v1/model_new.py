import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, bias_ptr, y_ptr, M, N, K, GELU: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y = x @ w^T + bias (nn.Linear), then exact GELU if GELU
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        a = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :].to(tl.int64) * K + kk[:, None], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if GELU:
        acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    tl.store(y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def add_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(a_ptr + offs, mask=m, other=0.0) + tl.load(b_ptr + offs, mask=m, other=0.0), mask=m)


def linear(x2, w, bias, gelu):
    M, K = x2.shape
    N = w.shape[0]
    y = torch.empty((M, N), dtype=x2.dtype, device=x2.device)
    linear_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x2, w, bias, y, M, N, K, GELU=gelu, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)        # parameter holders; never called
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        h = linear(x2, self.up.weight.contiguous(), self.up.bias.contiguous(), True)
        d = linear(h, self.down.weight.contiguous(), self.down.bias.contiguous(), False)
        out = torch.empty_like(x2)
        add_kernel[(triton.cdiv(out.numel(), 1024),)](x2, d, out, out.numel(), BLOCK=1024)
        return out.view(x.shape)
