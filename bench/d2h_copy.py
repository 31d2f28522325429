"""Where a large output's trip from the GPU to the evaluator goes (issue 27, the gpu size preset): ways of copying one
CUDA tensor into a /dev/shm file, timed apart, alone and with one process per GPU copying at once.

At the gpu preset a service worker spent most of its wall time in "to CPU" (bench/results/prof_service_gpu_after.json):
`sandbox.copy_for_message` copies each large output with `dst.copy_(t)` straight into a new, shared /dev/shm mapping,
which is neither pinned nor populated. Since 2026-11-26 it copies from a GPU by DMA into the file's pages while they are
locked for the GPU (`sandbox.copy_pinned`). This script measures, per size:

  current         `sandbox.copy_for_message` as the evaluator calls it (file reserved, mapped, copied into): everything timed
  before          what it did before: the file mapped lazily (`torch.from_file`), a pageable copy; everything timed
  populated       the file mapped at once (`MAP_POPULATE`), a pageable copy, no locking; everything timed
  lazy_locked     the file mapped lazily, its pages locked for the GPU (which faults them in), a DMA copy, unlocked; everything timed
  pageable        `t.to('cpu')`: a plain malloc'd CPU tensor (no file)
  pinned          into a page-locked CPU tensor allocated beforehand (the DMA alone)
  fault_then_copy the mapping's pages touched first (`zero_`), then the copy: how much of `current` is page faults
  staged          into a reused pinned buffer, then a CPU copy into the mapped file
  registered      the mapped file's pages locked for the GPU (`cudaHostRegister`), copied into, unregistered
The four above time the copy alone (their destination made before the clock starts): what the copy could cost at best.
The next three split `current` into its parts and try touching the pages first with all CPU threads (a `zero_`), since
`fault_then_copy` showed the faults, not the copy, to be the cost; everything timed:
  file_only       the file made, reserved and mapped, nothing copied
  touched         the file made and mapped, its pages touched (`zero_`), a pageable copy
  touched_locked  the file made and mapped, its pages touched, then `sandbox.copy_pinned` (locked, DMA, unlocked)

    python bench/d2h_copy.py                          # on a GPU machine; with 2+ GPUs also one process per GPU at once
    python bench/d2h_copy.py --device cpu --sizes-mb 8 --repeats 1    # the script end to end on a CPU (no claim)

Results: bench/results/d2h_copy.json (ms and GB/s, median of --repeats, per way and size; `together`: the same with
every GPU's process copying at once).
"""
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path
import torch

HERE = Path(__file__).parent
WAYS = ('current', 'before', 'populated', 'lazy_locked', 'pageable', 'pinned', 'fault_then_copy', 'staged', 'registered',
        'file_only', 'touched', 'touched_locked')
GPU_ONLY = ('registered', 'lazy_locked', 'touched_locked')


def mapped(nbytes: int, folder: str, dtype, shape, lazy: bool = True):
    "A fresh file of `nbytes` in `folder`, reserved and mapped shared as a tensor, lazily (`torch.from_file`) or at once (`populated`); (tensor, path)."
    fd, path = tempfile.mkstemp(prefix='cawb-d2h-', suffix='.bin', dir=folder)
    try: os.posix_fallocate(fd, 0, nbytes)
    finally: os.close(fd)
    m = torch.from_file(path, shared=True, size=nbytes, dtype=torch.uint8) if lazy else populated(path, nbytes)
    return m.view(dtype).view(shape), path


