"""RL framework adapters against a real `cawb serve` (CPU backend): TRL's GRPOTrainer with our reward function for one
step, the reward function on a real solution, verl's tool loaded through verl's own tool registry, verl's reward."""
import asyncio, json, os
from pathlib import Path
import pytest
from conftest import ROOT, Service, free_port

RELU = ROOT/'data/tasks/relu.py'
SOL = ROOT/'tests/solutions/cpu/relu_valid'


def fenced(sol: Path) -> str:
    "relu_valid written as a single-turn reply: fenced blocks named by path."
    files = {'model_new.py': (sol/'model_new.py').read_text()}
    files.update({str(f.relative_to(sol)): f.read_text() for f in (sol/'kernels').iterdir() if f.is_file()})
    return 'Here is my solution.\n' + '\n'.join(f"```{'python' if k.endswith('.py') else 'cpp'} {k}\n{v}```" for k, v in files.items())


@pytest.fixture(scope='module')
def service(tmp_path_factory):
    svc = Service(tmp_path_factory.mktemp('svc')/'q.sqlite', free_port(), workers=1).start()
    os.environ['CAWB_SERVICE_URL'] = svc.url
    yield svc
    os.environ.pop('CAWB_SERVICE_URL', None)
    svc.stop()


def test_trl_reward_function_and_grpo_step(service, tmp_path):
    from cuda_agent_wb.adapters import trl_reward
    fn = trl_reward(service.url)
    src = RELU.read_text()
    rewards = fn(prompts=['p', 'p', 'p'], completions=[fenced(SOL), 'no code', [{'role': 'assistant', 'content': fenced(SOL)}]], task=[src, src, str(RELU)])
    assert rewards[1] == -1.0 and rewards[0] >= 1 and rewards[2] >= 1, rewards
    assert fn(prompts=['p'], completions=[fenced(SOL)], task=['class Model(']) == [None]       # a broken task row: the task's error, not scored (TRL leaves None out); the batch goes on

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from cuda_agent_wb.policy import tiny_lm
    model, tok = tiny_lm()
    calls = []
    def counted(**kw):
        r = fn(**kw); calls.append(r); return r
    counted.__name__ = 'cawb_kernel_reward'
    ds = Dataset.from_list([{'prompt': f"Write a CUDA kernel for:\n{src}", 'task': src}] * 4)
    cfg = GRPOConfig(output_dir=str(tmp_path/'grpo'), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                     max_completion_length=8, report_to='none', logging_steps=1, save_strategy='no', use_cpu=True, bf16=False)
    trainer = GRPOTrainer(model=model, reward_funcs=[counted], args=cfg, train_dataset=ds, processing_class=tok)
    trainer.train()
    assert calls and all(r == -1.0 for c in calls for r in c)          # random-init replies carry no solution
    assert any('rewards/cawb_kernel_reward/mean' in h or 'reward' in h for h in trainer.state.log_history[0])


def test_verl_tool_through_registry_and_reward(service, tmp_path):
    from verl.tools.tool_registry import initialize_tools_from_config
    cfg = tmp_path/'tools.yaml'
    cfg.write_text(f"tools:\n  - class_name: cuda_agent_wb.adapters.CawbEvaluateTool\n    config:\n      type: native\n      url: {service.url}\n")
    (tool,) = initialize_tools_from_config(str(cfg))
    assert tool.name == 'evaluate_kernel'
    async def episode():
        iid, _ = await tool.create(ground_truth=RELU.read_text())
        bad = await tool.execute(iid, {'solution': 'nothing'})
        good = await tool.execute(iid, {'solution': fenced(SOL)})
        best = await tool.calc_reward(iid)
        await tool.release(iid)
        return bad, good, best
    bad, good, best = asyncio.run(episode())
    async def malformed():                                   # bad tool calls get an error reply, not an exception
        iid, _ = await tool.create(ground_truth=RELU.read_text())
        return await tool.execute('no-such-episode', {'solution': 'x'}), await tool.execute(iid, 'not an object'), await tool.execute(iid, {'files': 3})
    for resp, score, _ in asyncio.run(malformed()): assert score == -1.0 and resp.text.startswith('Error'), resp.text
    assert bad[1] == -1.0 and 'no solution' in bad[0].text
    assert good[1] >= 1 and good[2]['correct'] and 'reward:' in good[0].text and best == good[1]

    from cuda_agent_wb.adapters import compute_score, compute_score_batch
    s = compute_score('kernelbench', fenced(SOL), str(RELU), {'cawb_url': service.url})
    assert s['correct'] and s['score'] >= 1
    b = compute_score_batch(['kb', 'kb'], ['nothing', fenced(SOL)], [str(RELU)] * 2, [{'cawb_url': service.url}] * 2)
    assert [x['parsed'] for x in b] == [False, True] and b[1]['score'] == s['score']
    te = compute_score('kernelbench', fenced(SOL), 'class Model(', {'cawb_url': service.url})   # a broken task: not the reply's -1
    assert te['invalid'] and te['score'] == 0.0 and not s['invalid'], te


def test_trl_openenv_environment_factory_one_step(service, tmp_path):
    """TRL's OpenEnv integration (`GRPOTrainer(environment_factory=...)`) against a real `cawb env-serve`: the tools play an
    episode on the server, and one GRPO step with a tiny random-init model runs its rollouts there."""
    os.environ['TRL_EXPERIMENTAL_SILENCE'] = '1'
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen2_5_chat_template
    from cuda_agent_wb.adapters import trl_environment
    from cuda_agent_wb.policy import tiny_lm
    from conftest import EnvServer
    srv = EnvServer(free_port(), '--service', service.url).start()
    try:
        factory = trl_environment(srv.url)
        env = factory()                                     # the tools, called as TRL calls them
        assert 'class Model(nn.Module)' in env.reset(task=str(RELU), prompt=[])
        for f in [SOL/'model_new.py', *sorted((SOL/'kernels').iterdir())]: assert env.write_file(str(f.relative_to(SOL)), f.read_text()).startswith('Created')
        assert env.verify().endswith('reward: 1') and env.get_reward() == 1.0
        assert 'kernels/relu.cpp' in env.glob('kernels/*') and env.finish('done').startswith('Episode finished')
        model, tok = tiny_lm(); tok.chat_template = qwen2_5_chat_template      # a template that renders tool calls
        ds = Dataset.from_list([{'prompt': [{'role': 'user', 'content': 'Make it fast.\n'}], 'task': str(RELU)}] * 2)
        cfg = GRPOConfig(output_dir=str(tmp_path/'grpo'), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                         max_completion_length=8, report_to='none', logging_steps=1, save_strategy='no', use_cpu=True, bf16=False)
        trainer = GRPOTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok, environment_factory=factory)
        trainer.train()
        info = srv.info()
    finally: srv.stop()
    log = trainer.state.log_history[0]
    assert log['rewards/TRLKernelEnv/mean'] == -1.0 and log['step'] == 1, log      # random replies call no tool: nothing scored
    assert info['episodes']['started'] >= 3, info                                   # the probe's episode, then one per rollout
