"""Evaluation-service benchmark on GPUs: `cawb evaluate` wall time through a running `cawb serve` (new and cached lean
candidates), and the throughput of a queue of new small-kernel candidates for several worker layouts.

    source bench/device_setup.sh; python3 bench/service_gpu.py --out $OUT/service_h100.json --configs "0x1;0x2" --queue 120
    python3 bench/service_gpu.py --out $OUT/service_2gpu.json --presets cpu,gpu --configs "0x1;0,1x1" --queue cpu=240,gpu=64 --no-latency
    python3 bench/service_gpu.py --out $OUT/service_h200x2.json --configs "0x1;0,1x1" --queue 40 --no-latency

A config is GPUS x WORKERS_PER_GPU. Candidates are bench/_candidates.py's CUDA kernels (relu, scale_gelu, rmsnorm_silu_mul,
softmax) with the lean binding; each candidate of a queue is a new source (a real nvcc build). On the 'cpu' size preset
(small kernels) the figure is the evaluator's own cycle; on 'gpu' the kernels' run time counts too. Each run also says
where the time went: host CPU busy share and each GPU's utilisation while the queue ran, each worker's busy share and the
gaps between its jobs (from the service's queue), and how often a worker waited for a build."""
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
    start_service.db = db                       # read after a queue for the per-worker timeline
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


