#!/usr/bin/env python3
"""Degenerate tasks in KernelBench (and any task folder): `cawb tasks audit` with the environment recorded.

Run on a GPU machine, with KernelBench fetched into .ext/ (git-ignored):
    python3 bench/tasks_audit.py .ext/KernelBench/KernelBench --levels 1,2,3 --device cuda --out bench/results/kernelbench_audit.json
    python3 bench/tasks_audit.py bench/results/synth_gpu/dataset.parquet --device cuda --out bench/results/synth_gpu_audit.json

Each task's reference runs once (seed 0, its own sizes; bundled tasks at the preset for the device) and is classified
`ok`, `degenerate_output` (all zeros, its mean everywhere or an input as it is passes [eval] atol/rtol; the reasons
are listed) or `error`. The JSON holds the counts, counts per level, the degenerate tasks with reasons, every row,
and the device, torch version and tolerance. Check the script without a GPU: `python3 bench/tasks_audit.py --help`.
"""
import argparse, json, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('tasks', type=Path, help="task file or folder (a KernelBench checkout: level1/ level2/ ...), or a dataset (.parquet/.jsonl: ops, data_source, code)")
    ap.add_argument('--limit', type=int, default=None, help="first N tasks of a dataset only")
    ap.add_argument('--levels', default=None, help="KernelBench levels, e.g. 1,2,3")
    ap.add_argument('--device', default='cuda', help="device the references run on")
    ap.add_argument('--preset', default='auto', help="size preset for bundled tasks (auto: the evaluator's for the device)")
    ap.add_argument('--out', type=Path, default=ROOT / 'bench/results/kernelbench_audit.json')
    a = ap.parse_args()
    if not a.tasks.exists(): sys.exit(f"tasks_audit: {a.tasks}: no such file or folder")
    sys.path.insert(0, str(ROOT))
    import torch
    from cuda_agent_wb.tasks import load_tasks, load_ops6k
    from cuda_agent_wb.audit import audit_tasks, audit_report
    from cuda_agent_wb.profile import env_fingerprint
    levels = {int(v) for v in a.levels.split(',')} if a.levels else None
    tasks, errors = load_ops6k(a.tasks, a.limit) if a.tasks.suffix in ('.parquet', '.jsonl', '.json') else load_tasks(a.tasks, levels)
    t0 = time.perf_counter()
    rep = audit_report(audit_tasks(tasks, a.device, a.preset))
    rep['env'] = {**env_fingerprint(a.device, {}), 'tasks': str(a.tasks), 'levels': a.levels, 'load_errors': errors, 'seconds': round(time.perf_counter() - t0, 1)}
    a.out.parent.mkdir(parents=True, exist_ok=True); a.out.write_text(json.dumps(rep, indent=1, default=str))
    print(json.dumps({'summary': rep['summary'], 'by_level': rep['by_level'], 'degenerate': rep['degenerate']}, indent=1))
    print(f"report: {a.out}")


if __name__ == '__main__':
    main()
