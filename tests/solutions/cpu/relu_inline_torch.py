# task relu. Torch fallback from C++: load_inline code that calls torch::relu.
# Expect: forbidden_op (the C++ calls torch::relu through the dispatcher).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>
torch::Tensor relu_forward(torch::Tensor x) {
    auto xc = x.contiguous();
    return torch::relu(xc);
}
"""

ext = load_inline(name="cawb_relu_inline_torch", cpp_sources=[cpp_source], functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_forward(x)
