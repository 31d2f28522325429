# 3-op fusion: Conv2d, BatchNorm2d (training-mode batch statistics, as KernelBench runs it), ReLU.
import torch
import torch.nn as nn

batch_size, in_ch, out_ch, H, W = 32, 32, 64, 128, 128
PRESETS = {"cpu": dict(batch_size=2, in_ch=4, out_ch=8, H=32, W=32),
           "gpu": dict(batch_size=32, in_ch=32, out_ch=64, H=128, W=128)}


class Model(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(out_ch)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, in_ch, H, W)]


def get_init_inputs():
    return [in_ch, out_ch]
