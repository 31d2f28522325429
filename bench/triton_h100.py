"""The scripted Triton solutions of the bundled tasks, scored by the real evaluator on a GPU (gpu size preset, eager and
torch.compile baselines timed in the same session): per task passed / reward / flags / times / speedups / the
autotuner's choice, the pass count and the geometric-mean speedups over the passing tasks.

Each task's solution is the final state of its script (data/scripts/triton/<task>/script.json: every write_file and
edit_file applied in order, `agent_triton.scripted_solution`), evaluated as one workdir. Results are written after every
task, so a run that is cut off keeps what it measured; run it again to continue (`--fresh` starts over).

    python bench/triton_h100.py                                   # on an H100: writes bench/results/triton_h100.json
    python bench/triton_h100.py --smoke --out /tmp/triton_smoke.json   # CPU check: interpreter, cpu preset, 2 tasks
"""
import argparse, json, math, os, platform, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMOKE_TASKS = ['relu', 'softmax']


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Score the scripted Triton solutions of the bundled tasks on a GPU "
                                "(or, with --smoke, two of them under Triton's interpreter on the CPU).")
    p.add_argument('--out', type=Path, default=None, help="results JSON (default: bench/results/triton_h100.json; --smoke: /tmp/triton_smoke.json)")
    p.add_argument('--tasks', default='', help="comma-separated task ids (default: every task with a Triton script)")
    p.add_argument('--smoke', action='store_true', help="CPU check: Triton's interpreter, the cpu preset, tasks relu and softmax")
    p.add_argument('--fresh', action='store_true', help="ignore results already in --out and measure every task again")
    return p.parse_args(argv)


def versions(cuda: bool) -> dict:
    "Device, driver and library versions of this run."
    import torch, triton, cuda_agent_wb
    info = dict(device=torch.cuda.get_device_name(0) if cuda else platform.processor() or 'cpu', gpus=torch.cuda.device_count(),
                torch=torch.__version__, triton=triton.__version__, cuda=torch.version.cuda, python=platform.python_version(),
                cuda_agent_wb=cuda_agent_wb.__version__, driver=None)
    if cuda:
        try: info['driver'] = subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'],
                                             capture_output=True, text=True).stdout.split('\n')[0].strip() or None
        except OSError: pass
    try: info['commit'] = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip() or None
    except OSError: info['commit'] = None
    return info


def task_row(res) -> dict:
    "The bench row of one evaluation result."
    d = res.to_dict(); t = d.get('timings') or {}
    ms = lambda k: (t.get(k) or {}).get('median')
    return dict(passed=bool(d['correct']), reward=d['reward'], flags=d['flags'], error=d['error'], kernel_runtime=d.get('kernel_runtime'),
                triton_ms=ms('candidate'), eager_ms=ms('eager'), compile_ms=ms('compile'),
                speedup_vs_eager=d['speedup_vs_eager'], speedup_vs_compile=d['speedup_vs_compile'],
                autotune=d.get('autotune'), custom_kernel_share=d.get('custom_kernel_share'), dtype=d.get('dtype'))


def geomean(xs) -> float|None:
    xs = [x for x in xs if x]
    return round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 4) if xs else None


def summarise(out: dict) -> dict:
    "Pass count and geometric-mean speedups over the passing tasks."
    ok = [r for r in out['tasks'].values() if r.get('passed')]
    out['summary'] = dict(tasks=len(out['tasks']), passed=len(ok),
                          geomean_speedup_vs_eager=geomean(r['speedup_vs_eager'] for r in ok),
                          geomean_speedup_vs_compile=geomean(r['speedup_vs_compile'] for r in ok))
    return out


def write(out: dict, path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp'); tmp.write_text(json.dumps(summarise(out), indent=1) + '\n'); tmp.replace(path)


def evaluate_task(ev, task_id: str, backend: str) -> dict:
    "Evaluate the final state of one task's Triton script in a fresh workdir."
    from cuda_agent_wb.agent_triton import language_script_path, scripted_solution
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.workdir import write_solution
    from cuda_agent_wb.config import get_settings
    task = load_task(get_settings().paths.data/'tasks'/f"{task_id}.py")
    files = scripted_solution(language_script_path(task_id, backend, 'triton'))
    with tempfile.TemporaryDirectory(prefix=f"cawb-triton-{task_id}-") as d:
        write_solution(d, files); t0 = time.time()
        row = task_row(ev.evaluate(task, d))
    return dict(row, wall_s=round(time.time() - t0, 1))


def main(argv=None):
    a = parse_args(argv)
    import torch
    from tqdm.auto import tqdm
    from cuda_agent_wb.agent_triton import triton_script_tasks
    from cuda_agent_wb.reward import Evaluator
    cuda = not a.smoke
    if cuda and not torch.cuda.is_available(): sys.exit("bench/triton_h100.py: no CUDA device here; run it on a GPU machine, or use --smoke on a CPU")
    backend = 'cuda' if cuda else 'cpu'
    out_path = a.out or (Path('/tmp/triton_smoke.json') if a.smoke else ROOT/'bench/results/triton_h100.json')
    tasks = [t for t in a.tasks.split(',') if t] or (SMOKE_TASKS if a.smoke else triton_script_tasks())
    prior = {} if a.fresh or not out_path.exists() else json.loads(out_path.read_text())
    from cuda_agent_wb.config import get_settings
    from cuda_agent_wb.tasks import resolve_preset
    out = dict(command=' '.join(['python', *sys.argv]), backend=backend, preset=resolve_preset(get_settings().eval.preset, backend), **versions(cuda), tasks={k: v for k, v in (prior.get('tasks') or {}).items() if k in tasks})
    ev = Evaluator(backend)
    try:
        for tid in tqdm([t for t in tasks if t not in out['tasks']], desc='triton tasks', file=sys.stderr):
            try: out['tasks'][tid] = evaluate_task(ev, tid, backend)
            except (ValueError, OSError) as e: out['tasks'][tid] = dict(passed=False, error=f"{type(e).__name__}: {e}")
            write(out, out_path)
    finally: ev.close()
    write(out, out_path)
    s = out['summary']
    print(f"{s['passed']}/{s['tasks']} passed; geomean speedup vs eager {s['geomean_speedup_vs_eager']}, "
          f"vs torch.compile {s['geomean_speedup_vs_compile']} ({backend}); results: {out_path}")


if __name__ == '__main__':
    main()
