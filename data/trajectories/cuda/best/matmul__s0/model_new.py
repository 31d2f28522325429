import torch
import torch.nn as nn
import cawb_ext


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return cawb_ext.matmul_forward(A.contiguous(), B.contiguous())
