"""The evaluator against valid and adversarial CPU solutions (tests/solutions/cpu/*, each with an ABOUT saying what
it tries). Each adversarial solution must be rejected with reward -1 and the named flag."""
import json, os, time
from pathlib import Path
import pytest
from conftest import ROOT, run_cawb
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator
from cuda_agent_wb.verify import REVIEW_FLAGS

SOL = ROOT / 'tests/solutions/cpu'
TASK = {'relu': ROOT / 'data/tasks/relu.py', 'linear_relu': ROOT / 'data/tasks/linear_relu.py',
        'small_mean': ROOT / 'tests/tasks/small_mean.py', 'tiny_scale': ROOT / 'tests/tasks/tiny_scale.py',
        'softmax': ROOT / 'data/tasks/softmax.py'}


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cpu')
    yield e
    e.close()


def task_of(name):
    return load_task(TASK[next(k for k in sorted(TASK, key=len, reverse=True) if name.startswith(k))])


# solution -> flags of which at least one must be raised (verification stages only)
REJECT = {
    'relu_torch_python': {'forbidden_op'},
    'relu_uninitialized': {'nan_inf'},
    'relu_fmax_uninitialized': {'incorrect_output', 'nan_inf'},     # right only while fresh memory holds NaN
    'softmax_fixed_dim': {'shape_specific'},
    'relu_empty_like': {'nan_inf', 'incorrect_output'},
    'relu_inplace': {'input_mutated'},
    # returns zeros, written 30 ms later by a detached thread: wrong as returned (copied at return), and which late-write
    # flag comes too depends on where the write lands (one trial's thread watch, freed memory: a crash)
    'relu_thread': {'unsynchronized_output', 'background_thread', 'crashed', 'incorrect_output', 'runtime_error'},
    'relu_py_thread': {'unsynchronized_output', 'background_thread'},
    'relu_patch_timer': {'harness_tampered'},
    'relu_swap_code': {'harness_tampered'},
    'relu_patch_detach': {'harness_tampered'},
    'relu_patch_randn': {'harness_tampered'},     # torch.randn that computes the output of every input it draws    # torch.Tensor.detach that computes the output the harness copies       # Timer.time_once keeps its identity, with another __code__
    'relu_patch_compare': {'incorrect_output'},
    'relu_gc_reference': {'forbidden_op'},
    'relu_hardcoded': {'incorrect_output'},
    'relu_nondeterministic': {'nondeterministic'},
    'relu_exit': {'crashed'},
    'relu_compile_error': {'compile_error'},
    'relu_wrong_shape': {'shape_mismatch'},
    'relu_subclass': {'output_structure'},
    'small_mean_zeros': {'near_constant_output', 'degenerate_output'},
    'tiny_scale_zeros': {'degenerate_output'},
    'linear_relu_bf16': {'precision_downgrade'},
    'linear_relu_seed_cache': {'state_dict_mismatch'},
}


@pytest.mark.parametrize('name', sorted(REJECT))
def test_adversarial_rejected(ev, name):
    r = ev.evaluate(task_of(name), SOL / name, stages=('compile', 'verify'))
    assert r.correct is False and r.reward == -1, r.to_dict()
    assert set(r.flags) & REJECT[name], (name, r.flags, r.error)
    assert r.error


@pytest.mark.parametrize('name', ['relu_valid', 'linear_relu_valid', 'relu_write_evaluator', 'tiny_scale_valid'])
def test_valid_accepted(ev, name):
    r = ev.evaluate(task_of(name), SOL / name, stages=('compile', 'verify'))
    assert r.correct and r.reward >= 1 and not r.flags, r.to_dict()
    assert r.weights == 'state_dict' and r.rules == 'cuda-agent'


@pytest.mark.parametrize('name', ['linear_relu_renamed', 'linear_relu_folded'])
def test_renamed_or_folded_parameters_verified_under_seeds(ev, name):
    "Parameters that do not load the reference's state_dict: both models built under the same init seeds (two of them)."
    r = ev.evaluate(task_of(name), SOL / name, stages=('compile', 'verify'))
    assert r.correct and r.reward >= 1 and not r.flags and r.weights == 'seeded', r.to_dict()


