"""Is the reward's clock fair to small kernels? On one idle GPU, evaluate (full stages, a fresh evaluator):

- `tests/solutions/cuda/relu_plain.py` on `tests/tasks/relu_1024x2048.py` (a plain grid-stride ReLU): its speedup over
  eager, the issue's target; its kernel ran 8.5 µs a call on an H200 against eager's 3.2 µs (`device_only`), so it is
  slower than torch's on the device too; `relu_vec4.py`, the same with 16-byte loads (as torch's), beside it;
- CUDA Agent's released `agent_workdir` (axpby on 1 x 128; `--ca DIR`, default `.ext/CUDA-Agent/agent_workdir`);
- the null candidate `tests/solutions/cuda/copy_1k_null.py` on `tests/tasks/copy_1k.py` (one copy kernel on 1,024
  floats): its time per call is the floor the clock adds, compared with eager's `x.clone()` on the same tensor.

Every evaluation takes the full `[timing] trials_cuda` rounds (CAWB_TIMING_MIN_TRIALS set to it unless given): these
figures are the clock's precision, not a reward's, which may stop at 10 rounds once they settle it.

Each is evaluated `--repeat` times; the JSON holds every result's speedups, intervals, times and the clock's record,
and the medians the issue's targets read (relu_speedup_vs_eager, ca_workdir_speedup_vs_eager, null_floor_us,
eager_floor_us), with the device, versions, commit and command.

    source bench/device_setup.sh; python3 bench/timing_fair.py --out $OUT/timing_fair.json
"""
import argparse, json, os, platform, statistics, subprocess, sys, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def env_record() -> dict:
    import torch
    def smi(q):
        try: return subprocess.run(['nvidia-smi', f'--query-gpu={q}', '--format=csv,noheader'], capture_output=True, text=True).stdout.strip().splitlines()
        except OSError: return []                      # a CPU machine
    commit = os.environ.get('CAWB_COMMIT') or subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=ROOT).stdout.strip()   # CAWB_COMMIT: a copy's own git metadata may be stale
    from cuda_agent_wb.profile import device_name
    return {'device': device_name('cuda' if torch.cuda.is_available() else 'cpu'), 'driver': (smi('driver_version') or [None])[0],
            'torch': torch.__version__, 'cuda': torch.version.cuda, 'python': platform.python_version(), 'commit': commit,
            'date': time.strftime('%Y-%m-%d %H:%M:%S'), 'command': ' '.join([Path(sys.executable).name, *sys.argv])}


def brief(r) -> dict:
    t = r.timings or {}
    pick = lambda k: {x: t[k].get(x) for x in ('median', 'ci_low', 'ci_high', 'n')} if isinstance(t.get(k), dict) else None
    return {'reward': r.reward, 'correct': r.correct, 'flags': r.flags, 'error': r.error, 'speedup_vs_eager': r.speedup_vs_eager,
            'speedup_vs_compile': r.speedup_vs_compile, 'speedup_vs_eager_ci': pick('speedup_vs_eager'), 'speedup_vs_compile_ci': pick('speedup_vs_compile'),
            'candidate_ms': pick('candidate'), 'eager_ms': pick('eager'), 'compile_ms': pick('compile'), 'clock': t.get('clock'),
            'device_only': t.get('device_only'), 'reward_uncertain': t.get('reward_uncertain'), 'profile_s': r.breakdown.get('profile_s'), 'total_s': r.breakdown.get('total_s')}


def main():
    os.environ.setdefault('CAWB_TIMING_MIN_TRIALS', '30')
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='JSON file to write')
    ap.add_argument('--repeat', type=int, default=3, help='evaluations of each case (default 3)')
    ap.add_argument('--cases', default='', help='comma-separated cases (relu_plain, relu_vec4, null_copy, ca_workdir); default all')
    ap.add_argument('--ca', default=str(ROOT / '.ext/CUDA-Agent/agent_workdir'), help="CUDA Agent's agent_workdir (skipped when missing)")
    a = ap.parse_args()
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.reward import Evaluator
    cases = {'relu_plain': (ROOT / 'tests/tasks/relu_1024x2048.py', ROOT / 'tests/solutions/cuda/relu_plain.py'),
             'relu_vec4': (ROOT / 'tests/tasks/relu_1024x2048.py', ROOT / 'tests/solutions/cuda/relu_vec4.py'),
             'null_copy': (ROOT / 'tests/tasks/copy_1k.py', ROOT / 'tests/solutions/cuda/copy_1k_null.py')}
    if Path(a.ca).is_dir(): cases['ca_workdir'] = (Path(a.ca) / 'model.py', Path(a.ca))
    if a.cases:
        want = a.cases.split(',')
        if unknown := [c for c in want if c not in cases]: sys.exit(f"timing_fair: unknown case(s) {unknown}; known: {list(cases)}")
        cases = {k: v for k, v in cases.items() if k in want}
    out = {**env_record(), 'cases': {}}
    with Evaluator('cuda') as ev:
        for name, (task, sol) in cases.items():
            rs = []
            for i in range(max(a.repeat, 3) if name == 'null_copy' else a.repeat):   # the floor is a few µs: three evaluations at least
                r = ev.evaluate(load_task(task), sol)
                rs.append(brief(r)); print(name, i, json.dumps(rs[-1], default=str)[:600], flush=True)
            out['cases'][name] = rs
    med = lambda xs: statistics.median(xs) if xs else None
    sp = lambda name: med([r['speedup_vs_eager'] for r in out['cases'].get(name, []) if r['speedup_vs_eager']])
    us = lambda name, k: med([r[k]['median'] * 1e3 for r in out['cases'].get(name, []) if r.get(k)])
    dev = lambda name: med([r['device_only']['speedup_vs_eager'] for r in out['cases'].get(name, []) if (r.get('device_only') or {}).get('speedup_vs_eager')])
    out.update(relu_speedup_vs_eager=sp('relu_plain'), relu_vec4_speedup_vs_eager=sp('relu_vec4'), ca_workdir_speedup_vs_eager=sp('ca_workdir'),
               relu_device_only_speedup=dev('relu_plain'), relu_vec4_device_only_speedup=dev('relu_vec4'),
               null_floor_us=us('null_copy', 'candidate_ms'), eager_floor_us=us('null_copy', 'eager_ms'))
    out['targets'] = {'relu_speedup_vs_eager in [0.85, 1.2]': out['relu_speedup_vs_eager'] is not None and 0.85 <= out['relu_speedup_vs_eager'] <= 1.2,
                      'ca_workdir_speedup_vs_eager >= 1.3': (out['ca_workdir_speedup_vs_eager'] or 0) >= 1.3,
                      'null_floor_us - eager_floor_us <= 2': None if out['null_floor_us'] is None else out['null_floor_us'] - out['eager_floor_us'] <= 2}
    Path(a.out).write_text(json.dumps(out, indent=1, default=str))
    print(json.dumps({k: out[k] for k in ('relu_speedup_vs_eager', 'relu_vec4_speedup_vs_eager', 'relu_device_only_speedup', 'relu_vec4_device_only_speedup', 'ca_workdir_speedup_vs_eager', 'null_floor_us', 'eager_floor_us', 'targets')}, indent=1))


if __name__ == '__main__':
    main()
