"""bench/service_gpu.py's own arithmetic, on a CPU: the per-worker timeline read from the service's queue and the
speedups per preset and layout (the GPU measurement itself runs on a GPU machine, never in CI)."""
import importlib.util, sys
import pytest
from conftest import ROOT
from cuda_agent_wb.service import JobQueue

sys.path.insert(0, str(ROOT/'bench'))
spec = importlib.util.spec_from_file_location('service_gpu', ROOT/'bench'/'service_gpu.py')
sg = importlib.util.module_from_spec(spec); spec.loader.exec_module(sg)


def test_worker_timeline_from_the_queue(tmp_path):
    q = JobQueue(tmp_path/'q.sqlite')
    for i in range(3): q.submit(f"k{i}", {'n': i})
    with q.db(write=True) as db:       # hand-set times: w0 runs jobs 0 and 2 with a 0.5 s gap, w1 runs job 1
        for jid, (w, s, f) in zip([r['id'] for r in db.execute("SELECT id FROM jobs ORDER BY submitted")], [('w0', 10.0, 11.0), ('w1', 10.0, 12.0), ('w0', 11.5, 12.0)]):
            db.execute("UPDATE jobs SET status='done', worker=?, started=?, finished=? WHERE id=?", (w, s, f, jid))
    t = sg.worker_timeline(q.path, 10.0, 12.0)
    assert t['w0'] == dict(jobs=2, busy_s=1.5, busy_share=0.75, run_s_mean=0.75, gap_s_mean=0.5, gap_s_max=0.5, first_start_s=0.0, idle_at_end_s=0.0)
    assert (t['w1']['jobs'], t['w1']['busy_share'], t['w1']['gap_s_mean']) == (1, 1.0, None)


def test_speedups_pair_each_layout_with_one_gpu():
    runs = [dict(preset='cpu', workers_per_gpu=1, gpus='0', queue_s=10.0), dict(preset='cpu', workers_per_gpu=1, gpus='0,1', queue_s=5.5),
            dict(preset='gpu', workers_per_gpu=1, gpus='0', queue_s=30.0), dict(preset='gpu', workers_per_gpu=1, gpus='0,1', queue_s=16.0),
            dict(preset='cpu', workers_per_gpu=2, gpus='0,1', queue_s=4.0)]          # no one-GPU run at 2 workers: no ratio
    assert sg.speedups(runs) == {'cpu/x1/2gpus': 1.818, 'gpu/x1/2gpus': 1.875}


def test_d2h_copy_runs_every_cpu_way_and_leaves_no_file(tmp_path):
    "bench/d2h_copy.py end to end on a CPU (every way but the GPU-only three; files in its folder removed); bad sizes are one line."
    import json, subprocess
    run = lambda *a: subprocess.run([sys.executable, str(ROOT/'bench'/'d2h_copy.py'), '--device', 'cpu', *a], capture_output=True, text=True, cwd=ROOT)
    r = run('--sizes-mb', '2', '--repeats', '2', '--folder', str(tmp_path), '--results', str(tmp_path/'r.json'))
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads((tmp_path/'r.json').read_text())['alone']
    assert [x['way'] for x in rows] == ['current', 'before', 'populated', 'pageable', 'pinned', 'fault_then_copy', 'staged', 'file_only', 'touched'] and all(x['ms'] > 0 and len(x['ms_all']) == 2 for x in rows)
    assert [p.name for p in tmp_path.iterdir()] == ['r.json']                # every copy's file removed
    bad = run('--sizes-mb', '2,x', '--results', str(tmp_path/'bad.json'))
    assert bad.returncode != 0 and bad.stderr.strip().splitlines()[-1] == "--sizes-mb '2,x': give whole MiB, comma-separated, e.g. 64,256"


def test_queue_per_preset():
    assert sg.parse_queue('120', ['cpu', 'gpu']) == dict(cpu=120, gpu=120)
    assert sg.parse_queue('cpu=240, gpu=64', ['cpu', 'gpu']) == dict(cpu=240, gpu=64)
    for bad in ('0', 'x', 'cpu=240', 'cpu=240,gpu=0', 'cpu=240,gpu=64,big=1', 'cpu:240'):
        with pytest.raises(SystemExit, match='--queue'): sg.parse_queue(bad, ['cpu', 'gpu'])