def test_rule_sets(ev):
    "Torch compute in forward: forbidden under cuda-agent rules, allowed under kernelbench rules (other checks on)."
    t, sol = task_of('relu'), SOL / 'relu_torch_python'
    ca = ev.evaluate(t, sol, stages=('compile', 'verify'))
    assert ca.reward == -1 and 'forbidden_op' in ca.flags and ca.rules == 'cuda-agent', ca.to_dict()
    kb = ev.evaluate(t, sol, stages=('compile', 'verify'), rules='kernelbench')
    assert kb.correct and kb.reward >= 1 and not kb.flags and kb.rules == 'kernelbench', kb.to_dict()
    bad = ev.evaluate(t, SOL / 'relu_inplace', stages=('compile', 'verify'), rules='kernelbench')
    assert bad.reward == -1 and 'input_mutated' in bad.flags, bad.to_dict()
    with pytest.raises(ValueError, match='unknown rule set'): ev.evaluate(t, sol, rules='kb')


def test_write_attempt_changed_nothing(ev):
    import cuda_agent_wb.verify as v
    before = Path(v.__file__).read_text()
    ev.evaluate(task_of('relu'), SOL / 'relu_write_evaluator', stages=('compile', 'verify'))
    assert Path(v.__file__).read_text() == before


def fatal(r) -> list:
    "The flags that fail a result (review flags such as timing_disturbed come and go with the machine's load)."
    return [f for f in r.flags if f not in REVIEW_FLAGS]


def test_pointer_cache_caught_when_timed(ev):
    "relu_pointer_cache behaves for its first 8 calls, then caches by input pointer: the pool's sets get new values every round, so its cached answers are stale."
    r = ev.evaluate(task_of('relu'), SOL / 'relu_pointer_cache')
    assert r.reward == -1 and fatal(r) == ['timed_output_mismatch'], r.to_dict()


def test_work_deferred_past_the_reply_is_caught(ev):
    "relu_defer_in_bursts is honest in verification and, in a burst (a timed block, found by its caller frame), fills its outputs from a thread after the burst: the reply's checksum is not its output's, and the thread's CPU time falls outside the blocks."
    r = ev.evaluate(task_of('relu'), SOL / 'relu_defer_in_bursts')
    assert r.reward == -1 and set(fatal(r)) & {'unsynchronized_output', 'work_outside_timing', 'timed_output_mismatch'}, r.to_dict()


# Exploits of the old in-process clock: each rebinds, reads or rewrites something of the harness's timing loop inside
# its own process (see each ABOUT). The evaluator's clock reads none of it (nbs/06b_clock): each is rejected with a
# flag, or correct and timed at its real speed — never rewarded above 1. The timing-dependent speedup is not asserted.
OLD_CLOCK_EXPLOITS = ['relu_peek_keep', 'relu_fixed_draws', 'relu_lazy_timed', 'relu_lazy_reset', 'relu_kept_rewrite', 'relu_gc_mend',
                      'relu_gc_decoy', 'relu_frame_clock', 'relu_rewrite_times', 'relu_perf_swap', 'relu_told_swap', 'relu_profile_hook',
                      'relu_patch_randn_restore', 'relu_instance_timer']


@pytest.mark.parametrize('sol', OLD_CLOCK_EXPLOITS)
def test_exploits_of_the_old_clock_gain_nothing(ev, sol):
    r = ev.evaluate(task_of('relu'), SOL / sol)
    assert (r.reward == -1 and fatal(r)) or (r.correct and r.reward <= 1 and not fatal(r)), r.to_dict()
    if r.correct: assert r.timings['method'].startswith('evaluator-clock') and r.timings['clock']['rounds'] >= 10, r.timings


def test_allowed_ops_widened_in_the_candidate_process_still_forbidden(ev):
    "relu_allow_ops adds relu to the harness's ALLOWED_OPS in its own process (the op tracer there sees nothing); the evaluator reads the kernel table with its own set."
    r = ev.evaluate(task_of('relu'), SOL / 'relu_allow_ops')
    assert r.reward == -1 and 'forbidden_op' in r.flags, r.to_dict()
    assert r.flag_details['forbidden_op'].startswith('torch kernels in timed calls: '), r.flag_details


