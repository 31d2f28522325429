"""Half precision (issue 28, item 4): tasks declare their dtype, the harness runs the reference in it, the verifier
uses the dtype's tolerance ([eval] tolerance_bf16), and results, baselines, trajectory headers and reports name it.
The bf16 tasks are in data/tasks_bf16; their CPU solutions in tests/solutions/cpu/*_bf16_* (each with an ABOUT)."""
import json, shutil
from pathlib import Path
import pytest
from conftest import ROOT, run_cawb
from cuda_agent_wb.config import get_settings
from cuda_agent_wb.tasks import load_task, load_tasks, task_dtype
from cuda_agent_wb.reward import Evaluator

SOL, BF16 = ROOT/'tests/solutions/cpu', ROOT/'data/tasks_bf16'
VERIFY = ('compile', 'verify')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cpu')
    yield e
    e.close()


def test_bf16_variants_of_bundled_tasks():
    "At least five bundled tasks have a bf16 variant: the same program with DTYPE = 'bf16'; the fp32 ones stay fp32."
    tasks, errors = load_tasks(BF16)
    assert errors == [] and len(tasks) >= 5
    for t in tasks:
        twin = ROOT/'data/tasks'/f"{t.id.removesuffix('_bf16')}.py"
        body = lambda src: [l for l in src.splitlines()[1:] if l != 'DTYPE = "bf16"']
        assert body(t.source) == body(twin.read_text()), t.id
        assert (t.dataset, t.dtype, task_dtype(t, 'cpu'), task_dtype(t, 'gpu')) == ('bundled', 'bf16', 'bf16', 'bf16'), t.id
        assert task_dtype(load_task(twin), 'cpu') == 'fp32'
    from cuda_agent_wb.audit import audit_task
    row = audit_task(tasks[0])                              # the degenerate-task audit judges at the dtype's tolerance too
    assert (row['status'], row['dtype'], (row['atol'], row['rtol'])) == ('ok', 'bf16', get_settings().eval.tolerance_bf16), row
    r = run_cawb('tasks', 'list', BF16)
    assert r.returncode == 0 and 'dtype' in r.stdout.splitlines()[0], r.stdout
    assert all(l.split()[-1] == 'bf16' for l in r.stdout.splitlines()[1:]), r.stdout


def test_bad_dtype_is_one_sentence(tmp_path):
    bad = tmp_path/'relu_fp8.py'
    bad.write_text((ROOT/'data/tasks/relu.py').read_text().replace('PRESETS', 'DTYPE = "fp8"\nPRESETS', 1))
    tasks, errors = load_tasks(tmp_path)
    assert tasks == [] and errors == [f"{bad}:6: DTYPE = 'fp8' is not a dtype the workbench knows: use one of 'fp32', 'fp16', 'bf16'"], errors
    r = run_cawb('tasks', 'list', bad)
    assert r.returncode == 1 and "relu_fp8.py:6: DTYPE = 'fp8'" in r.stderr, r.stderr


@pytest.mark.parametrize('task,sol,strict', [('relu_bf16', 'relu_bf16_valid', False), ('scale_gelu_bf16', 'scale_gelu_bf16_valid', True)])
def test_honest_bf16_solution_passes_at_the_bf16_tolerance(ev, task, sol, strict):
    "A C++ kernel on bf16 data passes; the tolerance is [eval] tolerance_bf16 (the strict profile is fp32's) and the result says so."
    r = ev.evaluate(load_task(BF16/f'{task}.py'), SOL/sol, stages=VERIFY, strict=strict)
    assert r.correct and r.reward >= 1 and not r.flags, r.to_dict()
    atol, rtol = get_settings().eval.tolerance_bf16
    assert r.dtype == 'bf16' and r.to_dict()['dtype'] == 'bf16'
    assert r.env['tolerance'] == {'atol': atol, 'rtol': rtol, 'dtype': 'bf16', 'from': '[eval] tolerance_bf16'}, r.env
    assert f"verify: ok (bf16: atol {atol:g}, rtol {rtol:g})" in r.summary(), r.summary()


