"""The evaluator's CUDA path (run on a GPU; skipped without CUDA). Set CAWB_GPU_RESULTS=path.json to keep every
result with the device and versions (the device run stores it in bench/results/)."""
import json, os
from pathlib import Path
import pytest
from conftest import ROOT
from cuda_agent_wb.tasks import load_task
from cuda_agent_wb.reward import Evaluator

pytestmark = pytest.mark.gpu
SOL = ROOT / 'tests/solutions/cuda'
RESULTS = []


def task(name): return load_task(ROOT / 'data/tasks' / f'{name}.py')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator('cuda')
    yield e
    e.close()
    out = os.environ.get('CAWB_GPU_RESULTS')
    if out: Path(out).write_text(json.dumps(RESULTS, indent=1, default=str))


def said(r) -> str:
    "What a failing assertion shows in full (pytest -q cuts a long dict short): reward, flags and why, error."
    return f"reward {r.reward}, correct {r.correct}, flags {r.flags}, details {r.flag_details}, error {r.error}"


def run(ev, task_name, sol, **kw):
    r = ev.evaluate(task(task_name), SOL / sol, **kw)
    RESULTS.append({'solution': sol, **r.to_dict()})
    return r


@pytest.mark.parametrize('task_name,sol', [('relu', 'relu_valid'), ('rmsnorm_silu_mul', 'rmsnorm_silu_mul_valid'),
                                          ('linear_relu', 'linear_relu_cublas')])
def test_cuda_solution_accepted_with_speedups(ev, task_name, sol):
    r = run(ev, task_name, sol)
    assert r.compiled and r.correct and r.reward >= 1, said(r)
    assert r.speedup_vs_eager > 0 and r.speedup_vs_compile > 0
    assert r.env['device_type'] == 'cuda' and r.env['precision']['allow_tf32'] is False


def test_cuda_group_timed_together(ev):
    "A task's candidates timed under one hold (`group_timing`): valid ones rewarded as alone, an invalid one failed, the baselines one record."
    from cuda_agent_wb import group_timing   # Evaluator.evaluate_group
    rs = ev.evaluate_group(task('relu'), [SOL / 'relu_valid', SOL / 'relu_uninitialized', SOL / 'relu_valid'])
    RESULTS.extend({'solution': s, 'group': True, **r.to_dict()} for s, r in zip(('relu_valid', 'relu_uninitialized', 'relu_valid'), rs))
    assert [r.correct for r in rs] == [True, False, True], [said(r) for r in rs]
    assert rs[0].reward >= 1 and rs[2].reward >= 1 and rs[1].reward == -1, [said(r) for r in rs]
    assert rs[0].timings['eager'] == rs[2].timings['eager'] and rs[0].timings['clock']['group'] == 2
    assert 0.5 < rs[0].speedup_vs_eager / rs[2].speedup_vs_eager < 2


@pytest.mark.parametrize('task_name,sol,flags', [
    ('relu', 'relu_illegal_address', {'runtime_error', 'crashed'}),
    ('relu', 'relu_torch_python', {'forbidden_op'}),
    ('relu', 'relu_uninitialized', {'nan_inf'}),
    ('relu', 'relu_fmax_uninitialized', {'incorrect_output', 'nan_inf'}),
    ('linear_relu', 'linear_relu_tf32', {'precision_downgrade'}),
])
def test_cuda_exploit_rejected(ev, task_name, sol, flags):
    r = run(ev, task_name, sol)
    assert r.reward == -1 and set(r.flags) & flags, said(r)


# Exploits of the old in-process clock and of the timed calls: against the evaluator's clock (nbs/06b_clock) each is
# rejected with a named flag, or correct and timed at its real speed: never rewarded above 1.
TIMED_EXPLOITS = ['relu_side_stream', 'relu_result_reuse', 'relu_peek_keep', 'relu_lazy_timed', 'relu_lazy_reset', 'relu_profile_hook',
                  'relu_patch_randn_restore', 'relu_instance_timer', 'relu_kept_rewrite', 'relu_gc_mend', 'relu_rewrite_times', 'relu_frame_clock']


@pytest.mark.parametrize('sol', TIMED_EXPLOITS)
def test_cuda_timed_exploit_gains_nothing(ev, sol):
    r = run(ev, 'relu', sol)
    assert r.reward == -1 and r.flags or r.correct and r.reward <= 1, said(r)


def test_flush_resets_persisting_l2():
    "A persisting-L2 carve-out and access-policy window set by a candidate are undone by the timer's flush."
    import ctypes, torch
    from cuda_agent_wb.profile import Timer, cudart
    rt, dev = cudart(), torch.cuda.current_device()
    limit = getattr(torch.cuda.get_device_properties(dev), 'persisting_l2_cache_max_size', 4 << 20)
    assert rt is not None and rt.cudaDeviceSetLimit(0x06, ctypes.c_size_t(limit)) == 0
    got = ctypes.c_size_t(0); rt.cudaDeviceGetLimit(ctypes.byref(got), 0x06)
    assert got.value > 0, 'this GPU offers no persisting L2'
    Timer('cuda').flush()
    rt.cudaDeviceGetLimit(ctypes.byref(got), 0x06)
    assert got.value == 0


