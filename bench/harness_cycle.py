#!/usr/bin/env python3
"""Evaluator II benchmark: the conventional evaluation path against the workbench's, same candidates, same GPU.

Run on a GPU machine (never in CI):
    python bench/harness_cycle.py --out bench/results/harness_cycle.json

Conventional path (bench/_conventional.py, three fresh processes per candidate): cpp_extension.load of the
candidate's .cu and a torch/extension.h binding into a wiped build dir; a fresh-process verify; a fresh-process
profile that runs torch.compile on the reference every time. Workbench path: one `Evaluator` (warm fork server and
reference worker, lean cached builds, cached baselines). Reports cold and cached cycles, candidates per GPU-hour over
a queue of 20 new candidates, and the spread of one candidate's timing across 3 candidate processes.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'bench'))
from _candidates import write_candidate, KERNELS   # noqa: E402


def conventional_cycle(wd: Path, task_path: Path, preset: str) -> dict:
    "One candidate through the conventional path; seconds per step (each a fresh process)."
    build = Path(tempfile.mkdtemp(prefix='conv-build-'))
    out = {}
    for step, extra in (('compile', []), ('verify', [str(task_path), preset]), ('profile', [str(task_path), preset])):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, str(ROOT / 'bench/_conventional.py'), step, str(wd), str(build), *extra],
                           capture_output=True, text=True)
        out[f'{step}_s'] = round(time.perf_counter() - t0, 3)
        if r.returncode != 0: out['error'] = f"{step}: {r.stderr[-500:]}"; break
        if step == 'profile': out['profile_ms'] = r.stdout.strip().split()[-3:]
    out['total_s'] = round(sum(v for k, v in out.items() if k.endswith('_s')), 3)
    shutil.rmtree(build, ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=str(ROOT / 'bench/results/harness_cycle.json'))
    ap.add_argument('--conventional', type=int, default=3, help='candidates through the conventional path')
    ap.add_argument('--queue', type=int, default=20, help='candidates in the throughput queue')
    ap.add_argument('--preset', default='cpu', help="task size preset for the cycle and queue ('cpu' = small kernels)")
    args = ap.parse_args()
    import torch
    from cuda_agent_wb.config import cache_dir
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.config import load_settings
    def settings(preset):
        st = load_settings(); st.eval.preset = preset; return st
    from cuda_agent_wb.profile import env_fingerprint
    tasks = {n: load_task(ROOT / 'data/tasks' / f'{n}.py') for n in KERNELS}
    work = Path(tempfile.mkdtemp(prefix='cycle-'))
    names = list(KERNELS)
    res = {'device': torch.cuda.get_device_name(0), 'command': ' '.join(['python', *sys.argv]), 'preset': args.preset, 'spread_preset': 'gpu'}
    res['env'] = env_fingerprint('cuda:0', {'allow_tf32': False})

    def dump(phase):
        res['phase_done'] = phase
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, indent=1, default=str))
        print(f"[{time.strftime('%H:%M:%S')}] phase done: {phase}", flush=True)

    t0 = time.perf_counter()
    ev = Evaluator('cuda', settings=settings(args.preset))
    warm = []
    for n in names:
        warm.append(ev.evaluate(tasks[n], write_candidate(work, n, 0, 'warm')))
        print(f"warm {n}: {warm[-1].breakdown}", flush=True)
    res['workbench_first_evals_s'] = round(time.perf_counter() - t0, 2)   # worker start + baselines (torch.compile) per task
    res['warm_checks'] = {n: (r.correct, r.error, r.breakdown) for n, r in zip(names, warm)}
    dump('warm')

    # cold: new sources, empty build cache, warm workers and cached baselines
    shutil.rmtree(cache_dir('builds'), ignore_errors=True)
    cold = []
    for i in range(args.queue):
        n = names[i % len(names)]
        r = ev.evaluate(tasks[n], write_candidate(work, n, i // len(names), 'cold'))
        cold.append({'task': n, 'correct': r.correct, 'flags': r.flags, 'error': r.error, **r.breakdown,
                     'speedup_vs_eager': r.speedup_vs_eager, 'speedup_vs_compile': r.speedup_vs_compile})
        print(f"cold {i:2d} {n:18s} total {r.breakdown['total_s']:.2f}s  {r.breakdown}", flush=True)
    res['cold'] = cold; dump('cold')
    cached = []
    for i in range(args.queue):
        n = names[i % len(names)]
        r = ev.evaluate(tasks[n], work / f"{n}_v{i // len(names)}cold")
        cached.append(r.breakdown['total_s'])
    res['cached_cycles_s'] = cached; dump('cached')
    # throughput: a queue of new candidates through evaluate_many (compiles ahead while the GPU runs)
    shutil.rmtree(cache_dir('builds'), ignore_errors=True)
    pairs = [(tasks[names[i % len(names)]], write_candidate(work, names[i % len(names)], i // len(names), 'queue')) for i in range(args.queue)]
    t0 = time.perf_counter()
    qres = ev.evaluate_many(pairs)
    queue_s = time.perf_counter() - t0
    # spread: one >= 0.1 ms candidate timed in 3 fresh candidate processes
    ev.close()
    ev = Evaluator('cuda', settings=settings('gpu'))
    spread_runs = [ev.evaluate(tasks['rmsnorm_silu_mul'], work / 'rmsnorm_silu_mul_v0cold') for _ in range(4)][1:]   # first computes baselines
    meds = [r.timings['candidate']['median'] for r in spread_runs]
    wall_meds = [r.timings['candidate_wall']['median'] for r in spread_runs]
    ev.close()
    res.update(queue_s=round(queue_s, 2), spread_medians_ms=meds, spread_wall_medians_ms=wall_meds,
               spread_wall_pct=round(100 * (max(wall_meds) - min(wall_meds)) / statistics.median(wall_meds), 3)); dump('queue+spread')

    conv = []
    for i in range(args.conventional):
        n = names[i % len(names)]
        c = conventional_cycle(work / f"{n}_v0cold", ROOT / 'data/tasks' / f'{n}.py', args.preset)
        conv.append({'task': n, **c, 'workbench_cold_s': cold[i]['total_s']})
        print(f"conventional {n}: {c}", flush=True)

    conv_mean = statistics.mean(c['total_s'] for c in conv)
    wb_same = statistics.mean(c['workbench_cold_s'] for c in conv)
    res.update({
        'conventional': conv, 'conventional_cold_s': round(conv_mean, 3),
        'workbench_cold_s': round(statistics.mean(c['total_s'] for c in cold), 3),
        'workbench_cold_s_same_candidates': round(wb_same, 3),
        'speedup_cold': round(conv_mean / wb_same, 2),
        'workbench_cached_s': round(statistics.mean(cached), 3),
        'queue_candidates': args.queue, 'queue_s': round(queue_s, 2),
        'candidates_per_gpu_hour': round(args.queue / queue_s * 3600),
        'queue_all_correct': all(r.correct for r in qres),
        'timing_spread_pct': round(100 * (max(meds) - min(meds)) / statistics.median(meds), 3),
        'spread_medians_ms': meds,
        'cold_breakdown_mean': {k: round(statistics.mean(c[k] for c in cold if k in c), 3)
                                for k in ('compile_s', 'load_s', 'verify_s', 'profile_s', 'total_s')},
        'cold': cold,
    })
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=1, default=str))
    print(f"\n{'metric':32s} value")
    for k in ('conventional_cold_s', 'workbench_cold_s_same_candidates', 'speedup_cold', 'workbench_cold_s', 'workbench_cached_s',
              'candidates_per_gpu_hour', 'timing_spread_pct'):
        print(f"{k:32s} {res[k]}")
    print(f"wrote {args.out}")


if __name__ == '__main__':
    main()
