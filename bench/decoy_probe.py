"""What `tests/test_gpu.py::test_cuda_scalar_decoy_is_no_custom_kernel` sees, printed as each evaluation ends (a device call
can end before pytest prints its failures): the scalar decoy and the honest epilogue on data/tasks/linear_relu.py under
`--rules kernelbench`, each one's reward, flags, custom kernel share and kernel table; then how long the evaluator takes
to close (a close that hangs is said after `--close-limit` seconds, and the process ends anyway).

    source bench/device_setup.sh; python3 bench/decoy_probe.py --out $OUT/decoy_probe.json
"""
import argparse, json, os, sys, threading, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', required=True); ap.add_argument('--close-limit', type=float, default=60.0)
    a = ap.parse_args()
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.tasks import load_task
    out, ev = {'command': ' '.join(sys.argv), 'results': {}}, Evaluator('cuda')
    for sol in ('linear_relu_scalar_decoy.py', 'linear_relu_epilogue.py'):
        r = ev.evaluate(load_task(ROOT / 'data/tasks/linear_relu.py'), ROOT / 'tests/solutions/cuda' / sol, rules='kernelbench')
        row = {'reward': r.reward, 'correct': r.correct, 'flags': r.flags, 'details': r.flag_details, 'error': r.error,
               'custom_kernel_share': r.custom_kernel_share, 'torch_time_share': getattr(r, 'torch_time_share', None), 'kernels': (r.timings or {}).get('candidate_kernels')}
        out['results'][sol] = row; print(sol, json.dumps(row, default=str)[:3000], flush=True)
        Path(a.out).write_text(json.dumps(out, indent=1, default=str))
    t0 = time.perf_counter()
    threading.Timer(a.close_limit, lambda: (print(f"Evaluator.close still running after {a.close_limit:g} s", flush=True), os._exit(3))).start()
    ev.close()
    out['close_s'] = round(time.perf_counter() - t0, 2); print('close_s', out['close_s'], flush=True)
    Path(a.out).write_text(json.dumps(out, indent=1, default=str))
    os._exit(0)


if __name__ == '__main__':
    main()