def test_persisting_l2_window_timed_honestly(ev):
    "The persisting-L2 candidate on a task whose input fits in L2 is correct; its time is recorded (CAWB_GPU_RESULTS) beside the "
    "same kernel's without the window for a person to compare: the reset before each flush is what test_flush_resets_persisting_l2 checks."
    r = run_sized(ev, 'relu_2us', 'relu_l2_persist')
    assert r.correct and not [f for f in r.flags if f != 'suspicious_speedup'], said(r)


def test_infinite_loop_released_fast_and_evaluator_goes_on(ev):
    "A spin-forever kernel on a task of <= 1 ms is cut at a verify limit of at most 15 s (it scales with eager time), and the evaluator goes on."
    import re, time
    t0 = time.monotonic()
    r = run(ev, 'relu', 'relu_infinite_loop', stages=('compile', 'verify'))
    RESULTS[-1]['released_s'] = round(time.monotonic() - t0, 2)      # wall time, recorded for a person: it depends on the machine
    assert r.flags == ['timeout'] and 'verify limit' in r.error, said(r)
    limit = re.search(r'timed out after ([\d.e+-]+) s', r.error)
    assert limit and float(limit.group(1)) <= 15, said(r)              # the limit the evaluator set, not how fast this machine is
    assert run(ev, 'relu', 'relu_valid', stages=('compile', 'verify')).correct


SIZED = ['relu_2us', 'relu_20us', 'relu_2ms']
SIDE = ['relu_side_stream', 'relu_two_streams', 'relu_graph_side_stream']


def run_sized(ev, size, sol, **kw):
    r = ev.evaluate(load_task(ROOT / 'tests/tasks' / f'{size}.py'), SOL / sol, **kw)
    RESULTS.append({'solution': sol, 'task': size, **r.to_dict()})
    return r


@pytest.mark.parametrize('size', SIZED)
def test_every_stream_counts(ev, size):
    "Honest kernels of ~2 us, ~20 us and ~2 ms are timed near eager's time for the same work; side-stream, two-stream and "
    "graph-on-a-side-stream candidates never get a reward > 1 from work they did not pay for. (The 2 ms task moves 2 GB "
    "outputs through every check, so it runs the honest kernel and the plain side stream only.)"
    ok = run_sized(ev, size, 'relu_valid')
    assert ok.correct and ok.reward >= 1, said(ok)
    honest = ok.timings['candidate']['median']
    assert 0.3 < honest / ok.timings['eager']['median'] < 3, ok.timings
    if size != 'relu_2ms':
        g = run_sized(ev, size, 'relu_graph_replay')                # honest graph replay on the caller's stream
        assert g.correct and g.reward >= 1, said(g)
    for sol in (SIDE if size != 'relu_2ms' else SIDE[:1]):
        r = run_sized(ev, size, sol)
        assert r.reward <= 1, (sol, said(r))
        assert r.reward == -1 or r.timings['candidate']['median'] >= 0.5 * honest, (sol, r.timings, honest)


def test_single_file_side_stream_rejected(ev):
    "The exploit seen on an H100: a load_inline kernel on its own non-blocking stream (built ahead, outside the run)."
    for size in ('relu_2us', 'relu_20us'):
        r = run_sized(ev, size, 'relu_inline_side_stream.py')
        assert r.compiled and r.reward <= 1, said(r)
        assert r.reward == -1 and r.flags, said(r)


CA = ROOT / '.ext/CUDA-Agent/agent_workdir'


@pytest.mark.skipif(not CA.is_dir(), reason='CUDA Agent checkout not in .ext/ (fetch BytedTsinghua-SIA/CUDA-Agent)')
def test_cuda_agent_released_workdir(ev):
    "CUDA Agent's released agent_workdir (axpby) evaluates as released: compiled, correct, reward >= 1."
    r = ev.evaluate(load_task(CA / 'model.py'), CA)
    RESULTS.append({'solution': 'CUDA-Agent/agent_workdir', **r.to_dict()})
    assert r.compiled and r.correct and r.reward >= 1, said(r)


def test_bf16_task_on_the_gpu(ev):
    "A bf16 task (data/tasks_bf16) at the gpu preset: the reference in bf16 on the device, a CUDA kernel on the raw bits passes at tolerance_bf16, timed."
    r = ev.evaluate(load_task(ROOT/'data/tasks_bf16/relu_bf16.py'), SOL/'relu_bf16_valid')
    RESULTS.append({'solution': 'relu_bf16_valid', **r.to_dict()})
    assert r.correct and r.reward >= 1 and r.dtype == 'bf16', said(r)
    assert r.env['tolerance']['from'] == '[eval] tolerance_bf16' and r.speedup_vs_eager > 0


