"""`cawb env-serve` (KernelEnv as an OpenEnv environment) on the CPU backend, end to end: every bundled task's scripted
episode played through the server gives the rewards and observations it gives in-process; 64 episodes at once with an
evaluation worker killed mid-job lose none; the server's guards (token, request caps, one-sentence refusals, capacity,
idle episodes closed and their workdirs removed)."""
import os, re, signal, threading, time
import httpx, pytest
from conftest import ROOT, Service, EnvServer, free_port, run_cawb

SOL = ROOT/'tests/solutions/cpu/relu_valid'


def wait_for(what, cond, limit_s=300, every=0.05):
    "Poll `cond` until it holds (a bound against a hang, not a timing requirement)."
    t0 = time.monotonic()
    while not (v := cond()):
        assert time.monotonic() - t0 < limit_s, f"{what} not seen in {limit_s} s"
        time.sleep(every)
    return v


def gone(pid: int) -> bool:
    "Whether process `pid` has ended (gone, or a zombie its parent has not reaped yet)."
    try: return open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0] in ('Z', 'X')
    except OSError: return True


def job_in_queue(db, job_id: str, wait_s: float = 5.0) -> dict|None:
    """A job's id, status and worker read straight from the service's SQLite queue, or None if the queue stayed locked
    for `wait_s` (WAL readers do not wait for a writer, but they do for a connection stopped mid-checkpoint)."""
    import sqlite3
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=wait_s)
    try: row = con.execute("SELECT id, status, worker FROM jobs WHERE id=?", (job_id,)).fetchone()
    except sqlite3.OperationalError as e:
        if 'locked' in str(e): return None
        raise
    finally: con.close()
    return dict(zip(('id', 'status', 'worker'), row)) if row else {}


def test_job_in_queue_answers_none_while_the_queue_is_locked(tmp_path):
    "The load test's look into the queue: None while a connection holds the file locked (it lets the frozen worker go), the row after."
    import sqlite3
    db = tmp_path/'q.sqlite'; con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL"); con.execute("CREATE TABLE jobs (id TEXT, status TEXT, worker TEXT)")
    con.execute("INSERT INTO jobs VALUES ('j1', 'running', 'w0')"); con.commit()
    con.execute("PRAGMA locking_mode=EXCLUSIVE"); con.execute("UPDATE jobs SET worker='w0'"); con.commit()   # the lock stays held
    assert job_in_queue(db, 'j1', wait_s=0.2) is None
    con.close()
    assert job_in_queue(db, 'j1') == dict(id='j1', status='running', worker='w0')


@pytest.fixture(scope='module')
def service(tmp_path_factory):
    svc = Service(tmp_path_factory.mktemp('svc')/'q.sqlite', free_port(), workers=2).start()
    yield svc
    svc.stop()


def masked(obs: str) -> str:
    "An observation without the reference's kernel table (profiled where the episode runs: its timings are that run's)."
    return re.sub(r'Reference \(PyTorch eager\) kernels, by total time:\n.*?(?=\n\n|\Z)', 'Reference table', obs, flags=re.S)


