# Single op: 3x3 convolution with padding 1.
import torch
import torch.nn as nn

batch_size, in_ch, out_ch, H, W = 32, 64, 128, 128, 128
PRESETS = {"cpu": dict(batch_size=2, in_ch=8, out_ch=16, H=32, W=32),
           "gpu": dict(batch_size=32, in_ch=64, out_ch=128, H=128, W=128)}


class Model(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_ch, H, W)]


def get_init_inputs():
    return [in_ch, out_ch]
