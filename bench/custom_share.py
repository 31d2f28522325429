"""The share of each solution's profiled time spent in its own kernels (`custom_kernel_share`), evaluated under
kernelbench rules, to set `[eval] min_custom_share` from data (issue 48, item 7): valid solutions, public solutions
that mix their own kernels with torch's compute (CUDA-L1's), and decoys whose own kernel does next to nothing.

Sources (any together; each result keeps its source and kind):
  --bundled          the workbench's own: valid solutions, the scalar decoy and the epilogue beside torch.mm
                     (tests/solutions/<backend>; the task named in each ABOUT or first comment)
  --cuda-l1 FILE     CUDA-L1's optimized_cuda_code/<gpu>.json (JSON lines: level_id, task_id, ref_code, custom_code) from
                     github.com/deepreinforce-ai/CUDA-L1; by default only the solutions that compile CUDA of their own
                     (--all: every one; the torch-only ones read 0). Written out as task and solution files under --work.
  --pairs DIR        folders DIR/<name>/ holding task.py and solution.py (or a solution/ workdir)

Runs are resumable: results already in --out are kept and skipped, each new one is written as it comes, and
--time-budget stops starting new evaluations after that many seconds (the device runner allows 10 minutes a command),
so the same command run again goes on. --prebuild-jobs builds the pending single files' load_inline extensions ahead in
parallel first (cached by content; the evaluations then only load them).

    python3 bench/custom_share.py --bundled --cuda-l1 bench/ext/cudal1_h100.json --out bench/results/custom_share_h200.json
    python3 bench/custom_share.py --bundled --backend cpu --out /tmp/custom_share_cpu.json        # checks it on a CPU

bench/ext/ is git-ignored: put CUDA-L1's JSON there (it is their code: read and measured, never committed), and carry
it to a GPU machine that has no network.

The JSON: {device, settings: {min_custom_share, rules}, results: [{source, kind, name, task, correct, reward, flags,
custom_kernel_share, torch_time_share, speedup_vs_eager, kernels: [{name, us_per_call, own}], error}],
summary: {<source>/<kind>: {n, correct, shares: quantiles over those right but for their share (no flag but
no_custom_kernel or suspicious_speedup), flagged_at: {threshold: how many of them it flags}}}, complete}.
"""
import argparse, json, os, re, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
THRESHOLDS = (0.01, 0.02, 0.05, 0.1, 0.2)
JUDGED_BY_SHARE = {'no_custom_kernel', 'suspicious_speedup'}     # a result with only these flags was measured as it is
BUNDLED = {'valid': ['relu_valid', 'linear_relu_valid', 'relu_inline_valid.py', 'relu_bf16_valid', 'rmsnorm_silu_mul_valid',
                     'linear_relu_cublas', 'scale_gelu_bf16_valid', 'tiny_scale_valid'],
           'decoy': ['linear_relu_scalar_decoy.py', 'relu_inline_decoy.py'], 'mixed': ['linear_relu_epilogue.py']}


def bundled_task(sol: Path) -> Path|None:
    "The task a bundled solution names ('task relu_bf16 (data/tasks_bf16)' in its ABOUT or first comment)."
    text = (sol / 'ABOUT').read_text() if sol.is_dir() else sol.read_text()[:400]
    m = re.search(r'task (\w+)', text)
    if not m: return None
    for folder in ('data/tasks', 'data/tasks_bf16', 'tests/tasks'):
        if (p := ROOT / folder / f'{m.group(1)}.py').exists(): return p
    return None


def bundled_items(backend: str) -> list[dict]:
    "The workbench's own solutions for `backend` that exist, with their tasks."
    out, base = [], ROOT / 'tests/solutions' / backend
    for kind, names in BUNDLED.items():
        for n in names:
            if (sol := base / n).exists() and (task := bundled_task(sol)):
                out.append({'source': 'bundled', 'kind': kind, 'name': f'{backend}/{n}', 'task': str(task), 'solution': str(sol)})
    return out


def own_cuda(code: str) -> bool:
    "Whether a KernelBench-format solution compiles CUDA of its own."
    return '__global__' in code and ('load_inline' in code or 'cpp_extension' in code)


