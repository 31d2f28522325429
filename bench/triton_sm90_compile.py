"""Compile every Triton kernel launch of the scripted Triton solutions for a GPU architecture (default sm_90, the H100)
on a machine without a GPU: Triton's own compiler and the ptxas it ships. What a launch is — its argument types, its
constexprs, num_warps / num_stages, each configuration of an autotuner — is captured by running `ModelNew.forward` on
meta tensors at the task's gpu size preset, with the launches recorded instead of run. Per launch: shared memory,
registers and spill bytes (cuobjdump -res-usage). A kernel that does not compile for the GPU fails here, before anyone
spends GPU time on it; spills point at block sizes too large for the registers.

    python bench/triton_sm90_compile.py                         # every task with a Triton script, v1 and v2
    python bench/triton_sm90_compile.py --tasks matmul,attention --out /tmp/sm90.json
"""
import argparse, contextlib, importlib.util, json, os, re, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Compile the scripted Triton solutions' kernels for a GPU architecture without a GPU "
                                "(registers, spills, shared memory per launch).")
    p.add_argument('--tasks', default='', help="comma-separated task ids (default: every task with a Triton script)")
    p.add_argument('--arch', type=int, default=90, help="compute capability as a number (90: sm_90, H100)")
    p.add_argument('--out', type=Path, default=None, help="results JSON (default: bench/results/triton_sm90_compile.json)")
    return p.parse_args(argv)


@contextlib.contextmanager
def recorded_launches():
    "While inside: Triton launches (and every configuration an autotuner would try) are recorded in the list yielded, not run."
    from triton.runtime.jit import JITFunction
    from triton.runtime.autotuner import Autotuner
    seen, run, tune = [], JITFunction.run, Autotuner.run
    def record(self, *args, grid=None, warmup=False, **kw): seen.append((self, args, kw))
    def every_config(self, *args, **kw):
        for cfg in self.configs: self.fn.run(*args, **cfg.all_kwargs(), **kw)
    JITFunction.run, Autotuner.run = record, every_config
    try: yield seen
    finally: JITFunction.run, Autotuner.run = run, tune


def arg_type(v) -> str:
    "Triton's signature type of one launch argument."
    import torch
    if isinstance(v, torch.Tensor): return '*' + {torch.float32: 'fp32', torch.float16: 'fp16', torch.bfloat16: 'bf16',
                                                  torch.int64: 'i64', torch.int32: 'i32'}[v.dtype]
    if isinstance(v, bool): return 'i1'
    if isinstance(v, int): return 'i32' if -2**31 <= v < 2**31 else 'i64'
    if isinstance(v, float): return 'fp32'
    raise TypeError(f"launch argument of type {type(v).__name__}")


def resource_usage(cubin: bytes) -> dict:
    "Registers and stack (spill) bytes of a cubin, from the cuobjdump that ships with Triton."
    import triton
    tool = Path(triton.__file__).parent/'backends/nvidia/bin/cuobjdump'
    with tempfile.NamedTemporaryFile(suffix='.cubin') as f:
        f.write(cubin); f.flush()
        out = subprocess.run([str(tool), '-res-usage', f.name], capture_output=True, text=True).stdout
    regs, stack = re.findall(r'REG:(\d+)', out), re.findall(r'STACK:(\d+)', out)
    return dict(registers=int(regs[-1]) if regs else None, spill_bytes=int(stack[-1]) if stack else None)


def compile_launch(fn, args, kw, arch: int) -> dict:
    "Compile one recorded launch for `arch`; its kernel, constexprs, options and resource usage."
    import triton
    from triton.compiler import ASTSource
    from triton.backends.compiler import GPUTarget
    kw = dict(kw); opts = {k: kw.pop(k) for k in ('num_warps', 'num_stages', 'num_ctas', 'maxnreg') if k in kw}
    vals = {**dict(zip(fn.arg_names, args)), **kw}
    sig = {p.name: 'constexpr' if p.is_constexpr else arg_type(vals[p.name]) for p in fn.params}
    consts = {p.name: vals[p.name] for p in fn.params if p.is_constexpr}
    k = triton.compile(ASTSource(fn, sig, consts), target=GPUTarget('cuda', arch, 32), options=opts)
    return dict(kernel=fn.__name__, constexprs=consts, options=opts, shared_bytes=k.metadata.shared, **resource_usage(k.asm['cubin']))