def test_bundled_scripted_episodes_through_the_server_match_in_process(service, tmp_path):
    "Both sides evaluate through one `cawb serve` (the second reads the first's stored results), so any difference is the env server's."
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.env_server import RemoteKernelEnvs
    from cuda_agent_wb.rollout import rollout, make_policy_factory, read_trajectory, trajectory_stem
    from cuda_agent_wb.tasks import load_tasks
    tasks = load_tasks(ROOT/'data/tasks')[0]
    srv = EnvServer(free_port(), '--service', service.url, '--workdirs', tmp_path/'wd').start()
    try:
        pol = make_policy_factory('scripted', 'cpu')
        with RemoteEvaluator(service.url) as ev: here = rollout(tasks, pol, ev, tmp_path/'here', workers=2, progress=False)
        there = rollout(tasks, pol, RemoteKernelEnvs(srv.url), tmp_path/'there', workers=4, progress=False)
        info = wait_for('every session closed', lambda: (i := srv.info())['active_episodes'] == 0 and i)
    finally: srv.stop()
    assert len(tasks) == 15 and here['error'].isna().all() and there['error'].isna().all(), (here, there)
    for t in tasks:
        a, b = (read_trajectory(tmp_path/d/f"{trajectory_stem(t, 0)}.jsonl") for d in ('here', 'there'))
        assert b['header']['env_server']['url'] == srv.url and b['header']['rules'] == a['header']['rules'], t.id
        assert [s['reward'] for s in a['steps']] == [s['reward'] for s in b['steps']], t.id
        for x, y in zip(a['steps'], b['steps'], strict=True):
            assert (x['action'], x['error'], masked(x['observation'])) == (y['action'], y['error'], masked(y['observation'])), (t.id, x['turn'])
            assert (x['result'] or {}).get('reward') == (y['result'] or {}).get('reward') and x['solution'] == y['solution'], (t.id, x['turn'])
        keys = ('best_reward', 'best_turn', 'best_solution_hash', 'turns', 'stop_reason', 'invalid')
        assert {k: a['summary'][k] for k in keys} == {k: b['summary'][k] for k in keys}, t.id
    assert info['episodes'] == {'started': 15, 'ended': 15} and info['active_episodes'] == 0, info
    assert not any((tmp_path/'wd').iterdir())                     # every ended episode's workdir removed


def test_64_episodes_with_an_evaluation_worker_killed_lose_none(service, tmp_path):
    """64 episodes at once on one env server in front of `cawb serve`; one of its workers is killed in the middle of a job
    (stopped first, and killed only once the queue shows the job still running on it). Every episode ends with a result."""
    from cuda_agent_wb.policy import ScriptedPolicy
    from cuda_agent_wb.env_server import RemoteKernelEnvs
    from cuda_agent_wb.rollout import rollout, read_trajectory
    from cuda_agent_wb.tasks import load_task
    relu = load_task(ROOT/'data/tasks/relu.py')
    files = {str(f.relative_to(SOL)): f.read_text() for f in (SOL/'kernels').iterdir()}
    def script(task, k):       # 16 distinct solutions (a comment apart): real evaluations, shared builds; 4 episodes join each
        model = (SOL/'model_new.py').read_text() + f"\n# load-test variant {k % 16}\n"
        return ScriptedPolicy([dict(tool='write_file', args=dict(path=p, content=t)) for p, t in files.items()]
                              + [dict(tool='write_file', args=dict(path='model_new.py', content=model)), dict(tool='verify'),
                                 dict(tool='finish', args=dict(summary='load test'))])
    srv = EnvServer(free_port(), '--service', service.url, '--max-episodes', 64, '--workdirs', tmp_path/'wd').start()
    out, box = tmp_path/'out', {}
    try:
        envs = RemoteKernelEnvs(srv.url)
        run = threading.Thread(target=lambda: box.update(df=rollout([relu], script, envs, out, jobs=[(relu, k) for k in range(64)],
                                                                    workers=64, progress=False)))
        run.start()
        killed = None
        while killed is None:
            assert run.is_alive(), 'the load ended before a worker was caught in the middle of a job'
            w = next((w for w in service.status()['workers'] if w['state'] == 'busy' and w['job']), None)
            if w is None: time.sleep(0.02); continue
            os.kill(w['pid'], signal.SIGSTOP)                       # frozen: it cannot finish the job while we look
            job = job_in_queue(service.db, w['job'])     # from the file: the frozen worker may hold the queue's write lock
            if job and job['status'] == 'running' and job['worker'] == w['id']:
                os.kill(w['pid'], signal.SIGKILL); wait_for('the killed worker gone', lambda: gone(w['pid']))
                if (job_in_queue(service.db, w['job']) or {}).get('status') != 'done': killed = (w, job)
                # else: stopped in the middle of committing its result, which landed once it died (not caught mid-job): look again
            else: os.kill(w['pid'], signal.SIGCONT)       # not in a job, or frozen holding a lock readers wait on: look again
        run.join(600)
        assert not run.is_alive(), 'the load did not finish'
        info = wait_for('every session closed', lambda: (i := srv.info())['active_episodes'] == 0 and i)
    finally: srv.stop()
    df = box['df']
    assert len(df) == 64 and df['error'].isna().all(), df[df['error'].notna()]
    trajs = [read_trajectory(p) for p in sorted(out.glob('relu__s*.jsonl'))]
    assert len(trajs) == 64 and all(t['summary'] and t['summary']['stop_reason'] == 'finish' for t in trajs)
    assert all(t['summary']['best_reward'] is not None and t['summary']['best_reward'] >= 1 for t in trajs), [t['summary'] for t in trajs]
    job = httpx.get(f"{service.url}/jobs/{killed[1]['id']}", timeout=300).json()
    assert job['status'] == 'done' and job['attempts'] == 2, job                # the killed worker's job ran again elsewhere
    said = ''.join(service.lines)
    assert f"worker {killed[0]['id']}" in said and 'replaced' in said, said[-2000:]
    assert info['episodes'] == {'started': 64, 'ended': 64} and info['active_episodes'] == 0, info
    assert not any((tmp_path/'wd').iterdir())