def test_lower_precision_while_timed_gains_nothing(ev):
    "linear_relu_bf16_timed rounded its GEMM to bfloat16 in the calls it found the old timing loop's frames in: there are none now, so it is verified and timed in float32 alike."
    r = ev.evaluate(task_of('linear_relu'), SOL / 'linear_relu_bf16_timed')
    assert (r.reward == -1 and 'precision_downgrade' in r.flags) or (r.correct and r.reward <= 1), r.to_dict()


def test_timed_result_has_the_clock_record(ev):
    "A timed result: paired speedups with intervals, times per call from the evaluator's clock, the rounds' record, and the reward judged on the interval."
    r = ev.evaluate(task_of('relu'), SOL / 'relu_valid')
    assert r.correct and not fatal(r), r.to_dict()
    t = r.timings
    for k in ('speedup_vs_eager', 'speedup_vs_compile'):
        assert t[k]['ci_low'] <= t[k]['median'] <= t[k]['ci_high'] and t[k]['n'] >= 10, t[k]
    assert r.speedup_vs_eager == t['speedup_vs_eager']['median'] and t['candidate']['median'] > 0 and t['eager']['median'] > 0
    c = t['clock']
    assert c['k'] >= 1 and c['sets'] >= c['k'] and c['kept_rounds'] >= 10 and set(c['outside_ms']) == {'candidate', 'reference'}, c
    from cuda_agent_wb.reward import milestone_reward
    assert r.reward == milestone_reward(True, t['speedup_vs_eager']['ci_low'], t['speedup_vs_compile']['ci_low'])


def test_survives_segfault_and_hang_then_accepts(ev):
    r1 = ev.evaluate(task_of('relu'), SOL / 'relu_segfault', stages=('compile', 'verify'))
    assert r1.flags == ['crashed'] and 'SIGSEGV' in r1.error, r1.to_dict()
    r2 = ev.evaluate(task_of('relu'), SOL / 'relu_hang', stages=('compile', 'verify'))
    assert r2.flags == ['timeout'], r2.to_dict()
    # the verify phase is limited by the reference's eager time (floor 10 s), not the 180 s run limit: the error names the limit that fired
    assert 'verify limit' in r2.error, r2.error
    r3 = ev.evaluate(task_of('relu'), SOL / 'relu_valid', stages=('compile', 'verify'))
    assert r3.correct and r3.reward >= 1


def test_single_file_load_inline(ev):
    ok = ev.evaluate(task_of('relu'), SOL / 'relu_inline_valid.py', stages=('compile', 'verify'))
    assert ok.correct and ok.reward >= 1, ok.to_dict()
    bad = ev.evaluate(task_of('relu'), SOL / 'relu_inline_torch.py', stages=('compile', 'verify'))
    assert bad.reward == -1 and 'forbidden_op' in bad.flags and 'relu' in bad.flag_details['forbidden_op'], bad.to_dict()


def test_single_file_failed_build_ahead_runs_as_written(ev):
    "A failed load_inline build ahead is recorded, not a verdict: the file's own fallback runs; without one, compile_error with the compiler's errors."
    t = task_of('relu')
    bad = ev.evaluate(t, SOL / 'relu_inline_build_error.py', stages=('compile', 'verify'))
    assert bad.flags == ['compile_error'] and ': error:' in bad.error and 'relu_forward' in bad.error, bad.to_dict()
    assert bad.build_ahead['ok'] is False and ': error:' in bad.build_ahead['error'] and 'error:' in bad.compile_log
    fb = ev.evaluate(t, SOL / 'relu_inline_fallback.py', stages=('compile', 'verify'))
    assert fb.flags == ['forbidden_op'] and fb.compiled and fb.build_ahead['ok'] is False, fb.to_dict()
    assert ': error:' in fb.build_ahead['error']


