"""Agentic PPO on several GPUs against one: `bench/train_gpu.py` (the gpu-100m preset) once on one GPU with E episodes per
step, then as N processes under torchrun (the trainer's Accelerator runs DDP: each process plays its share of the
episodes on its own GPU with its own evaluators, gradients averaged) on N GPUs with N x E episodes per step, so every GPU carries the same load. Reports
episodes per second of each run (episodes per step / median step time) and their ratio (the issue's bar on 2 x H200:
>= 1.7).

    python bench/train_multi_gpu.py                       # on a 2-GPU machine: 2 GPUs vs 1; bench/results/train_2gpu.json
    python bench/train_multi_gpu.py --gpus 4 --episodes 8
    python bench/train_multi_gpu.py --counts 1,2,4 --preset gpu-100m-replay --steps 2 --results $OUT/train_scale.json
                                                          # a curve, with episodes that evaluate kernels (the bundled scripts replayed
                                                          # through the live actor); --counts 4 alone adds one point to an earlier file
    python bench/train_multi_gpu.py --backend cpu --gpus 2 --episodes 2 --steps 1 --set 'tiny={"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}' \\
        --set dtype=float32 --set grad_ckpt=false --set max_new_tokens=16 --set max_turns=1 --set samples_per_task=1 \\
        --results /tmp/train_multi_check.json            # checks the script itself on a CPU (2 processes, gloo)

Each run's own results file sits beside the summary (`*_1.json`, `*_N.json`); the summary is rewritten after each run.
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).parent


def run_one(processes: int, a, results: Path) -> dict:
    "One train_gpu.py run on `processes` processes (one GPU each); its results record, or an `error`."
    args = ['--steps', str(a.steps), '--episodes', str(a.episodes * processes), '--backend', a.backend, '--preset', a.preset,
            '--out', f"{a.out}_{processes}", '--results', str(results), *[x for s in a.set for x in ('--set', s)]]
    env = dict(os.environ)
    if processes == 1: cmd = [sys.executable, str(HERE / 'train_gpu.py'), *args]
    else:           # torchrun starts the processes; the trainer's Accelerator reads their rank and world size
        cmd = [sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node', str(processes), str(HERE / 'train_gpu.py'), *args]
        if a.backend == 'cpu': env.update(ACCELERATE_USE_CPU='true', OMP_NUM_THREADS='1')
    t0 = time.time()
    r = subprocess.run(cmd, env=env, text=True, capture_output=True)
    if r.returncode != 0 or not results.is_file():
        return dict(processes=processes, error=f"exit {r.returncode}: {r.stderr[-1500:]}", wall_s=round(time.time() - t0, 1))
    res = json.loads(results.read_text())
    steps = [r for r in res.get('per_step') or [] if r.get('stage') == 'agentic']
    later = [r['step_s'] for r in steps[1:]]          # the first step builds every kernel and compiles every baseline: cold
    steady = round(sorted(later)[len(later) // 2], 3) if later else None
    split = {k: round(sum(r.get(k) or 0 for r in steps[1:]) / len(later), 3) if later else None for k in ('gen_s', 'wait_s', 'update_s')}
    return {k: res.get(k) for k in ('device', 'processes', 'episodes_per_step', 'steps', 'evaluations_per_step', 'builds_per_step', 'median_step_s',
                                   'median_rollout_s', 'median_gen_s', 'median_wait_s', 'median_update_s', 'allreduce_s', 'episodes_per_s',
                                   'peak_gpu_mem_gb', 'peak_gpu_mem_gb_per_rank', 'finished')} | dict(
        steady_step_s=steady, steady_split_s=split, steady_episodes_per_s=round(res['episodes_per_step'] / steady, 4) if steady else None,
        wall_s=round(time.time() - t0, 1), command=' '.join(cmd))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--gpus', type=int, default=2, help='processes (one GPU each) of the many-GPU run (runs 1 and this)')
    ap.add_argument('--counts', default='', help="GPU counts to run instead, e.g. '1,2,4'; a count already in --results is kept unless run again")
    ap.add_argument('--preset', default='gpu-100m', help='TrainConfig preset (gpu-100m-replay: the bundled scripts replayed, so episodes evaluate kernels)')
    ap.add_argument('--episodes', type=int, default=8, help='episodes per step per GPU')
    ap.add_argument('--steps', type=int, default=3, help='agentic PPO iterations per run')
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--out', default='runs/train_multi_gpu', help='run folders: OUT_1, OUT_N')
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field (both runs)')
    ap.add_argument('--results', default=str(HERE / 'results' / 'train_2gpu.json'))
    a = ap.parse_args()
    counts = [int(c) for c in a.counts.split(',')] if a.counts else [1, a.gpus]
    if a.backend == 'cuda':
        import torch
        if torch.cuda.device_count() < max(counts): raise SystemExit(f"{max(counts)} GPUs asked: only {torch.cuda.device_count()} visible")
    out = Path(a.results); out.parent.mkdir(parents=True, exist_ok=True)
    summary = json.loads(out.read_text()) if a.counts and out.is_file() else dict(runs=[])     # --counts adds points to a curve
    summary.update(what=f"agentic PPO ({a.preset} preset, bench/train_gpu.py): {a.episodes} episodes per GPU per step, on 1 to {max(counts)} GPUs",
                   commit=os.environ.get('CAWB_COMMIT') or subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=HERE).stdout.strip())
    summary.setdefault('commands', []).append(' '.join(sys.argv))
    for n in counts:
        summary['runs'] = [r for r in summary['runs'] if r.get('processes') != n and r.get('gpus') != n] + [dict(gpus=n, **run_one(n, a, out.with_name(f"{out.stem}_{n}.json")))]
        summary['runs'].sort(key=lambda r: r['gpus'])
        summary['speedup'] = speedups(summary['runs'], 'episodes_per_s'); summary['steady_speedup'] = speedups(summary['runs'], 'steady_episodes_per_s')
        out.write_text(json.dumps(summary, indent=1) + '\n')
        print(json.dumps(summary['runs'][-1]), flush=True)
    print(f"episodes/s by GPUs: {({r['gpus']: r.get('episodes_per_s') for r in summary['runs']})}, speedup {summary['speedup']}, "
          f"steady {summary['steady_speedup']}; {out}")


def speedups(runs: list, key: str) -> dict:
    "Each GPU count's `key` over one GPU's (keyed by the count as a string); empty without a one-GPU run."
    one = next((r.get(key) for r in runs if r['gpus'] == 1), None)
    return {str(r['gpus']): round(r[key] / one, 3) for r in runs if r['gpus'] > 1 and one and r.get(key)}


if __name__ == '__main__': main()
