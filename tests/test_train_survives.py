"""Runs that survive their reports (issue 26): a listener, a checkpoint or the export that fails is one stderr line and the
run goes on; closing an evaluator, sandbox, pool or trainer twice, or before it started, does nothing."""
import multiprocessing as mp
import httpx
from cuda_agent_wb.client import RemoteEvaluator
from cuda_agent_wb.reward import Evaluator
from cuda_agent_wb.rollout import EvaluatorPool
from cuda_agent_wb.sandbox import Sandbox
from cuda_agent_wb.train import Trainer, make_config, read_metrics


def test_a_failing_listener_checkpoint_and_export_do_not_end_the_run(tmp_path, capfd):
    cfg = make_config('toy', out_dir=str(tmp_path/'run'), stages=[4], ppo_iterations=2, ppo_episodes=8, mini_batch=8,
                      micro_batch=8, save_every=1)
    tr, seen = Trainer(cfg), []
    def plot_listener(rec): raise ModuleNotFoundError("No module named 'plotly'")
    tr.metrics.listeners += [plot_listener, seen.append]
    saves = iter([OSError('No space left on device')])                  # the first checkpoint fails, the later ones work
    orig_save = tr.acc.save_state
    def save_state(d):
        if (e := next(saves, None)) is not None: raise e
        return orig_save(d)
    tr.acc.save_state = save_state
    def broken(*a, **k): raise PermissionError('read-only file system')
    tr.tok.save_pretrained = broken                                    # the final export fails
    assert tr.run() == tmp_path/'run'
    err = [l[l.index('cawb train:'):] for l in capfd.readouterr().err.splitlines() if 'cawb train:' in l]
    listener = [l for l in err if 'plot_listener' in l]
    assert len(listener) == 2 and 'at agentic step 0 failed (ModuleNotFoundError: No module named ' in listener[0], err
    assert all(l.endswith('; the run goes on') for l in err), err
    assert any('the checkpoint' in l and 'OSError: No space left on device' in l for l in err), err
    assert any('the export of the actor' in l and 'PermissionError: read-only file system' in l for l in err), err
    assert [r['step'] for r in seen] == [0, 1]                          # the next listener still got every record
    assert read_metrics(tmp_path/'run'/'metrics.jsonl')['step'].tolist() == [0, 1]
    assert Trainer(cfg).state == dict(done=[4], stage=None, step=0)    # the later checkpoints were written
    tr.close(); tr.close()


def test_close_twice_or_before_start_is_a_no_op():
    s = Sandbox(preload=()); s.proc = mp.get_context('spawn').Process(target=print)   # made, never started (a failed start)
    s.close(); s.close()
    s2 = Sandbox(preload=()); s2.ensure_zygote(); proc = s2.proc
    s2.close(); s2.close()
    assert not proc.is_alive()
    ev = Evaluator('cpu'); ev.ref.proc = mp.get_context('spawn').Process(target=print)
    ev.close(); ev.close()
    pool = EvaluatorPool([Evaluator('cpu'), Evaluator('cpu')])
    pool.close(); pool.close()
    rem = RemoteEvaluator.__new__(RemoteEvaluator); rem.http = httpx.Client()          # as connected, no service needed
    rem.close(); rem.close()
    tr = Trainer.__new__(Trainer); tr._evaluator = Evaluator('cpu')
    tr.close(); tr.close()
    assert tr._evaluator is None
