"""An 8-turn scripted episode in-process (KernelEnv beside a warm local Evaluator) and through `cawb env-serve` (the same
episode over OpenEnv's WebSocket session, the server's own warm local Evaluator), side by side in one run on the CPU
backend: several repeats in alternating order after one warm-up episode each, medians compared.

    python3 bench/env_serve_cpu.py [--repeats 9] [--out bench/results/env_serve_cpu.json]

Writes the machine, the versions, the command, every run's wall time and each tool's time, and the ratio of the medians.
"""
import argparse, json, os, platform, signal, socket, statistics, subprocess, sys, time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOL = ROOT/'tests/solutions/cpu/relu_valid'


def script():
    "The episode: profile the reference, write the three files, compile, verify, profile, finish (8 turns)."
    from cuda_agent_wb.policy import ScriptedPolicy
    files = ['kernels/relu.cpp', 'kernels/relu_binding.cpp', 'model_new.py']
    return ScriptedPolicy([dict(tool='profile')] + [dict(tool='write_file', args=dict(path=f, content=(SOL/f).read_text())) for f in files]
                          + [dict(tool='compile'), dict(tool='verify'), dict(tool='profile'), dict(tool='finish', args=dict(summary='bench'))])


def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def episode(task, where, out: Path) -> dict:
    "One episode through the rollout runner; its wall time, and each tool's time from the trajectory."
    from cuda_agent_wb.rollout import run_trajectory, read_trajectory, trajectory_stem
    t0 = time.perf_counter()
    summary = run_trajectory(task, script(), where, out, 0)
    wall = time.perf_counter() - t0
    steps = read_trajectory(out/f"{trajectory_stem(task, 0)}.jsonl")['steps']
    tools = defaultdict(float)
    for s in steps: tools[f"{s['turn']}:{(s['action'] or {}).get('tool')}"] += s['tool_s']
    assert summary['turns'] == 8 and summary['best_reward'] is not None, summary
    return dict(wall_s=round(wall, 4), turns=summary['turns'], best_reward=summary['best_reward'], tool_s=dict(tools))


def med(xs): return round(statistics.median(xs), 4)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=9)
    ap.add_argument('--out', default=str(ROOT/'bench/results/env_serve_cpu.json'))
    a = ap.parse_args()
    os.environ['CAWB_SERVICE_USE'] = 'never'
    import torch, openenv, cuda_agent_wb
    from importlib.metadata import version
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.env_server import RemoteKernelEnvs
    from cuda_agent_wb.rollout import _device_name
    from cuda_agent_wb.tasks import load_task
    task, work = load_task(ROOT/'data/tasks/relu.py'), Path(os.environ.get('TMPDIR', '/tmp'))/f"cawb-bench-env-{os.getpid()}"
    port = free_port()
    srv = subprocess.Popen([str(Path(sys.executable).parent/'cawb'), 'env-serve', '--backend', 'cpu', '--evaluators', '1', '--port', str(port)],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = {'in_process': [], 'http': []}
    try:
        envs = RemoteKernelEnvs(f"http://127.0.0.1:{port}", wait_ready_s=120)
        with Evaluator('cpu') as ev:
            where = {'in_process': ev, 'http': envs}
            for k in where: episode(task, where[k], work/f"warm-{k}")            # warm: workers started, builds cached, reference table made
            for i in range(a.repeats):
                order = ('in_process', 'http') if i % 2 == 0 else ('http', 'in_process')
                for k in order:
                    runs[k].append(episode(task, where[k], work/f"{k}-{i}"))
                    print(f"repeat {i} {k}: {runs[k][-1]['wall_s']:.3f} s", file=sys.stderr)
    finally:
        srv.send_signal(signal.SIGINT)
        try: srv.wait(30)
        except subprocess.TimeoutExpired: srv.kill()
        subprocess.run(['rm', '-rf', str(work)])
    m = {k: med([r['wall_s'] for r in v]) for k, v in runs.items()}
    per_tool = {k: {t: med([r['tool_s'][t] for r in v]) for t in v[0]['tool_s']} for k, v in runs.items()}
    commit = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    res = dict(
        what="8-turn scripted episode (relu, cpu preset): in-process KernelEnv vs the same episode through cawb env-serve (OpenEnv WebSocket session)",
        command='python3 bench/env_serve_cpu.py ' + ' '.join(sys.argv[1:]), commit=commit,
        machine=dict(device=_device_name('cpu'), cores=os.cpu_count(), platform=platform.platform(), python=platform.python_version()),
        versions={'cuda_agent_wb': cuda_agent_wb.__version__, 'torch': torch.__version__, 'openenv-core': version('openenv-core'),
                  'fastapi': version('fastapi'), 'uvicorn': version('uvicorn'), 'websockets': version('websockets')},
        repeats=a.repeats, order='alternating, after one warm-up episode each',
        median_s=m, ratio_http_over_in_process=round(m['http'] / m['in_process'], 4),
        within_10pct=m['http'] <= 1.10 * m['in_process'],
        median_tool_s=per_tool,
        median_overhead_per_turn_ms=round(1000 * (m['http'] - m['in_process']) / 8, 2),
        runs={k: [r['wall_s'] for r in v] for k, v in runs.items()})
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
    print(json.dumps({k: res[k] for k in ('median_s', 'ratio_http_over_in_process', 'within_10pct', 'median_overhead_per_turn_ms')}))


if __name__ == '__main__':
    main()
