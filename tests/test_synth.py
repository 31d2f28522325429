"Integration tests of data synthesis (nbs/10_synth): filters, composer, decontamination, re-check, workers and `cawb synth`."
import json
from pathlib import Path
import pandas as pd
import pytest
import torch
from conftest import run_cawb
from cuda_agent_wb.tasks import task_from_source, load_ops6k, describe_task, load_module, build_model, make_inputs, run_eager
from cuda_agent_wb.synth import (STAGES, DYNAMIC_STAGES, FilterConfig, SynthConfig, Candidate, Composer, StaticGate,
                                 WorkerPool, check_dynamic, crawl_seed_ops, load_catalogue, synthesize, recheck, LLMComposer)

NO_COMPILE = FilterConfig(stages=STAGES[:-1])


def program(forward, init='torch.randn(N, D)', ctor='', params='', presets=True):
    "A small KernelBench-format task with a cpu/gpu preset."
    return f'''import torch
import torch.nn as nn
import torch.nn.functional as F
import random
N, D = 16, 32
{'PRESETS = {"cpu": dict(N=16, D=32), "gpu": dict(N=1024, D=1024)}' if presets else ''}
class Model(nn.Module):
    def __init__(self{params}):
        super().__init__()
        {ctor or 'pass'}
    def forward(self, x):
        {forward}
def get_inputs():
    return [{init}]
def get_init_inputs():
    return [{params.strip(', ')}]
'''


GOOD = program('return torch.tanh(self.fc(x))', ctor='self.fc = nn.Linear(D, D)', params=', D')


def stages_of(src, fc):
    res = check_dynamic(task_from_source(src, 't'), fc)
    return {s['stage']: s for s in res['stages']}, res


# ---------------------------------------------------------------------------------------------- every filter: pass / fail
FAILS = {
    'runs_eager': program('return torch.log(x - 10)'),                        # NaN output
    'deterministic': program('return F.dropout(x, 0.5, training=True)'),      # a stochastic op
    'not_constant': program('return torch.softmax(x, -1).sum(-1, keepdim=True)'),
    'degenerate': program('return x + 1e-3 * torch.tanh(x)'),                 # the input itself passes the tolerance
    'input_sensitive': program('return x.tanh()', init='torch.linspace(-2, 2, N * D).reshape(N, D)'),  # fixed inputs
    'weight_sensitive': program('return x.tanh() + 0 * self.w.sum()', ctor='self.w = nn.Parameter(torch.randn(D))'),
}


@pytest.mark.parametrize('stage', list(FAILS))
def test_dynamic_stage_fails_its_task_and_passes_a_good_one(stage):
    fc = FilterConfig(stages=DYNAMIC_STAGES[:-1], cpu_window_ms=(1e-4, 100))
    good, _ = stages_of(GOOD, fc)
    assert good[stage]['status'] == 'pass', good[stage]
    bad, _ = stages_of(FAILS[stage], fc)
    assert bad[stage]['status'] == 'fail' and bad[stage]['reason'], bad
    assert all(s['status'] != 'fail' for k, s in bad.items() if k != stage), bad   # it fails exactly that stage


def test_deterministic_catches_hidden_randomness():
    "Python-side randomness is not a torch op: the static scan misses it, the second call does not."
    bad, _ = stages_of(program('return x * random.random()'), FilterConfig(stages=('runs_eager', 'deterministic')))
    assert bad['deterministic']['status'] == 'fail' and 'identical calls' in bad['deterministic']['reason']


def test_workload_window():
    fc = lambda lo, hi: FilterConfig(stages=('runs_eager', 'workload'), cpu_window_ms=(lo, hi))
    inside, res = stages_of(GOOD, fc(1e-4, 1000))
    assert inside['workload']['status'] == 'pass' and res['metrics']['eager_ms'] > 0
    too_slow, _ = stages_of(GOOD, fc(1e-4, 1e-5))
    assert too_slow['workload']['status'] == 'fail' and 'outside' in too_slow['workload']['reason']
    unsized, _ = stages_of(program('return x.tanh()', presets=False), fc(1e-4, 1e-5))
    assert unsized['workload']['status'] == 'skip'      # sized for a GPU: not held to the CPU window


