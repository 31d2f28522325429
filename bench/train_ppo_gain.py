"""Does PPO add anything to fine-tuning? (issue 26, item 1.) The `gpu-100m-ppo-gain` preset fine-tunes a random-init
~100M model on each bundled CUDA script replayed three ways (`VARIANTS`, four replays a task: `REPLAYS`): giving up at
once (its first reply calls `finish`: no solution, reward -1), stopping after its first, slower kernel (profiled, then `finish`;
reward 1 or 2), and going on to the faster second kernel (up to 3 where it beats `torch.compile`). The preset keeps the
give-up replays in fine-tuning (`rft_min_reward=-2`), and half the replays give up, so the fine-tuned policy should give
up on about half of its episodes (`gave_up_share` at iteration 0 says what it does): room that only RL can take, since
fine-tuning copied all three. Why half: with a third (the 055f8be run, bench/results/history), sampling at temperature
0.5 sharpened the choice: the frozen arm gave up on 11 of its 64 episodes (17 %), so a policy that never gave up could
expect about 0.25 more reward than the frozen one, too little room to show a gain 0.3 above the frozen arm's.
Half of the replays is not half of the fine-tuning data at the choice, though: a copy that shows a recovered miss
(`rft_recover`) puts the miss before a random reply, and a give-up replay has one reply, so both of its recovered
copies met the choice after an error, while a writing replay's rarely did. At the prompt alone the data then gave up
about 4 times against 7.6 (0.34; 0.22 once temperature 0.5 sharpens it), and the probe read 0.24 (ea7a666 run; 1 of 16
episodes gave up at iteration 0). The preset now keeps those misses after the first reply (`rft_recover_first=False`):
4 against 4 at the prompt.
The ppo arm's learning rate is measured, not guessed: from the fine-tuned checkpoint, one PPO update per rate in
`--probe-lrs` on the fine-tuning replays (undone after), and the largest rate whose KL to the fine-tuned policy stays
at or below `--target-kl` (`lr_probe` in the results; `--no-probe` takes the preset's).
GAE runs at `lam=1` (the preset): with `lam=0.95` a go-on episode's reward reached its give-up-or-write decision token
through 0.95 to the power of the ~2,800 policy tokens after it (nbs/12_train_5_config.ipynb measures it on the H200 run).
From that one checkpoint two arms run agentic PPO (stage 4) with the same seeds: `ppo` (that learning rate) and
`frozen` (`actor_lr=0`: the actor never changes, so its curve is what sampling noise alone gives). Iteration 0, rolled
out before any update, is played once, by the ppo arm, and shared by the frozen arm (`share_iteration_0`): both gains
start from the same episodes.

    python bench/train_ppo_gain.py                 # on an H100; rerun to resume (each call can be cut off)
    python bench/train_ppo_gain.py --parallel      # on a 2-GPU machine: fine-tune on GPU 0, then the arms side by side (GPU 0, GPU 1)
    python bench/train_ppo_gain.py --parallel --arm-gpus 0,0 --arm-minutes 15   # both arms at once on one GPU, time-boxed
    python bench/train_ppo_gain.py --parallel --arm-minutes 14 --min-iterations 4   # time-boxed, but never before each arm has 4 iterations
    python bench/train_ppo_gain.py --smoke         # the script end to end on a CPU in a few minutes: toy settings, no claim

Per PPO iteration of each arm: reward mean, pass rate, `gave_up_share` (episodes that wrote no code), `give_up_p_after`
(the actor's give-up probability at the replays' fork after the iteration's update: `ForkTracker`), `faster_share` (episodes whose best reward beat everything the
stopping replay of their task reached, over the episodes of tasks where going on paid in the replays),
`second_kernel_share` (episodes that evaluated a second, different correct solution), `same_as_other_arm` (episodes the two
arms played token for token alike: the arms share every random draw, keyed by episode and turn; 1 at the shared
iteration 0), KL (`kl_after`: KL(sampler || actor after the iteration's update), k3 on the tokens the sampler drew,
>= 0; and the update's own k1 `kl`), clip fraction, entropy. The probe's KL is the same with the fine-tuned policy as
the sampler and its replays as the tokens. Up to the tenth run (ea7a666) both passed the policies the other way round,
which averages to chi-squared minus KL and grows without bound where a token's probability falls.
`ppo_gain` is an arm's mean reward over its last `--tail` iterations minus its iteration 0 (rolled out before any
update). Target: ppo gain >= 0.3 and >= the frozen arm's gain + 0.3. Since the arms share their draws, `paired` also
compares them episode by episode: ppo minus frozen reward of the same episode (`ppo_minus_frozen` per iteration; over the
tail iterations with a bootstrap 95 % interval), a sharper view of the same difference than two noisy means. Results go to bench/results/train_ppo_gain.json
after every PPO iteration (a call cut off keeps its numbers), curves to bench/results/train_ppo_gain.html.
"""
import argparse, copy, json, os, shutil, subprocess, sys, time
from pathlib import Path
import torch

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from run_calls import call_minutes, touch_call, fine_tuning
ARMS = {'ppo': None, 'frozen': 0.0}            # actor learning rate in stage 4: the probed one (the preset's with --no-probe), or none
TARGET = 0.3
SMOKE = ['backend=cpu', 'tasks=["relu"]', 'tiny={"hidden": 32, "layers": 1, "heads": 2, "kv_heads": 1}', 'dtype=float32',
         'grad_ckpt=false', 'gen_cache=dynamic', 'max_new_tokens=8', 'max_turns=2', 'rft_jitter=1', 'rft_recover=0', 'sft_epochs=1',
         'sft_batch=2', 'value_epochs=1', 'ppo_iterations=2', 'ppo_episodes=2', 'samples_per_task=2', 'mini_batch=2',
         'micro_batch=2', 'workers=2', 'evaluators=1']


