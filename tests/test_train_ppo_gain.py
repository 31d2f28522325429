"""bench/train_ppo_gain.py (issue 26, item 1) on a CPU with toy settings: both arms start from the one fine-tuned checkpoint,
the stopping replay ends after the first kernel, results and curves are written, and a second call resumes to nothing.
The GPU experiment itself is not run here; its measures are checked on hand-made trajectories."""
import importlib.util, json, shutil, subprocess, sys
import pytest
from conftest import ROOT

spec = importlib.util.spec_from_file_location('train_ppo_gain', ROOT/'bench'/'train_ppo_gain.py')
gain_bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(gain_bench)


def traj(task, best, solutions=(), wrote=True):
    "A finished trajectory of `task` with best reward `best`, whose evaluated correct steps carry `solutions`."
    steps = [dict(action=dict(tool='write_file' if wrote else 'profile'), solution={'kernels/k.cu': s}, result=dict(correct=True)) for s in solutions]
    return dict(header=dict(task_id=task), steps=steps or [dict(action=dict(tool='profile'))], summary=dict(best_reward=best))


def test_measures_on_hand_made_episodes():
    replays = {'relu': dict(give_up=[-1.0], stop=[2.0, 2.0], go_on=[3.0, 2.0]), 'matmul': dict(give_up=[-1.0], stop=[2.0], go_on=[2.0])}   # only relu has room
    eps = [traj('relu', 3.0, ['v1', 'v2']), traj('relu', 2.0, ['v1']), traj('matmul', 3.0, ['a', 'b']), traj('relu', None, wrote=False)]
    assert gain_bench.episode_shares(eps, replays) == dict(gave_up_share=0.25, faster_share=1 / 3, episodes_with_room=3, second_kernel_share=0.5)
    assert gain_bench.episode_shares([], replays) == dict(gave_up_share=None, faster_share=None, episodes_with_room=0, second_kernel_share=None)
    test_half = [gain_bench.variant_of(k) for k in range(8)]
    assert test_half.count('give_up') == 4 and set(test_half) == set(gain_bench.VARIANTS)     # half the replays give up; every variant is played
    curve = [dict(reward_mean=r) for r in (2.5, 2.6, 2.8, 3.0)]
    assert (gain_bench.gain(curve, 2), gain_bench.gain(curve[:2], 2)) == (0.4, None)
    import pandas as pd
    m = pd.DataFrame([dict(stage='rft', phase='filter', pool=4.0, kept=3.0, reward_mean=0.5, pass_rate=0.75, sft_loss=float('nan')),
                      dict(stage='rft', phase='sft', sft_loss=2.0), dict(stage='rft', phase='sft', sft_loss=0.5), dict(stage='agentic', sft_loss=float('nan'))])
    assert gain_bench.fine_tuning(m) == dict(pool=4, kept=3, reward_mean=0.5, pass_rate=0.75, sft_steps=2, sft_loss_first=2.0, sft_loss_last=0.5)
    assert gain_bench.fine_tuning(m.iloc[3:])['kept'] is None and gain_bench.fine_tuning(m.iloc[3:])['sft_steps'] == 0
    cut = gain_bench.common_gains(dict(ppo=curve, frozen=curve[:2]), 2)       # the time box cut one arm after 2 iterations
    assert cut == dict(gains=dict(ppo=0.1, frozen=0.1), iterations=2, tail=1)
    assert gain_bench.common_gains(dict(ppo=curve, frozen=curve[:1]), 2)['gains'] == dict(ppo=None, frozen=None)


def test_choice_is_read_at_the_fork():
    "fork_index: the first policy token where two replays part (prompt and observations, mask 0, may differ); choice_probabilities reads each replay's own choice there."
    import math, torch
    from cuda_agent_wb.train.episodes import Episode
    give_up, stop = [1, 2, 3, 7, 9, 5], [1, 2, 4, 7, 8, 6, 6]             # prompt 1, reply 2, observation 3/4 (jittered), reply 7 then 9 (finish) or 8 (write)
    gm, sm = [0, 1, 0, 1, 1, 1], [0, 1, 0, 1, 1, 1, 1]
    assert gain_bench.fork_index(give_up, gm, stop, sm) == 3 and gain_bench.fork_index(stop, sm, give_up, gm) == 3   # token 4 of each: logp index 3
    assert gain_bench.fork_index(give_up[:4], gm[:4], stop, sm) is None
    eps = [Episode(give_up, gm, -1.0, '', dict(task_id='relu')), Episode(stop, sm, 1.0, '', dict(task_id='relu')), Episode([1], [0], 1.0, '', dict(task_id='matmul'))]
    logps = [torch.full((1, len(e.ids) - 1), math.log(0.5)) for e in eps]
    logps[0][0, 3], logps[1][0, 3] = math.log(0.25), math.log(0.8)
    assert gain_bench.choice_probabilities(eps, ['give_up', 'stop', 'stop'], logps) == dict(give_up=0.25, write=0.8)   # matmul: no replay to part from
    assert gain_bench.choice_probabilities(eps[2:], ['stop'], logps[2:]) == dict(give_up=None, write=None)


