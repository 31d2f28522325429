"""How long a fresh process's CUDA start takes when N start at once (forked from a parent with torch imported and no
CUDA, as the sandbox's zygote forks candidate processes): its context, the harness's buffers, the harness's kernels,
and how long the process takes to be gone after it exits. Tells whether the driver serialises context creation (a
ceiling on new candidate processes per second on one GPU).
`python3 bench/cuda_start_probe.py --out cuda_start_probe.json [--counts 1,2,4,8]`"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def child(w: int):
    "One process's CUDA start; its times on pipe `w` as one JSON line."
    import torch
    from cuda_agent_wb.candidate import warm_harness_kernels, POISON_BYTES
    t = [time.perf_counter()]
    torch.empty(1, device='cuda'); torch.cuda.synchronize(); t.append(time.perf_counter())
    torch.empty((128 << 20) // 4, device='cuda'); torch.empty(POISON_BYTES // 4, device='cuda'); torch.cuda.synchronize(); t.append(time.perf_counter())
    warm_harness_kernels('cuda'); torch.cuda.synchronize(); t.append(time.perf_counter())
    os.write(w, (json.dumps({'start': t[0], 'context_s': t[1] - t[0], 'buffers_s': t[2] - t[1], 'kernels_s': t[3] - t[2], 'done': t[3]}) + '\n').encode())
    os._exit(0)


def round_of(n: int) -> dict:
    "Fork `n` processes at once; each one's CUDA start, the wall until all are done, and until all are gone."
    r, w = os.pipe(); t0, pids = time.perf_counter(), []
    for _ in range(n):
        pid = os.fork()
        if pid == 0: os.close(r); child(w)
        pids.append(pid)
    os.close(w)
    for pid in pids: os.waitpid(pid, 0)
    gone = time.perf_counter()
    rows = [json.loads(l) for l in os.read(r, 1 << 20).decode().splitlines()]; os.close(r)
    mean = lambda k: round(sum(x[k] for x in rows) / len(rows), 4)
    last_done = max(x['done'] for x in rows)
    return {'n': n, 'context_s_mean': mean('context_s'), 'context_s_max': round(max(x['context_s'] for x in rows), 4), 'buffers_s_mean': mean('buffers_s'),
            'kernels_s_mean': mean('kernels_s'), 'all_done_s': round(last_done - t0, 4), 'all_gone_s': round(gone - t0, 4), 'exit_s': round(gone - last_done, 4),
            'starts_per_s': round(n / (last_done - t0), 2)}


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True); ap.add_argument('--counts', default='1,2,4,8'); ap.add_argument('--repeat', type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault('PYTORCH_NVML_BASED_CUDA_CHECK', '1')
    import torch, torch.utils.cpp_extension, cuda_agent_wb.candidate   # what the zygote preloads (no CUDA started)
    assert not torch.cuda.is_initialized()
    rounds = [round_of(int(n)) for n in args.counts.split(',') for _ in range(args.repeat)]
    for x in rounds: print(x, flush=True)
    smi = lambda q: subprocess.run(['nvidia-smi', f'--query-gpu={q}', '--format=csv,noheader'], capture_output=True, text=True).stdout.strip()
    res = {'what': __doc__.split('\n')[0], 'command': ' '.join(['python3', *sys.argv]), 'device': smi('name'), 'driver': smi('driver_version'),
           'torch': torch.__version__, 'cuda': torch.version.cuda, 'commit': os.environ.get('CAWB_COMMIT'), 'date': time.strftime('%Y-%m-%d %H:%M:%S'),
           'rounds': rounds}
    Path(args.out).write_text(json.dumps(res, indent=1)); print('wrote', args.out)
