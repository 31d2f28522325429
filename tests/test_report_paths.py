"""Every report path on the runs an untrained or crashed policy leaves: `cawb eval`, the eval and explore workflow
notebooks (papermill), the HTML report, metrics.json and the explorer, on a run where nothing passed (made by the real
rollout runner with a scripted policy that writes broken kernels), a trajectory cut off mid-run, a set mixing
backends, and an empty folder."""
import json, shutil, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT, run_cawb

PAPERMILL = str(Path(sys.executable).parent / 'papermill')

# a policy that always fails: a kernel missing a semicolon, then one that builds but is wrong
FAILING_SCRIPT = [
    {"say": "One OpenMP loop.", "tool": "write_file", "args": {"path": "kernels/relu.cpp", "content": {"file": "v1/relu.cpp"}}},
    {"tool": "write_file", "args": {"path": "kernels/relu_binding.cpp", "content": {"file": "v1/relu_binding.cpp"}}},
    {"tool": "write_file", "args": {"path": "model_new.py", "content": {"file": "v1/model_new.py"}}},
    {"tool": "compile"},
    {"say": "This one builds but computes the wrong value.", "tool": "write_file", "args": {"path": "kernels/relu.cpp", "content": {"file": "v1/wrong.cpp"}}},
    {"tool": "verify"},
    {"tool": "finish", "args": {"summary": "gave up"}}]


def failing_run(tmp: Path) -> Path:
    "A real rollout (`cawb rollout`, scripted) of a policy whose kernels never pass, into tmp/'failed'."
    scripts = tmp/'scripts'/'cpu'/'relu'
    shutil.copytree(ROOT/'data/scripts/cpu/relu/v1', scripts/'v1')
    good = (scripts/'v1'/'relu.cpp').read_text()
    assert 'x[i] : 0.f\n' in good                          # the bundled v1 misses its semicolon: a compile error
    (scripts/'v1'/'wrong.cpp').write_text(good.replace('x[i] : 0.f\n', 'x[i] : 1.f;\n'))
    (scripts/'script.json').write_text(json.dumps(FAILING_SCRIPT))
    r = run_cawb('rollout', ROOT/'data/tasks/relu.py', '--policy', 'scripted', '--scripts', tmp/'scripts', '--backend', 'cpu', '--out', tmp/'failed')
    assert r.returncode == 0, r.stderr[-2000:]
    return tmp/'failed'


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    "{'failed', 'cut', 'mixed', 'empty'}: trajectory folders."
    tmp = tmp_path_factory.mktemp('runs')
    failing_run(tmp)
    (tmp/'cut').mkdir(); (tmp/'mixed').mkdir(); (tmp/'empty').mkdir()
    lines = (ROOT/'data/trajectories/cpu/conv2d__s0.jsonl').read_text().splitlines(keepends=True)
    (tmp/'cut'/'conv2d__s0.jsonl').write_text(''.join(lines[:5]) + lines[5][:40])   # a crash: 4 steps, a torn line, no summary
    shutil.copy(tmp/'failed'/'relu__s0.jsonl', tmp/'mixed')
    shutil.copy(tmp/'cut'/'conv2d__s0.jsonl', tmp/'mixed'/'conv2d__s0.jsonl')
    for t in ('matmul', 'softmax'): shutil.copy(ROOT/'data/trajectories/cuda'/f'{t}__s0.jsonl', tmp/'mixed')
    return {k: tmp/k for k in ('failed', 'cut', 'mixed', 'empty')}


def test_failing_policy_trajectory_has_workdir_paths(runs):
    text = (runs['failed']/'relu__s0.jsonl').read_text()
    assert 'kernels/relu.cpp:6:' in text and 'builds/src' not in text and str(ROOT) + '/' not in text.split('"system_prompt"')[1]


def test_eval_nothing_passed(runs, tmp_path):
    r = run_cawb('eval', runs['failed'], '--report-dir', tmp_path/'r')
    assert r.returncode == 0 and 'Traceback' not in r.stdout + r.stderr, r.stderr[-3000:]
    assert 'pass rate' in r.stdout and 'not correct: 1 of 1' in r.stdout
    m = json.loads((tmp_path/'r'/'metrics.json').read_text())
    test = m['metrics']['overall']
    assert (test['pass_rate'], test['n_correct'], test['faster_than_eager_significant']) == (0.0, 0, 0.0)
    assert m['failures'] and {f['reason'] for f in m['failures']} <= {'compile_error', 'incorrect_output'}
    html = (tmp_path/'r'/'report.html').read_text()
    assert 'What failed and why' in html and 'nothing to plot' in html


