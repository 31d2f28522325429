"""The rough edges a newcomer hit (issue 49), each one sentence and a distinct exit status: `cawb evaluate`'s verdicts,
bounded counts, unknown presets, a misspelt settings key, and `cawb eval` on a run cut short."""
import json, shutil
from conftest import ROOT, run_cawb

RELU, SOL = ROOT/'data/tasks/relu.py', ROOT/'tests/solutions/cpu'


def test_evaluate_exit_status_of_a_solution_that_does_not_build():
    "Rejected is 3 (accepted 0: test_evaluator's relu_valid; not evaluated 1: test_task_errors_and_inputs; the rule: 90_cli's evaluate_exit_code)."
    bad = run_cawb('evaluate', RELU, SOL/'relu_compile_error', '--backend', 'cpu', '--local', '--stages', 'compile,verify', '--json')
    res = json.loads(bad.stdout.strip().splitlines()[-1])
    assert bad.returncode == 3 and res['compiled'] is False and res['reward'] == -1, (bad.returncode, res.get('flags'), bad.stderr[-2000:])


def test_counts_and_presets_are_bounded_in_one_sentence(tmp_path):
    r = run_cawb('rollout', RELU, '--out', tmp_path/'o', '--samples', '99999999999999999999999', timeout=120)
    assert r.returncode == 2 and "99999999999999999999999 is not in the range 1<=x<=100000" in r.stderr, r.stderr[-2000:]
    assert not (tmp_path/'o').exists()
    for argv in (['demo', '--preset', 'huge'], ['tasks', 'list', '--run', '--preset', 'bogus'], ['tasks', 'audit', ROOT/'data/tasks', '--preset', 'bogus']):
        r = run_cawb(*argv, timeout=120)
        assert r.returncode == 2 and "--preset" in r.stderr and "choose auto, cpu or gpu" in r.stderr and 'Traceback' not in r.stderr, (argv, r.stderr[-2000:])


def test_a_misspelt_settings_key_is_named_beside_the_missing_one(tmp_path):
    ini = tmp_path/'settings.ini'
    ini.write_text((ROOT/'settings.ini').read_text().replace('suspicious_speedup', 'suspicous_speedup').replace('\ndata = data', f'\ndata = {ROOT}/data')
                   .replace('\ncache = .cawb_cache', f'\ncache = {ROOT}/.cawb_cache'))
    r = run_cawb('tasks', 'list', env={'CAWB_SETTINGS': str(ini)}, timeout=120)
    assert r.returncode == 2 and 'Traceback' not in r.stderr, r.stderr[-2000:]
    assert '[eval] suspicious_speedup is missing' in r.stderr and 'the file has [eval] suspicous_speedup: did you mean suspicious_speedup?' in r.stderr, r.stderr


def test_eval_names_the_interrupted_episodes_and_those_never_started(tmp_path):
    run = tmp_path/'run'; shutil.copytree(ROOT/'data/trajectories/cpu', run, ignore=shutil.ignore_patterns('report', 'best', 'work'))
    stems = sorted(f.stem for f in run.glob('*__s*.jsonl'))
    (run/'rollout_jobs.json').write_text(json.dumps({'jobs': [dict(task_id=s.split('__')[0], sample=0, stem=s) for s in stems]}))
    for s in stems[-3:]: (run/f'{s}.jsonl').unlink()                                  # three never started
    lines = (run/f'{stems[0]}.jsonl').read_text().splitlines()                          # one interrupted after two turns
    summary = json.loads(lines[-1]) | {'stop_reason': 'interrupted'}
    (run/f'{stems[0]}.jsonl').write_text('\n'.join(lines[:3] + [json.dumps(summary)]) + '\n')
    r = run_cawb('eval', run, '--report-dir', tmp_path/'rep', timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"3 episode(s) of the run never started: {', '.join(stems[-3:])}" in r.stdout, r.stdout[:3000]
    assert f"1 episode(s) interrupted: {stems[0]}" in r.stdout, r.stdout[:3000]
    m = json.loads((tmp_path/'rep'/'metrics.json').read_text())
    assert any('never started' in l for l in m['run']) and {s['outcome'] for s in m['solutions']} <= {'faster than compile', 'faster than eager', 'correct', 'fail', 'no evaluated step'}
    assert 'Outcome labels' in (tmp_path/'rep'/'report.html').read_text()


def test_explore_workflow_on_a_run_whose_first_trajectory_is_only_a_header(tmp_path):
    "papermill on the explore workflow where the first file is a header alone (a rollout killed as its episode began): no KeyError."
    import subprocess, sys
    from pathlib import Path
    run = tmp_path/'run'; shutil.copytree(ROOT/'data/trajectories/cpu', run, ignore=shutil.ignore_patterns('report', 'best', 'work'))
    first = sorted(run.glob('*__s*.jsonl'))[0]; first.write_text(first.read_text().splitlines()[0] + '\n')
    out = tmp_path/'explore.ipynb'
    r = subprocess.run([str(Path(sys.executable).parent/'papermill'), str(ROOT/'nbs/workflows/explore.ipynb'), str(out), '-p', 'trajectories', str(run),
                        '-p', 'export', str(tmp_path/'first.html'), '--cwd', str(ROOT/'nbs/workflows')], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    outs = [o for c in json.loads(out.read_text())['cells'] for o in c.get('outputs', [])]
    assert not [o for o in outs if o['output_type'] == 'error'], [o for o in outs if o['output_type'] == 'error']
    assert 'header only: no turn played' in (tmp_path/'first.html').read_text()


def test_explorer_and_report_count_faster_than_compile_alike():
    "One definition per label: the explorer's 'faster than compile' filter holds as many trajectories as the report's (>1) row counts."
    from cuda_agent_wb.explore import index_trajectories, filter_index
    from cuda_agent_wb.eval import best_solutions, eval_results
    src = ROOT/'data/trajectories/cpu'
    idx, _ = index_trajectories(src); df, _ = best_solutions(src)
    m = eval_results(df)['metrics']['overall']
    assert len(filter_index(idx, outcome='faster than compile')) == round(m['faster_than_compile'] * m['n']) > 0
    assert (idx.sort_values('file')['outcome'].tolist() == df.sort_values('file')['outcome'].tolist())
