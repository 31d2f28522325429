import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_bias_relu_kernel(x_ptr, w_ptr, bias_ptr, y_ptr, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y = relu(x @ w^T + bias): the bias and the ReLU applied to the accumulator before the only store
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
    tl.store(y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], tl.maximum(acc, 0.0), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)     # holds fc.weight / fc.bias; never called

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.fc.weight.shape[0]
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        bm, bn = (128, 64) if min(M, N) >= 1024 else (64, 64)      # 128x64 fp32 tiles fit the registers of 8 warps
        linear_bias_relu_kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](x, self.fc.weight.contiguous(), self.fc.bias.contiguous(),
                                                                           y, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=32,
                                                                           num_warps=8, num_stages=3)
        return y
