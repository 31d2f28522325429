"""Nsight Compute metrics and roofline positions (issue 50) of the best CUDA solution of each bundled task
(data/trajectories/cuda/best/<task>__s0) at the gpu preset: per kernel its duration, achieved DRAM bandwidth and FP
throughput against this machine's measured peaks (`ncu.measure_peaks`: an FMA kernel and a 1 GiB copy, not a
datasheet) and against Nsight Compute's own peaks, occupancy, registers, local-memory traffic (spills), arithmetic
intensity, the attainable FLOP/s there and the share reached. Writes the JSON, and beside it `ncu_roofline.html` (every
task's kernels on the measured roofline; hover a point for its numbers) and `ncu_trajectories/` (one trajectory per task
whose last step holds the metrics, as the agent's `profile` with `ncu: true` records them, for the explorer).

    source bench/device_setup.sh; python3 bench/ncu_gpu.py --out $OUT/ncu_gpu.json      # on a GPU machine
    python3 bench/ncu_gpu.py --out /tmp/n.json                                          # without a GPU: one sentence, exit 2
"""
import argparse, json, os, platform, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def versions() -> dict:
    "Device, driver, torch, CUDA and ncu versions, the commit."
    import torch
    from cuda_agent_wb.ncu import ncu_path
    def lines(cmd):
        try: return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()
        except (OSError, subprocess.TimeoutExpired): return []
    return dict(device=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, torch=torch.__version__, cuda=torch.version.cuda,
                driver=(lines(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader']) or [None])[0],
                ncu=(lines([ncu_path(), '--version']) or [None])[-1] if ncu_path() else None, python=platform.python_version(),
                commit=os.environ.get('CAWB_COMMIT') or (lines(['git', '-C', str(ROOT), 'rev-parse', 'HEAD']) or [None])[0])


KEEP = ('name', 'launches', 'duration_us', 'dram_pct_measured', 'flops_pct_measured', 'dram_pct_ncu', 'sm_pct_ncu', 'occupancy_pct', 'registers',
        'spill_bytes', 'block', 'grid', 'flops', 'dram_bytes', 'intensity', 'flops_s', 'bytes_s', 'attainable_flops_s', 'pct_of_attainable', 'bound', 'tensor_inst')


DEADLINE = [float('inf')]        # perf_counter time after which no solution starts (--budget-s)


def one(sol: Path, peaks: dict, preset: str) -> dict:
    "ncu on one solution: its kernels' metrics, or the error sentence."
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.ncu import ncu_metrics
    task = sol.name.split('__')[0]
    if time.perf_counter() > DEADLINE[0]: return dict(task=task, solution=str(sol.relative_to(ROOT)), seconds=0.0, error='skipped: past --budget-s', kernels=[])
    try: m = ncu_metrics(load_task(ROOT/f'data/tasks/{task}.py'), sol, 'cuda', preset=preset, peaks=peaks)
    except Exception as e: m = dict(seconds=None, error=f"{type(e).__name__}: {e}", kernels=[])
    return dict(task=task, solution=str(sol.relative_to(ROOT)), seconds=m['seconds'], error=m['error'], kernels=m['kernels'])


def write_views(rows: list[dict], peaks: dict, out: Path, header: dict):
    "The roofline HTML of every task's kernels, and one trajectory per task for the explorer."
    from cuda_agent_wb.ncu import roofline_figure
    ks = [{**k, 'name': f"{r['task']}: {k['name']}"} for r in rows for k in r['kernels']]
    html = roofline_figure(ks, peaks, f"Roofline, best CUDA solution per bundled task ({header.get('device')}, gpu preset)").to_html(include_plotlyjs=True)
    (out.parent/'ncu_roofline.html').write_text(html)
    d = out.parent/'ncu_trajectories'; d.mkdir(exist_ok=True)
    for r in rows:
        head = {'type': 'header', 'task_id': r['task'], 'sample': 0, 'policy': {'policy': 'bench/ncu_gpu.py'}, 'backend': 'cuda', 'device': header.get('device')}
        step = {'type': 'step', 'turn': 1, 'model_text': '', 'action': {'tool': 'profile', 'args': {'ncu': True}}, 'observation': '',
                'result': {'ncu': {'kernels': r['kernels'], 'peaks': peaks, 'error': r['error']}}, 'reward': None}
        (d/f"{r['task']}__s0.jsonl").write_text('\n'.join(json.dumps(x, default=str) for x in (head, step)) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='the JSON to write (the roofline HTML and trajectories go beside it)')
    ap.add_argument('--preset', default='gpu', help='task size preset (default gpu)')
    ap.add_argument('--jobs', type=int, default=2, help='solutions at once (ncu itself profiles one kernel at a time)')
    ap.add_argument('--budget-s', type=float, default=480, help='no solution starts after this many seconds (the JSON is written before a hard limit)')
    ap.add_argument('--tasks', default=None, help='comma-separated task names (default: every bundled task)')
    a = ap.parse_args()
    import torch
    from cuda_agent_wb.ncu import ncu_missing, measure_peaks
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    header = dict(command=' '.join([os.path.basename(sys.executable), *sys.argv]), started=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), **versions())
    why = None if torch.cuda.is_available() else "no CUDA GPU is visible to torch, so Nsight Compute metrics cannot be taken here"
    why = why or ncu_missing('cuda')
    if why:
        out.write_text(json.dumps({**header, 'error': why}, indent=1)); print(f"ncu_gpu: {why}", file=sys.stderr); sys.exit(2)
    try: peaks = measure_peaks(fresh=True)
    except RuntimeError as e:
        out.write_text(json.dumps({**header, 'error': str(e)}, indent=1)); print(f"ncu_gpu: {e}", file=sys.stderr); sys.exit(2)
    sols = sorted((ROOT/'data/trajectories/cuda/best').iterdir())
    if a.tasks: sols = [s for s in sols if s.name.split('__')[0] in a.tasks.split(',')]
    t0 = time.perf_counter(); DEADLINE[0] = t0 + a.budget_s
    with ThreadPoolExecutor(a.jobs) as ex: rows = list(ex.map(lambda s: one(s, peaks, a.preset), sols))
    write_views(rows, peaks, out, header)
    for r in rows: r['kernels'] = [{f: k.get(f) for f in KEEP} for k in r['kernels']]
    res = {**header, 'preset': a.preset, 'peaks': peaks, 'wall_s': round(time.perf_counter() - t0, 1),
           'summary': dict(tasks=len(rows), with_metrics=sum(bool(r['kernels']) for r in rows), errors={r['task']: r['error'] for r in rows if r['error']},
                           bound={r['task']: sorted({k['bound'] for k in r['kernels'] if k['bound']}) for r in rows}), 'tasks': rows}
    out.write_text(json.dumps(res, indent=1, default=str))
    print(json.dumps(res['summary'], indent=1))


if __name__ == '__main__':
    main()
