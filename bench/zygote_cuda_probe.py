"""Does a fork server with these modules preloaded leave its children able to start CUDA? (torch refuses CUDA in a
child forked after its parent started it.) `python3 bench/zygote_cuda_probe.py mod1,mod2,...`: imports them in order,
runs the sandbox's pre-fork set-up, forks once, and the child allocates on the GPU; prints what happened."""
import importlib, os, sys

if __name__ == '__main__':
    for m in sys.argv[1].split(','):
        importlib.import_module(m)
    import torch
    from cuda_agent_wb.sandbox import prepare_torch_for_fork
    print('preloaded', sys.argv[1], '| triton ops registered:', prepare_torch_for_fork(), '| CUDA initialized in the parent:', torch.cuda.is_initialized(), flush=True)
    pid = os.fork()
    if pid == 0:
        try: torch.empty(1, device='cuda'); print('  child: CUDA ok', flush=True)
        except Exception as e: print('  child:', type(e).__name__, str(e)[:120], flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
