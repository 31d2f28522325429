# task tests/tasks/relu_1024x2048 (CUDA), single file: a plain grid-stride ReLU through load_inline, as a user writes
# one. Valid; its speed should be eager's (torch's own ReLU is one such kernel): bench/timing_fair.py.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) y[i] = fmaxf(x[i], 0.f);
}
torch::Tensor relu_plain(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel(); int blocks = (int)((n + 255) / 256); if (blocks > 65535) blocks = 65535;
    relu_kernel<<<blocks, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = "torch::Tensor relu_plain(torch::Tensor x);"
ext = load_inline(name="cawb_relu_plain", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["relu_plain"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_plain(x)
