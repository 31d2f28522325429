"""A task's error is the task's, not the candidate's (`task_error`: no reward, the episode invalid, left out of training
and metrics); bad numbers and misspelt settings get one sentence; a dead service URL fails at once; waits are said."""
import json, re
from pathlib import Path
import httpx, pytest
from conftest import ROOT, run_cawb, Service, free_port

RELU = ROOT/'data/tasks/relu.py'
SOL = ROOT/'tests/solutions/cpu/relu_valid'


def broken_task(d: Path) -> Path:
    "relu.py (so the scripted policy has a script for it) that raises when loaded."
    p = d/'relu.py'; p.write_text("raise RuntimeError('boom at import')\n" + RELU.read_text())
    return p


def assert_task_error_text(r):
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = [l for l in r.stdout.splitlines() if l.startswith('task error:')]
    assert len(lines) == 1 and 'boom at import' in lines[0], r.stdout
    assert 'reward: -1' not in r.stdout and 'Traceback' not in r.stdout + r.stderr, r.stdout + r.stderr


def test_task_error_cli_local(tmp_path):
    task = broken_task(tmp_path)
    assert_task_error_text(run_cawb('evaluate', task, SOL, '--backend', 'cpu', '--local'))
    r = run_cawb('evaluate', task, SOL, '--backend', 'cpu', '--local', '--json')
    d = json.loads(r.stdout.splitlines()[-1])
    assert r.returncode == 1 and d['reward'] is None and d['reward_continuous'] is None and not d['correct']
    assert 'boom at import' in d['task_error'] and d['flags'] == [], d


def test_task_error_rollout_marks_the_episode_invalid(tmp_path):
    from cuda_agent_wb.rollout import read_trajectory, trajectory_invalid
    from cuda_agent_wb.train import rollout_stats, rft_reject_reason
    from cuda_agent_wb.eval import best_solutions
    r = run_cawb('rollout', broken_task(tmp_path), '--policy', 'scripted', '--backend', 'cpu', '--out', tmp_path/'traj', '--local')
    assert 'Traceback' not in r.stderr and r.returncode == 1, (r.returncode, r.stderr)              # nothing was scored
    assert 'relu sample 0: a task error, not scored' in r.stderr and 'boom at import' in r.stderr, r.stderr
    f, = (tmp_path/'traj').glob('relu__s0.jsonl')
    t = read_trajectory(f); sm = t['summary']
    assert sm['invalid'] is True and sm['stop_reason'] == 'task_error' and 'boom at import' in sm['task_error'], sm
    assert sm['best_reward'] is None and trajectory_invalid(t)
    assert all(s['reward'] is None for s in t['steps'] if (s.get('result') or {}).get('task_error'))
    assert rollout_stats([t])['task_errors'] == 1 and rollout_stats([t])['reward_mean'] is None   # not counted in reward means
    assert rft_reject_reason(t) == 'task_error'                                                    # not trained on
    df, errors = best_solutions(tmp_path/'traj')
    assert len(df) == 0 and any('a task error, left out' in e for e in errors), errors
    e = run_cawb('eval', tmp_path/'traj', timeout=300)                                            # nothing left to score: one sentence
    assert e.returncode == 2 and 'a task error, left out' in e.stderr and 'Traceback' not in e.stderr, e.stderr


def test_episode_of_a_task_error_is_masked_out():
    from cuda_agent_wb.train import episode_from_trajectory, char_tokenizer
    tok = char_tokenizer()
    h = dict(task_id='relu', system_prompt='s', task_prompt='t')
    step = dict(turn=1, model_text='x', action=None, parse_error=None, observation='o', reward=None,
                result=dict(task_error='reference: boom', reward=None))
    ep = episode_from_trajectory(dict(header=h, steps=[step], summary=dict(invalid=True, task_error='reference: boom')), tok)
    assert sum(ep.mask) == 0 and ep.meta['invalid'] is True


