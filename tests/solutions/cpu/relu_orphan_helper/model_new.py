import ctypes, os, secrets, time
import torch
import torch.nn as nn
import cawb_ext


def _start_helper() -> str:
    "A helper in a new session by a double fork, named so that it can be found from outside; its name."
    name, (r, w) = 'cawborph' + secrets.token_hex(3), os.pipe()
    mid = os.fork()
    if mid == 0:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)     # PR_SET_NAME
            os.write(w, b'1'); time.sleep(600)
        os._exit(0)
    os.close(w); os.waitpid(mid, 0); os.read(r, 1); os.close(r)
    return name


_HELPER = _start_helper()
open(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'relu_orphan_helper.name'), 'w').write(_HELPER)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return cawb_ext.relu_forward(x.contiguous())
