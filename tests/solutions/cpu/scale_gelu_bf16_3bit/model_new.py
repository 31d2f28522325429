import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return cawb_ext.scale_gelu_bf16_forward(x.contiguous(), float(self.scale))