@pytest.mark.parametrize('args, says', [
    (['serve', '--port', '-1'], "'--port': -1 is not in the range"),
    (['synth', '--out', '/tmp/never', '--timeout', '-1'], "'--timeout': -1 is not above 0"),
    (['evaluate-dir', 'data/tasks', 'tests', '--tolerance', '-1'], "'--tolerance': -1 is not above 0"),
    (['train', '--set', 'ppo_iterations=-1'], 'ppo_iterations must be a whole number >= 0, not -1'),
    (['train', '--set', 'temperature=hot'], "temperature must be a number, not 'hot'"),
    (['rollout', 'data/tasks', '--out', '/tmp/never', '--temperature', '-0.5'], "'--temperature': -0.5 is not in the range"),
    (['synth', '--out', '/tmp/never', '--decontam-threshold', '2'], "'--decontam-threshold': 2.0 is not in the range"),
    (['synth', '--out', '/tmp/never', '--cpu-window', '5,1'], "--cpu-window '5,1': LO must be >= 0 and below HI"),
    (['baselines', 'data/tasks', '--levels', '0'], "--levels '0': give level numbers >= 1"),
    (['serve', '--gpus', '-1'], "--gpus '-1': give GPU indices >= 0"),
    (['train', '--stages', '1,x'], "stages '1,x': give stage numbers from 1 to 4"),
    (['train', '--set', 'ppo_iteration=3'], "(did you mean ppo_iteration -> ppo_iterations?)"),
])
def test_bad_numbers_one_sentence(args, says):
    r = run_cawb(*args, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert says in r.stderr and 'Traceback' not in r.stderr + r.stdout, r.stderr
    assert not (Path('/tmp/never')).exists()


def test_bad_port_setting_stops_serve_before_it_starts():
    r = run_cawb('serve', '--backend', 'cpu', env={'CAWB_SERVICE_PORT': '-1'}, timeout=60)
    assert r.returncode == 2 and "$CAWB_SERVICE_PORT: [service] port = '-1': must be a port number from 1 to 65535" in r.stderr, r.stderr
    assert 'Traceback' not in r.stderr and 'worker' not in r.stderr, r.stderr


def test_serve_on_a_port_in_use_one_sentence(tmp_path):
    import socket
    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0)); busy.listen()
        r = run_cawb('serve', '--backend', 'cpu', '--port', busy.getsockname()[1], '--db', tmp_path/'q.sqlite', timeout=60)
    assert r.returncode == 2 and 'cannot serve on 127.0.0.1:' in r.stderr and 'Address already in use' in r.stderr, r.stderr
    assert 'Traceback' not in r.stderr and 'worker' not in r.stderr, r.stderr


def test_unknown_settings_are_warned_with_the_closest_name(tmp_path):
    ini = tmp_path/'settings.ini'
    ini.write_text((ROOT/'settings.ini').read_text().replace('suspicious_speedup = ', 'suspicous_speedup = 5\nsuspicious_speedup = ')
                   .replace(str('data = data'), f"data = {ROOT/'data'}"))
    r = run_cawb('tasks', 'list', env={'CAWB_SETTINGS': str(ini), 'CAWB_EVAL_ATOLL': '1e-3', '_CAWB_SETTINGS_WARNED': ''}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '[eval] suspicous_speedup is not a setting (did you mean suspicious_speedup?); ignored' in r.stderr, r.stderr
    assert '$CAWB_EVAL_ATOLL is not a setting (did you mean CAWB_EVAL_ATOL?); ignored' in r.stderr, r.stderr


def test_dead_server_url_fails_at_once():
    r = run_cawb('evaluate', RELU, SOL, '--server', 'http://127.0.0.1:9', timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    err = [l for l in r.stderr.splitlines() if l.startswith('cawb: error:')]
    assert len(err) == 1 and 'nothing answers at http://127.0.0.1:9' in err[0] and 'cawb serve' in err[0], r.stderr
    assert 'Traceback' not in r.stderr


def test_service_task_error_and_offline_docs(tmp_path):
    svc = Service(tmp_path/'q.sqlite', free_port(), workers=1).start()
    try:
        assert_task_error_text(run_cawb('evaluate', broken_task(tmp_path), SOL, '--server', svc.url, '--stages', 'compile,verify'))
        again = run_cawb('evaluate', tmp_path/'relu.py', SOL, '--server', svc.url, '--stages', 'compile,verify')
        assert_task_error_text(again); assert ', cached)' not in again.stderr, again.stderr          # a task error is evaluated again
        from cuda_agent_wb.client import RemoteEvaluator
        from cuda_agent_wb.tasks import task_from_source
        with RemoteEvaluator(svc.url) as ev:
            res = ev.evaluate(task_from_source((tmp_path/'relu.py').read_text(), 'relu'), SOL, stages=('compile', 'verify'))
        assert res.reward is None and 'boom at import' in res.task_error and res.summary().count('task error:') == 1
        for page in ('/docs', '/redoc'):                                 # the API pages load nothing from a CDN
            html = httpx.get(svc.url + page, timeout=10).text
            urls = re.findall(r'(?:src|href)="([^"]+)"', html)
            assert urls and all(u.startswith('/') for u in urls), urls
            assert all(httpx.get(svc.url + u, timeout=10).status_code == 200 for u in urls)
    finally: svc.stop()
