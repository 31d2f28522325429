"""Evaluation-service benchmark on GPUs: `cawb evaluate` wall time through a running `cawb serve` (new and cached lean
candidates), and the throughput of a queue of new small-kernel candidates for several worker layouts.

    source bench/device_setup.sh; python3 bench/service_gpu.py --out $OUT/service_h100.json --configs "0x1;0x2" --queue 120
    python3 bench/service_gpu.py --out $OUT/service_h200x2.json --configs "0x1;0,1x1" --queue 40 --no-latency

A config is GPUS x WORKERS_PER_GPU. Candidates are bench/_candidates.py's CUDA kernels (relu, scale_gelu, rmsnorm_silu_mul,
softmax) with the lean binding; each candidate of a queue is a new source (a real nvcc build) on the 'cpu' size preset
(small kernels), so the figure is the evaluator's own cycle rather than the kernels' run time."""
import argparse, json, os, re, socket, statistics, subprocess, sys, tempfile, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'bench'))
from _candidates import KERNELS, write_candidate


def free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def start_service(gpus: str, workers: int, env: dict, log: Path):
    port = free_port()
    db = Path(tempfile.mkdtemp(prefix='svc-')) / 'q.sqlite'
    cmd = [sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()', 'serve', '--backend', 'cuda', '--gpus', gpus,
           '--workers', str(workers), '--port', str(port), '--db', str(db)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=open(log, 'w'), stderr=subprocess.STDOUT, cwd=ROOT)
    import httpx
    url = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None: raise SystemExit(f"service exited: {log.read_text()[-3000:]}")
        try:
            h = httpx.get(url + '/health', timeout=2).json()
            if h.get('workers_ready', 0) >= len(gpus.split(',')) * workers: break
        except Exception: pass
        time.sleep(0.3)
    return proc, url, round(time.perf_counter() - t0, 2)


def wall_split(url, stderr: str, start: float, end: float) -> dict:
    "Where one CLI call's wall time went, from its job's timestamps (the service runs on this host, so clocks agree)."
    import httpx
    m = re.search(r'job ([0-9a-f]+)', stderr)
    if not m: return {}
    j = httpx.get(f"{url}/jobs/{m.group(1)}", timeout=10).json()
    if not j.get('finished'): return {}
    return dict(to_submit_s=round(j['submitted'] - start, 3), queued_s=round((j['started'] or j['submitted']) - j['submitted'], 3),
                run_s=round(j['finished'] - (j['started'] or j['submitted']), 3), after_s=round(end - j['finished'], 3))