def first_v2(script: Path):
    "Index of the script's first action that writes a second-version file (`v2/...`), or None."
    items = json.loads(script.read_text()); items = items.get('steps', items) if isinstance(items, dict) else items
    refs = lambda it: [v.get('file', '') for v in (it.get('args') or {}).values() if isinstance(v, dict)]
    return next((i for i, it in enumerate(items) if any(str(f).startswith('v2/') for f in refs(it))), None)


VARIANTS = ('give_up', 'stop', 'go_on')
REPLAYS = ('give_up', 'stop', 'give_up', 'go_on')   # replay k of a task plays REPLAYS[k % 4]: half of them give up


def variant_of(sample: int) -> str:
    "The variant replay `sample` of a task plays."
    return REPLAYS[sample % len(REPLAYS)]
WRITES = ('write_file', 'edit_file')


# Giving up comes in the first reply, whose context is the task's prompt alone. Until the ninth run (edec4a5) a give-up
# replay profiled PyTorch first, so the choice followed an observation with timings in it: the two arms' copies of one
# episode parted there (5 of 16 at the ninth run's iteration 0, one policy and the same draws), and the fine-tuned policy
# could tie its choice to the digits it had seen. At once, every episode of a task meets the choice in the same context,
# in both arms and every iteration; with the arms' shared draws, the episodes whose choice differs between them are
# the ones PPO's update flipped.
def script_variants(task_id: str, backend: str, language: str = 'cuda'):
    "The task's script (in `language`) cut three ways, {variant: policy}; None when it has no second kernel."
    from cuda_agent_wb.policy import load_script, ScriptedPolicy
    from cuda_agent_wb.agent_triton import language_script_path
    p = language_script_path(task_id, backend, language)
    if not p.is_file() or (cut := first_v2(p)) is None: return None
    full = load_script(p)
    head = full.actions[:cut]
    if not any(a.get('tool') == 'verify' for a in head): return None
    give_up = ScriptedPolicy([{'tool': 'finish', 'args': {'summary': 'no kernel written.'}, 'say': "I'll stop here without writing a kernel."}],
                             source=f"{p}#give-up-at-once")      # why at once: the comment above
    tail = [] if head[-1].get('tool') == 'profile' else [{'tool': 'profile', 'args': {}}]   # the first kernel is timed before stopping
    stop = ScriptedPolicy(head + tail + [{'tool': 'finish', 'args': {'summary': 'first version, profiled.'}, 'say': 'Good enough.'}],
                          source=f"{p}#stop-after-first-kernel")
    return dict(give_up=give_up, stop=stop, go_on=full)


def branch_pool(tr) -> list:
    "Stage 2's pool: each script of this process's tasks replayed `len(REPLAYS)` times, three ways (sample k plays `variant_of(k)`)."
    c, mine = tr.cfg, [tr.tasks()[i] for i in tr.shard_of(len(tr.tasks()))]
    variants = {t.id: v for t in mine if (v := script_variants(t.id, c.backend, c.language))}
    if missing := [t.id for t in mine if t.id not in variants]:
        print(f"train_ppo_gain: no two-kernel script for {', '.join(missing)} on {c.backend}: left out of the pool", file=sys.stderr)
    have = [t for t in mine if t.id in variants]
    return tr.rollout_kernel(have, tr.out/'trajectories'/'rft'/'scripted', max(c.rft_max_turns, 50),
                             make_policy=lambda t, k: variants[t.id][variant_of(k)], samples=len(REPLAYS) * c.rft_script_samples)


def read_trajs(folder: Path) -> list:
    from cuda_agent_wb.rollout import read_trajectory
    return [read_trajectory(p) for p in sorted(folder.glob('*__s*.jsonl'))] if folder.is_dir() else []


def replay_rewards(sft: Path) -> dict:
    "Per task, the rewards of its replays by variant, {'give_up': [...], 'stop': [...], 'go_on': [...]} (no reward counts as -1, as in training)."
    out = {}
    for t in read_trajs(sft/'trajectories'/'rft'/'scripted'):
        r = (t.get('summary') or {}).get('best_reward')
        out.setdefault(t['header']['task_id'], {v: [] for v in VARIANTS})[variant_of(t['header']['sample'])].append(-1.0 if r is None else r)
    return out


def second_kernel(traj: dict) -> bool:
    "Whether the episode evaluated two different correct solutions."
    sols = {json.dumps(s['solution'], sort_keys=True) for s in traj['steps'] if s.get('solution') and (s.get('result') or {}).get('correct')}
    return len(sols) >= 2


def gave_up(traj: dict) -> bool:
    "Whether the episode ended without writing any code."
    return not any((s.get('action') or {}).get('tool') in WRITES for s in traj['steps'])


