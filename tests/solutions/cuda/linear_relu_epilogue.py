# task linear_relu (CUDA), single file. Mixed (KernelBench format, valid): torch's mm does the GEMM and the solution's
# own kernel adds the bias and applies ReLU over the whole output (an epilogue: one pass over it). Its share of the time
# is what a legitimate kernel beside torch's GEMM takes; bench/custom_share.py records it beside the decoys'.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void bias_relu_kernel(const float* __restrict__ y, const float* __restrict__ b, float* __restrict__ out, long m, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < m * n; i += (long)gridDim.x * blockDim.x) out[i] = fmaxf(y[i] + b[i % n], 0.f);
}
torch::Tensor bias_relu(torch::Tensor y, torch::Tensor b) {
    auto out = torch::empty_like(y);
    long m = y.size(0), n = y.size(1); long blocks = (m * n + 255) / 256; if (blocks > 65535) blocks = 65535;
    bias_relu_kernel<<<(int)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(y.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), m, n);
    return out;
}
"""
cpp_src = "torch::Tensor bias_relu(torch::Tensor y, torch::Tensor b);"
ext = load_inline(name="cawb_linear_relu_epilogue_cuda", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["bias_relu"],
                  extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return ext.bias_relu(torch.mm(x.contiguous(), self.fc.weight.t()), self.fc.bias.contiguous())
