"""Nothing a candidate starts outlives its evaluation (issue 48, item 4): a helper started in a new session by a double
fork, which a process-group kill misses, is gone when the result is returned, and when the evaluator closes — where the
sandbox gives each candidate its own PID namespace (root); elsewhere these tests are skipped, saying why."""
import os, signal, time
import pytest
from conftest import ROOT
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator
from cuda_agent_wb.candidate import _torch_ext_dir

SOL = ROOT / 'tests/solutions/cpu'
ORPHAN = '''
import ctypes, os, secrets, time
name, (r, w) = 'cawborph' + secrets.token_hex(3), os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)      # PR_SET_NAME: found by name from outside
        os.write(w, b'1'); time.sleep(600)
    os._exit(0)
os.close(w); os.read(r, 1); chan.send({'result': name}); time.sleep(600)   # its session stays open: its namespace (and the helper) end only with it
'''


def running(pid: int) -> bool:
    "Whether `pid` is a live process (a zombie is not)."
    try: return open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError: return False


def named(name: str) -> list[int]:
    "Live processes named `name` (a helper inside a PID namespace cannot tell its pid out here: it names itself)."
    out = []
    for p in filter(str.isdigit, os.listdir('/proc')):
        try:
            if open(f'/proc/{p}/comm').read().strip() == name and running(int(p)): out.append(int(p))
        except OSError: pass
    return out


def kill_all(pids):
    for p in pids: os.kill(p, signal.SIGKILL)


def containment(ev) -> str:
    "The sandbox's containment of a candidate's processes here: 'namespace' or 'process group'."
    s = ev.sandbox.start('cuda_agent_wb.sandbox:probe_job', {'code': 'result = 1'})
    try: s.recv(); return s.isolation['pids']
    finally: s.close()


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cpu')
    if containment(e) != 'namespace': e.close(); pytest.skip("no PID namespace for candidates here (not root)")
    yield e
    e.close()


def test_detached_helper_gone_with_the_result(ev):
    "relu_orphan_helper's import starts a helper in a new session (double fork); the result is right and the helper gone."
    namefile = _torch_ext_dir() / 'relu_orphan_helper.name'
    namefile.unlink(missing_ok=True)
    r = ev.evaluate(load_task(ROOT / 'data/tasks/relu.py'), SOL / 'relu_orphan_helper', stages=('compile', 'verify'))
    left = named(namefile.read_text())         # written once the helper runs
    kill_all(left)
    assert not left, f"helper {left} outlived the evaluation"
    assert r.correct and not r.flags, r.to_dict()


def test_closing_the_evaluator_ends_every_process():
    "A session still running with a detached helper, and the zygote: all gone once Evaluator.close() returns."
    e = Evaluator('cpu')
    s = e.sandbox.start('cuda_agent_wb.sandbox:probe_job', {'code': ORPHAN})
    helper, zygote = s.recv()['result'], e.sandbox.proc.pid
    assert named(helper)
    if s.isolation['pids'] != 'namespace':
        kill_all(named(helper)); e.close(); pytest.skip("no PID namespace for candidates here (not root)")
    live = e.sandbox.start('cuda_agent_wb.sandbox:probe_job', {'code': 'import time; time.sleep(600)'}); live.connect()
    e.close()
    left = named(helper) + [p for p in (live.cpid, live.pid, zygote) if running(p)]
    kill_all(left)
    assert not left, f"still running after close: {left} (helper, sleeping candidate, its init, zygote)"