def episode_shares(trajs: list, replays: dict) -> dict:
    "gave_up_share and second_kernel_share (over all episodes); faster_share (over episodes of tasks where going on paid in the replays)."
    bar = {k: max(v['stop'], default=None) for k, v in replays.items()}
    room = {k for k, v in replays.items() if bar[k] is not None and max(v['go_on'], default=-9) > bar[k]}
    roomy = [t for t in trajs if t['header']['task_id'] in room]
    best = lambda t: (t.get('summary') or {}).get('best_reward')
    share = lambda f, ts: sum(map(f, ts)) / len(ts) if ts else None
    return dict(gave_up_share=share(gave_up, trajs), faster_share=share(lambda t: (best(t) or -9) > bar[t['header']['task_id']], roomy),
                episodes_with_room=len(roomy), second_kernel_share=share(second_kernel, trajs))


def arm_curve(out: Path, replays: dict) -> list:
    "One row per PPO iteration of an arm: its metrics record and the episode shares of its trajectories."
    from cuda_agent_wb.train import read_metrics, STAGES
    m = read_metrics(out/'metrics.jsonl') if (out/'metrics.jsonl').is_file() else None
    if m is None or not len(m): return []
    ag = m[m['stage'] == STAGES[4]]
    keys = ('step', 'reward_mean', 'pass_rate', 'heldout_reward_mean', 'heldout_pass_rate', 'kl', 'kl_after', 'clip_frac', 'entropy', 'policy_loss',
            'parse_error_rate', 'turns_mean', 'gen_tokens_per_s', 'rollout_s', 'gen_s', 'wait_s', 'update_s', 'step_s',
            'grad_norm_actor', 'ratio_dev', 'explained_var')      # how large each update's gradient was (before clipping), the largest ratio move, the critic's fit
    rows, fork = [], fork_rows(out)
    for r in ag.to_dict('records'):
        row = {k: r[k] for k in keys if k in r and r[k] == r[k]}
        row.update(episode_shares(read_trajs(out/'trajectories'/STAGES[4]/f"it{int(r['step']):04d}"), replays))
        row['give_up_p_after'] = fork.get(int(r['step']))     # the policy this iteration's update left, read at the replays' fork
        rows.append(row)
    return rows


# The KL bar was 0.02 until the eighth run (1d90c08, 2 x H200): its probe chose 3e-6 (KL 0.0107; 4e-6 0.0235), and three
# updates at that rate moved the give-up choice by 2 episodes of 16 against the frozen arm (gap 0.125, bar 0.3), while the
# actor's own tokens moved little (kl_after 0.004-0.007 after the first update) and parse errors stayed at the frozen
# arm's level. Hence 0.05: on the same replays (af4fca4) 5e-6 gave 0.047, 6e-6 0.10, 1e-5 1.5.
PROBE_LRS, TARGET_KL = '3e-6,4e-6,5e-6,6e-6,8e-6', 0.05


def fork_index(ids: list, mask: list, other_ids: list, other_mask: list):
    """Where an episode's replies first part from another's (its first policy token unlike the other's at the same place
    among their policy tokens), as an index into its shifted log-probs (`collate`'s mask); None if one's replies begin the other's.
    A give-up replay against its task's stopping one: the token that chose `finish` over writing code."""
    mine, theirs = [j for j, m in enumerate(mask) if m], [j for j, m in enumerate(other_mask) if m]
    i = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if ids[a] != other_ids[b]), None)
    return None if i is None else mine[i] - 1


def choice_probabilities(eps: list, variant: list, logps: list) -> dict:
    """Mean sampling probability of each replay's choice at its fork (`fork_index` against a replay of its task that chose
    otherwise): 'give_up' over the give-up replays, 'write' over the others; `logps[i]` is replay i's (1, T-1) log-probs."""
    import math
    out = {}
    for side, mine in (('give_up', lambda v: v == 'give_up'), ('write', lambda v: v != 'give_up')):
        ps = []
        for i, (e, v) in enumerate(zip(eps, variant)):
            other = next((o for o, w in zip(eps, variant) if o.meta['task_id'] == e.meta['task_id'] and mine(w) != mine(v)), None)
            k = fork_index(e.ids, e.mask, other.ids, other.mask) if mine(v) and other is not None else None
            if k is not None: ps.append(math.exp(float(logps[i][0, k])))
        out[side] = round(sum(ps) / len(ps), 4) if ps else None
    return out


def replay_batches(root: Path, tr) -> tuple:
    "The fine-tuning replays as `tr`'s episodes, their variants, and one collated batch each (in order)."
    from cuda_agent_wb.train.episodes import collate, episode_from_trajectory
    trajs = read_trajs(root/'sft'/'trajectories'/'rft'/'scripted')
    eps = [episode_from_trajectory(t, tr.tok, tr.cfg.max_seq_len) for t in trajs]
    return eps, [variant_of(t['header']['sample']) for t in trajs], [collate([e], tr.tok.pad_token_id, tr.acc.device) for e in eps]


