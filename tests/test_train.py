"Integration tests of the RL pipeline: formulas by hand, the precision path, learning on the toy, resume, CLI, papermill."
import json, math, os, subprocess, sys
from pathlib import Path
import pytest, torch
from conftest import ROOT, run_cawb
from cuda_agent_wb.rl import gae_advantages, ppo_policy_loss, value_loss, forward_logprobs
from cuda_agent_wb.train import Trainer, make_config, read_metrics, collate, episode_from_trajectory

torch.set_num_threads(min(2, os.cpu_count() or 1))


def test_gae_by_hand_with_masks():
    # two rows; row 0 has an observation token at t=2 (value 9 must be ignored), row 1 is padded after t=1
    mask = torch.tensor([[1., 1., 0., 1.], [1., 1., 0., 0.]])
    values = torch.tensor([[0.5, 0.2, 9.0, 0.4], [0.1, 0.3, 5.0, 5.0]])
    rewards = torch.tensor([[0., 0., 0., 1.], [0., -1., 0., 0.]])
    adv, ret = gae_advantages(rewards, values, mask, gamma=1.0, lam=0.5)
    # row 0: A3 = 1-0.4 = 0.6; A1 = (0.4-0.2) + 0.5*0.6 = 0.5; A0 = (0.2-0.5) + 0.5*0.5 = -0.05
    # row 1: A1 = -1-0.3 = -1.3; A0 = (0.3-0.1) + 0.5*(-1.3) = -0.45
    torch.testing.assert_close(adv, torch.tensor([[-0.05, 0.5, 0., 0.6], [-0.45, -1.3, 0., 0.]]))
    torch.testing.assert_close(ret, torch.tensor([[0.45, 0.7, 0., 1.0], [-0.35, -1.0, 0., 0.]]))


def test_ppo_loss_by_hand_asymmetric_clip_and_mask():
    logp = torch.log(torch.tensor([[1.0, 1.5, 0.5, 1.25, 100.]]))
    adv, mask = torch.tensor([[1., 1., -1., 1., 1.]]), torch.tensor([[1., 1., 1., 1., 0.]])
    loss, clipfrac, _ = ppo_policy_loss(logp, torch.zeros(1, 5), adv, mask, clip_low=0.2, clip_high=0.28)
    # -1 (ratio 1), -1.28 (1.5 clipped high), 0.8 (0.5 clipped low, A<0), -1.25 (inside 1+0.28), masked token ignored
    assert math.isclose(loss.item(), (-1 - 1.28 + 0.8 - 1.25) / 4, rel_tol=1e-6)
    assert math.isclose(clipfrac.item(), 0.5, rel_tol=1e-6)


def test_value_loss_by_hand_with_mask():
    v, v_old, ret = torch.tensor([[1.0, 0.0, 0.6, 7.]]), torch.tensor([[0.5, 0.5, 0.5, 0.]]), torch.tensor([[2.0, 0.0, 1.0, 0.]])
    loss, cf = value_loss(v, v_old, ret, torch.tensor([[1., 1., 1., 0.]]), clip=0.2)
    # max((1-2)^2, (0.7-2)^2) = 1.69; max(0, 0.3^2) = 0.09; max(0.16, 0.16) = 0.16; 4th token masked
    assert math.isclose(loss.item(), 0.5 * (1.69 + 0.09 + 0.16) / 3, rel_tol=1e-6)
    assert math.isclose(cf.item(), 2 / 3, rel_tol=1e-6)


def _toy_trainer(tmp_path, **kw):
    cfg = make_config('toy', out_dir=str(tmp_path/'run'), stages=[4], save_every=100, **kw)
    return Trainer(cfg)


def test_ratio_logprobs_come_from_the_training_precision_path(tmp_path):
    tr = _toy_trainer(tmp_path, ppo_episodes=8, mini_batch=8, micro_batch=4)
    trajs = tr.collect(4, 0)
    mbs = tr.micro_batches([episode_from_trajectory(t, tr.tok) for t in trajs], 'x', 4)
    tr.score(mbs)
    # the update's first forward (same function, same micro-batch, no step yet) reproduces the behaviour log-probs bit
    # for bit: the ratio is exactly 1 on every trainable token
    stats = tr.ppo_microstep(mbs[0], 1.0, True)
    assert stats['ratio_dev'] == 0.0
    # ...and a different precision on the behaviour side (the paper's BF16-vs-FP16 failure) would not
    with torch.no_grad():
        lp16 = forward_logprobs(tr.actor.to(torch.bfloat16), mbs[1]['input_ids'], mbs[1]['attention_mask'])
    assert (lp16 - mbs[1]['old_logp']).abs().mul(mbs[1]['mask']).max().item() > 1e-4
    tr.close()


