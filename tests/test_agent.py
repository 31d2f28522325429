"Integration tests of the agent environment and policies: sandbox escapes, a tiny HF model, an OpenAI-compatible server."
import json, os, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
import pytest
from conftest import ROOT
from cuda_agent_wb.agent import KernelEnv, sandbox_available
from cuda_agent_wb.policy import HFPolicy, OpenAIPolicy, PolicyError, ScriptedPolicy, append_turn, tiny_lm
from cuda_agent_wb.config import get_settings
from cuda_agent_wb.reward import Evaluator
from cuda_agent_wb.rollout import run_trajectory, read_trajectory
from cuda_agent_wb.tasks import load_task

RELU = load_task(ROOT/'data/tasks/relu.py')


@pytest.fixture(scope='module')
def ev():
    e = Evaluator(backend='cpu')      # workers start lazily: free unless a test evaluates
    yield e
    e.close()


def test_sandbox_escapes_refused(ev, tmp_path):
    env = KernelEnv(RELU, ev, backend='cpu', workdir=tmp_path/'wd', max_turns=50)
    env.reset()
    reward_py = ROOT/'cuda_agent_wb'/'reward.py'
    before = reward_py.read_bytes()
    step = lambda tool, **args: env.step({'tool': tool, 'args': args}).observation
    # file tools: outside the workdir, the evaluator's code, protected files, symlinks out
    assert 'outside the workdir' in step('write_file', path='../escape.txt', content='x')
    assert 'outside the workdir' in step('write_file', path=str(reward_py), content='x')
    assert 'outside the workdir' in step('read_file', path=str(get_settings().paths.cache))
    assert 'read-only' in step('edit_file', path='model.py', old_string='relu', new_string='gelu')
    assert not (tmp_path/'escape.txt').exists()
    if not sandbox_available(): pytest.skip("no Linux namespaces on this machine")
    # bash: the repository (evaluator code, caches with reference baselines) is not there; no network
    out = step('bash', command=f"echo pwned >> {reward_py}; ls {get_settings().paths.cache}; ls {ROOT}/data; "
                               f"echo x > model.py; ln -s {reward_py} kernels/link.py", timeout=60)
    assert 'No such file or directory' in out and 'Read-only file system' in out, out
    assert 'outside the workdir' in step('read_file', path='kernels/link.py')
    out = step('bash', command="python -c \"import socket; socket.create_connection(('1.1.1.1', 80), 3)\" 2>&1 | tail -1; "
                               "ls /proc | grep -c '^[0-9]'", timeout=60)
    assert 'Network is unreachable' in out, out
    assert int(out.split('\n')[1]) < 10, out       # a private PID namespace: the evaluator's processes are not visible
    assert reward_py.read_bytes() == before
    assert (tmp_path/'wd'/'model.py').read_text() == RELU.source


def test_read_before_write_and_bad_calls(ev, tmp_path):
    env = KernelEnv(RELU, ev, backend='cpu', workdir=tmp_path/'wd', max_turns=8)
    env.reset()
    o = lambda a, err=None: env.step(a, err).observation
    assert o({'tool': 'write_file', 'args': {'path': 'notes.md', 'content': 'v1'}}).startswith('Created')
    (tmp_path/'wd'/'notes.md').write_text('changed by someone else')
    assert 'changed since you last read it' in o({'tool': 'write_file', 'args': {'path': 'notes.md', 'content': 'v2'}})
    assert 'could not parse a tool call: no tool call found' in o(None, 'no tool call found')
    assert "unknown tool 'nope'" in o({'tool': 'nope', 'args': {}})
    assert 'missing required argument(s) old_string, new_string' in o({'tool': 'edit_file', 'args': {'path': 'x'}})
    assert 'no model_new.py yet' in o({'tool': 'verify', 'args': {}})
    assert 'an action is' in o(['not', 'a', 'dict'])
    out = env.step({'tool': 'glob', 'args': {'pattern': '*'}})
    assert out.done and env.stop_reason == 'max_turns' and 'turn limit of 8 reached' in out.observation


def test_hf_policy_tiny_model_garbage(ev, tmp_path):
    model, tok = tiny_lm(seed=1)
    pol = HFPolicy(model, tok, max_new_tokens=16, temperature=1.0, context_tokens=9000, seed=0)
    summary = run_trajectory(RELU, pol, ev, tmp_path, sample=0, max_turns=3)
    t = read_trajectory(tmp_path/'relu__s0.jsonl')
    assert summary['stop_reason'] == 'max_turns' and summary['turns'] == 3
    for s in t['steps']:
        assert s['tokens']['prompt'] > 100 and 0 < s['tokens']['completion'] <= 16
        assert (s['action'] is None) == (s['parse_error'] is not None)
        if s['action'] is None: assert s['observation'].startswith('Error: could not parse a tool call')
    assert t['header']['policy']['policy'] == 'hf'