def test_decoy_kernel_under_kernelbench_rules(ev):
    "Kernelbench rules: a compiled kernel that torch.relu stands in for is no_custom_kernel; the kernel that does the work is not."
    t = task_of('relu')
    decoy = ev.evaluate(t, SOL / 'relu_inline_decoy.py', rules='kernelbench')
    assert decoy.reward == -1 and 'no_custom_kernel' in decoy.flags and decoy.custom_kernel_share == 0.0, decoy.to_dict()
    ok = ev.evaluate(t, SOL / 'relu_inline_valid.py', rules='kernelbench')
    assert ok.correct and 'no_custom_kernel' not in ok.flags and ok.custom_kernel_share > 0.5, ok.to_dict()


def test_tasks_audit_lists_degenerate_tasks(tmp_path):
    "cawb tasks audit: the near-zero test tasks are degenerate_output (zeros and a constant pass atol), and so is copy_1k (its output is its input: bench/timing_fair.py's null task); relu is not."
    r = run_cawb('tasks', 'audit', ROOT / 'tests/tasks', '--out', tmp_path / 'audit.json')
    assert r.returncode == 0, r.stderr
    rep = json.loads((tmp_path / 'audit.json').read_text())
    assert set(rep['degenerate']) == {'small_mean', 'tiny_scale', 'copy_1k'} and rep['summary']['error'] == 0, rep['summary']
    assert 'tiny_scale: degenerate_output (output 0: zeros; output 0: constant)' in r.stdout
    assert next(t for t in rep['tasks'] if t['id'] == 'relu_2us')['status'] == 'ok'


def test_cli_evaluate_json_valid():
    r = run_cawb('evaluate', TASK['relu'], SOL / 'relu_valid', '--backend', 'cpu', '--json')
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    for k in ('compiled', 'correct', 'reward', 'speedup_vs_eager', 'speedup_vs_compile', 'flags', 'error', 'timings', 'env'):
        assert k in res, k
    assert res['compiled'] and res['correct'] and res['reward'] >= 1 and res['error'] is None
    assert res['speedup_vs_eager'] > 0 and res['speedup_vs_compile'] > 0
    assert res['env']['precision']['allow_tf32'] is False
    assert res['timings']['candidate']['n'] >= 5


def test_cli_evaluate_json_rejected_and_usage_errors(tmp_path):
    r = run_cawb('evaluate', TASK['relu'], SOL / 'relu_torch_python', '--backend', 'cpu', '--json', '--stages', 'compile,verify')
    assert r.returncode == 3, r.stderr                  # rejected (issue 49: 0 accepted, 3 rejected, 1 not evaluated)
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res['correct'] is False and res['reward'] == -1 and 'forbidden_op' in res['flags']
    r = run_cawb('evaluate', TASK['relu'], tmp_path / 'missing', '--json')
    assert r.returncode == 2 and 'no such solution' in r.stderr
    r = run_cawb('evaluate', TASK['relu'], SOL / 'relu_valid', '--backend', 'tpu')
    assert r.returncode == 2 and "unknown backend 'tpu'" in r.stderr


