"""The evaluation service (`cawb serve`) under load on the CPU backend: 16 clients, 200 submissions, a worker hung, a worker
killed and the whole service killed and restarted mid-run; malformed requests; the CLI through the service."""
import json, os, signal, socket, statistics, subprocess, sys, threading, time
from pathlib import Path
import httpx, pytest
from conftest import ROOT, CAWB, Service, free_port

RELU = ROOT/'data/tasks/relu.py'
SOL = ROOT/'tests/solutions/cpu/relu_valid'


def variant(root: Path, i: int) -> Path:
    "relu_valid with a distinct comment: different content (a real evaluation), the same kernel (a cached build)."
    d = root/f"sol{i:03d}"; (d/'kernels').mkdir(parents=True)
    for f in SOL.rglob('*'):
        if f.is_file(): (d/f.relative_to(SOL)).write_text(f.read_text())
    (d/'model_new.py').write_text((SOL/'model_new.py').read_text() + f"\n# variant {i}\n")
    return d


def test_load_crash_hang_restart(tmp_path):
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.tasks import load_task
    task, db, port = load_task(RELU), tmp_path/'svc'/'q.sqlite', free_port()
    svc = Service(db, port, env={'CAWB_SERVICE_JOB_TIMEOUT_S': '20'}).start()
    sols = [variant(tmp_path/'sols', i) for i in range(200)]
    with RemoteEvaluator(svc.url) as ev:                      # warm the build cache and both workers' first job
        assert ev.evaluate(task, SOL, stages=('compile', 'verify')).correct
    results, latency, errors, lock = {}, [], [], threading.Lock()

    def client(k):
        with RemoteEvaluator(svc.url, retry_s=180) as ev:
            for i in range(k, 200, 16):
                t0 = time.perf_counter()
                try: r = ev.evaluate(task, sols[i], stages=('compile', 'verify'))
                except Exception as e: errors.append(f"{i}: {e}"); continue
                with lock: results.setdefault(i, []).append(r); latency.append(time.perf_counter() - t0)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
    for t in threads: t.start()
    def wait_done(n):
        while len(results) < n and any(t.is_alive() for t in threads): time.sleep(0.1)
    def wait_for(what, cond, limit_s=300):
        "Poll `cond` until it holds (a bound against a hang, not a timing requirement)."
        t0 = time.monotonic()
        while not cond():
            assert time.monotonic() - t0 < limit_s, f"{what} not seen in {limit_s} s: {''.join(svc.lines)[-2000:]}"
            time.sleep(0.2)
    def worker(pred):
        return next((w for w in svc.status()['workers'] if pred(w)), None)
    wait_done(30)                                              # a worker hangs (stopped, not dead): replaced after job_timeout_s
    wait_for('a busy worker', lambda: worker(lambda w: w['state'] == 'busy'))
    hung = worker(lambda w: w['state'] == 'busy')
    os.kill(hung['pid'], signal.SIGSTOP)
    wait_done(60)                                              # a worker crashes
    wait_for('a live worker', lambda: worker(lambda w: w['state'] in ('busy', 'ready') and w['pid'] != hung['pid']))
    crashed = worker(lambda w: w['state'] in ('busy', 'ready') and w['pid'] != hung['pid'])
    os.kill(crashed['pid'], signal.SIGKILL)
    said = lambda: ''.join(svc.lines)                          # both reported before the service dies, however slow the machine
    wait_for('the hung worker reported', lambda: 'stopped answering' in said() or 'ran one job past' in said())
    wait_for('the killed worker replaced', lambda: 'exited (code -9): replaced' in said())
    wait_done(110)                                             # the whole service dies and is started again on the same queue
    svc.kill(); time.sleep(1); first = svc
    import sqlite3
    pending = sqlite3.connect(db).execute("SELECT COUNT(*) FROM jobs WHERE status IN ('queued','running')").fetchone()[0]
    svc = Service(db, port, env={'CAWB_SERVICE_JOB_TIMEOUT_S': '20'}).start()
    for t in threads: t.join(600)
    try: os.kill(hung['pid'], signal.SIGKILL)
    except ProcessLookupError: pass

    lat = sorted(latency)
    print(f"200 submissions, 16 clients: p50 {statistics.median(lat):.2f} s, p99 {lat[int(0.99 * (len(lat) - 1))]:.2f} s, "
          f"max {lat[-1]:.2f} s; status {json.dumps({k: v for k, v in svc.status().items() if k in ('queued', 'running', 'done', 'failed', 'cached')})}")
    assert not errors, (errors[:5], [l for l in first.lines + svc.lines if 'Error' in l or 'Traceback' in l][-10:])
    assert sorted(results) == list(range(200)) and all(len(v) == 1 for v in results.values())
    lost = [i for i, (r,) in results.items() if not r.correct]
    assert all(results[i][0].flags == ['evaluator_lost'] for i in lost), [results[i][0].flags for i in lost]
    assert len(lost) <= 2, f"{len(lost)} jobs lost their worker twice"
    import sqlite3
    con = sqlite3.connect(db)
    evaluated = con.execute("SELECT key, COUNT(*) FROM jobs WHERE cached=0 AND status IN ('done','failed') GROUP BY key").fetchall()
    assert len(evaluated) == 201 and all(n == 1 for _, n in evaluated)        # 200 + the warm-up, each evaluated once
    assert con.execute("SELECT COUNT(*) FROM jobs WHERE status IN ('queued','running')").fetchone()[0] == 0
    log = ''.join(svc.lines)
    svc.stop()
    before = ''.join(first.lines)
    import re
    requeued, queued = map(int, re.search(r"(\d+) running job\(s\) requeued, (\d+) queued", log).groups())
    assert 'retried' in before, before[-3000:]                                            # the hung worker's job went back
    assert requeued <= pending and (requeued + queued > 0 or pending == 0), (pending, log[:2000])   # the restart found the accepted jobs


