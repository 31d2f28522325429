"Diagnose the service's per-candidate cycle on a GPU: py-spy on the worker and its children during a queue."
import json, os, subprocess, sys, time, tempfile
from pathlib import Path
ROOT = Path.cwd(); sys.path.insert(0, str(ROOT/'bench'))
import service_gpu as sg
from _candidates import KERNELS, write_candidate
from cuda_agent_wb.client import RemoteEvaluator
from cuda_agent_wb.tasks import load_task
out = Path(os.environ['OUT'])
env = {**os.environ, 'CAWB_EVAL_PRESET': 'cpu', 'CAWB_SERVICE_USE': 'never'}
names = list(KERNELS); tasks = {n: load_task(ROOT/'data/tasks'/f'{n}.py') for n in names}
work = Path(tempfile.mkdtemp())
proc, url, ready = sg.start_service('0', int(sys.argv[1]), env, out/'svc.log')
with RemoteEvaluator(url) as ev:
    for n in names: ev.evaluate(tasks[n], write_candidate(work, n, 0, 'warm'))
    pids = [w['pid'] for w in ev.call('GET', url, '/status')['workers']]
    spy = str(ROOT/'.site/bin/py-spy')
    spies = [subprocess.Popen([spy, 'record', '--pid', str(p), '--subprocesses', '--format', 'raw', '-r', '200', '-o', str(out/f'spy{sys.argv[1]}_{p}.txt'), '--nonblocking'],
                              stdout=subprocess.DEVNULL, stderr=open(out/f'spy{sys.argv[1]}_{p}.err', 'w')) for p in pids]
    time.sleep(2)
    items = [dict(task=tasks[names[i % 4]], solution=write_candidate(work, names[i % 4], 300 + i, 'p')) for i in range(60)]
    t0 = time.perf_counter(); rs = dict(ev.evaluate_iter(items, progress=False)); q = time.perf_counter() - t0
    print('queue 60:', round(q, 1), 's; correct', sum(r.correct for r in rs.values()))
    for s in spies: s.send_signal(2)
    for s in spies: s.wait(60)
proc.terminate()