def test_wrong_bf16_result_rejected(ev):
    "A kernel that keeps 3 of bf16's 7 mantissa bits is wrong at the bf16 tolerance; an fp32 kernel refuses bf16 inputs."
    r = ev.evaluate(load_task(BF16/'scale_gelu_bf16.py'), SOL/'scale_gelu_bf16_3bit', stages=VERIFY)
    assert r.reward == -1 and r.flags == ['incorrect_output'] and r.dtype == 'bf16', r.to_dict()
    r = ev.evaluate(load_task(BF16/'relu_bf16.py'), SOL/'relu_valid', stages=VERIFY)
    assert r.reward == -1 and 'float32' in r.error, r.to_dict()


def test_bf16_compute_on_fp32_task_still_flagged(ev):
    "On the fp32 linear_relu, a GEMM that rounds its operands to bf16 is precision_downgrade; the result names fp32 and its tolerance."
    r = ev.evaluate(load_task(ROOT/'data/tasks/linear_relu.py'), SOL/'linear_relu_bf16', stages=VERIFY)
    assert r.reward == -1 and 'precision_downgrade' in r.flags, r.to_dict()
    assert r.dtype == 'fp32' and r.env['tolerance']['from'] == '[eval] atol, rtol'


def test_bf16_profiled_and_baselines_keyed_by_dtype(ev):
    "A full evaluation of a bf16 kernel: timed against bf16 eager and torch.compile baselines, cached apart from the fp32 task's."
    from cuda_agent_wb.profile import baseline_key
    r = ev.evaluate(load_task(BF16/'relu_bf16.py'), SOL/'relu_bf16_valid')
    assert r.correct and r.stage == 'done' and r.timings['eager']['median'] > 0 and r.speedup_vs_compile, r.to_dict()
    fp = {'device': 'x', 'torch': 't', 'cuda': None, 'precision': {}}
    fp32, bf16 = load_task(ROOT/'data/tasks/relu.py'), load_task(BF16/'relu_bf16.py')
    assert baseline_key(fp32, 'cpu', fp, 10, 3, True) != baseline_key(bf16, 'cpu', fp, 10, 3, True)


def test_dtype_in_trajectory_header_and_report(ev, tmp_path):
    "A scripted bf16 episode: its header names bf16; the eval report (mixed with an fp32 trajectory) names both, per dtype."
    from cuda_agent_wb.policy import ScriptedPolicy
    from cuda_agent_wb.rollout import run_trajectory, read_trajectory, load_trajectories
    from cuda_agent_wb.eval import write_report
    src = SOL/'relu_bf16_valid'
    writes = [{'tool': 'write_file', 'args': {'path': str(p.relative_to(src)), 'content': p.read_text()}}
              for p in sorted(src.rglob('*')) if p.is_file() and p.name != 'ABOUT']
    pol = ScriptedPolicy(writes + [{'tool': 'verify'}, {'tool': 'finish', 'args': {'summary': 'bf16 relu'}}])
    out = tmp_path/'traj'
    run_trajectory(load_task(BF16/'relu_bf16.py'), pol, ev, out, backend='cpu', mode='eval')
    t = read_trajectory(out/'relu_bf16__s0.jsonl')
    assert t['header']['dtype'] == 'bf16' and t['summary']['best_reward'] >= 1, t['summary']
    shutil.copy(ROOT/'data/trajectories/cpu/relu__s0.jsonl', out)          # recorded before dtypes: counted fp32
    assert sorted(load_trajectories(out)[0]['dtype']) == ['bf16', 'fp32']
    res = write_report(out, tmp_path/'report')
    m = json.loads((tmp_path/'report/metrics.json').read_text())
    assert {s['task_id']: s['dtype'] for s in m['solutions']} == {'relu_bf16': 'bf16', 'relu': 'fp32'}
    assert {'dtype bf16', 'dtype fp32'} <= set(m['metrics']) and any('dtype: bf16, fp32' in l for l in m['run']), m['run']
    assert '<td>bf16</td>' in (tmp_path/'report/report.html').read_text()