@contextlib.contextmanager
def compiled_triton():
    "While inside, @triton.jit makes real JITFunctions (not the interpreter's), whatever TRITON_INTERPRET said."
    old = os.environ.get('TRITON_INTERPRET'); os.environ['TRITON_INTERPRET'] = '0'
    try: yield
    finally:
        if old is None: os.environ.pop('TRITON_INTERPRET', None)
        else: os.environ['TRITON_INTERPRET'] = old


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m


def check_solution(task_id: str, source: str, arch: int = 90) -> list[dict]:
    "Every launch of one solution's forward at the task's gpu preset, compiled for `arch`."
    import torch
    ref = load_module(ROOT/'data/tasks'/f'{task_id}.py', f'cawb_sm_ref_{task_id}')
    for k, v in getattr(ref, 'PRESETS', {}).get('gpu', {}).items(): setattr(ref, k, v)
    with tempfile.TemporaryDirectory() as d, compiled_triton():
        (Path(d)/'model_new.py').write_text(source)
        sol = load_module(Path(d)/'model_new.py', f'cawb_sm_sol_{task_id}_{abs(hash(source))}')
        with recorded_launches() as seen, torch.device('meta'):
            sol.ModelNew(*ref.get_init_inputs())(*ref.get_inputs())
        return [compile_launch(fn, args, kw, arch) for fn, args, kw in seen]


def script_versions(task_id: str) -> dict:
    "The script's first version (as first written, then its edits before the second) and its final state."
    from cuda_agent_wb.agent_triton import language_script_path, scripted_solution
    p = language_script_path(task_id, 'cuda', 'triton')
    first = (p.parent/'v1'/'model_new.py').read_text()
    for it in json.loads(p.read_text()):
        a = it.get('args') or {}
        if it.get('tool') == 'write_file' and str((a.get('content') or {}).get('file', '')).startswith('v2/'): break
        if it.get('tool') == 'edit_file' and a.get('path') == 'model_new.py': first = first.replace(a['old_string'], a['new_string'], 1)
    return {'v1': first, 'final': scripted_solution(p)['model_new.py']}


def main(argv=None):
    a = parse_args(argv)
    from cuda_agent_wb.agent_triton import triton_script_tasks
    import triton
    tasks = [t for t in a.tasks.split(',') if t] or triton_script_tasks()
    out_path = a.out or ROOT/'bench/results/triton_sm90_compile.json'
    out = dict(command=' '.join(['python', *sys.argv]), arch=f"sm_{a.arch}", triton=triton.__version__, tasks={})
    for t in tasks:
        out['tasks'][t] = {}
        for v, src in script_versions(t).items():
            try: out['tasks'][t][v] = dict(ok=True, launches=check_solution(t, src, a.arch))
            except Exception as e: out['tasks'][t][v] = dict(ok=False, error=f"{type(e).__name__}: {str(e)[:2000]}")
            r = out['tasks'][t][v]
            worst = max((l['spill_bytes'] or 0 for l in r.get('launches', [])), default=0)
            print(f"{t} {v}: {'ok' if r['ok'] else 'FAILED ' + r['error'][:300]}" + (f", {len(r['launches'])} launches, max spill {worst} B" if r['ok'] else ''), flush=True)
    out['summary'] = dict(solutions=sum(len(v) for v in out['tasks'].values()),
                          compiled=sum(r['ok'] for v in out['tasks'].values() for r in v.values()),
                          spilling_launches=sum(1 for v in out['tasks'].values() for r in v.values() for l in r.get('launches', []) if l['spill_bytes']))
    out_path.parent.mkdir(parents=True, exist_ok=True); out_path.write_text(json.dumps(out, indent=1) + '\n')
    print(f"{out['summary']['compiled']}/{out['summary']['solutions']} compiled for sm_{a.arch}; "
          f"{out['summary']['spilling_launches']} launches spill; results: {out_path}")
    return out


if __name__ == '__main__':
    main()
