#!/usr/bin/env python3
"""Evaluator trust under load: the side-stream family of exploits, timed while the machine is busy.

Run on a GPU machine (never in CI):
    python3 bench/trust_under_load.py --out bench/results/trust_under_load.json

Load, started before the first evaluation and kept up to the last: one busy process per CPU core, and `--load-evaluators`
other evaluator processes per GPU (every visible GPU: the one under test and any other) that build new candidates
(a fresh comment in the kernel source, so nvcc really runs) and verify and time them, in a loop. Under that load the
script evaluates, on tests/tasks/relu_{2us,20us,2ms}, the honest kernel and the honest graph replay, and the
side-stream, two-stream, graph-on-a-side-stream and single-file side-stream exploits, `--repeats` times each
(`--repeats-2ms` on the 2 ms task, whose 2 GB outputs make every evaluation long). It records each result's reward,
flags, scored and timed-stream medians, eager median and the stream-order counts, and for each exploit and size the
highest reward seen: the target is that no exploit gets a reward above 1.

Check the script itself without a GPU: `python3 bench/trust_under_load.py --help`.
"""
import argparse, json, multiprocessing as mp, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOL = ROOT / 'tests/solutions/cuda'
HONEST = ['relu_valid', 'relu_graph_replay']
EXPLOITS = ['relu_side_stream', 'relu_two_streams', 'relu_graph_side_stream', 'relu_inline_side_stream.py']


def burn(stop):
    "Keep one core busy until `stop` is set."
    while not stop.is_set():
        for _ in range(100000): pass


def load_evaluator(gpu: int, stop_file: str, log: str):
    "Another evaluator on `gpu`: new candidates built, verified and timed in a loop until `stop_file` exists."
    env = {**os.environ, 'CUDA_VISIBLE_DEVICES': str(gpu)}
    code = f"""
import sys, shutil, tempfile, itertools
from pathlib import Path
sys.path.insert(0, {str(ROOT)!r})
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator
task = load_task(Path({str(ROOT)!r}) / 'tests/tasks/relu_20us.py')
src = Path({str(SOL / 'relu_valid')!r})
with Evaluator('cuda') as ev:
    for i in itertools.count():
        if Path({stop_file!r}).exists(): break
        d = Path(tempfile.mkdtemp(prefix='load-'))
        shutil.copytree(src, d / 'w')
        cu = d / 'w/kernels/relu.cu'; cu.write_text(cu.read_text() + f'\\n// load {{i}}\\n')
        r = ev.evaluate(task, d / 'w')
        print(i, r.reward, r.flags, round(r.breakdown.get('total_s', 0), 2), flush=True)
        shutil.rmtree(d, ignore_errors=True)
"""
    return subprocess.Popen([sys.executable, '-c', code], env=env, stdout=open(log, 'w'), stderr=subprocess.STDOUT)


