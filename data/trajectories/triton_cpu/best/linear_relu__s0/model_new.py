import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y[M, N] = x[M, K] @ w[N, K]^T (nn.Linear's weight layout), no bias yet
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        a = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bias_relu_kernel(y_ptr, bias_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(y_ptr + offs, mask=m, other=0.0) + tl.load(bias_ptr + offs % N, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(y, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)     # holds fc.weight / fc.bias; never called

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.fc.weight.shape[0]
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        linear_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, self.fc.weight.contiguous(), y, M, N, K,
                                                                 BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        bias_relu_kernel[(triton.cdiv(M * N, 1024),)](y, self.fc.bias.contiguous(), M * N, N, BLOCK=1024)
        return y
