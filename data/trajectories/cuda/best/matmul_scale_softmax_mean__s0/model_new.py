import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, a, b):
        return cawb_ext.mssm_forward(a.contiguous(), b.contiguous(), float(self.scale))
