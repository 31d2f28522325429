"""Triton solutions in the evaluator (tests/solutions/triton/*, each saying what it tries). On the CPU backend they run
under Triton's interpreter: valid ones accepted (reward 1, timings labelled `triton-interpreter`, no speedups), each
adversarial one rejected with its named flag. The `gpu` tests (compiled Triton, per-candidate cache, side stream) run
only where CUDA is."""
import pytest
from conftest import ROOT, interpreter_evaluator
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.verify import REVIEW_FLAGS

pytest.importorskip('triton', reason="triton is the optional extra 'triton' (make install installs it)")
from cuda_agent_wb.reward import Evaluator   # noqa: E402

SOL = ROOT / 'tests/solutions/triton'
TASK = {'relu_odd': ROOT / 'tests/tasks/relu_odd.py', 'softmax_odd': ROOT / 'tests/tasks/softmax_odd.py', 'relu': ROOT / 'data/tasks/relu.py'}
VERIFY = ('compile', 'verify')


def task_of(name):
    return load_task(TASK[next(k for k in sorted(TASK, key=len, reverse=True) if name.startswith(k))])


@pytest.fixture(scope='module')
def ev():
    e = interpreter_evaluator()
    yield e
    e.close()


@pytest.mark.parametrize('name', ['relu_odd_valid', 'softmax_odd_valid', 'relu_odd_inline_autotune.py'])
def test_valid_triton_accepted_by_the_interpreter(ev, name):
    r = ev.evaluate(task_of(name), SOL / name, stages=VERIFY)
    assert r.correct and r.reward == 1 and not r.flags, r.to_dict()
    assert (r.language, r.kernel_runtime, r.backend) == ('triton', 'triton-interpreter', 'cpu')


REJECT = {
    'relu_odd_no_tail': {'nan_inf', 'incorrect_output'},
    'relu_odd_uninitialized': {'nan_inf', 'incorrect_output'},
    'softmax_odd_past_end': {'incorrect_output', 'nan_inf', 'near_constant_output', 'crashed'},
    'relu_odd_torch_tail': {'forbidden_op'},
    'relu_odd_inline_python_kernel.py': {'forbidden_op'},
    'relu_odd_inline_decoy.py': {'forbidden_op'},
    'relu_odd_thread': {'unsynchronized_output', 'background_thread'},
}


@pytest.mark.parametrize('name', sorted(REJECT))
def test_adversarial_triton_rejected(ev, name):
    r = ev.evaluate(task_of(name), SOL / name, stages=VERIFY)
    assert r.reward == -1 and set(r.flags) & REJECT[name] and r.error, (name, r.flags, r.error)
    assert r.language == 'triton'


def test_torch_inside_a_launch_is_still_forbidden(ev):
    "The interpreter's own copies inside a launch pass the tracer; torch compute the kernel body calls does not."
    r = ev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_inline_python_kernel.py', stages=VERIFY)
    assert 'relu' in r.flag_details['forbidden_op'] and 'copy_' not in r.flag_details['forbidden_op'], r.to_dict()


def test_interpreter_timings_labelled_no_speedup_claimed(ev):
    r = ev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_valid')
    assert r.correct and r.reward == 1 and r.reward_continuous == 0 and not [f for f in r.flags if f not in REVIEW_FLAGS], r.to_dict()   # timing_disturbed is a review flag: it comes with the machine's load
    assert r.speedup_vs_eager is None and r.speedup_vs_compile is None and 'eager' not in r.timings
    assert r.timings['label'] == 'triton-interpreter' and r.timings['candidate']['median'] > 0
    assert [k['name'] for k in r.timings['candidate_kernels']][0] == 'triton::relu_kernel'
    assert r.custom_kernel_share > 0.5 and "Triton's interpreter" in r.summary()


def test_autotune_choice_reported(ev):
    r = ev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_inline_autotune.py', stages=VERIFY)
    assert r.correct and set(r.autotune) == {'relu_kernel'} and 'BLOCK' in r.autotune['relu_kernel'], r.to_dict()


@pytest.mark.parametrize('name', ['relu_odd_inline_decoy.py', 'relu_odd_inline_token_decoy.py'])
def test_decoy_launch_under_kernelbench_rules(ev, name):
    "Kernelbench rules: a Triton kernel never launched, or launched on one element, while torch.relu does the work."
    r = ev.evaluate(task_of('relu_odd'), SOL / name, rules='kernelbench')
    assert r.reward == -1 and 'no_custom_kernel' in r.flags and r.custom_kernel_share < 0.01, r.to_dict()
    assert 'interpreted Triton launches stored' in r.flag_details['no_custom_kernel']
    ok = ev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_valid', rules='kernelbench')
    assert ok.correct and not [f for f in ok.flags if f not in REVIEW_FLAGS] and ok.custom_kernel_share > 0.5, ok.to_dict()


@pytest.fixture(scope='module')
def gev():
    e = Evaluator('cuda')
    yield e
    e.close()


@pytest.mark.gpu
def test_gpu_compiled_triton_cache_per_candidate(gev):
    "Compiled Triton on a GPU: correct, timed against the baselines, its kernels in the candidate's own cache."
    from cuda_agent_wb.triton_eval import triton_cache_dir
    from cuda_agent_wb.workdir import load_solution
    r = gev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_valid')
    assert r.correct and r.kernel_runtime == 'compiled' and r.speedup_vs_eager is not None, r.to_dict()
    assert r.custom_kernel_share > 0.5 and any(triton_cache_dir(load_solution(SOL / 'relu_odd_valid').hash).iterdir())
    a = gev.evaluate(task_of('relu_odd'), SOL / 'relu_odd_inline_autotune.py')
    assert a.correct and set(a.autotune) == {'relu_kernel'}, a.to_dict()


@pytest.mark.gpu
def test_gpu_triton_side_stream_rejected(gev):
    r = gev.evaluate(task_of('relu'), ROOT / 'tests/solutions/triton_cuda/relu_side_stream')
    assert r.reward == -1 and 'unsynchronized_output' in r.flags, r.to_dict()