def test_compile_stage_pass_and_fail():
    fc = FilterConfig(stages=('runs_eager', 'runs_compile'))
    good, res = stages_of(GOOD, fc)
    assert good['runs_compile']['status'] == 'pass' and res['metrics']['compile_ms'] > 0, good
    # a forward that computes something else once compiled: the stage compares against eager
    diverges = program('return x.tanh() + (1.0 if torch.compiler.is_compiling() else 0.0)')
    bad, _ = stages_of(diverges, fc)
    assert bad['runs_compile']['status'] == 'fail' and 'differs from eager' in bad['runs_compile']['reason'], bad
    # an op without a working shape (fake) kernel runs eagerly but cannot be compiled
    no_fake = program('return twice(x).tanh()').replace('class Model', """@torch.library.custom_op("cawbtest::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor: return x * 2
@twice.register_fake
def _(x): raise RuntimeError("no shape function")
class Model""")
    bad, _ = stages_of(no_fake, fc)
    assert bad['runs_eager']['status'] == 'pass' and bad['runs_compile']['status'] == 'fail', bad
    assert 'fake tensor' in bad['runs_compile']['reason'], bad


# ------------------------------------------------------------------------------------------------------- static stages
def cand(i, code, ops=('nn.Linear',)): return Candidate(i, code, list(ops), f'torch#{len(ops)}', seed=0)


def test_parse_and_dedup():
    gate = StaticGate(NO_COMPILE)
    assert gate.check(cand(0, 'class Model(:'))['stages'][-1]['status'] == 'fail'
    assert gate.check(cand(1, GOOD))['stages'][-1]['stage'] == 'decontam'
    # the same computation spelled differently, at other sizes, is a near-duplicate
    respelled = GOOD.replace('torch.tanh(self.fc(x))', 'F.tanh(self.fc(x))').replace('N, D = 16, 32', 'N, D = 64, 128')
    rec = gate.check(cand(2, respelled))
    assert rec['stages'][-1] == dict(stage='dedup', status='fail', reason='near-duplicate of synth/s0/00001')
    assert gate.check(cand(3, GOOD.replace('torch.tanh', 'torch.sigmoid')))['stages'][1]['status'] == 'pass'


def test_decontamination_against_a_kernelbench_folder(tmp_path):
    lv = tmp_path / 'KernelBench' / 'level2'; lv.mkdir(parents=True)
    (lv / '7_Gemm_Tanh.py').write_text(
        "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def __init__(self, i, o):\n"
        "        super().__init__()\n        self.gemm = nn.Linear(i, o)\n    def forward(self, x):\n"
        "        return torch.tanh(self.gemm(x))\ndef get_inputs(): return [torch.randn(8, 8)]\ndef get_init_inputs(): return [8, 8]\n")
    gate = StaticGate(FilterConfig(kernelbench=str(tmp_path)))
    hit = gate.check(cand(0, GOOD))['stages'][-1]
    assert hit['stage'] == 'decontam' and hit['status'] == 'fail' and 'L2/7_Gemm_Tanh' in hit['reason'], hit
    other = gate.check(cand(1, GOOD.replace('torch.tanh(self.fc(x))', 'torch.softmax(self.fc(x), -1).cumsum(-1)')))['stages'][-1]
    assert other['status'] == 'pass' and other['similarity'] < 0.9
    loose = StaticGate(FilterConfig(kernelbench=str(tmp_path), decontam_threshold=0.99))
    assert loose.check(cand(0, GOOD))['stages'][-1]['status'] == 'fail'   # identical computation: similarity 1.0


# ---------------------------------------------------------------------------------------------- catalogue and composer
def test_crawl_classifies_and_excludes():
    cat = crawl_seed_ops(transformers=False, only=r'^(nn\.(Conv2d|Dropout|GroupNorm|MSELoss)|torch\.(abs|absolute|argmax|log))$', progress=False)
    ops = {o.name: o for o in cat.ops}
    assert set(ops) == {'nn.Conv2d', 'nn.GroupNorm', 'torch.abs'}
    assert ops['nn.Conv2d'].ranks == [4] and ops['nn.GroupNorm'].args[0][1].startswith('divisor')
    why = {e['name']: e['category'] for e in cat.excluded}
    assert why == {'nn.Dropout': 'stochastic', 'nn.MSELoss': 'tensor argument', 'torch.absolute': 'alias',
                   'torch.argmax': 'non-float output', 'torch.log': 'non-finite'}


def test_persisted_catalogue():
    cat = load_catalogue()
    assert len(cat.ops) > 150 and {'nn.Conv2d', 'nn.Linear', 'F.gelu', 'torch.sum'} <= {o.name for o in cat.ops}
    assert any(o.source == 'transformers' for o in cat.ops)
    assert all(o.ranks and o.family for o in cat.ops)
    assert {e['category'] for e in cat.excluded} >= {'stochastic', 'alias', 'tensor argument'}
    assert (Path(__file__).parents[1] / 'data/seed_ops/README.md').read_text().count('###') > 5


