import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1)   # parameter holders only
        self.bn = nn.BatchNorm2d(out_ch)

    def forward(self, x):
        bn = self.bn
        return cawb_ext.conv_bn_relu_forward(x.contiguous(), self.conv.weight, self.conv.bias, bn.weight, bn.bias,
                                             bn.running_mean, bn.running_var, float(bn.eps))