class ForkTracker:
    """A metrics listener of one arm: after each PPO iteration (its update done), the actor's choice probabilities at the
    fork of the fine-tuning replays (`choice_probabilities`), one row per step in `fork.jsonl`. The sampled give-up share
    of 16 episodes reads the choice through the noise of 16 draws; this reads the policy itself."""
    def __init__(self, root: Path, tr, out: Path): self.root, self.tr, self.path, self.data = root, tr, out/'fork.jsonl', None

    def __call__(self, rec: dict):
        from cuda_agent_wb.rl import forward_logprobs
        from cuda_agent_wb.train import STAGES
        if rec['stage'] != STAGES[4]: return
        tr = self.tr
        if self.data is None: self.data = replay_batches(self.root, tr)
        eps, variant, mbs = self.data
        with tr.training_hold(), torch.no_grad():
            lps = [forward_logprobs(tr.actor, b['input_ids'], b['attention_mask'], tr.cfg.temperature) for b in mbs]
        with open(self.path, 'a') as f: f.write(json.dumps(dict(step=rec['step'], **choice_probabilities(eps, variant, lps))) + '\n')


def fork_rows(out: Path) -> dict:
    "{step: give-up probability at the fork after that iteration's update} from an arm's `fork.jsonl` (the last row of a step wins)."
    if not (out/'fork.jsonl').is_file(): return {}
    rows = [json.loads(l) for l in (out/'fork.jsonl').read_text().splitlines() if l.strip().endswith('}')]
    return {r['step']: r.get('give_up') for r in rows}


def probe_lrs(root: Path, preset: str, sets: dict, lrs: list, target_kl: float) -> dict:
    """The actor learning rate, chosen by measurement: from the fine-tuned checkpoint, one PPO update (the preset's epochs and
    mini-batches, actor and critic) on the fine-tuning replays per rate, undone after; its KL to the fine-tuned policy and the
    mean log-prob change of the replays by variant. Chosen: the largest rate whose KL is at most `target_kl`."""
    from cuda_agent_wb.rl import forward_logprobs, kl_penalty, masked_mean
    from cuda_agent_wb.train import Trainer, make_config
    out = root/'probe'; shutil.rmtree(out, ignore_errors=True); out.mkdir(parents=True)
    for name in ('base', 'rft'): shutil.copytree(root/'sft'/name, out/name, dirs_exist_ok=True)
    shutil.copytree(root/'sft'/'checkpoints'/'last', out/'checkpoints'/'last')
    tr = Trainer(make_config(preset, out_dir=str(out), stages=[2, 3, 4], **sets)); c = tr.cfg
    tr.fresh_moments()                                   # as stage 4 starts: no Adam moments carried over from fine-tuning
    eps, variant, mbs = replay_batches(root, tr)
    tr.score(mbs)
    before = choice_probabilities(eps, variant, [b['old_logp'] for b in mbs])
    keep = lambda m: {k: v.detach().clone() for k, v in m.state_dict().items()}
    saved = (keep(tr.actor), keep(tr.critic), copy.deepcopy(tr.opt_a.state_dict()), copy.deepcopy(tr.opt_c.state_dict()))
    rows = []
    for lr in lrs:
        tr.set_lr(actor_lr=lr, critic_lr=c.critic_lr)
        upd = tr.ppo_update(mbs)
        with torch.no_grad():
            new = [forward_logprobs(tr.actor, b['input_ids'], b['attention_mask'], c.temperature) for b in mbs]
            kl = sum(masked_mean(kl_penalty(b['old_logp'], n, 'k3'), b['mask']).item() for n, b in zip(new, mbs)) / len(mbs)   # KL(fine-tuned || updated)
            dlogp = [((n - b['old_logp']) * b['mask']).sum().item() for n, b in zip(new, mbs)]
        by = {v: round(sum(d for d, w in zip(dlogp, variant) if w == v) / max(1, variant.count(v)), 4) for v in VARIANTS}
        choice = choice_probabilities(eps, variant, new)
        rows.append(dict(actor_lr=lr, kl=round(kl, 6), update_kl=upd.get('kl'), clip_frac=upd.get('clip_frac'), logp_change_by_variant=by, choice_p=choice))
        print(f"train_ppo_gain: probe actor_lr={lr:g}: kl {kl:.5f}, clip_frac {upd.get('clip_frac') or 0:.3f}, log-prob change by variant {by}, "
              f"choice probability {before} -> {choice}", file=sys.stderr)
        tr.actor.load_state_dict(saved[0]); tr.critic.load_state_dict(saved[1])
        tr.opt_a.load_state_dict(copy.deepcopy(saved[2])); tr.opt_c.load_state_dict(copy.deepcopy(saved[3]))
    ok = [r['actor_lr'] for r in rows if r['kl'] <= target_kl]
    res = dict(rule=f"the largest actor_lr whose one-iteration update keeps KL (k3, token mean, on the {len(mbs)} fine-tuning replays) <= {target_kl}",
               target_kl=target_kl, episodes=len(mbs), choice_p_before=before, rows=rows, chosen=max(ok) if ok else min(lrs),
               choice_rule="choice_p: mean sampling probability (at the preset's temperature) of each replay's own choice at the token where it parts from "
                           "a replay of its task that chose otherwise: give_up over the give-up replays, write over the others (fork_index)")
    tr.close(); del tr
    if torch.cuda.is_available(): torch.cuda.empty_cache()
    shutil.rmtree(out, ignore_errors=True)
    return res


