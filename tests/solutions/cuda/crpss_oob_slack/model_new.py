import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=3)   # parameter holder only

    def forward(self, x):
        return cawb_ext.crpss_forward(x.contiguous(), self.conv.weight, self.conv.bias)
