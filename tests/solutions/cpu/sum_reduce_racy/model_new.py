import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        assert self.dim == 1, "this kernel reduces dimension 1"
        return cawb_ext.sum_dim1_forward(x.contiguous())