def parse_rates(text: str) -> list:
    "'1e-6,3e-6' -> [1e-06, 3e-06]; anything but positive numbers is one line naming it."
    try: lrs = [float(x) for x in text.split(',')]
    except ValueError: raise SystemExit(f"--probe-lrs {text!r}: give learning rates separated by commas, e.g. {PROBE_LRS}") from None
    if not lrs or min(lrs) <= 0: raise SystemExit(f"--probe-lrs {text!r}: learning rates must be > 0")
    return lrs


def gain(curve: list, tail: int):
    "Mean reward of the last `tail` iterations minus iteration 0's; None before there are tail + 1 iterations."
    rs = [r.get('reward_mean') for r in curve]
    if len(rs) < tail + 1 or None in rs: return None
    return round(sum(rs[-tail:]) / tail - rs[0], 4)


def common_gains(curves: dict, tail: int) -> dict:
    """Each arm's gain over the iterations every arm finished (same seeds, same count), averaging the last `tail` of them,
    or fewer when a time box cut the arms short (at least one iteration after iteration 0): {'gains', 'iterations', 'tail'}."""
    n = min(map(len, curves.values()))
    t = min(tail, n - 1)
    return dict(gains={arm: gain(c[:n], t) if t >= 1 else None for arm, c in curves.items()}, iterations=n, tail=max(t, 0))


def matched_episodes(root: Path, it: int) -> list:
    "Iteration `it`'s episodes that both arms played (matched by task and sample): [(ppo trajectory, frozen trajectory)]."
    from cuda_agent_wb.rollout import read_trajectory
    arms = [{p.name: p for p in (root/arm/'trajectories'/'agentic'/f"it{it:04d}").glob('*__s*.jsonl')} for arm in ARMS]
    return [(read_trajectory(arms[0][n]), read_trajectory(arms[1][n])) for n in sorted(set(arms[0]) & set(arms[1]))]


def same_episodes(pairs: list):
    """Share of matched episodes (`matched_episodes`) that the two arms played token for token alike; None without any.
    Draws are keyed by episode and turn (`EpisodePolicy`), so at iteration 0 (one checkpoint) it should be about 1; below 1
    where the policies differ, where an observation differs (a timing in a tool result: 3 of 16 at iteration 0 on one H200,
    b817a1b), or where a near-tie flips on batch-shaped rounding."""
    texts = lambda t: [s.get('model_text') for s in t['steps']]
    return round(sum(texts(a) == texts(b) for a, b in pairs) / len(pairs), 4) if pairs else None


def paired_rewards(pairs: list) -> list:
    "(ppo reward, frozen reward) of each matched episode both arms finished without a task error (no reward counts -1, as in training)."
    from cuda_agent_wb.rollout import trajectory_invalid
    from cuda_agent_wb.train.episodes import trajectory_reward
    done = lambda t: t['summary'] is not None and not trajectory_invalid(t)
    return [(trajectory_reward(a), trajectory_reward(b)) for a, b in pairs if done(a) and done(b)]


def paired_difference(rewards: dict, tail_steps: list, resamples: int = 2000, seed: int = 0) -> dict:
    """ppo minus frozen reward episode by episode (`paired_rewards` per iteration, {step: pairs}): the mean per iteration, and
    pooled over `tail_steps` with a bootstrap 95 % interval (episodes resampled; episodes of one task are not independent,
    so the interval is a guide, not a test). The arms share every draw, so where their policies agree the difference is 0."""
    import numpy as np
    mean = lambda d: round(float(np.mean(d)), 4) if len(d) else None
    by_it = {step: dict(episodes=len(p), mean=mean([a - b for a, b in p])) for step, p in sorted(rewards.items())}
    d = np.array([a - b for step in tail_steps for a, b in rewards.get(step, [])])
    ci = None
    if len(d) > 1:
        boot = d[np.random.default_rng(seed).integers(0, len(d), (resamples, len(d)))].mean(1)
        ci = [round(float(x), 4) for x in np.percentile(boot, [2.5, 97.5])]
    return dict(by_iteration=by_it, tail=dict(steps=list(tail_steps), episodes=len(d), mean=mean(d), ci95=ci),
                rule='ppo minus frozen reward of the same episode (task, sample, iteration: the same draws); tail: the iterations the gain averages')


