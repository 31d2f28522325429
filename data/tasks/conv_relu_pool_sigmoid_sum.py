# 5-op fusion: Conv2d, ReLU, 2x2 max-pool, sigmoid, sum over channels.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, in_ch, out_ch, H, W = 32, 16, 64, 128, 128
PRESETS = {"cpu": dict(batch_size=2, in_ch=4, out_ch=8, H=32, W=32),
           "gpu": dict(batch_size=32, in_ch=16, out_ch=64, H=128, W=128)}


class Model(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel_size=3)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv(x)), 2)
        return torch.sigmoid(x).sum(dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_ch, H, W)]


def get_init_inputs():
    return [in_ch, out_ch]