def run_at_cpu(code):
    t = task_from_source(code, 't')
    m = load_module(t, 'cpu')
    return t, run_eager(t, build_model(t, m), make_inputs(t, m, 0))


def test_composer_distribution_presets_and_shapes():
    comp = Composer(load_catalogue(), seed=5, op_counts={3: 1.0})
    for i in range(6):
        c = comp.candidate(i)
        assert c.error is None and len(c.ops) == 3 and c.data_source == 'torch#3'
        t, y = run_at_cpu(c.code)
        assert set(t.presets) == {'cpu', 'gpu'}
        assert list(y.shape) == c.shapes['cpu']['output']        # shape inference on meta matches the real run
        assert c.shapes['gpu']['inputs'][0] != c.shapes['cpu']['inputs'][0]


def test_composer_transformers_modules():
    comp = Composer(load_catalogue(), seed=2, transformers_share=1.0, op_counts={2: 1.0})
    c = comp.candidate(0)
    assert c.data_source == 'transformers#2' and any(o.startswith('transformers.') for o in c.ops), c.ops
    assert 'from transformers' in c.code
    run_at_cpu(c.code)


class FakePolicy:
    "The policy interface (act(messages, tools) -> .text) with canned answers."
    def __init__(self, answers): self.answers, self.prompts = list(answers), []
    def act(self, messages, tools):
        self.prompts.append(messages[-1]['content'])
        a = self.answers.pop(0)
        if isinstance(a, Exception): raise a
        return type('Out', (), {'text': a})()


def test_llm_composer_through_the_policy_interface():
    base = Composer(load_catalogue(), seed=0)
    pol = FakePolicy([f"```python\n{GOOD}```", "I cannot do that.", ConnectionError('server down')])
    llm = LLMComposer(pol, base)
    ok, garbage, down = (llm.candidate(i) for i in range(3))
    assert ok.composer == 'llm' and ok.code.strip() == GOOD.strip() and ok.ops == base.candidate(0).ops
    assert ' -> '.join(base.candidate(0).ops) in pol.prompts[0]
    gate = StaticGate(NO_COMPILE)
    assert gate.check(ok)['stages'][0]['status'] == 'pass'
    assert gate.check(garbage)['stages'][0]['status'] == 'fail'
    assert gate.check(down)['stages'][0] == dict(stage='parse', status='fail', reason='policy: ConnectionError: server down')


def test_llm_composer_in_synthesize(tmp_path):
    run = synthesize(SynthConfig(n=1, seed=0, out_dir=str(tmp_path), workers=0, composer='llm', max_candidates=3),
                     FilterConfig(stages=STAGES[:-1], cpu_window_ms=(1e-4, 100)),
                     policy=FakePolicy([f"```python\n{GOOD}```"] * 3), progress=False)
    df = pd.read_parquet(run.files['dataset'])
    assert list(df.composer) == ['llm'] and df.code[0].strip() == GOOD.strip()


# -------------------------------------------------------------------------------------------------------- pipeline
def test_same_seed_same_dataset(tmp_path):
    "Every stage but the timed ones (whose outcome can flip at a window's edge on a busy machine) decides the same way."
    fc = FilterConfig(stages=tuple(s for s in STAGES if s not in ('workload', 'runs_compile')))
    runs = [synthesize(SynthConfig(n=3, seed=s, out_dir=str(tmp_path / f"{k}"), workers=0), fc, progress=False)
            for k, s in enumerate((11, 11, 12))]
    codes = [list(pd.read_parquet(r.files['dataset']).code) for r in runs]
    assert len(codes[0]) == 3 and codes[0] == codes[1] and codes[0] != codes[2]


def test_recheck_an_ops6k_format_file(tmp_path):
    dup = GOOD.replace('torch.tanh(self.fc(x))', 'F.tanh(self.fc(x))')
    rows = [dict(ops="['nn.Linear', 'torch.tanh']", data_source='torch#2', code=GOOD),
            dict(ops="['nn.Linear', 'torch.tanh']", data_source='torch#2', code=dup),                       # duplicate
            dict(ops="['nn.Conv2d']", data_source='torch#1', code='class Model(:'),                         # broken
            dict(ops="['torch.tanh']", data_source='torch#1', code=FAILS['input_sensitive']),              # fixed inputs
            dict(ops="['F.dropout']", data_source='torch#1', code=FAILS['deterministic']),                  # stochastic
            dict(ops="['torch.log']", data_source='torch#1', code=FAILS['runs_eager'])]                     # NaN
    pd.DataFrame(rows).to_parquet(tmp_path / 'ops.parquet')
    run = recheck(tmp_path / 'ops.parquet', tmp_path / 'out', FilterConfig(stages=STAGES[:-1], cpu_window_ms=(1e-4, 100)), workers=0, progress=False)
    last = [(r['stages'][-1]['stage'], r['stages'][-1]['status']) for r in run.records]
    assert last == [('workload', 'pass'), ('dedup', 'fail'), ('parse', 'fail'), ('input_sensitive', 'fail'),
                    ('deterministic', 'fail'), ('runs_eager', 'fail')]
    fun = {f['stage']: f for f in json.loads((tmp_path / 'out' / 'funnel.json').read_text())}
    assert (fun['parse']['entered'], fun['parse']['failed'], fun['dedup']['failed'], fun['workload']['remaining']) == (6, 1, 1, 1)
    assert len(pd.read_parquet(tmp_path / 'out' / 'passed.parquet')) == 1
    assert (tmp_path / 'out' / 'report.html').stat().st_size > 10_000


