"""Why does an honest ReLU read below eager end to end? Outside the harness, in one plain process on one GPU: eager's
`torch.relu`, `tests/solutions/cuda/relu_vec4.py` and `relu_plain.py` on 1024 x 2048 fp32, each timed as the clock times a
block (k back-to-back calls through the module, every output kept, then one synchronize; wall time per call) and by
CUDA events around the same block (the GPU's span), on a pool of distinct inputs (cold in L2, as the clock's pool) and on
one input (warm). A diagnosis, not a target: if the candidates trail eager here too, the harness is not the cause.

    source bench/device_setup.sh; python3 bench/relu_probe.py --out $OUT/relu_probe.json
"""
import argparse, importlib.util, json, statistics, sys, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def load_model(path: Path):
    "ModelNew of a single-file solution (it builds its extension on import)."
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod.ModelNew().cuda()


def block_us(torch, fn, sets: list, k: int) -> tuple[float, float]:
    "One block of `k` calls over `sets` in turn: wall µs per call (to after the synchronize) and the events' µs per call."
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    outs = []
    torch.cuda.synchronize(); t0 = time.perf_counter(); a.record()
    for i in range(k): outs.append(fn(sets[i % len(sets)]))
    b.record(); torch.cuda.synchronize()
    return (time.perf_counter() - t0) / k * 1e6, a.elapsed_time(b) / k * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', required=True); ap.add_argument('--k', type=int, default=64); ap.add_argument('--blocks', type=int, default=30)
    a = ap.parse_args()
    import torch
    eager = torch.nn.ReLU().cuda()
    fns = {'eager': eager, 'relu_vec4': load_model(ROOT / 'tests/solutions/cuda/relu_vec4.py'), 'relu_plain': load_model(ROOT / 'tests/solutions/cuda/relu_plain.py')}
    pools = {'cold': [torch.randn(1024, 2048, device='cuda') for _ in range(a.k)], 'warm': [torch.randn(1024, 2048, device='cuda')]}
    out = {'device': torch.cuda.get_device_name(), 'torch': torch.__version__, 'cuda': torch.version.cuda, 'k': a.k, 'blocks': a.blocks,
           'command': ' '.join(sys.argv), 'results': {}}
    with torch.no_grad():
        for pool, sets in pools.items():
            for name, fn in fns.items(): block_us(torch, fn, sets, a.k)          # warm-up
            rows = {n: [] for n in fns}
            for _ in range(a.blocks):
                for name, fn in fns.items(): rows[name].append(block_us(torch, fn, sets, a.k))
            out['results'][pool] = {n: {'wall_us': round(statistics.median(r[0] for r in rs), 2), 'events_us': round(statistics.median(r[1] for r in rs), 2)} for n, rs in rows.items()}
            print(pool, json.dumps(out['results'][pool]), flush=True)
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == '__main__':
    main()
