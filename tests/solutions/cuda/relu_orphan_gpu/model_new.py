import os, secrets, subprocess, sys
import torch
import torch.nn as nn
import cawb_ext

_HELPER = r"""
import ctypes, os, sys, time
if os.fork(): os._exit(0)
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)      # PR_SET_NAME: found by name from outside
import torch
x = torch.ones(512 << 20, dtype=torch.uint8, device='cuda'); torch.cuda.synchronize()
os.write(1, b'ready\n')
time.sleep(600)
"""


def _start_helper() -> str:
    "A helper in a new session (a fresh interpreter that forks once more) holding a CUDA context and 512 MiB, once it holds them; its name."
    name = 'cawborph' + secrets.token_hex(3)
    p = subprocess.Popen([sys.executable, '-c', _HELPER, name], stdout=subprocess.PIPE, start_new_session=True)
    p.stdout.readline(); p.wait()
    return name


_NAME = _start_helper()
open(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'relu_orphan_gpu.name'), 'w').write(_NAME)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return cawb_ext.relu_forward(x.contiguous())