def summarise(root: Path, cfg, tail: int, extra: dict) -> dict:
    from cuda_agent_wb.train import read_metrics
    replays = replay_rewards(root/'sft')
    curves = {arm: arm_curve(root/arm, replays) for arm in ARMS}
    common = common_gains(curves, tail); gains = common['gains']
    pairs = {r['step']: matched_episodes(root, r['step']) for r in curves['ppo']}  # read once per iteration for both arms' rows
    same = {step: same_episodes(p) for step, p in pairs.items()}
    for arm in ARMS:
        for r in curves[arm]: r['same_as_other_arm'] = same.get(r['step'])
    n, t = common['iterations'], common['tail']
    paired = paired_difference({step: paired_rewards(p) for step, p in pairs.items()}, [r['step'] for r in curves['ppo'][n - t:n]] if t else [])
    for r in curves['ppo']: r['ppo_minus_frozen'] = paired['by_iteration'].get(r['step'], {}).get('mean')
    done = {arm: len(c) == cfg.ppo_iterations for arm, c in curves.items()}
    met, probe = None, json.loads((root/'lr_probe.json').read_text()) if (root/'lr_probe.json').is_file() else None
    moved = [r.get('kl_after') for r in curves['ppo']]
    kl_positive = bool(moved) and all(k is not None and k > 0 for k in moved)     # every ppo iteration's update moved the actor
    if gains['ppo'] is not None and gains['frozen'] is not None:
        met = gains['ppo'] >= TARGET and gains['ppo'] >= gains['frozen'] + TARGET and kl_positive
    return dict(preset=cfg.preset, model=cfg.tiny, tasks=cfg.tasks, backend=cfg.backend, ppo_iterations=cfg.ppo_iterations,
                ppo_episodes=cfg.ppo_episodes, actor_lr=probe['chosen'] if probe else cfg.actor_lr, lr_probe=probe, critic_lr=cfg.critic_lr,
                kl_coef=cfg.kl_coef, gamma=cfg.gamma, lam=cfg.lam, clip=[cfg.clip_low, cfg.clip_high], ppo_epochs=cfg.ppo_epochs, mini_batch=cfg.mini_batch, temperature=cfg.temperature, tail=tail,
                gain_over=dict(iterations=common['iterations'], tail=common['tail'],
                               rule='iterations both arms finished; the gain averages the last `tail` of them (fewer than asked when the time box cut the arms short) minus iteration 0'),
                ppo_gain=gains['ppo'], frozen_gain=gains['frozen'], iteration_0_shared=same.get(0) == 1.0, paired=paired, kl_positive=kl_positive,
                target=f"ppo_gain >= {TARGET} and >= frozen_gain + {TARGET}, and kl_after > 0 in every ppo iteration (kl_after: KL(sampler || actor after each update), k3)",
                target_met=met, arms_finished=done, fine_tuning=fine_tuning(read_metrics(root/'sft'/'metrics.jsonl')) if (root/'sft'/'metrics.jsonl').is_file() else None, replays=replays, curves=curves, **extra)


