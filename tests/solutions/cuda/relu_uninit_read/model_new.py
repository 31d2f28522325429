import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return cawb_ext.relu_forward(x.contiguous())