def cuda_l1_items(path: Path, work: Path, every: bool, levels: set|None) -> list[dict]:
    "CUDA-L1's solutions (JSON lines) written out as task and solution files under `work`."
    out, gpu = [], path.stem
    (work / 'tasks').mkdir(parents=True, exist_ok=True); (work / 'solutions').mkdir(parents=True, exist_ok=True)
    for line in path.read_text().splitlines():
        if not line.strip(): continue
        r = json.loads(line)
        code, ref, lvl = r.get('custom_code') or '', r.get('ref_code') or '', int(r['level_id'])
        if not code or not ref or (levels and lvl not in levels) or not (every or own_cuda(code)): continue
        name = f"cudal1_{gpu}_L{lvl}_{r['task_id']}"
        task, sol = work / 'tasks' / f'{name}.py', work / 'solutions' / f'{name}.py'
        task.write_text(ref); sol.write_text(code)
        out.append({'source': f'cuda-l1/{gpu}', 'kind': 'public' if own_cuda(code) else 'torch-only', 'name': name, 'task': str(task),
                    'solution': str(sol), 'level': lvl})
    return out


def pair_items(folder: Path) -> list[dict]:
    "DIR/<name>/task.py with solution.py or a solution/ workdir."
    out = []
    for d in sorted(p for p in folder.iterdir() if p.is_dir()):
        sol = d / 'solution.py' if (d / 'solution.py').exists() else d / 'solution'
        if (d / 'task.py').exists() and sol.exists():
            out.append({'source': f'pairs/{folder.name}', 'kind': 'public', 'name': d.name, 'task': str(d / 'task.py'), 'solution': str(sol)})
    return out


def prebuild(items: list[dict], jobs: int, deadline: float):
    "Build the single files' load_inline extensions ahead, `jobs` at a time (cached by content)."
    from cuda_agent_wb.workdir import load_solution
    from cuda_agent_wb.build import prebuild_single
    def one(it):
        if time.time() > deadline: return
        try: prebuild_single(load_solution(it['solution']), timeout=600)
        except Exception as e: print(f"prebuild {it['name']}: {type(e).__name__}: {e}"[:300], flush=True)
    singles = [it for it in items if it['solution'].endswith('.py')]
    with ThreadPoolExecutor(max(1, jobs)) as pool: list(pool.map(one, singles))


def record(it: dict, r, cuda: bool) -> dict:
    "One result's row: the verdict, the shares and the kernels, each marked own or not."
    from cuda_agent_wb.hacks import _own_row
    d = r.to_dict(); ks = (d.get('timings') or {}).get('candidate_kernels') or []
    return {**{k: it[k] for k in ('source', 'kind', 'name', 'task') if k in it}, 'level': it.get('level'), 'correct': r.correct,
            'reward': r.reward, 'flags': r.flags, 'custom_kernel_share': r.custom_kernel_share, 'torch_time_share': r.torch_time_share,
            'speedup_vs_eager': r.speedup_vs_eager, 'error': (r.error or '')[:400] or None,
            'kernels': [{'name': k['name'][:160], 'us_per_call': k['us_per_call'], 'own': _own_row(k['name'], cuda)} for k in ks]}


def quantiles(xs: list[float]) -> dict:
    "Low quantiles of `xs` (the threshold sits in the low tail of valid shares)."
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]
    return {'min': xs[0], 'p05': q(0.05), 'p10': q(0.10), 'p25': q(0.25), 'median': q(0.5), 'max': xs[-1]} if xs else {}