def test_toy_reward_rises(tmp_path):
    "Proof of learning: a tiny random-init model's reward on the toy environment rises within ~15 PPO iterations."
    tr = _toy_trainer(tmp_path, ppo_iterations=15)
    tr.run()
    m = read_metrics(tmp_path/'run'/'metrics.jsonl')
    assert list(m['stage'].unique()) == ['agentic'] and len(m) == 15
    first, last = m.head(5), m.tail(5)
    print(m[['step', 'reward_mean', 'pass_rate', 'parse_error_rate', 'entropy', 'kl', 'clip_frac']].round(3).to_string())
    assert last['reward_mean'].mean() > first['reward_mean'].mean() + 0.15, m['reward_mean'].tolist()
    assert last['pass_rate'].mean() > first['pass_rate'].mean() + 0.05, m['pass_rate'].tolist()
    assert last['parse_error_rate'].mean() < first['parse_error_rate'].mean() - 0.2, m['parse_error_rate'].tolist()
    assert (m['ratio_dev'] == 0).all()


def test_resume_after_a_crash(tmp_path):
    cfg = make_config('toy', out_dir=str(tmp_path/'run'), stages=[4], ppo_iterations=3, ppo_episodes=8, mini_batch=8,
                      micro_batch=8, save_every=1)
    tr = Trainer(cfg); orig = tr.ppo_iteration
    def crash(stage, it):
        if it == 2: raise RuntimeError('killed')
        return orig(stage, it)
    tr.ppo_iteration = crash
    with pytest.raises(RuntimeError, match='killed'): tr.run()
    # a record written after the last checkpoint (the crash came mid-iteration) is dropped on resume
    with open(tmp_path/'run'/'metrics.jsonl', 'a') as f: f.write(json.dumps(dict(stage='agentic', step=2, reward_mean=9.9)) + '\n')
    tr2 = Trainer(cfg)
    assert tr2.state == dict(done=[], stage=4, step=2)
    for (n, a), (_, b) in zip(tr.actor.named_parameters(), tr2.actor.named_parameters()): assert torch.equal(a, b), n
    for a, b in zip(tr.opt_c.state_dict()['state'].values(), tr2.opt_c.state_dict()['state'].values()):
        assert torch.equal(a['exp_avg'], b['exp_avg'])
    tr2.run()
    m = read_metrics(tmp_path/'run'/'metrics.jsonl')
    assert m['step'].tolist() == [0, 1, 2] and 9.9 not in m['reward_mean'].tolist()
    assert Trainer(cfg).state['done'] == [4]


