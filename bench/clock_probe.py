"""Is the gap between an honest ReLU and eager the clock's arrangement or the candidate's process? The evaluator's own
clock (`clock.Clock`, `clock.BlockServer`) over plain spawned processes, no sandbox, no verification before: eager's
`nn.ReLU` in one process, `tests/solutions/cuda/relu_vec4.py` in another, eager again in a third (the same function in
two processes: any gap between them is the arrangement's), the same three with every process on one CPU for the clock's
length (`clock.clock_cpu`, as the evaluator does on a GPU), and relu_vec4 beside eager in one process. 1024 x 2048 fp32.
Per entry: µs per call (median over rounds), the served process's CPU µs per call, and speedups paired by round.
A diagnosis, not a target.

    source bench/device_setup.sh; python3 bench/clock_probe.py --out $OUT/clock_probe.json
"""
import argparse, json, multiprocessing as mp, os, statistics, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / 'bench'))


class Chan:
    "What `BlockServer.serve` and `TimedProcess.fetch` need of a channel: the raw connection and pickled messages."
    def __init__(self, conn): self.conn = conn
    def send(self, obj): import pickle; self.conn.send_bytes(pickle.dumps(obj))
    def recv(self, timeout=None): import pickle; return pickle.loads(self.conn.recv_bytes())


class Sess:
    "What `TimedProcess` needs of a session: its channel, the served process's pid, a way to end it."
    def __init__(self, conn, proc): self.chan, self.pid, self.proc = Chan(conn), proc.pid, proc
    def kill(self): self.proc.kill()
    def _watch(self, what): pass


def model(name: str):
    "eager's nn.ReLU, or the ModelNew of tests/solutions/cuda/<name>.py (`relu_probe.load_model`)."
    import torch
    from relu_probe import load_model
    return torch.nn.ReLU().cuda() if name == 'eager' else load_model(ROOT / f'tests/solutions/cuda/{name}.py')


def serve_main(conn, names: list):
    "A timed process serving blocks of each model in `names`."
    import torch
    from cuda_agent_wb.clock import BlockServer
    fns = [model(n) for n in names]
    draw = lambda s: [torch.randn(1024, 2048, generator=torch.Generator('cuda').manual_seed(s), device='cuda')]
    conn.send_bytes(b'ready')
    BlockServer(fns, draw, 'cuda', 1 << 30).serve(Chan(conn))


def start(ctx, names: list):
    from cuda_agent_wb.clock import TimedProcess
    here, there = ctx.Pipe()
    p = ctx.Process(target=serve_main, args=(there, names), daemon=True); p.start()
    here.recv_bytes()
    return TimedProcess(Sess(here, p), '+'.join(names))


def measure(entries: dict, rounds: int, cpu=None) -> dict:
    from cuda_agent_wb.clock import Clock, summary
    run = Clock(entries, rounds=rounds, block_ms=1.0, warmup=3, cpu=cpu).run(512, out_bytes=8 << 20)
    s = summary(run, list(entries), cand=list(entries)[-1])
    cpu = {n: round(statistics.median(r[n]['cpu_ns'] / run['k'] / 1e3 for r in run['rows']), 2) for n in entries}
    return {'k': run['k'], 'cpu': run.get('cpu'), 'per_call_us': {n: round(v['median'], 2) for n, v in s['per_call_us'].items()}, 'cpu_us_per_call': cpu,
            'speedup_of_last': {b: round(v['median'], 3) for b, v in s['speedup'].items()}, 'outside_ms': s['outside_ms']}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', required=True); ap.add_argument('--rounds', type=int, default=30); ap.add_argument('--repeat', type=int, default=3)
    a = ap.parse_args()
    import torch
    from cuda_agent_wb.clock import clock_cpu
    ctx = mp.get_context('spawn')
    eager, eager2, vec4, both = start(ctx, ['eager']), start(ctx, ['eager']), start(ctx, ['relu_vec4']), start(ctx, ['eager', 'relu_vec4'])
    out = {'device': torch.cuda.get_device_name(), 'torch': torch.__version__, 'cuda': torch.version.cuda, 'command': ' '.join(sys.argv), 'runs': []}
    for i in range(a.repeat):
        three = {'eager': (eager, 0), 'eager_2nd_process': (eager2, 0), 'relu_vec4': (vec4, 0)}
        for label, entries, cpu in (('three processes', three, None), ('three processes, one CPU', three, clock_cpu()),
                                    ('one process', {'eager': (both, 0), 'relu_vec4': (both, 1)}, None)):
            r = {'arrangement': label, **measure(entries, a.rounds, cpu)}
            out['runs'].append(r); print(json.dumps(r), flush=True)
    for tp in (eager, eager2, vec4, both): tp.end(); tp.sess.proc.join(10)
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == '__main__':
    main()
