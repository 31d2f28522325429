# 2-op fusion: a Linear layer (GEMM + bias) followed by ReLU.
import torch
import torch.nn as nn

batch_size, in_features, out_features = 2048, 4096, 4096
PRESETS = {"cpu": dict(batch_size=64, in_features=256, out_features=256),
           "gpu": dict(batch_size=2048, in_features=4096, out_features=4096)}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