def clean_fork_counts(tmp_path, **copies) -> dict:
    "Fine-tuning episodes of relu's four replays (and their copies) that meet the first reply at the prompt alone, by choice."
    from cuda_agent_wb.rollout import read_trajectory
    from cuda_agent_wb.train import Trainer, make_config
    t = read_trajectory(ROOT/'data/trajectories/cpu/relu__s0.jsonl')            # 12 replies
    replies = dict(give_up=1, stop=9, go_on=12)                                # the cuda relu script's, by variant
    trajs = [dict(t, steps=t['steps'][:replies[v]]) for v in gain_bench.REPLAYS]
    eps = Trainer(make_config('toy', out_dir=str(tmp_path), max_seq_len=10**6, **copies)).sft_episodes(trajs)
    first = [list(e.mask).index(1) for e in eps]                               # a miss before the first reply comes first
    choice = ['give_up' if gain_bench.REPLAYS[j % len(trajs)] == 'give_up' else 'write' for j in range(len(eps))]
    return {c: sum(f == min(first) for f, k in zip(first, choice) if k == c) for c in ('give_up', 'write')}


def test_fine_tuning_meets_the_choice_at_the_prompt_as_often_giving_up_as_writing(tmp_path):
    "The preset's copies keep their misses after the first reply: at the prompt alone the data gives up as often as it writes."
    from cuda_agent_wb.train.config import PRESETS
    copies = {k: PRESETS['gpu-100m-ppo-gain'][k] for k in ('rft_jitter', 'rft_recover', 'rft_recover_first')}
    assert clean_fork_counts(tmp_path/'now', **copies) == dict(give_up=8, write=8)
    before = clean_fork_counts(tmp_path/'before', **dict(copies, rft_recover_first=True))   # the tenth run's (ea7a666) data
    assert before['give_up'] == 4 and before['write'] > 6, before


def test_paired_difference_matches_episodes_across_arms(tmp_path):
    "Episodes are matched by file name across the arms; unfinished or task-error ones are left out; the tail's interval holds its mean."
    def write(arm, name, best, texts=('a',), summary=True, invalid=False):
        d = tmp_path/arm/'trajectories'/'agentic'/'it0001'; d.mkdir(parents=True, exist_ok=True)
        recs = [dict(type='header', task_id=name.split('__')[0])] + [dict(type='step', model_text=t) for t in texts]
        if summary: recs.append(dict(type='summary', best_reward=best, invalid=invalid))
        (d/name).write_text(''.join(json.dumps(r) + '\n' for r in recs))
    for name, (p, f) in {'relu__s0.jsonl': (3.0, 2.0), 'relu__s1.jsonl': (None, -1.0), 'matmul__s0.jsonl': (2.0, 3.0)}.items():
        write('ppo', name, p, texts=('a', 'b')); write('frozen', name, f)
    write('ppo', 'softmax__s0.jsonl', 3.0); write('frozen', 'softmax__s0.jsonl', 1.0, summary=False)       # the frozen arm still playing it
    write('ppo', 'sum__s0.jsonl', 3.0); write('frozen', 'sum__s0.jsonl', 1.0, invalid=True)                # a task error
    write('ppo', 'only_ppo__s0.jsonl', 3.0)                                                                  # relu and matmul differ in text: 2 of 5 alike
    pairs = gain_bench.matched_episodes(tmp_path, 1)
    assert len(pairs) == 5 and gain_bench.same_episodes(pairs) == 0.4 and gain_bench.same_episodes([]) is None
    rewards = gain_bench.paired_rewards(pairs)
    assert sorted(rewards) == [(-1.0, -1.0), (2.0, 3.0), (3.0, 2.0)]          # no reward counts -1, as in training
    res = gain_bench.paired_difference({0: [(1.0, 1.0)], 1: rewards}, [1])
    assert res['by_iteration'] == {0: dict(episodes=1, mean=0.0), 1: dict(episodes=3, mean=0.0)}
    lo, hi = res['tail']['ci95']
    assert res['tail']['episodes'] == 3 and -1.0 <= lo <= 0.0 <= hi <= 1.0
    assert gain_bench.paired_difference({}, [])['tail'] == dict(steps=[], episodes=0, mean=None, ci95=None)


