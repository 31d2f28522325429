"""Rewrite the machine paths in recorded trajectories as the agent now reads them (`cuda_agent_wb.workdir.relative_paths`):
the build cache's staged copy of the workdir cut (`.../builds/src/<hash>-cuda/kernels/relu.cu` -> `kernels/relu.cu`),
the cache folder written `<cache>`, the workdir and project prefixes cut. Only path prefixes change: every other byte of
every record (timings, rewards, flags, token estimates) stays as recorded. Used for `cuda/`, which needs an H100 to
regenerate; `cpu/` is regenerated instead (data/trajectories/README.md).

    python data/trajectories/rewrite_paths.py data/trajectories/cuda
"""
import json, sys
from pathlib import Path
from cuda_agent_wb.workdir import relative_paths


def rewrite(f: Path) -> int:
    "Rewrite one trajectory file in place; returns how many records changed."
    recs = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    wd = next((r.get('workdir') for r in recs if r.get('type') == 'header'), None)
    out = [{**r, 'policy': relative_paths(r.get('policy'))} if r.get('type') == 'header' else
           {**r, **{k: relative_paths(r.get(k), wd) for k in ('observation', 'result', 'error')}} if r.get('type') == 'step' else r
           for r in recs]
    f.write_text(''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in out))
    return sum(a != b for a, b in zip(recs, out))


if __name__ == '__main__':
    for d in sys.argv[1:]:
        for f in sorted(Path(d).glob('*__s*.jsonl')): print(f, rewrite(f), 'records changed')
