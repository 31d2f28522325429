"""Diagnose where a new candidate's cycle goes on a GPU (not a benchmark of record): parent-side phase times for a
run of new candidates, cProfile inside the sandbox child for a few of them, and the CLI's start-up.

    source bench/device_setup.sh; python3 bench/_prof_child.py $OUT"""
import cProfile, io, json, os, pstats, subprocess, sys, tempfile, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'bench'))


def candidate_main_profiled(job, chan):
    "The real candidate_main under cProfile; the stats go to /dev/shm (writable in the sandbox)."
    t_in = time.time()
    from cuda_agent_wb.reward import candidate_main
    pr, send = cProfile.Profile(), chan.send
    def dump_then_send(msg):                 # the parent kills the child on its last message: write the stats first
        if 'timed' in msg or 'error' in msg:
            pr.disable(); s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats('cumulative').print_stats(80)
            Path(job['torch_ext_dir'], f"cawbprof_{os.getpid()}.txt").write_text(f"fork_to_main_s {t_in - job['_t_sent']:.4f}\n" + s.getvalue())
        send(msg)
    chan.send = dump_then_send
    pr.enable(); candidate_main(job, chan)


def cuda_probe(job, chan):
    "Times of the first CUDA steps in a fresh sandbox child, then the same steps again."
    import torch
    t, marks = time.perf_counter(), {'fork_to_probe_s': round(time.time() - job['_t_sent'], 4)}
    def mark(k):
        nonlocal t
        if torch.cuda.is_initialized(): torch.cuda.synchronize()
        now = time.perf_counter(); marks[k] = round(now - t, 4); t = now
    torch.cuda.init(); mark('cuda_init')
    torch.empty(1, device='cuda'); mark('first_alloc')
    for r in ('first', 'second'):
        x = torch.randn(4096, 1024, device='cuda'); mark(f'{r}_randn')
        y = torch.relu(x); mark(f'{r}_relu')
        torch.full((64 << 20,), float('nan'), device='cuda'); mark(f'{r}_poison_256mb')
        z = y.clone(); torch.equal(z.nan_to_num(0.1), y.nan_to_num(0.1)); mark(f'{r}_clone_equal_nan_to_num')
        z.cpu(); mark(f'{r}_to_cpu')
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p: torch.relu(x)
        mark(f'{r}_profiler')
    chan.send({'result': marks})


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out', help='folder for the profiles and prof_child.json')
    out = Path(ap.parse_args().out); out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault('CAWB_EVAL_PRESET', 'cpu')
    from _candidates import KERNELS, write_candidate
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.sandbox import Sandbox
    from cuda_agent_wb.tasks import load_task
    orig_start, prof = Sandbox.start, {'on': False}
    def start(self, fn, job, limits=None):
        if prof['on'] and fn.endswith(':candidate_main'): fn, job = '_prof_child:candidate_main_profiled', {**job, '_t_sent': time.time()}
        return orig_start(self, fn, job, limits)
    Sandbox.start = start
    names = list(KERNELS); tasks = {n: load_task(ROOT / 'data/tasks' / f'{n}.py') for n in names}
    work = Path(tempfile.mkdtemp()); rec = {}
    with Evaluator('cuda') as ev:
        t0 = time.perf_counter()
        for n in names: ev.evaluate(tasks[n], write_candidate(work, n, 0, 'warm'))
        rec['warm_s'] = round(time.perf_counter() - t0, 2)
        sols = [(names[i % 4], write_candidate(work, names[i % 4], 100 + i, 'n')) for i in range(12)]
        from cuda_agent_wb.build import build_solution
        from cuda_agent_wb.workdir import load_solution
        for n, s in sols: build_solution(load_solution(s), ev.backend)        # builds out of the way: only the GPU side is timed
        rows = []
        for i, (n, s) in enumerate(sols):
            prof["on"] = i >= 8
            pp = cProfile.Profile() if prof['on'] else None
            t0 = time.perf_counter()
            if pp: pp.enable()
            r = ev.evaluate(tasks[n], s); wall = time.perf_counter() - t0
            if pp:
                pp.disable(); st = io.StringIO(); pstats.Stats(pp, stream=st).sort_stats('tottime').print_stats(45)
                (out / f'parent_{i}.txt').write_text(st.getvalue())
            rows.append({'task': n, 'profiled': prof['on'], 'wall_s': round(wall, 3), 'correct': r.correct, 'flags': list(r.flag_details), **r.breakdown})
            print(rows[-1], flush=True)
        rec['rows'] = rows
        from cuda_agent_wb.reward import _torch_ext_dir
        for f in sorted(Path(_torch_ext_dir()).glob('cawbprof_*.txt')): (out / f.name).write_text(f.read_text()); f.unlink()
        probes = []
        for iso in (True, True, False, False):
            m = ev.sandbox.run('_prof_child:cuda_probe', {'_t_sent': time.time()}, limits={'isolate': iso})
            probes.append({'isolate': iso, **m['result']}); print(probes[-1], flush=True)
        rec['cuda_probe'] = probes
    # the CLI's start on this host
    py = sys.executable
    def wall(args, **kw):
        t0 = time.perf_counter(); r = subprocess.run([py, *args], capture_output=True, text=True, cwd=ROOT, **kw); return round(time.perf_counter() - t0, 3), r
    rec['python_pass_s'] = [wall(['-c', 'pass'])[0] for _ in range(3)]
    rec['python_S_pass_s'] = [wall(['-S', '-c', 'pass'])[0] for _ in range(3)]
    rec['cli_help_s'] = [wall(['-c', 'from cuda_agent_wb.cli import main; main()', 'evaluate', '--help'])[0] for _ in range(3)]
    t, r = wall(['-X', 'importtime', '-c', 'from cuda_agent_wb.cli import main'])
    (out / 'importtime_cli.txt').write_text(r.stderr)
    t, r = wall(['-X', 'importtime', '-c', 'pass'])
    (out / 'importtime_pass.txt').write_text(r.stderr)
    rec['sys_path'] = sys.path; rec['env_PYTHONPATH'] = os.environ.get('PYTHONPATH')
    (out / 'prof_child.json').write_text(json.dumps(rec, indent=1))
    print(json.dumps({k: v for k, v in rec.items() if k != 'rows'}, indent=1))


if __name__ == '__main__':
    main()
