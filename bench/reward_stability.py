"""Do rewards hold still? Two parts, each writing its own section of the JSON.

GPU (`--gpu`): small kernels, case by case, evaluated `--repeat` times on an idle GPU, then as often beside a neighbour computing on
the same GPU (the neighbour paused, not stopped, for the idle ones; OUT.partial.json holds every evaluation so far, for a cut run) (a separate process running bf16 matmul bursts, like a trainer's steps: `--neighbour-busy-ms` on,
`--neighbour-idle-ms` off): a plain µs-scale ReLU (tests/solutions/cuda/relu_plain.py), CUDA Agent's released
agent_workdir (`--ca`), and lean CUDA kernels of four bundled tasks (bench/_candidates.py) at the preset in force
(run once with CAWB_EVAL_PRESET=cpu and once with =gpu, `--merge` into one file). `gpu.same_reward_share`: the share of
(case, repeat) pairs whose reward beside the neighbour equals the idle one; `gpu.speedup_median_shift`: the median
over cases of (median speedup beside / median speedup idle - 1).

CPU (`--cpu-demo`): `cawb demo` twice, each under `../shared/tools/under-load` (every core busy), into two folders;
`cpu.same_reward_share`: the share of tasks whose best reward is the same in both runs.

    source bench/device_setup.sh; CAWB_EVAL_PRESET=cpu python3 bench/reward_stability.py --gpu --out $OUT/rs.json
    python3 bench/reward_stability.py --cpu-demo --out bench/results/reward_stability.json --merge
"""
import argparse, json, multiprocessing as mp, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / 'bench'))


def neighbour(stop, pause, busy_ms: float, idle_ms: float, lock: bool):
    "A trainer-like neighbour: bf16 matmul bursts on the same GPU until `stop` is set (none while `pause` is set); with `lock`, each burst holds the device lock shared, as the workbench's trainer does (`train.actor.holding_device`)."
    import torch
    from cuda_agent_wb.profile import DeviceLock, device_lock_key
    dl = DeviceLock(device_lock_key('cuda:0'), say_after=3600) if lock else None
    a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16); b = torch.randn_like(a)
    while not stop.is_set():
        if pause.is_set(): time.sleep(0.01); continue
        if dl: dl.shared()
        try:
            t0 = time.perf_counter()
            while (time.perf_counter() - t0) * 1e3 < busy_ms: (a @ b).sum().item()
        finally:
            if dl: dl.release()
        time.sleep(idle_ms / 1e3)


def cases(ca: Path, tmp: Path) -> dict:
    from _candidates import write_candidate
    out = {'relu_plain': (ROOT / 'tests/tasks/relu_1024x2048.py', ROOT / 'tests/solutions/cuda/relu_plain.py')}
    if ca.is_dir(): out['ca_workdir'] = (ca / 'model.py', ca)
    for t in ('relu', 'scale_gelu', 'rmsnorm_silu_mul', 'softmax'): out[f'{t}_lean'] = (ROOT / f'data/tasks/{t}.py', write_candidate(tmp, t, 0))
    return out


def evaluate_one(ev, task, sol) -> dict:
    from cuda_agent_wb.tasks import load_task
    r = ev.evaluate(load_task(task), sol)
    t = r.timings or {}
    return {'reward': r.reward, 'speedup_vs_eager': r.speedup_vs_eager, 'speedup_vs_compile': r.speedup_vs_compile, 'flags': r.flags,
            'error': r.error, 'ci_eager': t.get('speedup_vs_eager'), 'clock': t.get('clock')}


def evaluate_pairs(ev, cs: dict, repeat: int, pause, save) -> tuple[dict, dict]:
    "Case by case: `repeat` evaluations with the neighbour paused (idle), then `repeat` beside it; `save(idle, beside)` after each."
    idle, busy = {}, {}
    for name, (task, sol) in cs.items():
        for part, res in (('idle', idle), ('beside', busy)):
            pause.set() if part == 'idle' else pause.clear()
            time.sleep(1.0)                                   # the neighbour's burst under way (or over)
            for i in range(repeat):
                res.setdefault(name, []).append(evaluate_one(ev, task, sol))
                print(part, name, i, res[name][-1]['reward'], res[name][-1]['speedup_vs_eager'], res[name][-1]['flags'], flush=True)
                save(idle, busy)
    return idle, busy


def compare(idle: dict, busy: dict) -> dict:
    same = [a['reward'] == b['reward'] for n in idle for a, b in zip(idle[n], busy.get(n, []))]
    med = lambda rs: statistics.median([r['speedup_vs_eager'] for r in rs if r['speedup_vs_eager']]) if any(r['speedup_vs_eager'] for r in rs) else None
    shifts = {n: (med(busy[n]) / med(idle[n]) - 1) for n in idle if med(idle[n]) and med(busy.get(n, []))}
    spread = lambda rs: (max(x) - min(x)) / statistics.median(x) if (x := [r['speedup_vs_eager'] for r in rs if r['speedup_vs_eager']]) else None
    silent = [n for n in idle for a, b in zip(idle[n], busy.get(n, [])) if a['reward'] != b['reward'] and 'timing_disturbed' not in (b.get('flags') or [])]
    return {'same_reward_share': sum(same) / max(1, len(same)), 'pairs': len(same), 'silent_changes': silent, 'speedup_median_shift': statistics.median(shifts.values()) if shifts else None,
            'shift_by_case': shifts, 'spread_idle': {n: spread(idle[n]) for n in idle}, 'spread_beside': {n: spread(busy[n]) for n in busy}}