class Sampler:
    "Samples host CPU busy share (/proc/stat) and each GPU's utilisation (nvidia-smi) while a queue runs."
    def __init__(self, every: float = 0.25):
        import threading
        self.every, self.cpu, self.stop = every, [], threading.Event()
        try: self.smi = subprocess.Popen(['nvidia-smi', '--query-gpu=index,utilization.gpu', '--format=csv,noheader,nounits', f'-lms={int(every * 1000)}'],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError: self.smi = None
        self.t = threading.Thread(target=self.loop, daemon=True); self.t.start()

    @staticmethod
    def ticks():
        f = [int(x) for x in open('/proc/stat').readline().split()[1:]]
        return f[3] + f[4], sum(f)                # idle + iowait, total

    def loop(self):
        i0, t0 = self.ticks()
        while not self.stop.wait(self.every):
            i1, t1 = self.ticks()
            if t1 > t0: self.cpu.append(1 - (i1 - i0) / (t1 - t0))
            i0, t0 = i1, t1

    def result(self, gpus: str) -> dict:
        self.stop.set(); self.t.join()
        if self.smi: self.smi.terminate()
        out = self.smi.communicate(timeout=10)[0] if self.smi else ''
        util = {}
        for line in out.splitlines():
            try: i, u = (int(x) for x in line.split(','))
            except ValueError: continue
            util.setdefault(i, []).append(u)
        used = [int(g) for g in gpus.split(',')]
        cpu = sorted(self.cpu)
        return dict(cpu_busy_mean=round(statistics.mean(cpu), 3) if cpu else None,
                    cpu_busy_p90=round(cpu[int(0.9 * (len(cpu) - 1))], 3) if cpu else None,
                    gpu_util_mean={str(i): round(statistics.mean(v), 1) for i, v in sorted(util.items()) if i in used})


def worker_timeline(db: Path, t_start: float, t_end: float) -> dict:
    "Per worker, from the service's queue: jobs, busy share of the queue's wall time, and the gaps between its jobs."
    import sqlite3
    con = sqlite3.connect(db); con.row_factory = sqlite3.Row
    rows = con.execute("SELECT worker, started, finished FROM jobs WHERE cached=0 AND started>=? AND finished<=? ORDER BY started",
                       (t_start - 1, t_end + 1)).fetchall()
    con.close()
    out, wall = {}, t_end - t_start
    for w in sorted({r['worker'] for r in rows}):
        js = [r for r in rows if r['worker'] == w]
        gaps = [b['started'] - a['finished'] for a, b in zip(js, js[1:])]
        busy = sum(r['finished'] - r['started'] for r in js)
        out[w] = dict(jobs=len(js), busy_s=round(busy, 2), busy_share=round(busy / wall, 3), run_s_mean=round(busy / len(js), 3),
                      gap_s_mean=round(statistics.mean(gaps), 4) if gaps else None, gap_s_max=round(max(gaps), 3) if gaps else None,
                      first_start_s=round(js[0]['started'] - t_start, 3), idle_at_end_s=round(t_end - js[-1]['finished'], 3))
    return out


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


def profile_split(rs) -> dict:
    "Where the exclusive profile phase went, mean seconds per candidate: the clock's phases, its report after the blocks, and how many rounds it took."
    clocks = [(r.timings or {}).get('clock') or {} for r in rs]
    ph = [{k: v / c.get('group', 1) for k, v in (c.get('phases') or {}).items()} for c in clocks]   # a group's clock shared by its members
    out = {k: round(statistics.mean(p.get(k, 0) for p in ph), 4) for k in ('calibrate_s', 'pool_s', 'rounds_s', 'checks_s', 'sample_wait_s', 'blocks_s')}
    out['group_mean'] = round(statistics.mean(c.get('group', 1) for c in clocks if c), 2) if any(clocks) else None
    out['report_s'] = round(statistics.mean(r.breakdown.get('report_s', 0) for r in rs), 4)
    gap = [r.breakdown.get('profile_s', 0) - r.breakdown.get('clock_s', 0) - r.breakdown.get('report_s', 0) for r in rs]   # before the clock starts
    out['before_clock_s'], out['before_clock_median_s'] = round(statistics.mean(gap), 4), round(statistics.median(gap), 4)   # 0.156 s mean on an H200 (6e3e33c), ~0 on the CPU
    out['rounds_mean'] = round(statistics.mean(c.get('rounds', 0) for c in clocks), 2)
    out['settled_early_share'] = round(sum(bool(c.get('settled_at')) for c in clocks) / max(1, len(clocks)), 3)
    return out


def group_split(rs) -> dict:
    "Where the groups' wall went, mean seconds per candidate: its members loaded and verified one by one, the baselines' process, closing the members' processes, the whole group."
    g = [r.breakdown for r in rs if r.breakdown.get('group_wall_s')]
    if not g: return {}
    return {k: round(statistics.mean(b.get(k, 0) / b['group_size'] for b in g), 4) for k in ('group_members_s', 'group_baselines_s', 'group_close_s', 'group_wall_s')}


def queue_run(ev, items, gpus: str) -> dict:
    "Evaluate a queue of new candidates through the service; throughput, correctness, and where the time went."
    sampler, t_start = Sampler(), time.time()
    t0 = time.perf_counter()
    got = dict(ev.evaluate_iter(items, progress=False))
    q_s, t_end = time.perf_counter() - t0, time.time()
    rs = [got[i] for i in range(len(items))]
    waits = [r.breakdown.get('compile_s', 0) for r in rs]
    return dict(queue=len(items), queue_s=round(q_s, 2), candidates_per_hour=round(len(items) / q_s * 3600),
                candidates_per_gpu_hour=round(len(items) / q_s * 3600 / len(gpus.split(','))),
                queue_correct=sum(r.correct for r in rs), queue_flags=sorted({f for r in rs for f in r.flags}),
                flag_details=[{'task': it['task'].id, 'flag': f, 'detail': str(r.flag_details.get(f, ''))[:300]} for r, it in zip(rs, items) for f in r.flags][:12],
                queue_errors=sorted({(r.error or '')[:120] for r in rs if not r.correct}),
                candidate_ms_by_task={n: round(statistics.median([r.timings['candidate']['median'] for r, it in zip(rs, items)
                                                                   if r.correct and it['task'].id == n] or [0]), 5) for n in KERNELS},
                breakdown_mean={k: round(statistics.mean(r.breakdown.get(k, 0) for r in rs), 3)
                                for k in ('compile_s', 'load_s', 'child_load_s', 'reference_wait_s', 'verify_s', 'child_verify_s', 'device_wait_s', 'profile_s', 'clock_setup_s', 'clock_init_s', 'clock_s', 'report_s', 'total_s')},
                profile_split_mean=profile_split(rs), group_split_mean=group_split(rs),
                child_verify_split_mean={k: round(statistics.mean(r.breakdown['child_verify_split'].get(k, 0) for r in rs if r.breakdown.get('child_verify_split')), 4)
                                         for k in ('trials_s', 'first_trial_s', 'repeat_s', 'probe_s', 'integrity_s')} if any(r.breakdown.get('child_verify_split') for r in rs) else {},
                warm_split_mean={k: round(statistics.mean(r.breakdown['warm_split'].get(k, 0) for r in rs if r.breakdown.get('warm_split')), 4)
                                 for k in ('settings_s', 'slot_wait_s', 'lock_wait_s', 'cuda_start_s', 'kernels_s', 'idle_s', 'integrity_s')} if any(r.breakdown.get('warm_split') for r in rs) else {},
                prestarted_share=round(statistics.mean(bool(r.breakdown.get('prestarted')) for r in rs), 3),
                build_waits=dict(over_0_5_s=sum(w > 0.5 for w in waits), max_s=round(max(waits), 2)),
                host=sampler.result(gpus), workers=worker_timeline(start_service.db, t_start, t_end),
                breakdowns=[{'task': it['task'].id, 'correct': r.correct, **r.breakdown} for r, it in zip(rs, items)])


def parse_queue(text: str, presets: list) -> dict:
    """--queue: '120' (every preset) or 'cpu=240,gpu=64' (each preset named once) -> {preset: count}; anything else is one
    line naming it. At the gpu preset a new candidate takes ~5.3 s on one H200, so 240 of them are ~21 minutes."""
    try: q = {p: int(text) for p in presets} if '=' not in text else {k.strip(): int(v) for k, v in (kv.split('=') for kv in text.split(','))}
    except ValueError: raise SystemExit(f"--queue {text!r}: give a count (120) or one per preset (cpu=240,gpu=64)") from None
    if not q or set(q) != set(presets) or min(q.values()) < 1:
        raise SystemExit(f"--queue {text!r}: give a count >= 1 for each of the presets {','.join(presets)}")
    return q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--configs', default='0x1', help="';'-separated GPUSxWORKERS, e.g. '0x1;0x2' or '0x1;0,1x1'")
    ap.add_argument('--presets', default='cpu', help="','-separated task size presets, each run with every config (e.g. 'cpu,gpu')")
    ap.add_argument('--queue', default='120', help="new candidates per throughput run: one count, or per preset, e.g. 'cpu=240,gpu=64'")
    ap.add_argument('--no-latency', action='store_true', help='skip the CLI wall-time measurements')
    ap.add_argument('--local-once', action='store_true', help='also time one `cawb evaluate --local` (no service) of a new candidate, for comparison')
    args = ap.parse_args()
    queue = parse_queue(args.queue, args.presets.split(','))
    import torch
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.tasks import load_task
    names = list(KERNELS)
    tpaths = {n: ROOT / 'data/tasks' / f'{n}.py' for n in names}
    tasks = {n: load_task(p) for n, p in tpaths.items()}
    work = Path(tempfile.mkdtemp(prefix='svc-cands-'))
    t0 = time.perf_counter(); subprocess.run([sys.executable, '-c', 'import torch'], check=True)
    res = {'command': ' '.join(['python3', *sys.argv]), 'device': torch.cuda.get_device_name(0), 'gpus_visible': torch.cuda.device_count(),
           'cpu_cores': os.cpu_count(),
           'driver': subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'], capture_output=True, text=True).stdout.split('\n')[0],
           'torch': torch.__version__, 'cuda': torch.version.cuda, 'python': sys.version.split()[0], 'precision': {'allow_tf32': False},
           'import_torch_s': round(time.perf_counter() - t0, 3), 'date': time.strftime('%Y-%m-%d %H:%M:%S'),
           'commit': os.environ.get('CAWB_COMMIT') or subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=ROOT).stdout.strip(),
           'runs': []}
    out = Path(args.out); out.parent.mkdir(parents=True, exist_ok=True)
    dump = lambda: out.write_text(json.dumps(res, indent=1, default=str))
    ci = 0
    for preset in args.presets.split(','):
        env = {**os.environ, 'CAWB_EVAL_PRESET': preset, 'CAWB_SERVICE_USE': 'never'}
        for cfg in args.configs.split(';'):
            gpus, workers = cfg.split('x'); workers = int(workers); ci += 1
            proc, url, ready_s = start_service(gpus, workers, env, out.parent / f"service_log_{preset}_{ci}.txt")
            run = {'preset': preset, 'gpus': gpus, 'workers_per_gpu': workers, 'service_ready_s': ready_s}
            print(f"[{preset} {cfg}] service ready in {ready_s} s at {url}", flush=True)
            with RemoteEvaluator(url) as ev:
                t0 = time.perf_counter()   # every worker warm: each task once per worker (baselines, torch.compile, the first build)
                warm = [r for _, r in ev.evaluate_iter([dict(task=tasks[n], solution=write_candidate(work, n, 0, f'warm{ci}_{k}'))
                                                        for k in range(len(gpus.split(',')) * workers) for n in names], progress=False)]
                run['warm_s'] = round(time.perf_counter() - t0, 2); run['warm_correct'] = sum(r.correct for r in warm)
                run['env'] = warm[0].env
                print(f"[{preset} {cfg}] warm {run['warm_s']} s, correct {run['warm_correct']}/{len(warm)}", flush=True)
                if not args.no_latency and ci == 1:
                    new, cached = [], []
                    for i in range(3):
                        n = names[i % len(names)]; cand = write_candidate(work, n, 100 + i, f'cli{ci}')
                        new.append(cli_wall(url, tpaths[n], cand, env)); cached.append(cli_wall(url, tpaths[n], cand, env))
                    run['cli_new'] = [{'wall_s': w, 'correct': r.get('correct'), **{k: r.get('breakdown', {}).get(k) for k in ('compile_s', 'load_s', 'verify_s', 'profile_s', 'total_s')}, 'error': r.get('error'), **r['wall_split']} for w, r in new]
                    run['cli_cached'] = [{'wall_s': w, 'correct': r.get('correct'), **r['wall_split']} for w, r in cached]
                    run['cli_new_median_s'] = statistics.median(w for w, _ in new); run['cli_cached_median_s'] = statistics.median(w for w, _ in cached)
                    print(f"[{preset} {cfg}] cli new {run['cli_new_median_s']} s, cached {run['cli_cached_median_s']} s", flush=True)
                    if args.local_once:
                        cand = write_candidate(work, names[0], 150, 'local')
                        t0 = time.perf_counter()
                        r = subprocess.run([sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()', 'evaluate', str(tpaths[names[0]]), str(cand), '--local', '--json'],
                                           capture_output=True, text=True, env=env, cwd=ROOT)
                        run['cli_local_new_s'] = round(time.perf_counter() - t0, 2); run['cli_local_ok'] = r.returncode == 0
                        print(f"[{preset} {cfg}] cli --local new candidate {run['cli_local_new_s']} s", flush=True)
                items = [dict(task=tasks[names[i % len(names)]], solution=write_candidate(work, names[i % len(names)], 200 + i, f'q{ci}')) for i in range(queue[preset])]
                run.update(queue_run(ev, items, gpus))
                with open(out.with_suffix('.breakdowns.jsonl'), 'a') as f:       # every candidate's breakdown, for a look past the means
                    for b in run.pop('breakdowns'): f.write(json.dumps({'preset': preset, 'config': cfg, **b}, default=str) + '\n')
                print(f"[{preset} {cfg}] queue {len(items)} in {run['queue_s']} s -> {run['candidates_per_gpu_hour']}/GPU-hour, correct {run['queue_correct']}, "
                      f"{run['breakdown_mean']}, host {run['host']}", flush=True)
            proc.terminate(); proc.wait(30)
            res['runs'].append(run); res['speedup'] = speedups(res['runs'])
            best = {}
            for r in res['runs']: best[r['preset']] = max(best.get(r['preset'], 0), r['candidates_per_gpu_hour'])
            res['best_by_preset'] = best; res['best_candidates_per_gpu_hour'] = best.get('cpu'); dump()
    dump(); print(json.dumps({k: v for k, v in res.items() if k != 'runs'}, indent=1)); print(f"wrote {out}")


def speedups(runs: list) -> dict:
    "Per preset and workers per GPU: queue time on the first GPU alone over queue time on n GPUs (key 'PRESET/xW/nGPUS')."
    out = {}
    for r in runs:
        one = next((b for b in runs if b['preset'] == r['preset'] and b['workers_per_gpu'] == r['workers_per_gpu'] and ',' not in b['gpus']), None)
        if one is not None and r is not one: out[f"{r['preset']}/x{r['workers_per_gpu']}/{len(r['gpus'].split(','))}gpus"] = round(one['queue_s'] / r['queue_s'], 3)
    return out


if __name__ == '__main__':
    main()
