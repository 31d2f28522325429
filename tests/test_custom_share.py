"""Decoys by measurement under kernelbench rules (issue 48, item 7): a solution whose own kernel does a trivial share of
the work beside torch's compute is `no_custom_kernel` ([eval] min_custom_share); the valid bundled solutions, whose own
kernels do the work, are not. CPU backend: there the share sets allocation and view ops aside and cannot see the
candidate's own C++ time (nbs/05a_hacks), which the strict xfail below keeps in view."""
import pytest
from conftest import ROOT
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator

SOL = ROOT / 'tests/solutions/cpu'


def task(name): return load_task(ROOT / 'data/tasks' / f'{name}.py')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cpu')
    yield e
    e.close()


def test_scalar_decoy_beside_addmm_is_no_custom_kernel(ev):
    "Its own kernel writes one element of the output torch's addmm and relu computed."
    r = ev.evaluate(task('linear_relu'), SOL / 'linear_relu_scalar_decoy.py', rules='kernelbench')
    assert r.reward == -1 and 'no_custom_kernel' in r.flags, r.to_dict()
    assert r.custom_kernel_share is not None and r.custom_kernel_share < 0.05


@pytest.mark.parametrize('task_name,sol', [('relu', 'relu_valid'), ('linear_relu', 'linear_relu_valid'),
                                           ('relu', 'relu_inline_valid.py'), ('relu', 'relu_bf16_valid')])
def test_valid_solutions_not_flagged(ev, task_name, sol):
    t = load_task(ROOT / 'data/tasks_bf16/relu_bf16.py') if sol == 'relu_bf16_valid' else task(task_name)
    r = ev.evaluate(t, SOL / sol, rules='kernelbench')
    assert r.correct and 'no_custom_kernel' not in r.flags and r.custom_kernel_share == 1.0, r.to_dict()


@pytest.mark.xfail(strict=True, reason="the CPU profile does not show the candidate's own C++ time: an own epilogue beside torch.mm reads 0")
def test_epilogue_beside_torch_mm_not_flagged_on_cpu(ev):
    r = ev.evaluate(task('linear_relu'), SOL / 'linear_relu_epilogue.py', rules='kernelbench')
    assert r.correct and 'no_custom_kernel' not in r.flags, r.to_dict()