def gpu_part(a) -> dict:
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.config import get_settings
    tmp = Path(tempfile.mkdtemp(prefix='rs-'))
    cs = cases(Path(a.ca), tmp)
    if a.cases: cs = {k: v for k, v in cs.items() if k in a.cases.split(',')}
    partial = Path(a.out).with_suffix('.partial.json')      # what a cut run leaves: every evaluation so far
    save = lambda idle, busy: partial.write_text(json.dumps({'idle': idle, 'beside': busy, **compare(idle, busy)}, default=str))
    from concurrent.futures import ThreadPoolExecutor
    from cuda_agent_wb.reward import _prebuild
    with ThreadPoolExecutor(len(cs) or 1) as pool: list(pool.map(lambda c: _prebuild(c[1], 'cuda'), cs.values()))   # every build at once (nvcc on many cores), not one after another
    with Evaluator('cuda') as ev:
        for name, (task, sol) in cs.items():       # baselines' compile and a first verification, outside both measurements
            from cuda_agent_wb.tasks import load_task
            ev.evaluate(load_task(task), sol, stages=('compile', 'verify'))
        ctx = mp.get_context('spawn'); stop, pause = ctx.Event(), ctx.Event(); pause.set()
        p = ctx.Process(target=neighbour, args=(stop, pause, a.neighbour_busy_ms, a.neighbour_idle_ms, a.neighbour == 'trainer'), daemon=True); p.start()
        time.sleep(5)
        try: idle, busy = evaluate_pairs(ev, cs, a.repeat, pause, save)
        finally: stop.set(); p.join(10)
    preset = get_settings().eval.preset
    how = 'holding the device lock shared in each burst, as the trainer does' if a.neighbour == 'trainer' else 'not taking the device lock (a process outside the workbench)'
    return {'preset': preset, 'neighbour_kind': a.neighbour, 'neighbour': f"a process of bf16 8192x8192 matmul bursts, {a.neighbour_busy_ms:g} ms busy / {a.neighbour_idle_ms:g} ms idle, {how}",
            'idle': idle, 'beside': busy, **compare(idle, busy)}


def cpu_part(a) -> dict:
    load = str((ROOT / '../shared/tools/under-load').resolve())
    runs = []
    for i in range(2):
        out = Path(tempfile.mkdtemp(prefix=f'demo{i}-'))
        t0 = time.perf_counter()
        subprocess.run([load, str(ROOT / '.venv/bin/cawb'), 'demo', '--out', str(out)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        best = {}
        for f in sorted(out.glob('*__s*.jsonl')):                # trajectories, not rollout_summary.jsonl
            s = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
            summ = next((x for x in s if x.get('type') == 'summary'), {})
            best[f.stem] = {'reward': summ.get('best_reward'), 'speedup_vs_eager': summ.get('best_speedup_vs_eager')}
        runs.append({'out': str(out), 'wall_s': round(time.perf_counter() - t0, 1), 'best': best})
        print('demo run', i, best, flush=True)
    a0, a1 = runs[0]['best'], runs[1]['best']
    same = [a0[t]['reward'] == a1[t]['reward'] for t in a0 if t in a1]
    return {'runs': runs, 'same_reward_share': sum(same) / max(1, len(same)), 'tasks': len(same), 'load': 'under-load: one busy process per core'}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True); ap.add_argument('--gpu', action='store_true'); ap.add_argument('--cpu-demo', action='store_true')
    ap.add_argument('--merge', action='store_true', help='add to the JSON at --out instead of replacing it (a GPU part goes under gpu_<preset>)')
    ap.add_argument('--repeat', type=int, default=4); ap.add_argument('--ca', default=str(ROOT / '.ext/CUDA-Agent/agent_workdir'))
    ap.add_argument('--neighbour', choices=('trainer', 'rogue'), default='trainer', help="'trainer': holds the device lock shared while computing (the workbench's trainer); 'rogue': does not (its rounds must be seen disturbed)")
    ap.add_argument('--cases', default='', help='comma-separated case names (relu_plain, ca_workdir, relu_lean, ...); default all')
    ap.add_argument('--neighbour-busy-ms', type=float, default=200.0); ap.add_argument('--neighbour-idle-ms', type=float, default=50.0)
    a = ap.parse_args()
    out = json.loads(Path(a.out).read_text()) if a.merge and Path(a.out).exists() else {}
    from timing_fair import env_record
    if a.gpu:
        g = gpu_part(a); out[f"gpu_{g['preset']}" + ('' if a.neighbour == 'trainer' else '_rogue')] = {**env_record(), **g}
    if a.cpu_demo: out['cpu'] = {**env_record(), **cpu_part(a)}
    gp = [v for k, v in out.items() if k.startswith('gpu_') and v.get('neighbour_kind', 'trainer') == 'trainer']   # the target: beside the workbench's trainer
    if gp:
        pairs = sum(v['pairs'] for v in gp)
        out['gpu'] = {'same_reward_share': sum(v['same_reward_share'] * v['pairs'] for v in gp) / max(1, pairs), 'pairs': pairs,
                      'speedup_median_shift': statistics.median([v['speedup_median_shift'] for v in gp if v['speedup_median_shift'] is not None] or [0]), 'presets': [v['preset'] for v in gp]}
    Path(a.out).write_text(json.dumps(out, indent=1, default=str))
    print(json.dumps({k: out[k] for k in ('gpu',) if k in out} | ({'cpu': out['cpu']['same_reward_share']} if 'cpu' in out else {}), indent=1))


if __name__ == '__main__':
    main()
