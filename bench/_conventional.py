"""The conventional evaluation path, written from PyTorch's public APIs for bench/harness_cycle.py: each step is a
fresh Python process, as in CUDA Agent's released harness.
  compile  WORKDIR BUILD_DIR      torch.utils.cpp_extension.load of kernels/*.cu + conv_binding.cpp (torch headers)
  verify   WORKDIR BUILD_DIR TASK PRESET  5 random-input trials against the reference, in one process
  profile  WORKDIR BUILD_DIR TASK PRESET  torch.compile the reference, time eager / compile / candidate (CUDA events, 10 calls)
"""
import sys, time, types
from pathlib import Path


def load_ext(wd: Path, build: Path):
    from torch.utils.cpp_extension import load
    srcs = [str(p) for p in sorted((wd / 'kernels').glob('*.cu'))] + [str(wd / 'conv_binding.cpp')]
    return load(name=f"conv_{wd.name}", sources=srcs, build_directory=str(build), verbose=False,
                extra_cuda_cflags=['-O3', '-gencode=arch=compute_90,code=sm_90'], extra_cflags=['-O3'])


def load_models(wd, build, task_path, preset):
    import torch
    ext = load_ext(wd, build)
    sys.modules['cawb_ext'] = ext
    ns = {}
    exec(compile((wd / 'model_new.py').read_text(), str(wd / 'model_new.py'), 'exec'), ns)
    tns = {}
    exec(compile(Path(task_path).read_text(), task_path, 'exec'), tns)
    tns.update(tns.get('PRESETS', {}).get(preset, {}))
    return ns['ModelNew'], tns


def main():
    mode, wd, build = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    import torch
    if mode == 'compile':
        load_ext(wd, build); return
    ModelNew, tns = load_models(wd, build, sys.argv[4], sys.argv[5])
    torch.manual_seed(0)
    init = tns['get_init_inputs']()
    ref = tns['Model'](*init).cuda()
    new = ModelNew(*init).cuda(); new.load_state_dict(ref.state_dict())
    if mode == 'verify':
        with torch.no_grad():
            for t in range(5):
                torch.manual_seed(t)
                xs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in tns['get_inputs']()]
                assert torch.allclose(ref(*xs), new(*xs), atol=1e-2, rtol=1e-2), f"trial {t} mismatch"
        print('verify ok')
    elif mode == 'profile':
        xs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in tns['get_inputs']()]
        comp = torch.compile(ref)
        def t(fn, n=10):
            with torch.no_grad():
                fn(*xs); torch.cuda.synchronize()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(n): fn(*xs)
                e.record(); torch.cuda.synchronize()
                return s.elapsed_time(e) / n
        print('profile', t(ref), t(comp), t(new))


if __name__ == '__main__':
    main()