def test_code_under_tmp_stays_visible_to_candidates():
    "A checkout under /tmp (a CI clone, a scratch copy) is still importable in the candidate's fresh /tmp."
    import shutil, subprocess, sys, tempfile
    d = Path(tempfile.mkdtemp(prefix='cawb-copy-', dir='/tmp'))
    try:
        shutil.copytree(ROOT / 'cuda_agent_wb', d / 'cuda_agent_wb', ignore=shutil.ignore_patterns('__pycache__'))
        for f in ('settings.ini', 'pyproject.toml', 'data/tasks/relu.py'): (d / f).parent.mkdir(parents=True, exist_ok=True); shutil.copy(ROOT / f, d / f)
        shutil.copytree(SOL / 'relu_valid', d / 'relu_valid')
        code = ("import cuda_agent_wb, json; from cuda_agent_wb.reward import Evaluator; from cuda_agent_wb.tasks import load_task\n"
                "ev = Evaluator('cpu'); r = ev.evaluate(load_task('data/tasks/relu.py'), 'relu_valid', stages=('compile', 'verify')); ev.close()\n"
                "print(json.dumps([cuda_agent_wb.__file__, r.correct, r.error]))")
        p = subprocess.run([sys.executable, '-c', code], cwd=d, env={**os.environ, 'PYTHONPATH': str(d)}, capture_output=True, text=True, timeout=600)
        where, correct, error = json.loads(p.stdout.strip().splitlines()[-1])
        assert where.startswith(str(d)) and correct, (where, error, p.stderr[-2000:])
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_tmp_restore_failure_gives_back_the_old_tmp():
    "If re-binding the old /tmp's folders fails, the child gets the old /tmp back (and says fs: shared) instead of losing its code."
    import subprocess, sys, textwrap
    code = textwrap.dedent("""
        import os, tempfile
        from pathlib import Path
        import cuda_agent_wb.sandbox as sb
        d = tempfile.mkdtemp(); Path(d, 'x').write_text('kept')
        for fail in (False, True):
            pid = os.fork()
            if pid == 0:
                if fail:
                    def boom(*a): raise OSError(1, 'refused')
                    sb._restore_tmp = boom
                got = sb.isolate([], [d])
                try: seen = Path(d, 'x').read_text()
                except OSError: seen = 'hidden'
                print(fail, got['fs'].split(' ')[0], seen, flush=True); os._exit(0)
            os.waitpid(pid, 0)
        """)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120).stdout.split('\n')
    if 'shared' in out[0]: pytest.skip('no mount namespace here')
    assert out[:2] == ['False read-only kept', 'True shared kept'], out


def test_cuda_agent_layout_workdir(ev, tmp_path):
    "CUDA Agent's released workdir layout (binding.cpp + binding_registry.h, import cuda_extension), .cpp kernels on the CPU."
    from cuda_agent_wb.workdir import load_solution, make_workdir
    sol = SOL / 'relu_cuda_agent_layout'
    assert load_solution(sol).layout == 'cuda-agent'
    r = ev.evaluate(task_of('relu'), sol)
    assert r.correct and r.reward >= 1 and not [f for f in r.flags if f not in REVIEW_FLAGS], r.to_dict()
    assert r.compiled and r.breakdown['compile_files'], r.breakdown     # built ahead (or found built) by the build step, not in the sandbox
    d = make_workdir(task_of('relu'), tmp_path / 'w', 'cpu', layout='cuda-agent')   # the agent's workdir, same layout
    assert (d / 'binding.cpp').is_file() and (d / 'binding_registry.h').is_file()
    for f in ('model_new.py', 'kernels/relu.cpp', 'kernels/relu_binding.cpp'):
        (d / f).parent.mkdir(exist_ok=True); (d / f).write_text((sol / f).read_text())
    assert load_solution(d).layout == 'cuda-agent'
    r2 = ev.evaluate(task_of('relu'), d, stages=('compile', 'verify'))
    assert r2.correct and not r2.flags, r2.to_dict()


def test_candidate_cannot_see_the_shared_dev_shm(ev):
    "Large messages (the reference's outputs among them) pass through /dev/shm: a candidate's view of it is its own box only."
    import secrets
    from cuda_agent_wb.sandbox import Sandbox, SHM_DIR, SHM_PREFIX
    sbx = Sandbox(run_timeout=60, memory_mb=2048)
    try:
        s = sbx.start('cuda_agent_wb.sandbox:probe_job', {'code': 'result = 1'}); s.recv(); s.close()
    finally: sbx.close()
    if s.isolation.get('shm') != 'private': pytest.skip(f"no private /dev/shm here: {s.isolation}")
    marker = Path(SHM_DIR, f"{SHM_PREFIX}reference-standin-{secrets.token_hex(4)}.pt")
    marker.write_bytes(b'the answers')                # as the reference's outputs sit there until the evaluator reads them
    try: r = ev.evaluate(task_of('relu'), SOL / 'relu_peek_shm', stages=('compile', 'verify'))
    finally: marker.unlink()
    assert r.correct and r.reward >= 1 and not r.flags, r.to_dict()