def test_token_caps_refusals_capacity_and_idle_cleanup(tmp_path):
    from cuda_agent_wb.env_server import RemoteKernelEnvs, RemoteKernelEnv, KernelEnvClient, EnvServerError
    from cuda_agent_wb.tasks import load_task
    relu, tok = load_task(ROOT/'data/tasks/relu.py'), 'env-test-token'
    # the idle limit outlasts any one request here by far: at 1 s, b's reset on a loaded 2-core CI machine took longer and
    # openenv's reaper (every 5 s) closed a before its step (fresh-clone CI, 2026-11-27); a longer limit only waits longer below
    srv = EnvServer(free_port(), '--backend', 'cpu', '--max-episodes', 2, '--idle-timeout', 15, '--workdirs', tmp_path/'wd',
                    env={'CAWB_ENV_TOKEN': tok, 'CAWB_ENV_SERVER_MAX_REQUEST_MB': '1'}).start()
    h = {'Authorization': f"Bearer {tok}"}
    try:
        r = httpx.get(srv.url + '/info', timeout=10)
        assert r.status_code == 401 and r.json()['detail'] == 'missing or wrong token: send Authorization: Bearer <token>'
        r = httpx.post(srv.url + '/reset', content=b'x' * (2 << 20), headers=h, timeout=30)
        assert r.status_code == 413 and 'over the limit' in r.json()['detail']
        r = httpx.post(srv.url + '/step', json={'action': {'tool': 'verify'}}, headers=h, timeout=30)
        assert r.status_code == 400 and r.json()['detail'].startswith('no episode: reset first')
        r = httpx.post(srv.url + '/step', json={'action': {'tool': 'verify', 'colour': 1}}, headers=h, timeout=30)
        assert (r.status_code, r.json()['detail']) == (422, "unknown field 'colour'")
        r = httpx.post(srv.url + '/reset', json={'task_id': 'nope'}, headers=h, timeout=30)
        assert r.status_code == 400 and r.json()['detail'].startswith("reset: no task 'nope' on this server (it serves attention")
        with pytest.raises(EnvServerError, match='/info: 401 missing or wrong token'): RemoteKernelEnvs(srv.url, token='wrong')
        with pytest.raises(EnvServerError, match='HTTP 401: missing or wrong token'): RemoteKernelEnv(srv.url, relu, token='wrong').reset()
        envs = RemoteKernelEnvs(srv.url, token=tok)
        with pytest.raises(EnvServerError, match=r"reset: layout 'mine': choose cawb or cuda-agent"): envs.make_env(relu, layout='mine').reset()
        c = KernelEnvClient(srv.url, tok).sync()
        with pytest.raises(RuntimeError, match='reset: unknown field'): c.connect(); c.reset(task_id='relu', colour='red')
        c.close()
        a, b = envs.make_env(relu), envs.make_env(relu)
        a.reset(); b.reset()
        assert a.step({'tool': 'glob', 'args': {'pattern': '*.py'}}).observation == 'model.py'
        with pytest.raises(EnvServerError, match='Server at capacity: 2/2 sessions active'): envs.make_env(relu).reset()
        wait_for('the idle episodes closed', lambda: srv.info(tok)['episodes'].get('closed') == 2, every=0.5)
        with pytest.raises(EnvServerError, match="this episode's session is closed"): a.step({'tool': 'glob', 'args': {'pattern': '*'}})
        assert not any((tmp_path/'wd').iterdir()) and srv.info(tok)['episodes'] == {'started': 2, 'closed': 2}
        a.close(); b.close()
    finally: srv.stop()
    r = run_cawb('rollout', ROOT/'data/tasks/relu.py', '--env-server', 'http://127.0.0.1:9', '--out', tmp_path/'o', timeout=120)
    assert r.returncode == 2 and 'nothing answers at http://127.0.0.1:9' in r.stderr, r.stderr
    r = run_cawb('env-serve', '--host', '0.0.0.0', '--port', free_port(), env={'CAWB_ENV_TOKEN': ''}, timeout=120)
    assert r.returncode == 2 and "serving beyond this machine needs a token: set $CAWB_ENV_TOKEN" in r.stderr, r.stderr