def cli_wall(url, task, cand, env):
    "Wall time of one `cawb evaluate --server --json` (a fresh Python process, as a user runs it), and where it went."
    t0, start = time.perf_counter(), time.time()
    r = subprocess.run([sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()', 'evaluate', str(task), str(cand), '--server', url, '--json'],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    res = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {'error': r.stderr[-500:]}
    res['wall_split'] = wall_split(url, r.stderr, start, time.time()) if r.returncode == 0 else {}
    return round(wall, 3), res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--configs', default='0x1', help="';'-separated GPUSxWORKERS, e.g. '0x1;0x2' or '0x1;0,1x1'")
    ap.add_argument('--queue', type=int, default=120, help='new candidates per throughput run')
    ap.add_argument('--no-latency', action='store_true', help='skip the CLI wall-time measurements')
    ap.add_argument('--local-once', action='store_true', help='also time one `cawb evaluate --local` (no service) of a new candidate, for comparison')
    args = ap.parse_args()
    import torch
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.tasks import load_task
    env = {**os.environ, 'CAWB_EVAL_PRESET': 'cpu', 'CAWB_SERVICE_USE': 'never'}
    names = list(KERNELS)
    tpaths = {n: ROOT / 'data/tasks' / f'{n}.py' for n in names}
    tasks = {n: load_task(p) for n, p in tpaths.items()}
    work = Path(tempfile.mkdtemp(prefix='svc-cands-'))
    t0 = time.perf_counter(); subprocess.run([sys.executable, '-c', 'import torch'], check=True)
    res = {'command': ' '.join(['python3', *sys.argv]), 'device': torch.cuda.get_device_name(0), 'gpus_visible': torch.cuda.device_count(),
           'driver': subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'], capture_output=True, text=True).stdout.split('\n')[0],
           'torch': torch.__version__, 'cuda': torch.version.cuda, 'python': sys.version.split()[0], 'preset': 'cpu', 'precision': {'allow_tf32': False},
           'import_torch_s': round(time.perf_counter() - t0, 3), 'runs': []}
    out = Path(args.out); out.parent.mkdir(parents=True, exist_ok=True)
    dump = lambda: out.write_text(json.dumps(res, indent=1, default=str))
    for ci, cfg in enumerate(args.configs.split(';')):
        gpus, workers = cfg.split('x'); workers = int(workers)
        proc, url, ready_s = start_service(gpus, workers, env, out.parent / f"service_log_{ci}.txt")
        run = {'gpus': gpus, 'workers_per_gpu': workers, 'service_ready_s': ready_s}
        print(f"[{cfg}] service ready in {ready_s} s at {url}", flush=True)
        with RemoteEvaluator(url) as ev:
            t0 = time.perf_counter()
            warm = [ev.evaluate(tasks[n], write_candidate(work, n, 0, f'warm{ci}')) for n in names]   # baselines (torch.compile) per task
            run['warm_s'] = round(time.perf_counter() - t0, 2); run['warm_correct'] = [r.correct for r in warm]
            run['env'] = warm[0].env
            print(f"[{cfg}] warm {run['warm_s']} s, correct {run['warm_correct']}", flush=True)
            if not args.no_latency and ci == 0:
                new, cached = [], []
                for i in range(3):
                    n = names[i % len(names)]; cand = write_candidate(work, n, 100 + i, f'cli{ci}')
                    new.append(cli_wall(url, tpaths[n], cand, env)); cached.append(cli_wall(url, tpaths[n], cand, env))
                run['cli_new'] = [{'wall_s': w, 'correct': r.get('correct'), **{k: r.get('breakdown', {}).get(k) for k in ('compile_s', 'load_s', 'verify_s', 'profile_s', 'total_s')}, 'error': r.get('error'), **r['wall_split']} for w, r in new]
                run['cli_cached'] = [{'wall_s': w, 'correct': r.get('correct'), **r['wall_split']} for w, r in cached]
                run['cli_new_median_s'] = statistics.median(w for w, _ in new); run['cli_cached_median_s'] = statistics.median(w for w, _ in cached)
                print(f"[{cfg}] cli new {run['cli_new_median_s']} s, cached {run['cli_cached_median_s']} s", flush=True)
                if args.local_once:
                    cand = write_candidate(work, names[0], 150, 'local')
                    t0 = time.perf_counter()
                    r = subprocess.run([sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()', 'evaluate', str(tpaths[names[0]]), str(cand), '--local', '--json'],
                                       capture_output=True, text=True, env=env, cwd=ROOT)
                    run['cli_local_new_s'] = round(time.perf_counter() - t0, 2); run['cli_local_ok'] = r.returncode == 0
                    print(f"[{cfg}] cli --local new candidate {run['cli_local_new_s']} s", flush=True)
            items = [dict(task=tasks[names[i % len(names)]], solution=write_candidate(work, names[i % len(names)], 200 + i, f'q{ci}')) for i in range(args.queue)]
            t0 = time.perf_counter()
            got = dict(ev.evaluate_iter(items, progress=False))
            q_s = time.perf_counter() - t0
            rs = [got[i] for i in range(len(items))]
            run.update(queue=len(items), queue_s=round(q_s, 2), candidates_per_hour=round(len(items) / q_s * 3600),
                       candidates_per_gpu_hour=round(len(items) / q_s * 3600 / len(gpus.split(','))),
                       queue_correct=sum(r.correct for r in rs), queue_flags=sorted({f for r in rs for f in r.flags}),
                       queue_errors=sorted({(r.error or '')[:120] for r in rs if not r.correct}),
                       candidate_ms_by_task={n: round(statistics.median([r.timings['candidate']['median'] for r, it in zip(rs, items) if r.correct and it['task'].id == tasks[n].id] or [0]), 5) for n in names},
                       breakdown_mean={k: round(statistics.mean(r.breakdown.get(k, 0) for r in rs), 3) for k in ('compile_s', 'load_s', 'verify_s', 'device_wait_s', 'profile_s', 'total_s')})
            print(f"[{cfg}] queue {len(items)} in {q_s:.1f} s -> {run['candidates_per_gpu_hour']}/GPU-hour, correct {run['queue_correct']}, {run['breakdown_mean']}", flush=True)
        proc.terminate(); proc.wait(30)
        res['runs'].append(run); dump()
    base = res['runs'][0]['queue_s']
    for r in res['runs'][1:]: r['speedup_vs_first'] = round(base / r['queue_s'], 2)   # candidate_ms_by_task: do more workers disturb the timings?
    dump(); print(json.dumps({k: v for k, v in res.items() if k != 'runs'}, indent=1)); print(f"wrote {out}")


if __name__ == '__main__':
    main()
