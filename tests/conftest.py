import os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
CAWB = str(Path(sys.executable).parent / 'cawb')
# tests evaluate in-process unless they start a service and name it (a developer's running `cawb serve` is not used)
os.environ.setdefault('CAWB_SERVICE_USE', 'never')


def run_cawb(*args, timeout=600, env=None, cwd=ROOT):
    "Run the `cawb` console script; returns the CompletedProcess."
    return subprocess.run([CAWB, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env={**os.environ, **(env or {})})


def pytest_collection_modifyitems(config, items):
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except Exception:
        has_cuda = False
    if has_cuda: return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for it in items:
        if 'gpu' in it.keywords: it.add_marker(skip)