def test_malformed_requests_and_cli(tmp_path):
    port = free_port()
    svc = Service(tmp_path/'q.sqlite', port, workers=1).start()
    try:
        good = {'task': {'path': str(RELU)}, 'solution': {'path': str(SOL)}, 'stages': ['compile', 'verify']}
        bad = [b'', b'{', b'[]', b'null', json.dumps({'task': {'path': str(RELU)}}), json.dumps({**good, 'colour': 'red'}),
               json.dumps({**good, 'rules': 'fastest'}), json.dumps({**good, 'stages': ['bench']}), json.dumps({**good, 'task': {'path': '/no/task.py'}}),
               json.dumps({**good, 'task': {'source': 'import torch\nclass Model(', 'id': 'broken'}}), json.dumps({**good, 'task': {}}),
               json.dumps({**good, 'solution': {'files': {'../../escape.py': 'x'}}}), json.dumps({**good, 'solution': {'files': {'/etc/x.py': 'x'}}}),
               json.dumps({**good, 'solution': {'files': {'run.sh': 'x'}}}), json.dumps({**good, 'solution': {'path': '/no/solution'}}),
               json.dumps({**good, 'strict': 'very'}), json.dumps({**good, 'wait': -1}), json.dumps({**good, 'solution': {'kind': 'single', 'files': {'a.py': 'x', 'b.py': 'y'}}}),
               b'x' * (17 << 20), json.dumps({**good, 'task': {'path': str(RELU), 'source': 'x'}})]
        assert len(bad) == 20
        for body in bad:
            r = httpx.post(svc.url + '/evaluate', content=body, headers={'content-type': 'application/json'}, timeout=30)
            assert 400 <= r.status_code < 500, (body[:80], r.status_code, r.text[:200])
            detail = r.json()['detail']
            assert isinstance(detail, str) and '\n' not in detail and len(detail) < 300, detail
        assert httpx.get(svc.url + '/health').status_code == 200
        assert svc.proc.poll() is None

        # the queue's write lock held (as by a worker stopped inside a transaction): a submission waits for it in a thread,
        # and the service goes on answering everything else meanwhile
        import sqlite3
        lock = sqlite3.connect(svc.db, isolation_level=None, timeout=60); lock.execute('BEGIN IMMEDIATE')
        held = []
        other = {**good, 'solution': {'path': str(variant(tmp_path/'held', 0))}, 'wait': 0}     # its own key: nothing below finds its result
        t = threading.Thread(target=lambda: held.append(httpx.post(svc.url + '/evaluate', json=other, timeout=300)))
        try:
            t.start()
            for _ in range(6):              # a bound against a hang, not a timing requirement: the event loop never waits on the lock
                assert httpx.get(svc.url + '/health', timeout=90).status_code == 200
                time.sleep(0.5)
            assert not held, "the submission went through while the write lock was held"
        finally:
            lock.execute('ROLLBACK'); lock.close()
        t.join(300)
        assert held and held[0].status_code in (200, 202), held

        # the CLI through the service: the same JSON as in-process, and the second time from the store
        out = []
        for _ in range(2):
            r = subprocess.run([CAWB, 'evaluate', RELU, SOL, '--server', svc.url, '--json', '--stages', 'compile,verify'], capture_output=True, text=True, cwd=ROOT)
            assert r.returncode == 0, r.stderr
            out.append((json.loads(r.stdout.strip().splitlines()[-1]), r.stderr))
        assert out[0][0]['correct'] and out[0][0] == out[1][0] and 'cached' in out[1][1] and 'cached' not in out[0][1]
        loc = subprocess.run([CAWB, 'evaluate', RELU, SOL, '--local', '--json', '--stages', 'compile,verify'], capture_output=True, text=True, cwd=ROOT)
        assert set(json.loads(loc.stdout.strip().splitlines()[-1])) == set(out[0][0])
        # a single-file solution (KernelBench's format) through the service
        single = tmp_path/'relu_single.py'; single.write_text(RELU.read_text() + '\n\nclass ModelNew(Model):\n    pass\n')
        r = subprocess.run([CAWB, 'evaluate', RELU, single, '--server', svc.url, '--json', '--rules', 'kernelbench', '--stages', 'compile,verify'],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0 and json.loads(r.stdout.strip().splitlines()[-1])['correct'], r.stderr[-2000:]
        # auto-discovery on the configured URL
        r = subprocess.run([CAWB, 'evaluate', RELU, SOL, '--stages', 'compile'], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, 'CAWB_SERVICE_USE': 'auto', 'CAWB_SERVICE_URL': svc.url})
        assert r.returncode == 0 and 'using the evaluation service' in r.stderr, r.stderr
        # the scripted agent's episode through the service (KernelEnv and the rollout runner take a RemoteEvaluator)
        r = subprocess.run([CAWB, 'rollout', RELU, '--policy', 'scripted', '--out', tmp_path/'traj', '--server', svc.url], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0 and 'using the evaluation service' in r.stderr, r.stderr[-2000:]
        summary = json.loads(next((tmp_path/'traj').glob('relu__s0.jsonl')).read_text().splitlines()[-1])
        assert summary['type'] == 'summary' and summary['best_reward'] >= 1, summary
    finally: svc.stop()


def test_refuses_open_address_without_token(tmp_path):
    r = subprocess.run([CAWB, 'serve', '--backend', 'cpu', '--host', '0.0.0.0', '--port', str(free_port()), '--db', str(tmp_path/'q.sqlite')],
                       capture_output=True, text=True, cwd=ROOT, timeout=120, env={k: v for k, v in os.environ.items() if k != 'CAWB_SERVICE_TOKEN'})
    assert r.returncode == 2 and 'needs a token' in r.stderr, r.stderr


def test_two_services_spread_and_evaluate_dir(tmp_path):
    "One client, two services: work spreads over both; `cawb evaluate-dir --server a,b` gives the same table as in-process."
    import shutil
    from cuda_agent_wb.client import RemoteEvaluator
    from cuda_agent_wb.tasks import load_task
    a = Service(tmp_path/'a'/'q.sqlite', free_port(), workers=1).start()
    b = Service(tmp_path/'b'/'q.sqlite', free_port(), workers=1).start()
    try:
        task, sols = load_task(RELU), [variant(tmp_path/'sols', i) for i in range(12)]
        with RemoteEvaluator([a.url, b.url]) as ev:
            got = dict(ev.evaluate_iter([dict(task=task, solution=s, stages=('compile', 'verify')) for s in sols], progress=False))
        assert sorted(got) == list(range(12)) and all(r.correct for r in got.values())
        done = [a.status()['done'], b.status()['done']]
        assert sum(done) == 12 and min(done) >= 3, done                     # both took a share
        kb = tmp_path/'KernelBench'/'level1'; kb.mkdir(parents=True)
        shutil.copy(RELU, kb/'19_ReLU.py')
        (tmp_path/'map.json').write_text(json.dumps([dict(solution=str(sols[0]), task='L1/19_ReLU', claimed_speedup=1.2),
                                                    dict(solution=str(SOL), task='L1/19_ReLU')]))
        out = {}
        for how in (['--server', f"{a.url},{b.url}"], ['--local']):
            r = subprocess.run([CAWB, 'evaluate-dir', tmp_path/'KernelBench', tmp_path/'map.json', '--backend', 'cpu', '--fresh',
                                '--report-dir', tmp_path/f"rv{how[0]}", *how], capture_output=True, text=True, cwd=ROOT)
            assert r.returncode == 0, r.stderr[-2000:]
            assert ('using the evaluation service' in r.stderr) == (how[0] == '--server'), r.stderr[-1000:]
            import pandas as pd
            out[how[0]] = pd.read_csv(tmp_path/f"rv{how[0]}"/'reverify.csv')[['task_id', 'solution', 'rules', 'correct']]
        assert out['--server'].equals(out['--local']), (out['--server'], out['--local'])
    finally:
        a.stop(); b.stop()


def test_a_worker_stopped_holding_the_queue_lock_is_replaced(tmp_path):
    "A worker stopped (SIGSTOP) while it holds the queue's lock so that nobody can read it: the supervisor finds it by its heartbeat file, kills it, and the queue reads again."
    import sqlite3
    from cuda_agent_wb.service import JobQueue, Supervisor, alive_path
    q = JobQueue(tmp_path/'q.sqlite')
    code = ("import os, signal, sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('PRAGMA locking_mode=EXCLUSIVE'); "
            "c.execute('BEGIN EXCLUSIVE'); c.execute(\"INSERT INTO workers (id, started) VALUES ('w0', 0)\"); print('locked', flush=True); "
            "os.kill(os.getpid(), signal.SIGSTOP)")
    p = subprocess.Popen([sys.executable, '-c', code, str(q.path)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert p.stdout.readline().strip() == 'locked'
        try: sqlite3.connect(q.path, timeout=0.5).execute('SELECT COUNT(*) FROM workers').fetchone(); held = False
        except sqlite3.OperationalError: held = True
        assert held                                                    # nobody can read the queue while it is stopped
        said, spawned = [], []
        sup = Supervisor(q, 'cpu', [None], stale_s=5, echo=said.append)
        fresh = type('Fresh', (), {'poll': lambda self: None})        # what spawn starts in its place (not a real worker here)
        sup.procs[0], sup.spawn = p, lambda i: (spawned.append(i), sup.procs.__setitem__(i, fresh()))
        old = time.time() - 30; alive_path(q, 'w0').touch(); os.utime(alive_path(q, 'w0'), (old, old))
        sup.check()
        assert p.poll() is not None and spawned == [0] and said[0].startswith('cawb serve: worker w0 stopped answering for ')
        assert q.workers() == [] and len(said) == 2 and said[1].startswith('cawb serve: queue 0')   # the queue reads again (the stopped insert was rolled back)
    finally:
        try: os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError: pass
