import os, signal, socket, subprocess, sys, threading, time
import httpx
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
CAWB = str(Path(sys.executable).parent / 'cawb')
# tests evaluate in-process unless they start a service and name it (a developer's running `cawb serve` is not used)
os.environ.setdefault('CAWB_SERVICE_USE', 'never')
# OpenMP threads sleep at barriers instead of spinning: on a busy 2-core CI machine (under-load) spinning made
# test_toy_reward_rises take 261 s instead of 47 s (23 s on idle cores either way); subprocesses inherit it
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')


def run_cawb(*args, timeout=600, env=None, cwd=ROOT):
    "Run the `cawb` console script; returns the CompletedProcess."
    return subprocess.run([CAWB, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env={**os.environ, **(env or {})})


def shard(config, items):
    "CAWB_TEST_SHARD='k/n': keep every n-th test from the k-th (a suite longer than one device call, run in n calls)."
    spec = os.environ.get('CAWB_TEST_SHARD')
    if not spec: return
    try: k, n = map(int, spec.split('/')); assert 1 <= k <= n
    except (ValueError, AssertionError): raise pytest.UsageError(f"CAWB_TEST_SHARD={spec!r}: expected k/n with 1 <= k <= n") from None
    kept = [it for i, it in enumerate(items) if i % n == k - 1]
    config.hook.pytest_deselected(items=[it for it in items if it not in kept]); items[:] = kept


def pytest_collection_modifyitems(config, items):
    shard(config, items)
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except Exception:
        has_cuda = False
    if has_cuda: return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for it in items:
        if 'gpu' in it.keywords: it.add_marker(skip)


def interpreter_evaluator():
    """A CPU evaluator for Triton under its interpreter, which runs each kernel in Python: one verify of
    layernorm_gelu_residual's script took over the 10 s phase floor on a loaded 2-core CI machine (fresh clone of
    1a388bc). These tests check what the candidates compute and what they are flagged for; the time limits are
    test_evaluator's, so here the floor is 150 s (under the sandbox's 180 s run_timeout)."""
    from cuda_agent_wb.config import load_settings
    from cuda_agent_wb.reward import Evaluator
    return Evaluator('cpu', settings=load_settings(env=dict(os.environ, CAWB_SANDBOX_PHASE_FLOOR_S='150')))


def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


LAUNCHED = []                    # every server a test or fixture started, with the pytest phase that started it


@pytest.fixture(autouse=True)
def stop_servers_left_running():
    "A server started in a test's body and still running when the test ends (it failed before its own stop) is stopped."
    yield
    for s in [s for s in LAUNCHED if s.owner.endswith('(call)')]:
        LAUNCHED.remove(s)
        if s.proc.poll() is None: s.stop()


class ServerProcess:
    "A `cawb` server subprocess on loopback (`args` after `cawb`), its output collected; ready once /health answers."
    what, stop_s = 'server', 20

    def launch(self, args: list, ready_s: float = 180):
        self.proc = subprocess.Popen([CAWB, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=self.env)
        self.owner = os.environ.get('PYTEST_CURRENT_TEST', ''); LAUNCHED.append(self)
        threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stdout.readline, '')), daemon=True).start()
        t0 = time.time()
        while time.time() - t0 < ready_s:
            assert self.proc.poll() is None, ''.join(self.lines)
            try:
                if httpx.get(self.url + '/health', timeout=2).status_code == 200: return self
            except httpx.TransportError: pass
            time.sleep(0.3)
        raise AssertionError(f"{self.what} not ready in {ready_s} s:\n{''.join(self.lines)}")

    def kill(self):
        self.proc.kill(); self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None: self.proc.send_signal(signal.SIGINT)
        try: self.proc.wait(self.stop_s)
        except subprocess.TimeoutExpired: self.kill()


class Service(ServerProcess):
    "A `cawb serve` subprocess on loopback; its status lines collected."
    what = 'service'

    def __init__(self, db: Path, port: int, workers: int = 2, env=None):
        self.db, self.port, self.workers, self.env, self.lines = db, port, workers, {**os.environ, **(env or {})}, []
        self.url = f"http://127.0.0.1:{port}"

    def start(self, ready_s: float = 180):
        return self.launch(['serve', '--backend', 'cpu', '--workers', str(self.workers), '--port', str(self.port), '--db', str(self.db)], ready_s)

    def status(self): return httpx.get(self.url + '/status', timeout=120).json()   # generous: a loaded machine answers late, never wrongly


class EnvServer(ServerProcess):
    "A `cawb env-serve` subprocess on loopback (CPU backend); its output collected."
    what, stop_s = 'env server', 30

    def __init__(self, port: int, *args, env=None):
        self.port, self.args, self.env, self.lines = port, [str(a) for a in args], {**os.environ, **(env or {})}, []
        self.url = f"http://127.0.0.1:{port}"

    def start(self, ready_s: float = 180): return self.launch(['env-serve', '--port', str(self.port), *self.args], ready_s)

    def info(self, token=None):
        return httpx.get(self.url + '/info', timeout=10, headers={'Authorization': f"Bearer {token}"} if token else {}).json()