def test_cli_train_all_stages_on_toy(tmp_path):
    out = tmp_path/'cli'
    sets = ['warmup_iterations=1', 'warmup_episodes=8', 'rft_samples=8', 'rft_scripted=true', 'sft_epochs=1', 'value_epochs=1',
            'ppo_iterations=1', 'ppo_episodes=8', 'mini_batch=8', 'micro_batch=8']
    r = run_cawb('train', '--preset', 'toy', '--out', out, *[a for s in sets for a in ('--set', s)], timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    m = read_metrics(out/'metrics.jsonl')
    assert set(m['stage']) == {'warmup', 'rft', 'value', 'agentic'}
    assert (out/'final'/'actor'/'config.json').exists() and (out/'final'/'critic'/'config.json').exists()
    assert (out/'rft'/'dataset.jsonl').read_text().strip()        # the scripted bisect demos pass the filters
    r = run_cawb('train', '--preset', 'toy', '--out', out, '--set', 'ppo_iteratons=1')
    assert r.returncode == 2 and 'unknown training setting(s) ppo_iteratons' in r.stderr
    # --no-resume starts over: the first run's records, trajectories and RFT dataset are gone
    r = run_cawb('train', '--preset', 'toy', '--out', out, '--stages', '4', '--no-resume', *[a for s in sets[-4:] for a in ('--set', s)])
    assert r.returncode == 0, r.stderr[-3000:]
    assert set(read_metrics(out/'metrics.jsonl')['stage']) == {'agentic'} and not (out/'rft').exists()


def test_papermill_workflow_headless(tmp_path):
    "The workflow notebook runs headless with papermill (toy preset, a few seconds of each stage)."
    out, nb = tmp_path/'pm', tmp_path/'out.ipynb'
    ov = json.dumps(dict(warmup_iterations=1, warmup_episodes=8, rft_samples=8, rft_scripted=True, sft_epochs=1, value_epochs=1,
                         ppo_iterations=1, ppo_episodes=8, mini_batch=8, micro_batch=8))
    r = subprocess.run([sys.executable, '-m', 'papermill', str(ROOT/'nbs/workflows/train.ipynb'), str(nb), '-p', 'preset', 'toy',
                        '-p', 'out_dir', str(out), '-y', f'overrides: {ov}', '--cwd', str(ROOT)],
                       capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    assert set(read_metrics(out/'metrics.jsonl')['stage']) == {'warmup', 'rft', 'value', 'agentic'}


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get('CAWB_SLOW_TESTS'), reason="set CAWB_SLOW_TESTS=1: the tiny-cpu papermill run takes minutes")
def test_papermill_tiny_cpu_kernel_env(tmp_path):
    "The acceptance run: all four stages on the real kernel environment with a tiny random-init model."
    out, nb = tmp_path/'tiny', tmp_path/'out.ipynb'
    r = subprocess.run([sys.executable, '-m', 'papermill', str(ROOT/'nbs/workflows/train.ipynb'), str(nb), '-p', 'preset', 'tiny-cpu',
                        '-p', 'out_dir', str(out), '--cwd', str(ROOT)], capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    assert set(read_metrics(out/'metrics.jsonl')['stage']) == {'warmup', 'rft', 'value', 'agentic'}


def test_two_processes_ddp_on_cpu(tmp_path):
    "The multi-process path (sharded episodes, DDP gradient sync, reduced metrics, gathered RFT dataset), on 2 CPU processes."
    out = tmp_path/'ddp'
    sets = ['warmup_iterations=1', 'warmup_episodes=8', 'rft_samples=8', 'rft_scripted=true', 'sft_epochs=1', 'value_epochs=1',
            'ppo_iterations=1', 'ppo_episodes=8', 'mini_batch=8', 'micro_batch=2']
    env = {**os.environ, 'ACCELERATE_USE_CPU': 'true', 'OMP_NUM_THREADS': '1'}
    r = subprocess.run([sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node', '2', '-m', 'cuda_agent_wb.train',
                        '--preset', 'toy', '--out', str(out), *[a for s in sets for a in ('--set', s)]],
                       capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    m = read_metrics(out/'metrics.jsonl')
    assert set(m['stage']) == {'warmup', 'rft', 'value', 'agentic'}
    assert m[m['stage'] == 'agentic']['episodes'].tolist() == [8.0]          # 4 per process, summed
    assert m[(m['stage'] == 'rft') & (m['phase'] == 'filter')]['pool'].tolist() == [18.0]   # 8 sampled + 10 expert demos
    assert len((out/'rft'/'dataset.jsonl').read_text().splitlines()) >= 10
    assert len(list((out/'trajectories'/'agentic'/'it0000').glob('*.jsonl'))) == 8


def test_bench_scripts_write_results_during_the_run_and_time_saves_apart(tmp_path):
    "bench/train_gpu.py and bench/train_demo.py (their CPU checks) write results as they go; saves are timed apart."
    gpu = subprocess.run([sys.executable, str(ROOT/'bench/train_gpu.py'), '--backend', 'cpu', '--steps', '1', '--episodes', '2',
                          '--set', 'tiny={"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}', '--set', 'dtype=float32',
                          '--set', 'grad_ckpt=false', '--set', 'max_new_tokens=16', '--set', 'max_turns=1', '--set', 'samples_per_task=1',
                          '--set', 'mini_batch=2', '--out', str(tmp_path/'tg'), '--results', str(tmp_path/'tg.json')],
                         capture_output=True, text=True, cwd=ROOT)
    assert gpu.returncode == 0, gpu.stderr[-2000:]
    r = json.loads((tmp_path/'tg.json').read_text())
    assert r['finished'] and r['steps'] == 1 and r['checkpoints'] >= 2 and r['checkpoint_s'] >= 0 and r['export_s'] >= 0
    sets = ['warmup_iterations=1', 'warmup_episodes=8', 'rft_samples=8', 'sft_epochs=1', 'value_epochs=1', 'ppo_iterations=2',
            'ppo_episodes=8', 'mini_batch=8', 'micro_batch=8']
    demo = [sys.executable, str(ROOT/'bench/train_demo.py'), '--preset', 'toy', '--backend', 'cpu', '--out', str(tmp_path/'td'),
            '--results', str(tmp_path/'td.json'), *[x for s in sets for x in ('--set', s)]]
    d = subprocess.run(demo, capture_output=True, text=True, cwd=ROOT)
    assert d.returncode == 0, d.stderr[-2000:]
    r = json.loads((tmp_path/'td.json').read_text())
    assert r['finished'] and r['agentic_iterations'] == 2 and len(r['curve']) == 2 and r['minutes'] > 0
    assert r['final_reward_mean'] == r['curve'][-1]['reward_mean'] and (tmp_path/'td.html').stat().st_size > 1000
    assert 0 < r['curve'][0]['end_min'] <= r['curve'][1]['end_min'] <= r['minutes'] + 0.01, r['curve']   # when each iteration ended
    ends = r['stage_ends_s']                      # where the time went: each stage's last record, from the run's start
    assert list(ends) == ['warmup', 'rft', 'value', 'agentic'] and 0 < ends['warmup'] <= ends['rft'] <= ends['value'] <= ends['agentic'], ends
    # a second call resumes a finished run: nothing new is trained, and its time is added to the first call's
    d2 = subprocess.run(demo, capture_output=True, text=True, cwd=ROOT)
    assert d2.returncode == 0, d2.stderr[-2000:]
    r2 = json.loads((tmp_path/'td.json').read_text())
    assert r2['curve'] == r['curve'] and r2['minutes'] >= r['minutes']
    assert len((tmp_path/'td'/'calls.jsonl').read_text().splitlines()) == 2


def test_train_demo_target_is_the_first_iteration_at_the_bar_within_its_minutes():
    "bench/train_demo.py's target_reached: the first iteration at reward >= 1 and pass >= 50 % that ended within 15 min."
    import importlib.util
    spec = importlib.util.spec_from_file_location('train_demo', ROOT/'bench/train_demo.py'); td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    curve = [dict(step=0, reward_mean=0.9, pass_rate=0.9, end_min=5.0), dict(step=1, reward_mean=1.0, pass_rate=0.5, end_min=9.0),
             dict(step=2, reward_mean=1.5, pass_rate=1.0, end_min=12.0)]
    assert td.target_reached(curve) == dict(iteration=1, minutes=9.0, reward_mean=1.0, pass_rate=0.5)
    assert td.target_reached([dict(step=0, reward_mean=2.0, pass_rate=1.0, end_min=15.5)]) is None        # too late
    assert td.target_reached([dict(step=0, reward_mean=1.0, pass_rate=0.25, end_min=3.0)]) is None        # pass rate under the bar
    assert td.target_reached([dict(step=0, reward_mean=1.0, pass_rate=1.0)]) is None                      # no end time: no claim


def test_held_out_tasks_are_played_every_ppo_iteration_and_never_trained_on(tmp_path):
    "held_out: stage 4 plays each held-out task once per iteration (heldout_* metrics) and trains only on the other tasks."
    from cuda_agent_wb.rollout import read_trajectory
    from cuda_agent_wb.train import run_pipeline
    cfg = make_config('tiny-cpu', out_dir=str(tmp_path/'run'), stages=[4], tasks=['relu'], held_out=['scale_gelu'],
                      ppo_iterations=2, ppo_episodes=2, max_turns=2, max_new_tokens=16)
    run_pipeline(cfg)
    m = read_metrics(tmp_path/'run'/'metrics.jsonl')
    assert list(m['stage']) == ['agentic', 'agentic'] and m['heldout_episodes'].tolist() == [1, 1], m.to_dict()
    assert m['heldout_reward_mean'].notna().all() and m['heldout_pass_rate'].notna().all()
    traj = lambda d: {read_trajectory(p)['header']['task_id'] for p in (tmp_path/'run'/'trajectories'/d).rglob('*__s*.jsonl')}
    assert traj('agentic') == {'relu'} and traj('heldout') == {'scale_gelu'}
