# task relu. A decoy (KernelBench format): the C++ kernel is compiled but never called; torch.relu does the work.
# Expect: under --rules kernelbench, no_custom_kernel (custom_kernel_share 0); under cuda-agent rules, forbidden_op.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>
torch::Tensor relu_forward(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* xp = xc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    int64_t n = xc.numel();
    for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] > 0.f ? xp[i] : 0.f;
    return y;
}
"""

ext = load_inline(name="cawb_relu_inline_valid", cpp_sources=[cpp_source], functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