def test_recheck_bad_file(tmp_path):
    pd.DataFrame([dict(ops='[]', code='x')]).to_json(tmp_path / 'x.jsonl', orient='records', lines=True)
    with pytest.raises(ValueError, match=r"x.jsonl: missing column\(s\) data_source"): recheck(tmp_path / 'x.jsonl', tmp_path / 'o', NO_COMPILE, workers=0)
    r = run_cawb('synth-recheck', tmp_path / 'nope.parquet', '--out', tmp_path / 'o')
    assert r.returncode == 2 and r.stderr.strip().endswith('nope.parquet: no parquet or jsonl file here') and 'Traceback' not in r.stderr


def test_worker_pool_survives_crashes_and_hangs():
    crash = task_from_source(program('import os; os._exit(3)'), 'crash')
    hang = task_from_source(program('import time; time.sleep(60); return x'), 'hang')
    good = task_from_source(GOOD, 'good')
    pool = WorkerPool(FilterConfig(stages=('runs_eager',)), ['cpu'], timeout_s=5)
    try: res = dict(pool.run([('crash', crash), ('hang', hang), ('good', good)]))
    finally: pool.close()
    assert res['crash']['stages'][-1]['reason'] == 'worker crashed (exit code 3)'
    assert res['hang']['stages'][-1]['reason'] == 'timed out after 5 s'
    assert res['good']['stages'][-1]['status'] == 'pass'


def test_run_alone_in_its_own_worker():
    "Tasks re-checked alone (after running out of memory on a shared GPU) go through a worker: a crash costs only it."
    from cuda_agent_wb.synth import Checker
    crash = task_from_source(program('import os; os._exit(3)'), 'crash')
    good = task_from_source(GOOD, 'good')
    with Checker(FilterConfig(stages=('runs_eager',)), workers=2, timeout_s=30, progress=False) as ck:
        res = dict(ck.run_alone([('crash', crash), ('good', good)]))
        assert ck.solo is not None and ck.pool is None and len(ck.solo.procs) == 1
    assert res['crash']['stages'][-1]['reason'] == 'worker crashed (exit code 3)'
    assert res['good']['stages'][-1]['status'] == 'pass'
    assert not any(p.is_alive() for p in ck.solo.procs)


def test_cawb_synth_end_to_end(tmp_path):
    "The CLI with a worker process and the compile stage: a dataset whose rows load as tasks and run."
    r = run_cawb('synth', '--n', 2, '--backend', 'cpu', '--seed', 3, '--out', tmp_path, '--workers', 1)
    assert r.returncode == 0, r.stderr
    assert 'runs_compile' in r.stdout and 'accepted of' in r.stdout
    df = pd.read_parquet(tmp_path / 'dataset.parquet')
    assert list(df.columns[:3]) == ['ops', 'data_source', 'code'] and len(df) == 2
    assert df.compile_ms.notna().all() and df.eager_ms.notna().all()
    tasks, errors = load_ops6k(tmp_path / 'dataset.parquet')
    assert not errors and len(tasks) == 2
    for t in tasks: assert describe_task(t, 'cpu')['eager_ms'] > 0
    assert {f['stage'] for f in json.loads((tmp_path / 'funnel.json').read_text())} == set(STAGES)
    # a rerun resumes: every dynamic check comes from checks.jsonl
    r2 = run_cawb('synth', '--n', 2, '--backend', 'cpu', '--seed', 3, '--out', tmp_path, '--workers', 1)
    assert r2.returncode == 0 and list(pd.read_parquet(tmp_path / 'dataset.parquet').code) == list(df.code)
    assert 'filters' not in r2.stderr   # nothing left to check, so no worker started
