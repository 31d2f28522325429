"""Synthesis on a GPU: run `synthesize` with the cuda backend (gpu preset, the paper's 1-100 ms eager window) and record
how the composer's GPU cost model compares with measured eager times, the funnel and the wall time.

    python bench/synth_gpu.py --n 200 --out runs/synth_gpu          # on a GPU machine; writes bench/results/synth_gpu.json

`--backend cpu` runs the same script on a CPU (cpu preset) to check the script itself.
"""
import argparse, json, statistics, subprocess, sys, time
from pathlib import Path
import torch
from cuda_agent_wb.synth import SynthConfig, FilterConfig, STAGES, synthesize


def quantiles(xs, qs=(0.1, 0.5, 0.9)):
    xs = sorted(xs)
    return {f"p{int(q * 100)}": round(xs[min(len(xs) - 1, int(q * len(xs)))], 4) for q in qs} if xs else {}


def verify_dataset(path, k, backend, workdir, timeout_s: float = 300):
    "Load the dataset with `load_ops6k`; `cawb evaluate` its first k tasks, each with its own Model as the solution."
    from cuda_agent_wb.tasks import load_ops6k
    tasks, errors = load_ops6k(path)
    out = dict(loaded=len(tasks), load_errors=errors[:5], evaluated=[])
    workdir = Path(workdir); workdir.mkdir(parents=True, exist_ok=True)
    for t in tasks[:k]:
        task_py, sol_py = workdir / f"{t.id.replace('/', '_')}.py", workdir / f"{t.id.replace('/', '_')}_sol.py"
        task_py.write_text(t.source)
        sol_py.write_text(t.source + "\n\nclass ModelNew(Model):\n    pass\n")
        cmd = [sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()', 'evaluate', str(task_py), str(sol_py),
               '--backend', backend, '--rules', 'kernelbench', '--local', '--json']
        t0 = time.time()
        try: p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            out['evaluated'].append(dict(task=t.id, rc=None, wall_s=round(time.time() - t0, 1), error=f'no result in {timeout_s} s')); continue
        try: r = json.loads(p.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError): r = dict(error=(p.stderr or p.stdout).strip().splitlines()[-1:])
        out['evaluated'].append(dict(task=t.id, rc=p.returncode, wall_s=round(time.time() - t0, 1), correct=r.get('correct'),
                                     speedup_vs_eager=r.get('speedup_vs_eager'), flags=r.get('flags'), error=r.get('error')))
    return out


def main():
    import faulthandler; faulthandler.enable()   # a crash in native code (CUDA graphs, extensions) prints every thread's stack
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--n', type=int, default=200)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--out', default='runs/synth_gpu')
    ap.add_argument('--workers', type=int, default=None, help='filter workers (default: up to four per GPU)')
    ap.add_argument('--time-limit-s', type=float, default=None,
                    help='stop starting new batches after this many seconds and write what passed; run again to resume')
    ap.add_argument('--results', default=str(Path(__file__).parent / 'results' / 'synth_gpu.json'))
    kb = Path('.ext/KernelBench/KernelBench')
    ap.add_argument('--kernelbench', default=str(kb) if kb.exists() else None,
                    help='KernelBench checkout to decontaminate against (default: .ext/KernelBench/KernelBench when present)')
    ap.add_argument('--verify', type=int, default=3, help='load the dataset and `cawb evaluate` this many of its tasks')
    a = ap.parse_args()
    if a.backend == 'cuda' and not torch.cuda.is_available(): raise SystemExit("no CUDA device visible: run this on a GPU machine")
    t0 = time.time()
    run = synthesize(SynthConfig(n=a.n, seed=a.seed, out_dir=a.out, workers=a.workers, time_limit_s=a.time_limit_s),
                     FilterConfig(backend=a.backend, stages=STAGES, kernelbench=a.kernelbench))
    calls = Path(a.out) / 'calls.jsonl'   # one line per call: a resumed run's wall time is the sum over its calls
    with calls.open('a') as f: f.write(json.dumps(dict(wall_s=round(time.time() - t0, 1), kept=len(run.accepted))) + '\n')
    walls = [json.loads(l)['wall_s'] for l in calls.read_text().splitlines()]
    preset = 'gpu' if a.backend == 'cuda' else 'cpu'
    timed = [r for r in run.records if r['metrics'].get('eager_ms') and r['est_ms'].get(preset)]
    ratio = [r['metrics']['eager_ms'] / r['est_ms'][preset] for r in timed]
    kept = run.accepted
    res = dict(
        device=torch.cuda.get_device_name(0) if a.backend == 'cuda' else 'cpu', backend=a.backend, n=a.n, seed=a.seed,
        wall_s=round(sum(walls), 1), calls_wall_s=walls, workers=a.workers, candidates=len(run.records), kept=len(kept), funnel=run.funnel,
        eager_ms_kept=quantiles([r['metrics']['eager_ms'] for r in kept if r['metrics'].get('eager_ms')]),
        compile_ms_kept=quantiles([r['metrics']['compile_ms'] for r in kept if r['metrics'].get('compile_ms')]),
        measured_over_estimated=dict(**quantiles(ratio), median=round(statistics.median(ratio), 3) if ratio else None, n=len(ratio)),
        window_ms=FilterConfig(backend=a.backend).gpu_window_ms if a.backend == 'cuda' else FilterConfig().cpu_window_ms,
        torch=torch.__version__, kernelbench=a.kernelbench)
    Path(a.results).parent.mkdir(parents=True, exist_ok=True)
    Path(a.results).write_text(json.dumps(res, indent=1) + '\n')       # written before the verify, so a call cut off there keeps it
    if len(kept) >= a.n and a.verify and run.files.get('dataset'):
        res['verify'] = verify_dataset(run.files['dataset'], a.verify, a.backend, Path(a.out) / 'verify')
        Path(a.results).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: v for k, v in res.items() if k != 'funnel'}, indent=1))


if __name__ == '__main__': main()
