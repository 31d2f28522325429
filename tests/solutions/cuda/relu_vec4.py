# task tests/tasks/relu_1024x2048 (CUDA), single file: the same ReLU as relu_plain.py with 16-byte loads and stores
# (float4), as torch's own elementwise kernels do. relu_plain's kernel ran 8.5 us a call on an H200 against eager's
# 3.2 us (the result's device_only figure): the plain kernel is slower on the device, not only behind the host.
# bench/timing_fair.py times both. Valid.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <cstdint>
__global__ void relu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}
__global__ void relu_scalar_kernel(const float* __restrict__ x, float* __restrict__ y, long start, long n) {
    for (long i = start + blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) y[i] = fmaxf(x[i], 0.f);
}
static int blocks_for(long n) { long b = (n + 255) / 256; return (int)(b < 1 ? 1 : (b > 65535 ? 65535 : b)); }
torch::Tensor relu_vec4(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(), "relu_vec4: a contiguous float32 CUDA tensor");
    auto y = torch::empty_like(x);
    const float* xp = x.data_ptr<float>(); float* yp = y.data_ptr<float>();
    long n = x.numel(), n4 = (((uintptr_t)xp | (uintptr_t)yp) % 16 == 0) ? n / 4 : 0;
    auto stream = c10::cuda::getCurrentCUDAStream();
    if (n4) relu_vec4_kernel<<<blocks_for(n4), 256, 0, stream>>>(reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), n4);
    if (4 * n4 < n) relu_scalar_kernel<<<blocks_for(n - 4 * n4), 256, 0, stream>>>(xp, yp, 4 * n4, n);
    return y;
}
"""
cpp_src = "torch::Tensor relu_vec4(torch::Tensor x);"
ext = load_inline(name="cawb_relu_vec4", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["relu_vec4"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_vec4(x)