def test_eval_cut_off_and_mixed(runs, tmp_path):
    r = run_cawb('eval', runs['cut'], '--report-dir', tmp_path/'cut')
    assert r.returncode == 0 and 'Traceback' not in r.stderr, r.stderr[-3000:]
    assert '1 trajectories cut off (no summary record), scored on the steps they have: conv2d #0' in r.stdout
    m = json.loads((tmp_path/'cut'/'metrics.json').read_text())
    assert m['solutions'][0]['finished'] is False and m['solutions'][0]['turns'] == 4
    assert 'cut off (scored on the steps it has): conv2d #0, 4 turns' in (tmp_path/'cut'/'report.html').read_text()
    r = run_cawb('eval', runs['mixed'], '--report-dir', tmp_path/'mix')
    assert r.returncode == 0 and 'Traceback' not in r.stderr, r.stderr[-3000:]
    m = json.loads((tmp_path/'mix'/'metrics.json').read_text())
    assert {'backend cpu', 'backend cuda'} <= set(m['metrics']) and 'backends mixed' in r.stdout
    cuda = [s for s in m['solutions'] if s['backend'] == 'cuda']
    for s in cuda:        # each candidate's and baseline's median with its 95 % CI, and the speedup's interval
        assert s['candidate_ci_low_ms'] <= s['candidate_ms'] <= s['candidate_ci_high_ms']
        assert s['speedup_vs_eager_ci_low'] <= s['speedup_vs_eager'] <= s['speedup_vs_eager_ci_high']
    ov = m['metrics']['overall']
    assert ov['faster_than_eager_significant'] <= ov['faster_than_eager']


def test_eval_empty_folder_one_sentence(runs, tmp_path):
    r = run_cawb('eval', runs['empty'], '--report-dir', tmp_path/'r')
    assert r.returncode != 0 and 'Traceback' not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert 'no trajectories' in r.stderr


def _papermill(nb, out, **params):
    args = [PAPERMILL, str(ROOT/'nbs/workflows'/nb), str(out), '--cwd', str(ROOT)]
    for k, v in params.items(): args += ['-p', k, str(v)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and 'Unable to parse' not in r.stderr, r.stderr[-3000:]
    cells = json.loads(Path(out).read_text())['cells']
    outs = [o for c in cells for o in c.get('outputs', [])]
    assert not [o for o in outs if o['output_type'] == 'error'], [o for o in outs if o['output_type'] == 'error']
    return ''.join(''.join(o.get('text', '')) for o in outs if o['output_type'] == 'stream'), outs


@pytest.mark.parametrize('which', ['failed', 'cut', 'mixed', 'empty'])
def test_workflow_notebooks(runs, tmp_path, which):
    text, outs = _papermill('eval.ipynb', tmp_path/'eval.ipynb', trajectories=runs[which], report_dir=tmp_path/'r')
    if which == 'empty': assert text.strip() == f"nothing to score: {runs['empty']}: no trajectories (<task>__s<k>.jsonl files) in it or its subfolders"
    else:
        assert 'not correct' in text and (tmp_path/'r'/'report.html').exists()
        assert any('application/vnd.plotly.v1+json' in o.get('data', {}) and 'text/html' in o['data'] for o in outs)   # an HTML fallback
    text, outs = _papermill('explore.ipynb', tmp_path/'explore.ipynb', trajectories=runs[which])
    assert ('No trajectories to explore' in text) == (which == 'empty'), text


@pytest.mark.parametrize('which', ['failed', 'cut', 'mixed'])
def test_explorer_steps_through_every_turn(runs, which):
    from cuda_agent_wb.explore import Explorer
    ex = Explorer(runs[which])
    assert len(ex.index) and not ex.errors
    for f in ex.index['file']:
        ex.show(f)
        for k in range(ex.step.min, ex.step.max + 1):
            ex.step.value = k
            assert ex.shown_turn == k and f'<b>turn {k}</b>' in ex.panes['header'].value


def test_tasks_list_run_times_as_the_evaluator(tmp_path):
    "`cawb tasks list --run` times the eager forward through the evaluator's timer: a median in ms inside its 95 % CI."
    r = run_cawb('tasks', 'list', ROOT/'data/tasks/relu.py', '--run', timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    head, row = r.stdout.splitlines()[:2]
    assert 'eager_ms' in head and 'eager_ci95_ms' in head
    med, lo, hi = row.split()[-3], *row.split('[')[1].rstrip(']').split(',')
    assert float(lo) <= float(med) <= float(hi), row
