# task linear_relu (CUDA), single file. A decoy by measurement (issue 48): torch's addmm and relu do the work, and the
# solution's own kernel writes one element of the output (max(y[0], 0), which it already is), so that it "has a kernel":
# about one launch, 1.7 % of the time beside addmm on an H200. Expect: under --rules kernelbench no_custom_kernel
# (its share under [eval] min_custom_share); under cuda-agent rules forbidden_op.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void touch_first_kernel(float* y) { y[0] = fmaxf(y[0], 0.f); }
torch::Tensor touch_first(torch::Tensor y) {
    touch_first_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(y.data_ptr<float>());
    return y;
}
"""
cpp_src = "torch::Tensor touch_first(torch::Tensor y);"
ext = load_inline(name="cawb_linear_relu_scalar_decoy_cuda", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["touch_first"],
                  extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return ext.touch_first(torch.relu(torch.addmm(self.fc.bias, x, self.fc.weight.t())))