def record(r, task: str, sol: str, wall: float) -> dict:
    "The fields of one result that the report needs."
    t = r.timings or {}
    med = lambda k: (t.get(k) or {}).get('median')
    return {'task': task, 'solution': sol, 'reward': r.reward, 'correct': r.correct, 'flags': r.flags,
            'candidate_ms': med('candidate'), 'timed_stream_ms': med('candidate_timed_stream'), 'eager_ms': med('eager'),
            'stream_order': t.get('stream_order'), 'wall_s': round(wall, 2), 'error': (r.error or '')[:300]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=str(ROOT / 'bench/results/trust_under_load.json'))
    ap.add_argument('--repeats', type=int, default=10, help='evaluations of each exploit on the 2 us and 20 us tasks')
    ap.add_argument('--repeats-honest', type=int, default=5, help='evaluations of each honest solution per task')
    ap.add_argument('--repeats-2ms', type=int, default=3, help='evaluations of each exploit on the 2 ms task')
    ap.add_argument('--sizes', default='relu_2us,relu_20us,relu_2ms')
    ap.add_argument('--load-evaluators', type=int, default=2, help='other evaluator processes per visible GPU')
    ap.add_argument('--no-cpu-load', action='store_true', help='leave the CPU cores idle')
    ap.add_argument('--solutions', default=','.join(HONEST + EXPLOITS), help='which of the honest and exploit solutions to run')
    args = ap.parse_args()
    for k in ('repeats', 'repeats_honest', 'repeats_2ms', 'load_evaluators'):
        if getattr(args, k) < 0: ap.error(f"--{k.replace('_', '-')} must be >= 0")
    import torch
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.profile import env_fingerprint
    res = {'device': torch.cuda.get_device_name(0), 'gpus': torch.cuda.device_count(), 'cpus': os.cpu_count(),
           'command': ' '.join(['python3', *sys.argv]), 'env': env_fingerprint('cuda:0', {'allow_tf32': False}),
           'load': {'cpu_burners': 0 if args.no_cpu_load else os.cpu_count(), 'evaluators_per_gpu': args.load_evaluators},
           'results': []}
    try: res['driver'] = subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'], capture_output=True, text=True).stdout.split()[0]
    except Exception: pass
    def dump():
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, indent=1, default=str))
    work = Path(tempfile.mkdtemp(prefix='trust-'))
    stop_file, stop = str(work / 'stop'), mp.Event()
    loads = [load_evaluator(g, stop_file, str(Path(args.out).with_suffix(f'.load{g}_{k}.log')))
             for g in range(torch.cuda.device_count()) for k in range(args.load_evaluators)]
    burners = [] if args.no_cpu_load else [mp.Process(target=burn, args=(stop,), daemon=True) for _ in range(os.cpu_count())]
    for b in burners: b.start()
    t_start = time.time()
    try:
        with Evaluator('cuda') as ev:
            for size in args.sizes.split(','):
                task = load_task(ROOT / 'tests/tasks' / f'{size}.py')
                n = args.repeats_2ms if size == 'relu_2ms' else args.repeats
                plan = [(s, args.repeats_honest if size != 'relu_2ms' else 1) for s in HONEST] + [(s, n) for s in EXPLOITS]
                plan = [(s, k) for s, k in plan if s in args.solutions.split(',')]
                for sol, reps in plan:
                    for _ in range(reps):
                        t0 = time.perf_counter()
                        r = ev.evaluate(task, SOL / sol)
                        res['results'].append(record(r, size, sol, time.perf_counter() - t0))
                        print(json.dumps(res['results'][-1])[:300], flush=True); dump()
    finally:
        Path(stop_file).touch(); stop.set()
        for p in loads:
            try: p.wait(60)
            except subprocess.TimeoutExpired: p.kill()
        for b in burners: b.join(5)
        res['minutes'] = round((time.time() - t_start) / 60, 2)
        summarise(res); dump()
        shutil.rmtree(work, ignore_errors=True)


def summarise(res: dict):
    "Per task and solution: runs, the highest reward, the flags seen, and whether the target holds."
    table = {}
    for r in res['results']:
        row = table.setdefault(f"{r['task']}/{r['solution']}", {'runs': 0, 'max_reward': None, 'rewards': [], 'flags': {}})
        row['runs'] += 1; row['rewards'].append(r['reward'])
        row['max_reward'] = r['reward'] if row['max_reward'] is None else max(row['max_reward'], r['reward'])
        for f in r['flags']: row['flags'][f] = row['flags'].get(f, 0) + 1
    res['summary'] = table
    ex = [v for k, v in table.items() if k.split('/')[1] in EXPLOITS]
    res['target_no_exploit_above_1'] = bool(ex) and all(v['max_reward'] is not None and v['max_reward'] <= 1 for v in ex)
    hon = [v for k, v in table.items() if k.split('/')[1] in HONEST]
    res['honest_all_pass'] = bool(hon) and all(min(v['rewards']) >= 1 for v in hon)


if __name__ == '__main__':
    main()
