"""Re-verify a folder of single-file KernelBench-format `load_inline` solutions with `cawb evaluate-dir`: wall time
including builds, a kill mid-run and the resume, and the per-rule-set summary.

The solutions are the workbench's own (written here from templates, one CUDA kernel per activation, three variants
each: scalar grid-stride, float4-vectorised, one element per thread). The tasks are KernelBench level-1 activation
tasks copied from a local checkout with `dim` scaled down (`--dim`; KernelBench's current 4096 x 393216 inputs are
6.4 GB each), so the run measures the evaluator, not input generation.

    python3 bench/evaluate_dir_gpu.py --out bench/results/evaluate_dir_gpu.json            # on a GPU machine
    python3 bench/evaluate_dir_gpu.py --backend cpu --n 2 --dim 256 --out /tmp/ed.json     # checks the script on a CPU
"""
import argparse, json, os, platform, shutil, signal, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# op name -> (KernelBench level-1 file stem, CUDA expression of float v, C++ expression of float v)
OPS = {
    'relu': ('19_ReLU', 'fmaxf(v, 0.f)'),
    'leaky_relu': ('20_LeakyReLU', 'v > 0.f ? v : 0.01f * v'),
    'sigmoid': ('21_Sigmoid', '1.f / (1.f + expf(-v))'),
    'tanh': ('22_Tanh', 'tanhf(v)'),
    'swish': ('25_Swish', 'v / (1.f + expf(-v))'),
    'gelu': ('26_GELU_', '0.5f * v * (1.f + erff(v * 0.70710678118654752f))'),
    'hardsigmoid': ('28_HardSigmoid', 'fminf(fmaxf(v / 6.f + 0.5f, 0.f), 1.f)'),
    'softplus': ('29_Softplus', 'v > 20.f ? v : log1pf(expf(v))'),
    'softsign': ('30_Softsign', 'v / (1.f + fabsf(v))'),
    'elu': ('31_ELU', 'v > 0.f ? v : (expf(v) - 1.f)'),
    'hardtanh': ('32_HardTanh', 'fminf(fmaxf(v, -1.f), 1.f)'),
    'selu': ('27_SELU_', '1.0507009873554805f * (v > 0.f ? v : 1.6732632423543772f * (expf(v) - 1.f))'),
}

CUDA_VARIANTS = {
    'gridstride': '''
__global__ void op_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) { float v = x[i]; y[i] = EXPR; }
}
static void launch(const float* x, float* y, long n, cudaStream_t s) {
    int blocks = (int)min((n + 255) / 256, (long)132 * 16); op_kernel<<<max(blocks, 1), 256, 0, s>>>(x, y, n);
}''',
    'vec4': '''
__global__ void op_kernel(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 a = x[i], b; float v;
        v = a.x; b.x = EXPR; v = a.y; b.y = EXPR; v = a.z; b.z = EXPR; v = a.w; b.w = EXPR; y[i] = b;
    }
}
__global__ void tail_kernel(const float* __restrict__ x, float* __restrict__ y, long start, long n) {
    long i = start + blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) { float v = x[i]; y[i] = EXPR; }
}
static void launch(const float* x, float* y, long n, cudaStream_t s) {
    long n4 = n / 4; int blocks = (int)min((n4 + 255) / 256, (long)132 * 16);
    if (n4) op_kernel<<<max(blocks, 1), 256, 0, s>>>((const float4*)x, (float4*)y, n4);
    if (n % 4) tail_kernel<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
}''',
    'flat512': '''
__global__ void op_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) { float v = x[i]; y[i] = EXPR; }
}
static void launch(const float* x, float* y, long n, cudaStream_t s) { op_kernel<<<(int)((n + 511) / 512), 512, 0, s>>>(x, y, n); }''',
}