def test_time_box_waits_for_min_iterations(tmp_path):
    "--arm-minutes stops the arms only once every arm has logged --min-iterations PPO iterations; a half-written line is not one."
    from types import SimpleNamespace as NS
    rows = lambda *stages: ''.join(json.dumps(dict(stage=st, step=i)) + '\n' for i, st in enumerate(stages))
    (tmp_path/'ppo').mkdir(); (tmp_path/'frozen').mkdir()
    (tmp_path/'ppo'/'metrics.jsonl').write_text(rows('rft', 'value', 'agentic', 'agentic') + '{"stage": "agen')
    (tmp_path/'frozen'/'metrics.jsonl').write_text(rows('rft', 'agentic'))
    assert [gain_bench.arm_iterations(tmp_path/a) for a in ('ppo', 'frozen', 'none')] == [2, 1, 0]
    long_ago = gain_bench.time.time() - 120
    up = lambda minutes, least, t0=long_ago: gain_bench.time_is_up(NS(arm_minutes=minutes, min_iterations=least), t0, tmp_path)
    assert (up(1, 0), up(1, 1), up(1, 2), up(None, 0), up(5, 0)) == (True, True, False, False, False)


def test_frozen_arm_shares_finished_iteration_0(tmp_path):
    "share_iteration_0 copies the ppo arm's finished iteration-0 episodes (training and held-out), not one still playing, and nothing to an arm with iterations of its own."
    def write(arm, kind, name, done=True):
        d = tmp_path/arm/'trajectories'/kind/'it0000'; d.mkdir(parents=True, exist_ok=True)
        recs = [dict(type='header', task_id=name.split('__')[0]), dict(type='step', model_text='a')] + ([dict(type='summary', best_reward=1.0)] if done else [])
        (d/name).write_text(''.join(json.dumps(r) + '\n' for r in recs))
    write('ppo', 'agentic', 'relu__s0.jsonl'); write('ppo', 'agentic', 'relu__s1.jsonl', done=False); write('ppo', 'heldout', 'conv2d__s0.jsonl')
    assert gain_bench.share_iteration_0(tmp_path) == 2
    got = {p.relative_to(tmp_path/'frozen').as_posix() for p in (tmp_path/'frozen').rglob('*') if p.is_file()}
    assert got == {'trajectories/agentic/it0000/relu__s0.jsonl', 'trajectories/heldout/it0000/conv2d__s0.jsonl'}
    assert (tmp_path/'frozen'/'trajectories'/'agentic'/'it0000'/'relu__s0.jsonl').read_text() == (tmp_path/'ppo'/'trajectories'/'agentic'/'it0000'/'relu__s0.jsonl').read_text()
    (tmp_path/'other').mkdir(); (tmp_path/'other'/'metrics.jsonl').write_text(json.dumps(dict(stage='agentic', step=0)) + '\n')
    assert gain_bench.share_iteration_0(tmp_path, 'other') == 0 and not (tmp_path/'other'/'trajectories').exists()


@pytest.fixture(scope='module')
def smoke(tmp_path_factory):
    "One sequential --smoke run (fine-tuning, probe, both arms): its folder and command."
    tmp = tmp_path_factory.mktemp('smoke')
    cmd = [sys.executable, str(ROOT/'bench'/'train_ppo_gain.py'), '--smoke', '--out', str(tmp/'run'), '--results', str(tmp/'r.json')]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    return tmp, cmd


