"""Where a service worker's time goes, per candidate: py-spy samples every process of each worker (the evaluator, its
fork server, reference worker and candidate processes) while a queue of new candidates runs, and the samples are
summed by the evaluator's phases (reference outputs, load, verify, time, transfers through /dev/shm, output checks).
A diagnosis, not a record: run it before changing the service, and again after.

    source bench/device_setup.sh; python3 bench/prof_service.py --out $OUT/prof --preset gpu --queue 20
    python3 bench/prof_service.py --out $OUT/prof --preset cpu --gpus 0,1 --queue 60      # two workers side by side

py-spy comes from the device wheels (bench/fetch_device_wheels.sh). Writes OUT/summary.json (per process kind and per
phase: seconds of samples and the share of the queue's wall time; the top functions by own time) and py-spy's raw
stacks (OUT/spy_*.txt)."""
import argparse, collections, json, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'bench'))

RATE = 100                     # samples per second and process
PHASES = {                     # phase: a function whose frame on the stack puts a sample in it (the first match, in this order)
    'load': '_load_phase', 'verify': '_verify_phase', 'time': '_time_phase', 'warm_up': 'warm_up',
    'reference_outputs': 'reference_outputs', 'reference_baselines': 'reference_baselines', 'profile (evaluator)': '_profile',
    'check trials (evaluator)': '_check_trials', 'build': 'build_solution', 'queue (sqlite)': 'claim', 'polling the queue': 'worker_main',
}
OPS = {                        # operations inside the phases, counted wherever they are
    'send big (torch.save to /dev/shm)': 'pack_big', 'receive big (torch.load)': 'unpack_big', 'to CPU': '_to_cpu',
    'compare outputs': 'check_outputs', 'reference to GPU': '_reference_on_device', 'make inputs': 'make_inputs',
    'poison memory': 'poison_memory', 'kernel table (profiler)': 'kernel_table', 'timed calls': 'time_calls', 'stream spans': 'stream_spans',
    'synchronize': 'synchronize', 'pipe recv/send': 'recv_bytes',
}


def breakdown_mean(rs) -> dict:
    "Mean seconds of each numeric breakdown entry over the results (nested entries, such as the build's, skipped)."
    keys = sorted({k for r in rs for k, v in r.breakdown.items() if isinstance(v, (int, float))})
    return {k: round(sum(v for r in rs if isinstance(v := r.breakdown.get(k), (int, float))) / len(rs), 3) for k in keys}


def spy_path() -> str:
    "py-spy from the device wheels (.site/bin) or PATH."
    for p in (ROOT / '.site' / 'bin' / 'py-spy', shutil.which('py-spy')):
        if p and Path(p).is_file(): return str(p)
    raise SystemExit("py-spy not found: run bench/fetch_device_wheels.sh here and source bench/device_setup.sh there")


def read_stacks(path: Path) -> list[tuple[str, list[str], int]]:
    "py-spy's raw output as (process, frames root first, samples)."
    out = []
    for line in path.read_text(errors='replace').splitlines():
        stack, _, n = line.rpartition(' ')
        if not n.isdigit(): continue
        frames = stack.split(';')
        proc = frames[0] if frames and frames[0].startswith('process ') else 'process ?'
        out.append((proc, [f for f in frames if not f.startswith('process ') and not f.startswith('thread ')], int(n)))
    return out


def short_names(frames: list[str]) -> set[str]:
    "Function names of py-spy frames ('Evaluator._profile (reward.py:716)' -> '_profile')."
    return {f.split(' (')[0].strip().split('.')[-1] for f in frames}


def process_kind(frames: list[str]) -> str:
    "Which process of a worker a stack is from, by the functions on it (a forked process keeps its parent's frames)."
    names = short_names(frames)
    return next((k for k, fn in (('candidate', 'candidate_main'), ('reference', 'reference_main'), ('fork server', 'zygote_main'),
                                  ('evaluator', 'worker_main')) if fn in names), 'other')


def phase_of(frames: list[str]) -> str:
    "The first phase (in PHASES' order) whose function is on the stack."
    names = short_names(frames)
    return next((ph for ph, fn in PHASES.items() if fn in names), 'other')