def test_large_cuda_output_copied_by_dma_into_its_message_file(tmp_path):
    "A large CUDA output reaches its /dev/shm file whole through the page-locked staging buffer (`copy_staged`), and travels as a file reference."
    import torch
    from cuda_agent_wb import sandbox
    sandbox._shm_out = str(tmp_path)
    x = torch.randn(3, 1 << 20, device='cuda')                      # 12 MiB
    c = sandbox.copy_for_message(x)
    path = sandbox._shm_tensors[id(c)][1]
    assert c.device.type == 'cpu' and torch.equal(c, x.cpu()) and os.path.getsize(path) == x.numel() * 4
    del c
    assert not os.path.exists(path)


def test_staged_copy_in_chunks_with_a_remainder(tmp_path, monkeypatch):
    "An output of several staging buffers and part of one (float64, odd length) arrives whole, and so does a bool one."
    import torch
    from cuda_agent_wb import sandbox
    monkeypatch.setattr(sandbox, 'STAGE_BYTES', 1 << 20); monkeypatch.setattr(sandbox, '_staging', None)
    sandbox._shm_out = str(tmp_path)
    for x in (torch.randn((5 << 17) + 3, dtype=torch.float64, device='cuda'), torch.randint(0, 2, (3 << 20,), device='cuda').bool()):
        c = sandbox.copy_for_message(x)
        assert c.dtype == x.dtype and torch.equal(c, x.cpu())
    assert sandbox._staging.numel() == 1 << 20 and sandbox._staging.is_pinned()


def _named(name: str) -> list[int]:
    "Live processes named `name` (a helper inside a PID namespace cannot tell its pid out here: it names itself)."
    out = []
    for p in filter(str.isdigit, os.listdir('/proc')):
        try:
            if open(f'/proc/{p}/comm').read().strip() == name and open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z': out.append(int(p))
        except OSError: pass
    return out


def test_cuda_detached_helper_gone_with_the_result(ev):
    "relu_orphan_gpu's import starts a helper in a new session holding a CUDA context and 512 MiB: gone when the result is returned."
    import signal
    from cuda_agent_wb.candidate import _torch_ext_dir
    probe = ev.sandbox.start('cuda_agent_wb.sandbox:probe_job', {'code': 'result = 1'}); probe.recv(); probe.close()
    if probe.isolation['pids'] != 'namespace': pytest.skip("no PID namespace for candidates here (not root)")
    namefile = _torch_ext_dir() / 'relu_orphan_gpu.name'
    namefile.unlink(missing_ok=True)
    r = run(ev, 'relu', 'relu_orphan_gpu', stages=('compile', 'verify'))
    left = _named(namefile.read_text())          # written once the helper held its memory
    for p in left: os.kill(p, signal.SIGKILL)
    assert not left, f"helper {left} outlived the evaluation"
    assert r.correct and probe.isolation.get('proc') == 'own', (said(r), probe.isolation)


def test_cuda_process_of_a_candidate_that_never_came_goes_to_the_next(ev, tmp_path):
    "A solution that does not load leaves the warm candidate process it was given to the next candidate, which runs in it as usual."
    run(ev, 'relu', 'relu_valid')                            # leaves a spare: prestart is on for a GPU
    spare = ev.spares[0][0]
    r = ev.evaluate(task('relu'), tmp_path)                  # an empty folder: no model_new.py
    assert r.flags == ['import_error'] and ev.spares[0][0] is spare, said(r)
    r = run(ev, 'relu', 'relu_valid')
    assert r.correct and r.reward >= 1 and r.breakdown['prestarted'] and spare.ended, said(r)


def test_cuda_scalar_decoy_is_no_custom_kernel(ev):
    "Kernelbench rules: an own kernel writing one scalar beside torch's addmm is under [eval] min_custom_share; an own epilogue beside torch.mm is recorded."
    d = run(ev, 'linear_relu', 'linear_relu_scalar_decoy.py', rules='kernelbench')
    assert d.reward == -1 and 'no_custom_kernel' in d.flags, said(d)
    e = run(ev, 'linear_relu', 'linear_relu_epilogue.py', rules='kernelbench')     # its share is data for the threshold (bench/custom_share.py)
    assert e.correct and e.custom_kernel_share is not None and e.custom_kernel_share > d.custom_kernel_share, said(e)


GPU_JOB = """import time, torch
a = torch.randn(4096, 4096, device='cuda')
t0 = time.time()
while time.time() - t0 < 180: a @ a; torch.cuda.synchronize()
"""

def test_cuda_neighbour_started_by_the_evaluators_process_is_seen(ev):
    "A job the evaluator's own process started, computing on the GPU without the device lock, is a neighbour: the rounds it overlaps are disturbed and say its pid."
    import subprocess, sys, time
    job = subprocess.Popen([sys.executable, '-c', GPU_JOB])
    try:
        time.sleep(8)                                    # its context up and computing
        assert job.poll() is None, "the GPU job ended early"
        r = run(ev, 'relu', 'relu_valid')
    finally: job.kill(); job.wait()
    clock = r.timings['clock']
    assert clock['disturbed_rounds'] > 0 and any(f"pid {job.pid}" in c for c in clock['causes']), (said(r), clock)

