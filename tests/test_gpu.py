"""The evaluator's CUDA path (run on a GPU; skipped without CUDA). Set CAWB_GPU_RESULTS=path.json to keep every
result with the device and versions (the device run stores it in bench/results/)."""
import json, os
from pathlib import Path
import pytest
from conftest import ROOT
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator

pytestmark = pytest.mark.gpu
SOL = ROOT / 'tests/solutions/cuda'
RESULTS = []


def task(name): return load_task(ROOT / 'data/tasks' / f'{name}.py')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cuda')
    yield e
    e.close()
    out = os.environ.get('CAWB_GPU_RESULTS')
    if out: Path(out).write_text(json.dumps(RESULTS, indent=1, default=str))


def run(ev, task_name, sol, **kw):
    r = ev.evaluate(task(task_name), SOL / sol, **kw)
    RESULTS.append({'solution': sol, **r.to_dict()})
    return r


@pytest.mark.parametrize('task_name,sol', [('relu', 'relu_valid'), ('rmsnorm_silu_mul', 'rmsnorm_silu_mul_valid'),
                                          ('linear_relu', 'linear_relu_cublas')])
def test_cuda_solution_accepted_with_speedups(ev, task_name, sol):
    r = run(ev, task_name, sol)
    assert r.compiled and r.correct and r.reward >= 1, r.to_dict()
    assert r.speedup_vs_eager > 0 and r.speedup_vs_compile > 0
    assert r.env['device_type'] == 'cuda' and r.env['precision']['allow_tf32'] is False


@pytest.mark.parametrize('task_name,sol,flags', [
    ('relu', 'relu_side_stream', {'unsynchronized_output', 'timer_inconsistent', 'timed_output_mismatch', 'nan_inf'}),
    ('relu', 'relu_illegal_address', {'runtime_error', 'crashed'}),
    ('relu', 'relu_result_reuse', {'timed_output_mismatch'}),
    ('relu', 'relu_torch_python', {'forbidden_op'}),
    ('relu', 'relu_uninitialized', {'nan_inf'}),
    ('linear_relu', 'linear_relu_tf32', {'precision_downgrade'}),
])
def test_cuda_exploit_rejected(ev, task_name, sol, flags):
    r = run(ev, task_name, sol)
    assert r.reward == -1 and set(r.flags) & flags, r.to_dict()


def test_infinite_loop_times_out_and_evaluator_goes_on(ev):
    old = ev.sandbox.run_timeout
    ev.sandbox.run_timeout = 30
    try:
        r = run(ev, 'relu', 'relu_infinite_loop', stages=('compile', 'verify'))
    finally:
        ev.sandbox.run_timeout = old
    assert r.flags == ['timeout'], r.to_dict()
    assert run(ev, 'relu', 'relu_valid', stages=('compile', 'verify')).correct
