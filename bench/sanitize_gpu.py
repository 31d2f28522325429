"""The sanitizer stage on a GPU (issue 50): compute-sanitizer's memcheck, racecheck and initcheck on the adversarial
CUDA solutions (tests/solutions/cuda/{crpss_oob_slack, relu_uninit_read, sum_reduce_racy}: each also evaluated plainly,
compile + verify, to show what a plain evaluation accepts), on every valid bundled CUDA solution (the best CUDA
solution of each bundled task, data/trajectories/cuda/best/, and the valid ones in tests/solutions/cuda) and, with
--cuda-agent DIR, on the workdirs of a CUDA Agent checkout (folders holding model_new.py and binding.cpp; the task is the
workdir's model.py). Writes one JSON: each case's flags, each tool's status, reports, racecheck warnings (intra-warp
hazards, counted, not flagged), reports outside the candidate's code, the seconds per tool and per candidate; the
summary says whether every adversarial case was flagged and no valid one was.

    source bench/device_setup.sh; python3 bench/sanitize_gpu.py --out $OUT/sanitize_gpu.json       # on a GPU machine
    python3 bench/sanitize_gpu.py --out /tmp/s.json --limit 1      # without a GPU: says in one sentence why it cannot run
    python3 bench/sanitize_gpu.py --backend cpu --out bench/results/sanitize_cpu.json   # the CPU stage on the CPU counterparts
"""
import argparse, json, os, platform, statistics, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# solution folder -> (task file, the flag the sanitizer stage must raise)
ADVERSARIAL = {'tests/solutions/cuda/crpss_oob_slack': ('data/tasks/conv_relu_pool_sigmoid_sum.py', 'memory_error'),
               'tests/solutions/cuda/relu_uninit_read': ('data/tasks/relu.py', 'uninitialized_read'),
               'tests/solutions/cuda/sum_reduce_racy': ('data/tasks/sum_reduce.py', 'race')}
CPU_ADVERSARIAL = {'tests/solutions/cpu/relu_oob_slack': ('data/tasks/relu.py', 'memory_error'),
                   'tests/solutions/cpu/relu_uninit_read': ('data/tasks/relu.py', 'uninitialized_read'),
                   'tests/solutions/cpu/relu_signed_wrap': ('data/tasks/relu.py', 'undefined_behavior'),
                   'tests/solutions/cpu/sum_reduce_racy': ('data/tasks/sum_reduce.py', 'race')}
CPU_VALID_TESTS = {'tests/solutions/cpu/relu_valid': 'data/tasks/relu.py', 'tests/solutions/cpu/relu_bf16_valid': 'data/tasks_bf16/relu_bf16.py',
                   'tests/solutions/cpu/linear_relu_valid': 'data/tasks/linear_relu.py', 'tests/solutions/cpu/relu_cuda_agent_layout': 'data/tasks/relu.py'}
VALID_TESTS = {'tests/solutions/cuda/relu_valid': 'data/tasks/relu.py', 'tests/solutions/cuda/relu_bf16_valid': 'data/tasks_bf16/relu_bf16.py',
               'tests/solutions/cuda/rmsnorm_silu_mul_valid': 'data/tasks/rmsnorm_silu_mul.py',
               'tests/solutions/cuda/linear_relu_cublas': 'data/tasks/linear_relu.py'}


def cases(cuda_agent: str|None, limit: int|None, backend: str = 'cuda') -> tuple[list[dict], list[str]]:
    "Every (solution, task, expected flag, kind) to run, and notes on what was not found."
    out, notes = [], []
    adv, valid = (ADVERSARIAL, VALID_TESTS) if backend == 'cuda' else (CPU_ADVERSARIAL, CPU_VALID_TESTS)
    for sol, (task, flag) in adv.items(): out.append(dict(solution=sol, task=task, expect=flag, kind='adversarial'))
    for sol in sorted((ROOT/f'data/trajectories/{backend}/best').iterdir()):
        out.append(dict(solution=str(sol.relative_to(ROOT)), task=f"data/tasks/{sol.name.split('__')[0]}.py", expect=None, kind='valid_bundled'))
    for sol, task in valid.items(): out.append(dict(solution=sol, task=task, expect=None, kind='valid_tests'))
    if cuda_agent:
        found = sorted(p.parent for p in Path(cuda_agent).rglob('binding.cpp') if (p.parent/'model_new.py').is_file() and (p.parent/'model.py').is_file())
        if not found: notes.append(f"--cuda-agent {cuda_agent}: no workdir (model.py, model_new.py, binding.cpp) found there")
        out += [dict(solution=str(p), task=str(p/'model.py'), expect=None, kind='valid_cuda_agent') for p in found]
    else: notes.append("no CUDA Agent checkout given (--cuda-agent DIR): its workdirs were not run")
    return (out[:limit] if limit else out), notes