def test_trainer_plays_its_agentic_episodes_on_the_env_server(tmp_path):
    "TrainConfig.env_server: stage 4's episodes run on the server (the trajectories name it), and the PPO step trains on them."
    from cuda_agent_wb.rollout import read_trajectory
    from cuda_agent_wb.train import make_config, run_pipeline, read_metrics
    srv = EnvServer(free_port(), '--backend', 'cpu').start()
    try:
        cfg = make_config('tiny-cpu', out_dir=str(tmp_path/'run'), stages=[4], ppo_iterations=1, ppo_episodes=2, max_turns=2,
                          max_new_tokens=16, env_server=srv.url)
        run_pipeline(cfg)
        info = wait_for('every session closed', lambda: (i := srv.info())['active_episodes'] == 0 and i)
    finally: srv.stop()
    trajs = [read_trajectory(p) for p in sorted((tmp_path/'run'/'trajectories').rglob('*__s*.jsonl'))]
    assert len(trajs) == 2 and all(t['header']['env_server']['url'] == srv.url and t['summary'] for t in trajs), trajs
    assert info['episodes']['started'] == 2, info
    m = read_metrics(tmp_path/'run'/'metrics.jsonl')
    assert list(m['stage']) == ['agentic'] and m['episodes'].iloc[0] == 2


def test_sigterm_removes_the_temporary_workdirs_and_a_bad_message_is_one_sentence():
    "Preemption's SIGTERM: the server shuts down, removes its temporary workdirs folder, says so, exits 143."
    from websockets.sync.client import connect
    import json
    srv = EnvServer(free_port(), '--backend', 'cpu').start()
    try:
        root = wait_for('the workdirs folder named', lambda: re.search(r'workdirs under (\S+)', ''.join(srv.lines)))[1]
        assert os.path.isdir(root)
        with connect(srv.url.replace('http', 'ws') + '/ws', open_timeout=60) as ws:
            ws.send(json.dumps({'type': 'reset', 'data': {'task_id': 'relu'}})); assert json.loads(ws.recv(120))['type'] == 'observation'
            ws.send(json.dumps({'type': 'step', 'data': {'tool': 'verify', 'colour': 1}}))
            err = json.loads(ws.recv(120))
        assert err['type'] == 'error' and 'errors' not in err['data'] and 'pydantic' not in json.dumps(err), err
        assert err['data']['message'] == "invalid message: unknown field 'colour'", err
        srv.proc.send_signal(signal.SIGTERM)
        assert srv.proc.wait(60) == 143, ''.join(srv.lines)
    finally: srv.stop()
    time.sleep(0.5)                                              # the reader thread has the last lines
    out = ''.join(srv.lines)
    assert not os.path.exists(root), out
    assert 'cawb: stopped by SIGTERM: the env server stopped; its episodes ended and their workdirs were removed' in out and 'Traceback' not in out, out