def test_hf_policy_context_budget(ev, tmp_path):
    "A chat longer than the budget is truncated by the documented policy, never sent whole."
    model, tok = tiny_lm(seed=2)
    pol = HFPolicy(model, tok, max_new_tokens=8, temperature=0.0, context_tokens=9000)
    env = KernelEnv(RELU, ev, backend='cpu', workdir=tmp_path/'wd', max_turns=20)
    msgs = env.reset()
    for i in range(6): append_turn(msgs, ScriptedPolicy([]).act(msgs), 'observation ' * 400)
    out = pol.act(msgs, env.tools)
    assert 6000 < out.prompt_tokens <= 9000 - 8, out.prompt_tokens


class _ChatServer(BaseHTTPRequestHandler):
    "A chat-completions endpoint that answers from a script and records the requests."
    replies, requests = [], []
    def log_message(self, *a): pass
    def _send(self, obj, code=200):
        body = json.dumps(obj).encode()
        self.send_response(code); self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        self._send({'object': 'list', 'data': [{'id': 'tiny', 'object': 'model', 'created': 0, 'owned_by': 'test'}]})
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        type(self).requests.append(req)
        content, calls = type(self).replies.pop(0)
        msg = {'role': 'assistant', 'content': content}
        if calls: msg['tool_calls'] = [{'id': f'call_{len(type(self).requests)}_{i}', 'type': 'function',
                                        'function': {'name': n, 'arguments': a}} for i, (n, a) in enumerate(calls)]
        self._send({'id': 'x', 'object': 'chat.completion', 'created': 0, 'model': req['model'],
                    'choices': [{'index': 0, 'message': msg, 'finish_reason': 'tool_calls' if calls else 'stop'}],
                    'usage': {'prompt_tokens': 1000 + len(type(self).requests), 'completion_tokens': 7, 'total_tokens': 1007}})


@pytest.fixture
def chat_server():
    srv = ThreadingHTTPServer(('127.0.0.1', 0), _ChatServer)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()


def test_openai_policy_local_server(ev, tmp_path, chat_server):
    _ChatServer.requests.clear()
    _ChatServer.replies[:] = [
        ('Reading the task.', [('read_file', '{"path": "model.py"}')]),
        (None, [('glob', '{"pattern": "*.py"}}')]),                                 # malformed arguments (a stray brace)
        ('<tool_call>\n{"name": "grep", "arguments": {"pattern": "relu"}}\n</tool_call>', None),   # call in text
        ('I am not sure what to do.', None),                                         # no call at all
        (None, [('finish', '{"summary": "nothing"}'), ('compile', '{}')]),          # two calls: the first runs
    ]
    pol = OpenAIPolicy(base_url=chat_server, model='tiny', api_key='k', retries=0)
    assert pol.check() == ['tiny']
    summary = run_trajectory(RELU, pol, ev, tmp_path, sample=0, max_turns=10)
    t = read_trajectory(tmp_path/'relu__s0.jsonl')
    tools = [(s['action'] or {}).get('tool') for s in t['steps']]
    assert tools == ['read_file', None, 'grep', None, 'finish'] and summary['stop_reason'] == 'finish'
    assert 'class Model' in t['steps'][0]['observation']
    assert 'malformed tool call' in t['steps'][1]['parse_error']
    assert 'model.py:14:         return torch.relu(x)' in t['steps'][2]['observation']
    assert [s['tokens']['prompt'] for s in t['steps']] == [1001, 1002, 1003, 1004, 1005]
    # the protocol: tools offered; a structured call answered by a `tool` message with its id; a text call by a user message
    last = _ChatServer.requests[-1]
    assert {f['function']['name'] for f in last['tools']} >= {'bash', 'compile', 'verify', 'profile', 'finish'}
    roles = [m['role'] for m in last['messages']]
    assert roles == ['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']
    assert last['messages'][2]['tool_calls'][0]['id'] == last['messages'][3]['tool_call_id'] == 'call_1_0'


def test_openai_policy_unreachable_is_clear_and_resumable(ev, tmp_path):
    pol = OpenAIPolicy(base_url='http://127.0.0.1:9/v1', model='m', retries=1, backoff=0.01)
    with pytest.raises(PolicyError, match=r'cannot reach the OpenAI-compatible server at http://127.0.0.1:9/v1'): pol.check()
    with pytest.raises(PolicyError, match='failed after 2 attempts'):
        run_trajectory(RELU, pol, ev, tmp_path, sample=0, max_turns=5)
    t = read_trajectory(tmp_path/'relu__s0.jsonl')
    assert t['header'] is not None and t['summary'] is None     # left unfinished: --resume continues it
