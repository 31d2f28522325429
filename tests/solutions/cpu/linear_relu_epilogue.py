# task linear_relu. Mixed (KernelBench format): torch's mm does the GEMM, the solution's own kernel adds the bias and
# applies ReLU over the whole output (an epilogue). Its own work is one pass over the output: on the CPU backend the
# profile does not show the time of its own C++ code (only ATen ops), so its share there reads as the allocation's only.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>
torch::Tensor bias_relu(torch::Tensor y, torch::Tensor b) {
    auto out = torch::empty_like(y);
    const float* yp = y.data_ptr<float>(); const float* bp = b.data_ptr<float>(); float* op = out.data_ptr<float>();
    int64_t m = y.size(0), n = y.size(1);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) { float v = yp[i * n + j] + bp[j]; op[i * n + j] = v > 0.f ? v : 0.f; }
    return out;
}
"""

ext = load_inline(name="cawb_linear_relu_epilogue", cpp_sources=[cpp_source], functions=["bias_relu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return ext.bias_relu(torch.mm(x.contiguous(), self.fc.weight.t()), self.fc.bias)
