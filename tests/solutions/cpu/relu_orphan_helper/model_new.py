import os, time
import torch
import torch.nn as nn
import cawb_ext


def _start_helper() -> int:
    "A helper in a new session by a double fork; its pid as the evaluator sees it (the first NSpid)."
    r, w = os.pipe()
    mid = os.fork()
    if mid == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, open('/proc/self/status').read().split('NSpid:')[1].split()[0].encode())
            time.sleep(600)
        os._exit(0)
    os.close(w); os.waitpid(mid, 0)
    pid = int(os.read(r, 20)); os.close(r)
    return pid


_HELPER = _start_helper()
open(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'relu_orphan_helper.pid'), 'w').write(str(_HELPER))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return cawb_ext.relu_forward(x.contiguous())