def test_smoke_run_writes_both_arms_and_resumes(smoke):
    tmp_path, cmd = smoke
    res = json.loads((tmp_path/'r.json').read_text())
    assert res['smoke'] and res['arms_finished'] == dict(ppo=True, frozen=True) and (tmp_path/'r.html').stat().st_size > 1000
    assert [len(res['curves'][a]) for a in ('ppo', 'frozen')] == [2, 2] and res['ppo_gain'] is not None
    assert {r['kl'] for r in res['curves']['frozen']} == {r['kl_after'] for r in res['curves']['frozen']} == {0.0}   # the frozen actor never moves
    assert res['kl_positive'] and all(r['kl_after'] > 0 for r in res['curves']['ppo'])           # the ppo arm's updates move it
    first = [res['curves'][a][0] for a in ('ppo', 'frozen')]        # iteration 0: the ppo arm's episodes, shared by the frozen arm
    assert res['iteration_0_shared'] and first[0]['same_as_other_arm'] == 1.0 and first[0]['reward_mean'] == first[1]['reward_mean'] and first[0]['ppo_minus_frozen'] == 0.0
    probe = res['lr_probe']                                                        # the ppo arm's rate: measured, then used
    before = probe['choice_p_before']['give_up']                                   # the fork read after every update: the frozen actor's never moves
    assert [r['give_up_p_after'] for r in res['curves']['frozen']] == [before, before], (before, res['curves']['frozen'])   # the same weights, read the same way
    assert all(0 <= r['give_up_p_after'] <= 1 for r in res['curves']['ppo']) and len((tmp_path/'run'/'ppo'/'fork.jsonl').read_text().splitlines()) == 2
    assert [r['actor_lr'] for r in probe['rows']] == [float(x) for x in gain_bench.PROBE_LRS.split(',')]
    assert probe['chosen'] == max([r['actor_lr'] for r in probe['rows'] if r['kl'] <= probe['target_kl']] or [min(r['actor_lr'] for r in probe['rows'])])
    assert all(0 <= r['choice_p']['give_up'] <= 1 and 0 <= r['choice_p']['write'] <= 1 for r in probe['rows'])   # relu's replays: both sides found
    assert res['actor_lr'] == probe['chosen'] == json.loads((tmp_path/'run'/'ppo'/'config.json').read_text())['actor_lr']
    assert json.loads((tmp_path/'run'/'frozen'/'config.json').read_text())['actor_lr'] == 0.0
    scripted = tmp_path/'run'/'sft'/'trajectories'/'rft'/'scripted'
    tools = {k: [json.loads(l).get('action', {}) for l in (scripted/f'relu__s{k}.jsonl').read_text().splitlines()] for k in (0, 1, 2, 3)}
    tools = {k: [a.get('tool') for a in v if a] for k, v in tools.items()}      # samples 0, 1, 2, 3: give up, stop, give up, go on
    assert tools[0] == tools[2] == ['finish'] and res['replays']['relu']['give_up'] == [-1.0, -1.0]        # giving up at once
    assert tools[1][-2:] == ['profile', 'finish'] and len(tools[1]) < len(tools[3]) and tools[1][:-1] == tools[3][:len(tools[1]) - 1]
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)             # a second call: everything is done
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((tmp_path/'r.json').read_text())['curves'] == res['curves']


def test_parallel_arms_run_as_two_processes(tmp_path, smoke):
    "--parallel: from the smoke run's fine-tuning (copied: a call finds it done), each arm in its own process (its own GPU on a GPU machine), one results writer."
    shutil.copytree(smoke[0]/'run'/'sft', tmp_path/'run'/'sft'); shutil.copy(smoke[0]/'run'/'lr_probe.json', tmp_path/'run'/'lr_probe.json')
    cmd = [sys.executable, str(ROOT/'bench'/'train_ppo_gain.py'), '--smoke', '--parallel', '--out', str(tmp_path/'run'), '--results', str(tmp_path/'r.json')]
    cut = subprocess.run([*cmd, '--arm-minutes', '0.02'], capture_output=True, text=True, cwd=ROOT)     # both arms stopped a second in
    assert cut.returncode == 0 and 'stopped after 0.02 min' in cut.stderr, cut.stderr[-3000:]
    assert json.loads((tmp_path/'r.json').read_text())['arms_finished'] == dict(ppo=False, frozen=False)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)                                  # the next call resumes them
    assert r.returncode == 0 and "the frozen arm starts, sharing the ppo arm's iteration 0" in r.stderr, r.stderr[-3000:]
    res = json.loads((tmp_path/'r.json').read_text())
    assert res['arms_finished'] == dict(ppo=True, frozen=True) and [len(res['curves'][a]) for a in ('ppo', 'frozen')] == [2, 2]
    assert {r['kl'] for r in res['curves']['frozen']} == {0.0}
    lone = subprocess.run([*cmd[:2], '--smoke', '--arm', 'ppo', '--out', str(tmp_path/'none')], capture_output=True, text=True, cwd=ROOT)
    assert lone.returncode != 0 and 'no fine-tuned checkpoint' in lone.stderr