def report(path: Path, res: dict):
    "Curves of both arms, one panel per measure."
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots
    keys = ['reward_mean', 'gave_up_share', 'give_up_p_after', 'faster_share', 'second_kernel_share', 'pass_rate', 'heldout_reward_mean', 'heldout_pass_rate', 'kl_after', 'clip_frac',
            'entropy', 'policy_loss', 'turns_mean', 'same_as_other_arm', 'ppo_minus_frozen']
    fig = make_subplots(rows=(len(keys) + 3) // 4, cols=4, subplot_titles=keys)
    for arm, color in (('ppo', '#ef553b'), ('frozen', '#636efa')):
        c = res['curves'][arm]
        for i, k in enumerate(keys):
            fig.add_trace(go.Scatter(x=[r['step'] for r in c], y=[r.get(k) for r in c], mode='lines+markers', name=arm, legendgroup=arm,
                                     showlegend=i == 0, line=dict(color=color)), row=i // 4 + 1, col=i % 4 + 1)
    title = f"PPO vs a frozen actor ({res['preset']}): ppo_gain {res['ppo_gain']}, frozen_gain {res['frozen_gain']}"
    fig.update_layout(height=740, title=title, margin=dict(t=70, b=20, l=40, r=20))
    path.write_text(fig.to_html(include_plotlyjs='cdn'))


def arm_iterations(out: Path) -> int:
    "PPO iterations an arm has finished: the agentic rows of its metrics.jsonl (read_metrics skips a line still being written)."
    from cuda_agent_wb.train import read_metrics, STAGES
    m = read_metrics(out/'metrics.jsonl') if (out/'metrics.jsonl').is_file() else None
    return int((m['stage'] == STAGES[4]).sum()) if m is not None and 'stage' in m else 0


def time_is_up(a, t0: float, root: Path) -> bool:
    "--arm-minutes have passed and every arm has finished --min-iterations iterations (the time box never cuts the arms shorter)."
    if not a.arm_minutes or time.time() - t0 <= 60 * a.arm_minutes: return False
    return min(arm_iterations(root/arm) for arm in ARMS) >= a.min_iterations


def share_iteration_0(root: Path, arm: str = 'frozen') -> int:
    """Copy the ppo arm's finished iteration-0 episodes (training and held-out) into `arm`'s run, unless `arm` has PPO
    iterations of its own; the number copied. Iteration 0 is rolled out before any update, from the one fine-tuned
    checkpoint with the same keyed draws, so both arms would play the same policy there; played twice, the copies still
    parted at timings printed in observations (same_as_other_arm 0.56 and 0.69 in the eighth and ninth runs), and the
    ninth run's two iteration 0s differed by 0.44 in mean reward, noise that entered the gain gap whole. Shared, both
    gains start from the same 16 episodes, and the frozen arm skips one rollout. An episode missing here is played by the arm."""
    from cuda_agent_wb.rollout import read_trajectory
    from cuda_agent_wb.train import STAGES
    if arm_iterations(root/arm): return 0
    n = 0
    for kind in (STAGES[4], 'heldout'):
        src, dst = root/'ppo'/'trajectories'/kind/'it0000', root/arm/'trajectories'/kind/'it0000'
        for p in sorted(src.glob('*__s*.jsonl')):          # episodes, not the folder's rollout_summary.jsonl
            if read_trajectory(p)['summary'] is None: continue          # still being played
            dst.mkdir(parents=True, exist_ok=True); tmp = dst/(p.name + '.copying')
            shutil.copy(p, tmp); tmp.replace(dst/p.name); n += 1
    return n


def start_arm(arm: str, gpu: str, cfg, argv: list):
    "One arm's process (`--arm`), on GPU `gpu` when the backend is CUDA."
    env = dict(os.environ, **({'CUDA_VISIBLE_DEVICES': gpu} if cfg.backend == 'cuda' else {}))
    return subprocess.Popen([sys.executable, __file__, *argv, '--arm', arm], env=env, start_new_session=True)


def run_arms_in_parallel(a, cfg, write, root: Path, every: float = 30.0):
    """Each arm in its own process (GPUs from --arm-gpus), results rewritten every `every` s; arms still running when
    `time_is_up` are stopped (rerun to resume). The frozen arm starts once the ppo arm has logged iteration 0, whose
    episodes it shares (`share_iteration_0`)."""
    import signal
    gpus = a.arm_gpus.split(',')
    if len(gpus) != len(ARMS): raise SystemExit(f"--arm-gpus needs {len(ARMS)} GPU indices (one per arm: {', '.join(ARMS)}), not {a.arm_gpus!r}")
    if cfg.backend == 'cuda' and torch.cuda.device_count() <= max(map(int, gpus)):
        raise SystemExit(f"--arm-gpus {a.arm_gpus}: {torch.cuda.device_count()} GPU(s) visible")
    argv = [x for x in sys.argv[1:] if x not in ('--parallel', '--fresh')]
    gpu_of = dict(zip(ARMS, gpus))
    procs, t0, last = {'ppo': start_arm('ppo', gpu_of['ppo'], cfg, argv)}, time.time(), time.time()
    while True:
        if 'frozen' not in procs and (arm_iterations(root/'ppo') or procs['ppo'].poll() == 0):
            print(f"train_ppo_gain: the frozen arm starts, sharing the ppo arm's iteration 0 ({share_iteration_0(root)} episodes)", file=sys.stderr)
            procs['frozen'] = start_arm('frozen', gpu_of['frozen'], cfg, argv)
        if all(p.poll() is not None for p in procs.values()): break
        time.sleep(5.0)
        if time.time() - last > every: write(); last = time.time()
        if time_is_up(a, t0, root):
            for arm, p in procs.items():
                if p.poll() is None:
                    print(f"train_ppo_gain: arm {arm} stopped after {a.arm_minutes} min (its finished iterations are kept; rerun to resume)", file=sys.stderr)
                    os.killpg(p.pid, signal.SIGTERM)
            time.sleep(10)
            for p in procs.values():
                if p.poll() is None: os.killpg(p.pid, signal.SIGKILL)
            for p in procs.values(): p.wait()
            return
    if bad := {arm: p.returncode for arm, p in procs.items() if p.returncode}:
        write(); raise SystemExit(f"--parallel: arm(s) failed: {bad} (rerun to resume)")


def main():
    import faulthandler; faulthandler.enable()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--preset', default='gpu-100m-ppo-gain')
    ap.add_argument('--out', default=None, help='run folders OUT/sft, OUT/ppo, OUT/frozen (default: runs/train_ppo_gain[_smoke])')
    ap.add_argument('--set', action='append', default=[], metavar='KEY=VALUE', help='override a TrainConfig field (every run)')
    ap.add_argument('--tail', type=int, default=None, help='iterations averaged at the end of each arm (default 2; 1 with --smoke)')
    ap.add_argument('--smoke', action='store_true', help='toy settings on the CPU: checks the script, measures nothing')
    ap.add_argument('--fresh', action='store_true', help='start over instead of resuming OUT')
    ap.add_argument('--results', default=None, help='default: bench/results/train_ppo_gain.json (with --smoke: OUT/results.json)')
    ap.add_argument('--parallel', action='store_true', help='after fine-tuning, run the two arms at once, one process and one GPU each')
    ap.add_argument('--arm', choices=sorted(ARMS), default=None, help='run only this arm (what --parallel starts; needs the fine-tuned checkpoint)')
    ap.add_argument('--arm-gpus', default='0,1', help="with --parallel: the GPU of each arm (ppo, frozen), e.g. '0,1', or '0,0' for both on one GPU")
    ap.add_argument('--arm-minutes', type=float, default=None, help='with --parallel: stop the arms after this many minutes (finished iterations are kept)')
    ap.add_argument('--min-iterations', type=int, default=0, help='with --arm-minutes: not before every arm has finished this many PPO iterations (iteration 0 counts)')
    ap.add_argument('--probe-lrs', default=PROBE_LRS, help=f"actor learning rates tried on the fine-tuned checkpoint before the arms (default {PROBE_LRS})")
    ap.add_argument('--target-kl', type=float, default=TARGET_KL, help=f"the ppo arm takes the largest probed rate whose update's KL is at most this (default {TARGET_KL})")
    ap.add_argument('--no-probe', action='store_true', help="the ppo arm takes the preset's actor_lr, untested")
    a = ap.parse_args()
    a.tail = a.tail or (1 if a.smoke else 2)
    if a.smoke: torch.set_num_threads(1)    # a toy model on a CPU: one thread. With two OpenMP threads on a busy 2-core CI machine the probe's
                                            # backward passes spun in OpenMP barriers: 1560 s for what takes 80 s (fresh-clone CI, 2026-11-26)
    if a.min_iterations < 0: raise SystemExit(f"--min-iterations {a.min_iterations}: give a whole number >= 0")
    if not a.no_probe: parse_rates(a.probe_lrs)           # a bad list is one line now, not after the fine-tuning
    import transformers
    from cuda_agent_wb.train import Trainer, make_config, parse_overrides, survive, STAGES
    root = Path(a.out or ('runs/train_ppo_gain_smoke' if a.smoke else 'runs/train_ppo_gain'))
    results = Path(a.results or (root/'results.json' if a.smoke else HERE/'results'/'train_ppo_gain.json'))
    if a.fresh and root.exists(): shutil.rmtree(root)
    sets = parse_overrides((SMOKE if a.smoke else []) + a.set)
    for k in ('stages', 'out_dir'): sets.pop(k, None)          # the script sets these per run
    cfg = make_config(a.preset, out_dir=str(root/'sft'), **sets)
    if cfg.backend == 'cuda' and not torch.cuda.is_available(): raise SystemExit("no CUDA device visible: run this on a GPU machine, or --smoke")
    start = time.time()
    extra = dict(device=torch.cuda.get_device_name(0) if cfg.backend == 'cuda' else 'cpu', torch=torch.__version__,
                 transformers=transformers.__version__, command=' '.join(sys.argv), smoke=a.smoke,
                 claim=('reward_mean / pass_rate: the tasks it was fine-tuned on; heldout_*: ' + (', '.join(cfg.held_out) + ', kept out of fine-tuning and PPO '
                        '(a 100M random-init model is not expected to generalise to them)' if cfg.held_out else 'none held out')))

    def write(plot=True):
        touch_call(root/'calls.jsonl', start, time.time())
        res = summarise(root, cfg, a.tail, dict(extra, minutes=call_minutes(root/'calls.jsonl')))
        results.parent.mkdir(parents=True, exist_ok=True)
        tmp = results.with_suffix('.tmp'); tmp.write_text(json.dumps(res, indent=1) + '\n'); tmp.replace(results)
        if plot: survive(f"the HTML report {results.with_suffix('.html')}", report, results.with_suffix('.html'), res)
        return res

    if a.arm is None:         # stages 2 and 3 once, shared by both arms
        sft = Trainer(make_config(a.preset, out_dir=str(root/'sft'), stages=[2, 3], **sets))
        sft.rft_pool = lambda: branch_pool(sft)
        sft.run()
        del sft; torch.cuda.empty_cache() if torch.cuda.is_available() else None
        if not a.no_probe and not (root/'lr_probe.json').is_file():
            probe = probe_lrs(root, a.preset, sets, parse_rates(a.probe_lrs), a.target_kl)
            (root/'lr_probe.json').write_text(json.dumps(probe, indent=1) + '\n')
        write(plot=False)
    elif not (root/'sft'/'checkpoints'/'last').is_dir(): raise SystemExit(f"--arm {a.arm}: no fine-tuned checkpoint under {root/'sft'}: run without --arm first")
    if a.parallel and a.arm is None:
        run_arms_in_parallel(a, cfg, write, root)
        res = write()
        print(json.dumps({k: v for k, v in res.items() if k not in ('curves', 'replays')}, indent=1))
        return
    for arm, lr in ARMS.items():
        if a.arm not in (None, arm): continue
        if lr is None and not a.no_probe: lr = json.loads((root/'lr_probe.json').read_text())['chosen']
        out = root/arm
        if not (out/'checkpoints'/'last').is_dir():      # start the arm from the fine-tuned checkpoint
            out.mkdir(parents=True, exist_ok=True)
            for name in ('base', 'rft'): shutil.copytree(root/'sft'/name, out/name, dirs_exist_ok=True)
            shutil.copy(root/'sft'/'metrics.jsonl', out/'metrics.jsonl')
            tmp = out/'checkpoints'/'last.copying'            # renamed when whole: a call cut off here starts the copy again
            shutil.rmtree(tmp, ignore_errors=True); shutil.copytree(root/'sft'/'checkpoints'/'last', tmp); tmp.rename(out/'checkpoints'/'last')
        if arm != 'ppo': share_iteration_0(root, arm)     # the ppo arm's iteration 0, where it has one (--parallel copied it already)
        ov = dict(sets, actor_lr=lr) if lr is not None else sets
        tr = Trainer(make_config(a.preset, out_dir=str(out), stages=[2, 3, 4], **ov))
        tr.metrics.listeners.append(ForkTracker(root, tr, out))     # before the writer, so its row is there when the results are written
        if a.arm is None: tr.metrics.listeners.append(lambda rec: write() if rec['stage'] == STAGES[4] else None)   # one writer: --parallel's parent
        tr.run()
    if a.arm is not None: return
    res = write()
    print(json.dumps({k: v for k, v in res.items() if k not in ('curves', 'replays')}, indent=1))


if __name__ == '__main__':
    main()
    # results are on disk: leave without the interpreter's shutdown (bench/train_gpu.py says why)
    sys.stdout.flush(); sys.stderr.flush(); os._exit(0)
