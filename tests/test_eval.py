"Eval: the papermill report against a hand count, and `cawb evaluate-dir` on a small KernelBench-layout folder."
import json, shutil, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TRAJ = ROOT/'data/trajectories/cpu'


def hand_count():
    "Count the metrics by hand from the rollout runner's own summary rows (independent of cuda_agent_wb.eval)."
    rows = [json.loads(l) for l in (TRAJ/'rollout_summary.jsonl').read_text().splitlines() if l.strip()]
    ok = [r for r in rows if r['best_reward'] is not None and r['best_reward'] >= 1]     # milestone >= 1 means correct
    e = [r['best_speedup_vs_eager'] for r in ok]; c = [r['best_speedup_vs_compile'] for r in ok]
    gm = lambda xs: __import__('math').prod(xs) ** (1 / len(xs))
    n = len(rows)
    return dict(n=n, n_correct=len(ok), pass_rate=len(ok) / n,
                faster_than_eager=sum(x > 1 for x in e) / n, faster_than_compile=sum(x > 1 for x in c) / n,
                faster_than_compile_1_05=sum(x > 1.05 for x in c) / n,
                geomean_vs_eager=gm(e), geomean_vs_compile=gm(c), fast_2=sum(x > 2 for x in e) / n)


def test_papermill_report_matches_hand_count(tmp_path):
    rep = tmp_path/'rep'
    subprocess.run([str(BIN/'papermill'), str(ROOT/'nbs/workflows/eval.ipynb'), str(tmp_path/'out.ipynb'),
                    '-p', 'trajectories', str(TRAJ), '-p', 'report_dir', str(rep)], check=True, cwd=ROOT,
                   capture_output=True)
    m = json.loads((rep/'metrics.json').read_text())
    assert m['env']['versions']['torch'] and m['paper']['pass_rate'] == 0.988
    got, want = m['metrics']['overall'], hand_count()
    for k, v in want.items():
        g = got['fast_p_eager']['fast_2'] if k == 'fast_2' else got[k]
        assert g == pytest.approx(v, rel=1e-9), k
    html = (rep/'report.html').read_text()
    assert 'Speedup vs torch.compile' in html and "paper (Table 1, CUDA Agent)" in html


WRONG = '''import torch, torch.nn as nn
class ModelNew(nn.Module):
    def forward(self, x): return x * 2.0
'''

def test_evaluate_dir_reverifies(tmp_path):
    kb = tmp_path/'KernelBench'/'level1'; kb.mkdir(parents=True)
    shutil.copy(ROOT/'data/tasks/relu.py', kb/'19_ReLU.py')
    sols = tmp_path/'sols'; sols.mkdir()
    shutil.copy(ROOT/'tests/solutions/cpu/relu_inline_torch.py', sols/'level1_19_torchcall.py')   # flagged: calls torch::relu
    (tmp_path/'wrong').mkdir(); (tmp_path/'wrong'/'level1_19_wrong.py').write_text(WRONG)
    (tmp_path/'map.json').write_text(json.dumps([dict(solution='sols/level1_19_torchcall.py', task='L1/19_ReLU', claimed_speedup=3.0),
                                                dict(solution='wrong/level1_19_wrong.py', task='L1/19_ReLU', claimed_speedup=1.5),
                                                dict(solution='missing.py', task='L1/19_ReLU')]))
    cmd = [str(BIN/'cawb'), 'evaluate-dir', str(tmp_path/'KernelBench'), str(tmp_path/'map.json'),
           '--backend', 'cpu', '--report-dir', str(tmp_path/'rv'), '--rules', 'cuda-agent,kernelbench']
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'missing.py' in r.stderr
    import pandas as pd
    df = pd.read_csv(tmp_path/'rv'/'reverify.csv')
    assert len(df) == 4 and set(df['rules']) == {'cuda-agent', 'kernelbench'}
    assert not df.loc[df['solution'].str.contains('wrong'), 'correct'].any()
    tc = df[df['solution'].str.contains('torchcall')].set_index('rules')
    assert 'forbidden' in tc.loc['cuda-agent', 'flags'] and not tc.loc['cuda-agent', 'correct']
    # torch ops are allowed under kernelbench rules, but this one's C++ only calls torch::relu: a decoy, no kernel of its own
    assert 'forbidden' not in tc.loc['kernelbench', 'flags'] and 'no_custom_kernel' in tc.loc['kernelbench', 'flags']
    assert 'median_measured_over_claimed' in r.stdout and 'kernelbench' in r.stdout       # per-rule-set summary
    lines = (tmp_path/'rv'/'reverify.jsonl').read_text().splitlines()
    assert len(lines) == 4
    r2 = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)                  # a rerun resumes: nothing re-evaluated
    assert r2.returncode == 0 and (tmp_path/'rv'/'reverify.jsonl').read_text().splitlines() == lines, r2.stderr[-2000:]
    assert len(pd.read_csv(tmp_path/'rv'/'reverify.csv')) == 4


def test_eval_several_sets_and_empty_folder(tmp_path):
    "A folder holding several trajectory sets gets one report per set; an empty one one sentence, never a traceback."
    r = subprocess.run([str(BIN/'cawb'), 'eval', str(ROOT/'data/trajectories'), '--report-dir', str(tmp_path/'rep')],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path/'rep'/'cpu'/'report.html').exists() and (tmp_path/'rep'/'cuda'/'metrics.json').exists()
    assert 'rule set: cuda-agent' in r.stdout and 'policy: scripted' in r.stdout
    html = (tmp_path/'rep'/'cpu'/'report.html').read_text()
    assert html.index('backend: cpu') < html.index("paper (Table 1")           # what was measured comes first
    (tmp_path/'empty').mkdir()
    e = subprocess.run([str(BIN/'cawb'), 'eval', str(tmp_path/'empty')], capture_output=True, text=True, cwd=ROOT)
    assert e.returncode == 2 and 'no trajectories' in e.stderr and 'Traceback' not in e.stderr, e.stderr
    p = subprocess.run([str(BIN/'papermill'), '--log-level', 'ERROR', str(ROOT/'nbs/workflows/eval.ipynb'), str(tmp_path/'out.ipynb'),
                        '-p', 'trajectories', str(tmp_path/'empty'), '-p', 'report_dir', str(tmp_path/'r2')], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and 'nothing to score' in (tmp_path/'out.ipynb').read_text(), p.stderr[-2000:]
