"""The sanitizer stage on the CPU (`cuda_agent_wb.sanitize`): adversarial solutions that a plain evaluation accepts
(tests/solutions/cpu/*, each with an ABOUT) are rejected with the named flag; valid bundled solutions, OpenMP ones
included, are not flagged; a tool that cannot run says so in one sentence."""
import json, time
from pathlib import Path
import pytest
from conftest import ROOT, run_cawb
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator
from cuda_agent_wb.build import get_backend
from cuda_agent_wb.workdir import load_solution
from cuda_agent_wb.sanitize import sanitize, run_tool, tool_missing

SOL = ROOT / 'tests/solutions/cpu'
TASKS = ROOT / 'data/tasks'
# relu_oob_slack: test_eval_episode_final_solution_sanitized; relu_signed_wrap: test_cli_evaluate_sanitize
ADVERSARIAL = {'relu_uninit_read': ('relu', 'uninitialized_read'), 'sum_reduce_racy': ('sum_reduce', 'race')}
pytestmark = pytest.mark.skipif(tool_missing('asan') or tool_missing('tsan'), reason='g++ has no sanitizer runtimes here')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cpu')
    yield e
    e.close()


@pytest.mark.parametrize('name', sorted(ADVERSARIAL))
def test_adversarial_passes_plain_rejected_sanitized(ev, name):
    task, flag = ADVERSARIAL[name]
    t = load_task(TASKS / f'{task}.py')
    plain = ev.evaluate(t, SOL / name, stages=('compile', 'verify'))
    assert plain.correct and plain.reward >= 1, plain.to_dict()          # what a plain evaluation accepts
    san = sanitize(t, SOL / name, 'cpu')
    assert [f.name for f in san.flags] == [flag], san.summary()
    assert 'kernels/' in san.flags[0].detail and '\n' not in san.flags[0].detail, san.flags[0].detail   # the tool's first report, one paragraph, a line of the source
    assert not any(run['status'] == 'failed' for run in san.tools), san.tools


VALID = [ROOT / 'data/trajectories/cpu/best/softmax__s0']     # an OpenMP reduction; every bundled one: bench/results/sanitize_cpu.json


@pytest.mark.parametrize('path', VALID, ids=lambda p: p.name)
def test_valid_openmp_not_flagged(path):
    task = TASKS / f"{path.name.split('__')[0] if '__' in path.name else 'relu'}.py"
    san = sanitize(load_task(task), path, 'cpu')
    assert san.clean, san.summary()
    assert '#pragma omp' in ''.join(load_solution(path).files.values())       # OpenMP solutions, built with OpenMP under AddressSanitizer
    asan = next(r for r in san.tools if r['tool'] == 'asan')
    assert asan['status'] == 'clean' and asan['calls']['max_abs_diff'][0] < 1e-3, asan


def test_missing_tool_is_one_sentence():
    r = run_tool(load_task(TASKS / 'relu.py'), load_solution(SOL / 'relu_valid'), get_backend('cuda'), 'memcheck')
    if r['status'] != 'unavailable': pytest.skip('compute-sanitizer is installed here')
    assert r['error'].startswith('memcheck: compute-sanitizer was not found') and r['error'].count('. ') == 0, r


def test_cli_evaluate_sanitize():
    "`cawb evaluate --sanitize` on relu_signed_wrap: verification raises nothing (a plain evaluation accepts it); the stage's flag joins the result."
    r = run_cawb('evaluate', TASKS / 'relu.py', SOL / 'relu_signed_wrap', '--backend', 'cpu', '--stages', 'compile,verify', '--sanitize', '--json')
    d = json.loads(r.stdout.strip().splitlines()[-1])
    assert r.returncode == 3 and d['stage'] == 'verify' and d['flags'] == ['undefined_behavior'], r.stdout + r.stderr     # the only flag; 3: rejected (cawb evaluate's exit status)
    assert 'signed integer overflow' in d['flag_details']['undefined_behavior'] and 'kernels/relu.cpp:' in d['flag_details']['undefined_behavior']
    assert d['reward'] == -1 and d['breakdown']['sanitize']['tools'][0]['status'] == 'flagged' and d['breakdown']['sanitize_s'] > 0


def test_eval_episode_final_solution_sanitized(ev, tmp_path):
    "An eval-mode episode that ends with relu_oob_slack: the plain evaluation passes it, the finish step fails it (memory_error)."
    from cuda_agent_wb.agent import KernelEnv
    env = KernelEnv(load_task(TASKS / 'relu.py'), ev, backend='cpu', workdir=tmp_path / 'w', mode='eval')
    env.reset()
    src = SOL / 'relu_oob_slack'
    for p in sorted(src.rglob('*')):
        if p.is_file() and p.name != 'ABOUT': assert env.step({'tool': 'write_file', 'args': {'path': str(p.relative_to(src)), 'content': p.read_text()}}).info['ok']
    assert env.step({'tool': 'verify', 'args': {}}).reward >= 1                   # a plain verify accepts it
    out = env.step({'tool': 'finish', 'args': {'summary': 'relu'}})
    assert out.reward == -1 and 'memory_error' in out.info['result']['flags'], out.observation
    assert out.info['result']['breakdown']['sanitize']['tools'][0]['status'] == 'flagged' and 'sanitizers (cpu' in out.observation


@pytest.mark.parametrize('script', ['sanitize_gpu.py', 'ncu_gpu.py'])
def test_gpu_scripts_say_why_they_cannot_run(script, tmp_path):
    "Without a GPU (or its tool) each GPU script exits 2 with one sentence, also written into its JSON."
    import subprocess, sys, torch
    if torch.cuda.is_available(): pytest.skip('a GPU is visible here')
    r = subprocess.run([sys.executable, str(ROOT / 'bench' / script), '--out', str(tmp_path / 'r.json')], capture_output=True, text=True, timeout=300)
    d = json.loads((tmp_path / 'r.json').read_text())
    assert r.returncode == 2 and r.stderr.strip().count('\n') == 0 and d['error'] in r.stderr and d['commit'], r.stderr


GPU_ADVERSARIAL = {'crpss_oob_slack': ('conv_relu_pool_sigmoid_sum', 'memory_error'), 'relu_uninit_read': ('relu', 'uninitialized_read'),
                   'sum_reduce_racy': ('sum_reduce', 'race')}


@pytest.mark.gpu
@pytest.mark.parametrize('name', sorted(GPU_ADVERSARIAL) + ['relu_valid'])
def test_gpu_sanitizer_stage(name):
    "On a GPU (compute-sanitizer): each adversarial CUDA solution gets its flag, a valid one none (every bundled one: bench/sanitize_gpu.py)."
    task, flag = GPU_ADVERSARIAL.get(name, ('relu', None))
    san = sanitize(load_task(TASKS / f'{task}.py'), ROOT / 'tests/solutions/cuda' / name, 'cuda')
    assert [f.name for f in san.flags] == ([flag] if flag else []), san.summary()
    assert all(t['status'] in ('clean', 'flagged') for t in san.tools), san.tools