def versions() -> dict:
    "Device, driver, torch, CUDA and compute-sanitizer versions."
    import torch
    from cuda_agent_wb.sanitize import compute_sanitizer
    def first(cmd):
        try: return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()
        except (OSError, subprocess.TimeoutExpired): return []
    cs = compute_sanitizer()
    return dict(device=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, torch=torch.__version__, cuda=torch.version.cuda,
                driver=(first(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader']) or [None])[0],
                compute_sanitizer=' '.join(first([cs, '--version'])[-2:]) if cs else None, python=platform.python_version(),
                commit=os.environ.get('CAWB_COMMIT') or (first(['git', '-C', str(ROOT), 'rev-parse', 'HEAD']) or [None])[0])


def plain(ev, task, sol) -> dict:
    "A plain evaluation (compile + verify) of one solution: what the evaluator accepts without the stage."
    r = ev.evaluate(task, sol, stages=('compile', 'verify'))
    return dict(correct=r.correct, reward=r.reward, flags=r.flags, error=(r.error or '')[:300] or None)


DEADLINE = [float('inf')]        # perf_counter time after which no case starts (--budget-s): the JSON is written before a hard limit


def run_case(c: dict, preset: str, calls: int, backend: str = 'cuda') -> dict:
    "The sanitizer stage on one case (not started past the deadline: `skipped`)."
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.sanitize import sanitize
    t0 = time.perf_counter()
    if t0 > DEADLINE[0]: return {**c, 'sanitize': {'flag_names': [], 'tools': []}, 'flagged': [], 'ok': None, 'skipped': 'past --budget-s', 'wall_s': 0.0}
    try: san = sanitize(load_task(ROOT/c['task']), ROOT/c['solution'], backend, preset=preset, calls=calls).to_dict()
    except Exception as e: san = dict(error=f"{type(e).__name__}: {e}", flag_names=[], tools=[])
    names = san.get('flag_names', [])
    ran = not san.get('error') and all(t['status'] in ('clean', 'flagged', 'skipped') for t in san.get('tools', []))
    ok = (names == [c['expect']]) if c['expect'] else (not names and ran)      # a valid case counts only when every tool ran
    return {**c, 'sanitize': san, 'flagged': names, 'ok': ok, 'wall_s': round(time.perf_counter() - t0, 1)}


def summary(rows: list[dict]) -> dict:
    "Pass counts and the cost per candidate (wall seconds of the stage, each tool's seconds)."
    skipped = [r['solution'] for r in rows if r.get('skipped')]
    rows = [r for r in rows if not r.get('skipped')]
    adv = [r for r in rows if r['kind'] == 'adversarial']
    valid = [r for r in rows if r['kind'] != 'adversarial']
    per_tool = {}
    for r in rows:
        for t in r['sanitize'].get('tools', []): per_tool.setdefault(t['tool'], []).append(t['seconds'])
    walls = [r['sanitize'].get('seconds') for r in rows if r['sanitize'].get('seconds') is not None]
    return dict(adversarial_flagged=f"{sum(r['ok'] for r in adv)}/{len(adv)}", valid_not_flagged=f"{sum(r['ok'] for r in valid)}/{len(valid)}",
                valid_flagged=[dict(solution=r['solution'], flags=r['flagged'], error=r['sanitize'].get('error')) for r in valid if not r['ok']],
                adversarial_missed=[dict(solution=r['solution'], expect=r['expect'], flags=r['flagged']) for r in adv if not r['ok']],
                racecheck_warnings={r['solution']: t.get('warnings') for r in rows for t in r['sanitize'].get('tools', []) if t['tool'] == 'racecheck' and t.get('warnings')},
                reports_outside_candidate={r['solution']: {t['tool']: t.get('other_reports') for t in r['sanitize'].get('tools', []) if t.get('other_reports')} for r in rows if any(t.get('other_reports') for t in r['sanitize'].get('tools', []))},
                tools_not_clean=[dict(solution=r['solution'], tool=t['tool'], status=t['status'], error=t.get('error')) for r in rows for t in r['sanitize'].get('tools', []) if t['status'] not in ('clean', 'flagged', 'skipped')],
                tools_skipped={t['tool']: sum(t2['status'] == 'skipped' for r in rows for t2 in r['sanitize'].get('tools', []) if t2['tool'] == t['tool']) for r in rows for t in r['sanitize'].get('tools', [])},
                cost_per_candidate_s=dict(median=statistics.median(walls), mean=round(statistics.mean(walls), 1), max=max(walls)) if walls else None,
                tool_seconds={k: dict(median=statistics.median(v), max=max(v)) for k, v in per_tool.items()},
                skipped_past_budget=skipped, target_met=all(r['ok'] for r in rows) and not skipped)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='the JSON to write')
    ap.add_argument('--preset', default='cpu', help='task size preset the calls run at (default cpu: the tools slow kernels 10-100x)')
    ap.add_argument('--calls', type=int, default=2, help='forward calls per tool')
    ap.add_argument('--jobs', type=int, default=6, help='solutions sanitized at once (each runs its three tools side by side)')
    ap.add_argument('--budget-s', type=float, default=480, help='no case starts after this many seconds (the JSON is written before a hard limit)')
    ap.add_argument('--cuda-agent', default=None, help="a CUDA Agent checkout: its workdirs are sanitized too")
    ap.add_argument('--limit', type=int, default=None, help='only the first N cases (a quick check)')
    ap.add_argument('--kinds', default=None, help="only these kinds of case, comma-separated: adversarial, valid_bundled, valid_tests, valid_cuda_agent")
    ap.add_argument('--no-plain', action='store_true', help='skip the plain evaluations of the adversarial cases')
    ap.add_argument('--backend', default='cuda', choices=('cuda', 'cpu'), help='cuda (compute-sanitizer) or cpu (the CPU counterparts: ASan+UBSan, TSan)')
    a = ap.parse_args()
    from cuda_agent_wb.sanitize import tool_missing
    import torch
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    if a.backend == 'cuda':
        why = None if torch.cuda.is_available() else "no CUDA GPU is visible to torch, so the GPU sanitizer stage cannot run here"
        why = why or tool_missing('memcheck')
    else: why = tool_missing('asan') or tool_missing('tsan')
    head = dict(command=' '.join([os.path.basename(sys.executable), *sys.argv]), started=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()), **versions())
    if why:
        out.write_text(json.dumps({**head, 'error': why}, indent=1)); print(f"sanitize_gpu: {why}", file=sys.stderr); sys.exit(2)
    todo, notes = cases(a.cuda_agent, a.limit, a.backend)
    if a.kinds: todo = [c for c in todo if c["kind"] in a.kinds.split(",")]; notes.append(f"only the kinds {a.kinds} (--kinds)")
    t0 = time.perf_counter(); DEADLINE[0] = t0 + a.budget_s
    with ThreadPoolExecutor(a.jobs) as ex: rows = list(ex.map(lambda c: run_case(c, a.preset, a.calls, a.backend), todo))
    stage_s = round(time.perf_counter() - t0, 1)
    if not a.no_plain:
        from cuda_agent_wb.reward import Evaluator
        from cuda_agent_wb.tasks import load_task
        with Evaluator(a.backend) as ev:
            for r in rows:
                if r['kind'] == 'adversarial' and time.perf_counter() < DEADLINE[0] + 60:
                    try: r['plain'] = plain(ev, load_task(ROOT/r['task']), ROOT/r['solution'])
                    except Exception as e: r['plain'] = {'error': f"{type(e).__name__}: {e}"}
    res = {**head, 'backend': a.backend, 'cpu_cores': os.cpu_count(), 'preset': a.preset, 'calls': a.calls, 'jobs': a.jobs, 'notes': notes, 'stage_wall_s': stage_s, 'summary': summary(rows), 'cases': rows}
    out.write_text(json.dumps(res, indent=1, default=str))
    print(json.dumps(res['summary'], indent=1, default=str))


if __name__ == '__main__':
    main()