CUDA_WRAPPER = '''
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
{kernel}
torch::Tensor forward(torch::Tensor x) {{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a float32 CUDA tensor");
    auto xc = x.contiguous(); auto y = torch::empty_like(xc);
    launch(xc.data_ptr<float>(), y.data_ptr<float>(), xc.numel(), c10::cuda::getCurrentCUDAStream().stream());
    return y;
}}
'''

CPU_SOURCE = '''
#include <torch/extension.h>
#include <cmath>
torch::Tensor forward(torch::Tensor x) {{
    auto xc = x.contiguous(); auto y = torch::empty_like(xc);
    const float* p = xc.data_ptr<float>(); float* q = y.data_ptr<float>();
    for (long i = 0; i < xc.numel(); ++i) {{ float v = p[i]; q[i] = {expr}; }}
    return y;
}}
'''

SOLUTION = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_src = "torch::Tensor forward(torch::Tensor x);"
{sources}
ext = load_inline(name="{name}", cpp_sources={cpp}, {cuda}functions=["forward"], extra_cflags=["-O3"]{cuda_flags})


class ModelNew(nn.Module):
    def __init__(self, *args):
        super().__init__()

    def forward(self, x):
        return ext.forward(x)
'''


def write_solution(path: Path, op: str, variant: str, backend: str):
    "One single-file solution for `op` in `variant`."
    expr, name = OPS[op][1], f"cawb_bench_{op}_{variant}"
    if backend == 'cuda':
        src = CUDA_WRAPPER.format(kernel=CUDA_VARIANTS[variant].replace('EXPR', f'({expr})'))
        text = SOLUTION.format(sources=f'cuda_src = r"""{src}"""', name=name, cpp='cpp_src', cuda='cuda_sources=cuda_src, ',
                               cuda_flags=', extra_cuda_cflags=["-O3"]')
    else:
        cexpr = expr.replace('expf', 'std::exp').replace('tanhf', 'std::tanh').replace('erff', 'std::erf').replace(
            'log1pf', 'std::log1p').replace('fabsf', 'std::fabs').replace('fmaxf', 'std::fmax').replace('fminf', 'std::fmin')
        text = SOLUTION.format(sources=f'cpu_src = r"""{CPU_SOURCE.format(expr=cexpr)}"""', name=name, cpp='[cpu_src]',
                               cuda='', cuda_flags='')
    path.write_text(text)


def make_corpus(kb: Path, root: Path, n: int, dim: int, backend: str) -> Path:
    "Tasks (scaled copies of KernelBench level-1 files) and a mapping file of n solutions with claimed speedups."
    (root/'tasks'/'level1').mkdir(parents=True); (root/'sols').mkdir()
    entries = []
    variants = list(CUDA_VARIANTS) if backend == 'cuda' else ['scalar']
    combos = [(op, v) for v in variants for op in OPS][:n]
    for i, (op, v) in enumerate(combos):
        stem = OPS[op][0]
        task = root/'tasks'/'level1'/f'{stem}.py'
        if not task.exists():
            text = (kb/'level1'/f'{stem}.py').read_text()
            task.write_text(text.replace('dim = 393216', f'dim = {dim}').replace('batch_size = 4096', f'batch_size = {4096 if backend == "cuda" else 16}'))
        sol = root/'sols'/f'level1_{stem}_{v}.py'
        write_solution(sol, op, v, backend)
        entries.append(dict(solution=f'sols/{sol.name}', task=f'L1/{stem}', claimed_speedup=round(1.0 + 0.05 * (i % 5), 2)))
    (root/'map.json').write_text(json.dumps(entries, indent=1))
    return root/'map.json'


def count_lines(p: Path) -> int: return len(p.read_text().splitlines()) if p.exists() else 0


def run_cawb(args, out: Path, kill_after: int|None, log):
    "Run `cawb evaluate-dir`; if kill_after, SIGKILL it once that many results are on disk. Returns (seconds, rc, killed)."
    t0 = time.time()
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    killed = False
    while p.poll() is None:
        time.sleep(0.5)
        if kill_after and count_lines(out/'reverify.jsonl') >= kill_after:
            os.killpg(p.pid, signal.SIGKILL); p.wait(); killed = True; break
    return round(time.time() - t0, 2), p.returncode, killed


def env_info(backend):
    import torch
    info = {'python': platform.python_version(), 'torch': torch.__version__, 'cuda': torch.version.cuda}
    if backend == 'cuda':
        info['device'] = torch.cuda.get_device_name(0)
        try: info['driver'] = subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'], capture_output=True, text=True).stdout.strip()
        except OSError: pass
    info['cpus'] = os.cpu_count()
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--kernelbench', default=str(ROOT/'.ext'/'KernelBench'/'KernelBench'), help='folder holding level1/')
    ap.add_argument('--backend', default='cuda', choices=['cuda', 'cpu'])
    ap.add_argument('--n', type=int, default=30, help='solutions (three variants per op on cuda)')
    ap.add_argument('--dim', type=int, default=4096, help='inner size of the scaled tasks (batch 4096 on cuda)')
    ap.add_argument('--kill-after', type=int, default=10, help='kill the first run once this many results are written (0: never)')
    ap.add_argument('--rules', default='cuda-agent')
    ap.add_argument('--work', default=None, help='work folder (default: a fresh temporary one)')
    ap.add_argument('--out', required=True, help='result JSON')
    a = ap.parse_args()
    work = Path(a.work or tempfile.mkdtemp(prefix='cawb-edir-'))
    if work.exists() and a.work: shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    mapping = make_corpus(Path(a.kernelbench), work, a.n, a.dim, a.backend)
    rep = work/'report'
    cawb = shutil.which('cawb') or str(Path(sys.executable).parent/'cawb')
    args = [cawb, 'evaluate-dir', str(work/'tasks'), str(mapping), '--backend', a.backend, '--report-dir', str(rep), '--rules', a.rules]
    if not Path(cawb).exists(): args = [sys.executable, '-c', 'from cuda_agent_wb.cli import main; main()'] + args[1:]
    with open(work/'run.log', 'w') as log:
        s1, rc1, killed = run_cawb(args, rep, a.kill_after or None, log)
        n1 = count_lines(rep/'reverify.jsonl')
        s2, rc2, _ = run_cawb(args, rep, None, log)
    rows = [json.loads(l) for l in (rep/'reverify.jsonl').read_text().splitlines()] if (rep/'reverify.jsonl').exists() else []
    keys = [r['key'] for r in rows]
    res = {'command': ' '.join(sys.argv), 'cawb_command': ' '.join(args), **env_info(a.backend), 'backend': a.backend,
           'n_solutions': a.n, 'task_shape': [4096 if a.backend == 'cuda' else 16, a.dim], 'rules': a.rules,
           'first_run_s': s1, 'first_run_killed': killed, 'results_before_kill': n1, 'resume_run_s': s2, 'resume_rc': rc2,
           'wall_s': round(s1 + s2, 2), 'results': len(rows), 'unique_results': len(set(keys)),
           'passed': sum(r['correct'] for r in rows), 'survived': sum(r['survives'] for r in rows),
           'flags': sorted({f for r in rows for f in r['flags']}),
           'rows': [{k: r.get(k) for k in ('task_id', 'solution', 'correct', 'flags', 'speedup_vs_eager', 'speedup_vs_compile', 'claimed_speedup', 'survives', 'error')} for r in rows],
           'log_tail': (work/'run.log').read_text()[-3000:]}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1, default=str))
    print(f"{a.backend}: {len(rows)} results ({len(set(keys))} unique) of {a.n}; killed after {n1} (first run {s1:.0f} s), "
          f"resumed in {s2:.0f} s; wall {s1 + s2:.0f} s; passed {res['passed']}, survived {res['survived']}; flags {res['flags']}")


if __name__ == '__main__':
    main()