def populated(path: str, nbytes: int):
    "The file's first `nbytes` mapped shared, every page mapped in by the one call (`MAP_POPULATE`), as a uint8 tensor."
    import mmap
    fd = os.open(path, os.O_RDWR)
    try: mm = mmap.mmap(fd, nbytes, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    finally: os.close(fd)
    return torch.frombuffer(mm, dtype=torch.uint8)           # the tensor holds the mapping open


def sync(t):
    if t.is_cuda: torch.cuda.synchronize(t.device)


def one_copy(way: str, t, folder: str, bufs: dict) -> float:
    "Seconds for one copy of `t` the named way (files made for it removed after)."
    from cuda_agent_wb import sandbox
    nbytes, path = t.numel() * t.element_size(), None
    if way in ('pinned', 'staged') and way not in bufs: bufs[way] = torch.empty(t.shape, dtype=t.dtype, pin_memory=t.is_cuda)   # made once, reused
    if way in ('fault_then_copy', 'staged', 'registered'): dst, path = mapped(nbytes, folder, t.dtype, t.shape)
    if way == 'fault_then_copy': dst.zero_()                       # pages faulted in before the clock starts
    if way == 'registered' and t.is_cuda and (rc := int(torch.cuda.cudart().cudaHostRegister(dst.data_ptr(), nbytes, 0))) != 0:
        os.unlink(path); raise RuntimeError(f"cudaHostRegister on the mapped file failed: {rc}")
    sync(t); t0 = time.perf_counter()
    if way == 'current':
        sandbox._shm_out = folder; dst = sandbox.copy_for_message(t)
        path = sandbox._shm_tensors.get(id(dst), (None, None))[1]
    elif way in ('before', 'populated'):
        dst, path = mapped(nbytes, folder, t.dtype, t.shape, lazy=way == 'before'); dst.copy_(t)
    elif way == 'lazy_locked':
        dst, path = mapped(nbytes, folder, t.dtype, t.shape)
        if not sandbox.copy_pinned(dst, t): raise RuntimeError("cudaHostRegister on the mapped file failed")
    elif way == 'pageable': dst = t.to('cpu', copy=True)
    elif way == 'pinned': bufs['pinned'].copy_(t); dst = bufs['pinned']
    elif way in ('fault_then_copy', 'registered'): dst.copy_(t)
    elif way == 'staged': bufs['staged'].copy_(t); dst.copy_(bufs['staged'])
    elif way in ('file_only', 'touched', 'touched_locked'):
        dst, path = mapped(nbytes, folder, t.dtype, t.shape)
        if way != 'file_only': dst.zero_()                           # every page faulted in, by all CPU threads
        if way == 'touched': dst.copy_(t)
        if way == 'touched_locked' and not sandbox.copy_pinned(dst, t): raise RuntimeError("cudaHostRegister on the mapped file failed")
    sync(t); s = time.perf_counter() - t0
    if way == 'registered' and t.is_cuda: torch.cuda.cudart().cudaHostUnregister(dst.data_ptr())
    del dst
    if path:
        try: os.unlink(path)
        except OSError: pass
    return s


def measure(device: str, sizes_mb: list, repeats: int, folder: str) -> list:
    "One row per way and size: median ms, GB/s, every repeat's ms."
    rows = []
    for mb in sizes_mb:
        t = torch.randn(mb * (1 << 20) // 4, device=device)       # float32
        bufs = {}
        for way in WAYS:
            if way in GPU_ONLY and not t.is_cuda: continue
            try:
                one_copy(way, t, folder, bufs)                         # warm: allocators, CUDA context, first mapping
                secs = [one_copy(way, t, folder, bufs) for _ in range(repeats)]
            except Exception as e:                                     # one way failing is one line and a row; the others still run
                print(f"d2h_copy: {device} {mb} MB {way}: {type(e).__name__}: {e}", file=sys.stderr)
                rows.append(dict(way=way, mb=mb, error=f"{type(e).__name__}: {e}")); continue
            med = statistics.median(secs)
            rows.append(dict(way=way, mb=mb, ms=round(1e3 * med, 2), gb_per_s=round(mb / 1024 / med, 2), ms_all=[round(1e3 * s, 2) for s in secs]))
            print(f"d2h_copy: {device} {mb} MB {way}: {1e3 * med:.1f} ms ({mb / 1024 / med:.1f} GB/s)", file=sys.stderr)
        del t, bufs
    return rows


def together(gpus: int, a) -> list:
    "The same measurement in one process per GPU, all started at once; each process's rows."
    import subprocess
    outs = [Path(tempfile.mkdtemp()) / f"gpu{i}.json" for i in range(gpus)]
    args = lambda i: [sys.executable, __file__, '--device', 'cuda:0', '--sizes-mb', a.sizes_mb, '--repeats', str(a.repeats),
                      '--alone-only', '--results', str(outs[i])]
    procs = [subprocess.Popen(args(i), env=dict(os.environ, CUDA_VISIBLE_DEVICES=str(i))) for i in range(gpus)]
    for p in procs: p.wait()
    return [dict(gpu=i, rows=json.loads(o.read_text())['alone']) if o.is_file() else dict(gpu=i, error=f"exit {p.returncode}")
            for i, (o, p) in enumerate(zip(outs, procs))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--device', default='cuda:0')
    ap.add_argument('--sizes-mb', default='64,256,1024', help='tensor sizes in MiB, comma-separated')
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--folder', default='/dev/shm', help='where the files go (the evaluator uses /dev/shm)')
    ap.add_argument('--alone-only', action='store_true', help='skip the one-process-per-GPU run')
    ap.add_argument('--results', default=str(HERE / 'results' / 'd2h_copy.json'))
    a = ap.parse_args()
    try: sizes = [int(x) for x in a.sizes_mb.split(',')]
    except ValueError: raise SystemExit(f"--sizes-mb {a.sizes_mb!r}: give whole MiB, comma-separated, e.g. 64,256") from None
    if min(sizes) < 1 or a.repeats < 1: raise SystemExit("--sizes-mb and --repeats must be at least 1")
    if a.device.startswith('cuda') and not torch.cuda.is_available(): raise SystemExit("no CUDA device visible: run this on a GPU machine, or --device cpu")
    if not os.path.isdir(a.folder): raise SystemExit(f"--folder {a.folder}: no such folder")
    cuda = a.device.startswith('cuda')
    res = dict(device=torch.cuda.get_device_name(0) if cuda else 'cpu', torch=torch.__version__, cuda=torch.version.cuda,
               command=' '.join(sys.argv), folder=a.folder, cpu_cores=os.cpu_count(), alone=measure(a.device, sizes, a.repeats, a.folder))
    if cuda and not a.alone_only and torch.cuda.device_count() > 1:
        res['together'] = together(torch.cuda.device_count(), a)
    p = Path(a.results); p.parent.mkdir(parents=True, exist_ok=True); p.write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: v for k, v in res.items() if k != 'together'}, indent=1)[:3000])


if __name__ == '__main__':
    main()
