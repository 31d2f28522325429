# Single op: LayerNorm over the last dimension with learned affine parameters. In bfloat16: inputs and parameters are cast to bf16 by the harness, and the reference computes in bf16.
import torch
import torch.nn as nn

batch_size, seq_len, hidden = 32, 1024, 4096
DTYPE = "bf16"
PRESETS = {"cpu": dict(batch_size=4, seq_len=32, hidden=256), "gpu": dict(batch_size=32, seq_len=1024, hidden=4096)}


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden)]


def get_init_inputs():
    return [hidden]
