"""Does the host core a timed process runs on change its time per call? A diagnosis for the clock's small-kernel
figures (bench/timing_fair.py), which are host-bound: back-to-back calls of eager ReLU on 1024 x 2048 floats (a ~4 µs
kernel) and of a 1k-element clone, in this process pinned to each NUMA node's cores in turn (and unpinned), median µs
per call over blocks of 200 calls. Prints one JSON object (nodes, the GPU's local CPUs from nvidia-smi, times).

    source bench/device_setup.sh; python3 bench/host_probe.py > $OUT/host_probe.json
"""
import json, os, statistics, subprocess, time
import torch


def nodes() -> dict:
    "NUMA node -> its CPUs (those this process may use), from sysfs."
    out, base = {}, '/sys/devices/system/node'
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if d.startswith('node') and d[4:].isdigit():
            cpus = set()
            for part in open(f'{base}/{d}/cpulist').read().strip().split(','):
                if part: a, _, b = part.partition('-'); cpus |= set(range(int(a), int(b or a) + 1))
            out[d] = sorted(cpus & os.sched_getaffinity(0))
    return out


def per_call_us(fn, x, blocks: int = 30, k: int = 200) -> float:
    "Median µs per call of `fn(x)` over `blocks` blocks of `k` back-to-back calls (outputs kept, device synchronised)."
    times = []
    for _ in range(blocks):
        outs = []; torch.cuda.synchronize(); t0 = time.perf_counter_ns()
        for _ in range(k): outs.append(fn(x))
        torch.cuda.synchronize(); times.append((time.perf_counter_ns() - t0) / k / 1e3)
    return round(statistics.median(times), 3)


if __name__ == '__main__':
    x, small, every = torch.randn(1024, 2048, device='cuda'), torch.randn(1024, device='cuda'), os.sched_getaffinity(0)
    relu, model = torch.relu, torch.nn.ReLU().cuda()
    with torch.no_grad():
        for _ in range(3): per_call_us(relu, x, 3)                # warm
        res = {}
        for name, cpus in [('unpinned', sorted(every))] + list(nodes().items()):
            if not cpus: continue
            os.sched_setaffinity(0, cpus); time.sleep(0.05)
            res[name] = {'cpus': f"{cpus[0]}-{cpus[-1]} ({len(cpus)})", 'relu_us': per_call_us(relu, x), 'module_relu_us': per_call_us(model, x),
                         'clone_1k_us': per_call_us(torch.clone, small)}
        os.sched_setaffinity(0, every)
    topo = subprocess.run(['nvidia-smi', 'topo', '-m'], capture_output=True, text=True).stdout
    print(json.dumps({'device': torch.cuda.get_device_name(), 'torch': torch.__version__, 'times': res, 'nvidia_smi_topo': topo.splitlines()}, indent=1))
