# task tests/tasks/copy_1k (CUDA), single file: the null candidate. One copy kernel on 1,024 floats through load_inline:
# its timed time is the floor the evaluator's clock adds to any candidate, to compare with eager's x.clone()
# (bench/timing_fair.py: null_floor_us - eager_floor_us).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
__global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
torch::Tensor copy_null(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    copy_kernel<<<(int)((n + 255) / 256), 256, 0, c10::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = "torch::Tensor copy_null(torch::Tensor x);"
ext = load_inline(name="cawb_copy_1k_null", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["copy_null"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.copy_null(x)
