"""Multi-process training arithmetic: every preset's episodes split over 1, 2, 4 and 8 processes (issue 26: two GPUs
died on `ppo_episodes=16 needs 8 distinct tasks`), through the trainer's own share methods, and two real CPU processes
with the gpu-100m preset's numbers."""
import math, os, subprocess, sys
from collections import Counter
from types import SimpleNamespace
import pytest
from conftest import ROOT
from cuda_agent_wb.tasks import load_tasks
from cuda_agent_wb.train import PRESETS, Trainer, episode_plan, make_config, read_metrics

KERNEL_PRESETS = [p for p in PRESETS if make_config(p).env == 'kernel']
N_BUNDLED = len(load_tasks(None)[0])
WORLDS = [1, 2, 4, 8]


def process_trainers(cfg, world: int) -> list:
    "One `Trainer` per process of a `world`-process run, without models: what the share methods read (config, rank, world)."
    def one(rank):
        tr = Trainer.__new__(Trainer)
        tr.cfg, tr._tasks, tr.acc = cfg, None, SimpleNamespace(num_processes=world, process_index=rank)
        return tr
    return [one(r) for r in range(world)]


def assert_equal_shares(shares: list, n: int):
    "Every process the same count (DDP steps them together), and together each of the `n` items once."
    assert len({len(s) for s in shares}) == 1, [len(s) for s in shares]
    assert sorted(i for s in shares for i in s) == list(range(n))


@pytest.mark.parametrize('preset', list(PRESETS))
@pytest.mark.parametrize('world', WORLDS)
def test_every_preset_splits_its_episodes_over_the_processes(preset, world):
    """What `collect` and `rft_pool` compute on each process, for every preset: equal shares of stage 1's and stage 4's
    episodes (lockstep environments), the RFT pool's tasks or toy samples, and the fine-tuning data; no error."""
    c = make_config(preset)
    trs = process_trainers(c, world)
    for stage in (1, 4):
        n = trs[0].iteration_episodes(stage)
        assert n >= (c.warmup_episodes if stage == 1 else c.ppo_episodes) and n % world == 0
        if c.env == 'toy' or stage == 1: assert_equal_shares([tr.shard(n) for tr in trs], n)
    if c.env == 'toy': assert_equal_shares([tr.shard(c.rft_samples) for tr in trs], c.rft_samples)
    else:
        tasks = len(trs[0].tasks())
        assert sorted(i for tr in trs for i in tr.shard_of(tasks)) == list(range(tasks))
    for kept in range(1, 10):                               # the RFT dataset, whatever its size: equal shares for SFT
        assert len({len(tr.even_share(list(range(kept)))) for tr in trs}) == 1


@pytest.mark.parametrize('preset', KERNEL_PRESETS)
@pytest.mark.parametrize('world', WORLDS)
@pytest.mark.parametrize('per_gpu', [False, True], ids=['global-batch', 'batch-per-gpu'])
def test_episode_plan_of_every_kernel_preset(preset, world, per_gpu):
    "The preset's ppo_episodes as the global batch, or on every GPU (bench/train_multi_gpu.py): equal shares, no error."
    c = make_config(preset, ppo_episodes=make_config(preset).ppo_episodes * (world if per_gpu else 1))
    tr = process_trainers(c, world)[0]
    n, k, T = tr.iteration_episodes(4), c.samples_per_task, len(tr.tasks())
    assert T == (len(c.tasks) if c.tasks else N_BUNDLED)
    plan = episode_plan(n, k, T, world)                                                   # as `collect` plans stage 4
    flat = [e for p in plan for e in p]
    assert len(plan) == world and {len(p) for p in plan} == {math.ceil(n / world)}        # DDP: every process the same count
    assert len(set(flat)) == len(flat)                                                    # (task, sample) names one file
    per_task = Counter(t for t, _ in flat)
    assert sorted(per_task) == list(range(min(T, math.ceil(len(flat) / k))))              # k per task while tasks last
    assert max(per_task.values()) - min(per_task.values()) <= 1
    assert all(sorted(s for t2, s in flat if t2 == t) == list(range(c_)) for t, c_ in per_task.items())
    for t in per_task:                                                                    # every process the same mix of tasks
        held = [sum(t2 == t for t2, _ in p) for p in plan]
        assert max(held) - min(held) <= 1, (t, held)


def test_gpu_100m_on_two_gpus_is_the_issue_26_case():
    "The run that died: 8 episodes per GPU on 2 GPUs at samples_per_task=2 over the preset's 4 tasks."
    c = make_config('gpu-100m')
    plan = episode_plan(2 * c.ppo_episodes, c.samples_per_task, len(c.tasks), 2)
    assert [sorted({t for t, _ in p}) for p in plan] == [[0, 1, 2, 3], [0, 1, 2, 3]] and [len(p) for p in plan] == [8, 8]


def test_two_processes_with_the_gpu_100m_arithmetic(tmp_path):
    """Two gloo processes on the CPU, the gpu-100m preset's tasks and samples_per_task, 16 episodes (8 each): one step, one metrics stream;
    3 warm-up episodes, which do not split over 2, are rounded up to 2 each."""
    out = tmp_path/'ddp'
    sets = ['backend=cpu', 'tiny={"hidden": 32, "layers": 1, "heads": 2, "kv_heads": 1}', 'dtype=float32', 'grad_ckpt=false',
            'gen_cache=dynamic', 'max_new_tokens=4', 'max_turns=1', 'ppo_iterations=1', 'ppo_episodes=16', 'mini_batch=16',
            'micro_batch=8', 'evaluators=1', 'warmup_iterations=1', 'warmup_episodes=3']
    env = {**os.environ, 'ACCELERATE_USE_CPU': 'true', 'OMP_NUM_THREADS': '1'}
    r = subprocess.run([sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node', '2', '-m', 'cuda_agent_wb.train',
                        '--preset', 'gpu-100m', '--stages', '1,4', '--out', str(out), *[a for s in sets for a in ('--set', s)]],
                       capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    m = read_metrics(out/'metrics.jsonl')
    assert m['stage'].tolist() == ['warmup', 'agentic'] and m['episodes'].tolist() == [4.0, 16.0]   # per process 2 and 8, summed
    names = sorted(p.stem for p in (out/'trajectories'/'agentic'/'it0000').glob('*.jsonl') if '__s' in p.stem)
    assert names == sorted(f"{t}__s{s}" for t in make_config('gpu-100m').tasks for s in range(4)), names
    assert (out/'final'/'actor'/'config.json').is_file()
