# Block: multi-head self-attention (QKV projection, scaled dot-product attention with a causal mask, output projection).
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size, seq_len, hidden, heads = 8, 1024, 1024, 16
PRESETS = {"cpu": dict(batch_size=2, seq_len=32, hidden=64, heads=4),
           "gpu": dict(batch_size=8, seq_len=1024, hidden=1024, heads=16)}


class Model(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(B, T, C))


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden)]


def get_init_inputs():
    return [hidden, heads]
