import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, bias_ptr, res_ptr, y_ptr, M, N, K, GELU: tl.constexpr, RESIDUAL: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # y = x @ w^T + bias, then exact GELU if GELU, then + res if RESIDUAL: every epilogue on the accumulator.
    # A 1-D grid walked in groups of GROUP_M tile rows, so programs running together share weight tiles in L2.
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % rows_in_group
    pid_n = (pid % (GROUP_M * tiles_n)) // rows_in_group
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
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
    out = rm[:, None].to(tl.int64) * N + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if RESIDUAL:
        acc += tl.load(res_ptr + out, mask=mask, other=0.0)
    tl.store(y_ptr + out, acc, mask=mask)


def linear(x2, w, bias, gelu, residual=None):
    M, K = x2.shape
    N = w.shape[0]
    y = torch.empty((M, N), dtype=x2.dtype, device=x2.device)
    bm, bn = (128, 64) if min(M, N) >= 1024 else (64, 64)      # 128x64 fp32 tiles fit the registers of 8 warps
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    linear_kernel[grid](x2, w, bias, residual if residual is not None else y, y, M, N, K, GELU=gelu,
                        RESIDUAL=residual is not None, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=32, GROUP_M=8,
                        num_warps=8, num_stages=3)
    return y


class ModelNew(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn)        # parameter holders; never called
        self.down = nn.Linear(ffn, hidden)

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        h = linear(x2, self.up.weight.contiguous(), self.up.bias.contiguous(), True)
        y = linear(h, self.down.weight.contiguous(), self.down.bias.contiguous(), False, residual=x2)
        return y.view(x.shape)