def summarise(results: list[dict]) -> dict:
    "Per source and kind: how many, how many correct, the shares of those right but for their share, and how many each threshold would flag."
    out = {}
    for key in sorted({f"{r['source']}/{r['kind']}" for r in results}):
        rs = [r for r in results if f"{r['source']}/{r['kind']}" == key]
        sh = [r['custom_kernel_share'] for r in rs if r['custom_kernel_share'] is not None and set(r.get('flags') or []) <= JUDGED_BY_SHARE]
        out[key] = {'n': len(rs), 'correct': sum(bool(r['correct']) for r in rs), 'shares': quantiles(sh),
                    'flagged_at': {str(t): sum(s < t for s in sh) for t in THRESHOLDS}}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', required=True, help='results JSON (read first: results in it are kept and skipped)')
    ap.add_argument('--bundled', action='store_true', help="the workbench's own valid, decoy and mixed solutions")
    ap.add_argument('--cuda-l1', type=Path, action='append', default=[], help="CUDA-L1's optimized_cuda_code/<gpu>.json (repeatable)")
    ap.add_argument('--pairs', type=Path, action='append', default=[], help='a folder of <name>/task.py + solution.py (repeatable)')
    ap.add_argument('--all', action='store_true', help="CUDA-L1: also the solutions with no CUDA of their own")
    ap.add_argument('--levels', default='', help='CUDA-L1: levels to take, e.g. 2,3 (default all)')
    ap.add_argument('--limit', type=int, default=0, help='evaluate at most this many new solutions (0: all)')
    ap.add_argument('--backend', default='cuda', choices=('cuda', 'cpu'))
    ap.add_argument('--rules', default='kernelbench', choices=('kernelbench', 'cuda-agent'))
    ap.add_argument('--time-budget', type=float, default=540, help='seconds after which no new evaluation starts (default 540)')
    ap.add_argument('--prebuild-jobs', type=int, default=0, help='build pending single files ahead, this many at once (0: no)')
    ap.add_argument('--work', type=Path, default=Path('/tmp/cawb_custom_share'), help='where CUDA-L1 files are written out')
    a = ap.parse_args(argv)
    t0, out = time.time(), Path(a.out)
    levels = {int(x) for x in a.levels.split(',') if x.strip()} or None
    items = (bundled_items(a.backend) if a.bundled else []) + [it for f in a.cuda_l1 for it in cuda_l1_items(f, a.work, a.all, levels)] \
            + [it for d in a.pairs for it in pair_items(d)]
    if not items: ap.error('nothing to evaluate: give --bundled, --cuda-l1 FILE or --pairs DIR')
    old = json.loads(out.read_text()) if out.exists() else {}
    results = old.get('results', [])
    done = {(r['source'], r['name']) for r in results}
    todo = [it for it in items if (it['source'], it['name']) not in done][:a.limit or None]
    print(f"{len(items)} solutions, {len(todo)} to evaluate, {len(results)} kept from {out}", flush=True)
    if a.prebuild_jobs and todo: prebuild(todo, a.prebuild_jobs, t0 + a.time_budget / 2)
    from cuda_agent_wb.reward import Evaluator
    from cuda_agent_wb.tasks import load_task
    from cuda_agent_wb.config import get_settings
    ev = Evaluator(a.backend)
    try:
        for i, it in enumerate(todo):
            if time.time() - t0 > a.time_budget: break
            try: row = record(it, ev.evaluate(load_task(it['task']), Path(it['solution']), rules=a.rules), a.backend == 'cuda')
            except Exception as e: row = {**{k: it[k] for k in ('source', 'kind', 'name', 'task')}, 'correct': None, 'custom_kernel_share': None, 'error': f"{type(e).__name__}: {e}"[:400]}
            results.append(row)
            print(f"[{i + 1}/{len(todo)}] {it['name']}: share {row['custom_kernel_share']}, correct {row['correct']}, flags {row.get('flags')}", flush=True)
            doc = {'device': ev.device, 'settings': {'min_custom_share': get_settings().eval.min_custom_share, 'rules': a.rules},
                   'results': results, 'summary': summarise(results), 'complete': False}
            tmp = out.with_suffix('.tmp'); tmp.write_text(json.dumps(doc, indent=1, default=str)); os.replace(tmp, out)
    finally: ev.close()
    doc = {'device': str(ev.device), 'settings': {'min_custom_share': get_settings().eval.min_custom_share, 'rules': a.rules},
           'results': results, 'summary': summarise(results), 'complete': {(it['source'], it['name']) for it in items} <= {(r['source'], r['name']) for r in results}}
    out.parent.mkdir(parents=True, exist_ok=True); out.write_text(json.dumps(doc, indent=1, default=str))
    print(json.dumps(doc['summary'], indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