def summarise(stacks: list, wall_s: float) -> dict:
    "Seconds of samples by process kind and by phase (each also as a share of the queue's wall time), and top own-time functions."
    kinds, phases, ops, own = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
    for _, frames, n in stacks:
        k, names = process_kind(frames), short_names(frames)
        kinds[k] += n; phases[f"{k}: {phase_of(frames)}"] += n
        for op, fn in OPS.items():
            if fn in names: ops[f"{k}: {op}"] += n
        if frames: own[frames[-1][:160]] += n
    sec = lambda c: {k: dict(s=round(v / RATE, 2), share=round(v / RATE / wall_s, 3)) for k, v in c.most_common()}
    return dict(by_process=sec(kinds), by_phase=sec(phases), by_op=sec(ops), top_own=[dict(frame=k, s=round(v / RATE, 2)) for k, v in own.most_common(25)])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='folder for summary.json and the raw stacks')
    ap.add_argument('--preset', default='gpu', help='task size preset of the candidates (cpu or gpu)')
    ap.add_argument('--gpus', default='0', help="GPUs of the service, e.g. '0' or '0,1'")
    ap.add_argument('--workers', type=int, default=1, help='workers per GPU')
    ap.add_argument('--queue', type=int, default=20, help='new candidates profiled')
    a = ap.parse_args()
    import service_gpu as sg
    from _candidates import KERNELS, write_candidate
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.tasks import load_task
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, 'CAWB_EVAL_PRESET': a.preset, 'CAWB_SERVICE_USE': 'never'}
    names = list(KERNELS); tasks = {n: load_task(ROOT / 'data/tasks' / f'{n}.py') for n in names}
    work = Path(tempfile.mkdtemp(prefix='prof-cands-'))
    proc, url, ready = sg.start_service(a.gpus, a.workers, env, out / 'service.log')
    res = dict(command=' '.join(['python3', *sys.argv]), preset=a.preset, gpus=a.gpus, workers_per_gpu=a.workers, queue=a.queue, rate_hz=RATE)
    try:
        with RemoteEvaluator(url) as ev:
            n_workers = len(a.gpus.split(',')) * a.workers
            list(ev.evaluate_iter([dict(task=tasks[n], solution=write_candidate(work, n, 0, f'warm{k}')) for k in range(n_workers) for n in names], progress=False))
            pids = [w['pid'] for w in ev.call('GET', url, '/status')['workers']]
            spies = [subprocess.Popen([spy_path(), 'record', '--pid', str(p), '--subprocesses', '--format', 'raw', '-r', str(RATE), '--nonblocking',
                                       '-o', str(out / f'spy_{p}.txt')], stdout=subprocess.DEVNULL, stderr=open(out / f'spy_{p}.err', 'w')) for p in pids]
            time.sleep(2)
            items = [dict(task=tasks[names[i % len(names)]], solution=write_candidate(work, names[i % len(names)], 300 + i, 'p')) for i in range(a.queue)]
            t0 = time.perf_counter(); got = dict(ev.evaluate_iter(items, progress=False)); wall = time.perf_counter() - t0
            for s in spies: s.send_signal(2)
            for s in spies: s.wait(120)
        rs = list(got.values())
        res.update(wall_s=round(wall, 2), per_candidate_s=round(wall / a.queue * n_workers, 3), correct=sum(r.correct for r in rs), flag_details=[{'flag': f, 'detail': str(r.flag_details.get(f, ''))[:300]} for r in rs for f in r.flags][:12],
                   breakdown_mean=breakdown_mean(rs),
                   workers={str(p): summarise(read_stacks(out / f'spy_{p}.txt'), wall) for p in pids if (out / f'spy_{p}.txt').is_file()})
    finally:
        proc.terminate(); proc.wait(30)
    (out / 'summary.json').write_text(json.dumps(res, indent=1, default=str))
    print(json.dumps({k: v for k, v in res.items() if k != 'workers'}, indent=1))
    for p, w in res.get('workers', {}).items():
        print(f"worker {p}:", json.dumps(dict(list(w['by_phase'].items())[:12]), indent=1), json.dumps(dict(list(w['by_op'].items())[:12]), indent=1))


if __name__ == '__main__':
    main()
