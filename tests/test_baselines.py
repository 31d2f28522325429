"""`cawb baselines` on a small KernelBench-layout folder (CPU backend): both policies, compile-ahead processes, the
report beside KernelBench's published timings, a rerun that resumes without measuring anything, and a run into a new
folder that reads every baseline from the warm cache."""
import json, os, shutil, subprocess
from pathlib import Path
import pandas as pd
from conftest import ROOT, CAWB

PUBLISHED = ROOT.parent/'shared'/'kernelbench_timing'/'H100_Modal'


def test_baselines_both_policies_resume_and_published(tmp_path):
    kb = tmp_path/'KernelBench'/'level1'; kb.mkdir(parents=True)
    shutil.copy(ROOT/'data/tasks/relu.py', kb/'19_ReLU.py')
    shutil.copy(ROOT/'data/tasks/softmax.py', kb/'23_Softmax.py')
    cmd = [CAWB, 'baselines', tmp_path/'KernelBench', '--backend', 'cpu', '--compile-workers', '2', '--out', tmp_path/'bl']
    if PUBLISHED.is_dir(): cmd += ['--published', PUBLISHED]
    # A baselines cache of its own: relu.py is the bundled relu, whose baselines another test process may time and cache
    # between this test's runs (make test runs two), and the warm run below must read back what the first one stored.
    # torch.compile's caches stay the shared ones (a cold inductor cache costs minutes on 2 cores).
    from cuda_agent_wb.config import get_settings
    shared = get_settings().paths.cache
    env = {'TORCHINDUCTOR_CACHE_DIR': str(shared/'inductor'), 'TRITON_CACHE_DIR': str(shared/'triton'), **os.environ, 'CAWB_PATHS_CACHE': str(tmp_path/'cache')}
    run = lambda c, timeout: subprocess.run(c, capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=env)
    r = run(cmd, 900)
    assert r.returncode == 0, r.stderr[-3000:]
    df = pd.read_parquet(tmp_path/'bl'/'baselines.parquet')
    assert sorted(zip(df.task_id, df.policy)) == [('L1/19_ReLU', 'tf32-off'), ('L1/19_ReLU', 'tf32-on'), ('L1/23_Softmax', 'tf32-off'), ('L1/23_Softmax', 'tf32-on')]
    assert df['error'].isna().all() and (df['eager_device_ms'] > 0).all() and (df['compile_device_ms'] > 0).all(), df.to_dict('records')
    s = json.loads((tmp_path/'bl'/'summary.json').read_text())
    assert s['n_tasks'] == 2 and s['measured'] == 4 and s['gpu_seconds'] > 0
    assert df['eager_taken'].between(1, 3).all() and df['compile_taken'].between(1, 3).all(), df.to_dict('records')   # each timed, at most twice again
    assert s['timed_again'] == int(((df['eager_taken'] > 1) | (df['compile_taken'] > 1)).sum())
    html = (tmp_path/'bl'/'report.html').read_text()
    assert 'torch.compile vs eager' in html and 'TF32 effect' in html
    if PUBLISHED.is_dir():
        assert s['compared'] == 2 and set(s['within_band_of_published']) == {'tf32-off', 'tf32-on'}
        assert 'KernelBench published' in html and (tmp_path/'bl'/'vs_published.csv').is_file()
    r2 = run(cmd, 300)                                                                             # a rerun resumes
    s2 = json.loads((tmp_path/'bl'/'summary.json').read_text())
    assert r2.returncode == 0 and s2['measured'] == 0 and s2['resumed'] == 4, r2.stderr[-2000:]
    cmd3 = [c if c != tmp_path/'bl' else tmp_path/'bl2' for c in cmd]                                # a new results file, a warm cache:
    r3 = run(cmd3, 300)                                                                            # read back, nothing compiled ahead
    df3 = pd.read_parquet(tmp_path/'bl2'/'baselines.parquet')
    assert r3.returncode == 0 and df3['cached'].all() and df3['warm_s'].isna().all(), r3.stderr[-2000:]
    assert (df3.set_index(['task_id', 'policy'])['eager_device_ms'] == df.set_index(['task_id', 'policy'])['eager_device_ms']).all()
    bad = subprocess.run([CAWB, 'baselines', tmp_path/'KernelBench', '--policies', 'fp8'], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and '--policies' in bad.stderr
