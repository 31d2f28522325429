# task relu. The same failing load_inline as relu_inline_fallback.py (cpp_sources="" with functions=[...]), without a
# fallback. Expect: compile_error whose error shows the compiler's `file:line: error:` lines; the whole log in compile_log.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="cawb_relu_missing_source", cpp_sources="", functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_forward(x)
