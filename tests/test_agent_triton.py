"""The agent writes Triton (`agent_triton`): the bundled Triton scripts are well formed, three of them play end to end
on the CPU backend (Triton's interpreter, cpu preset) to reward 1, a bad `--language` is one clear error, and the skill
sheet says what the interpreter's timings are."""
import importlib.util, json
from pathlib import Path
import pytest
from conftest import ROOT, interpreter_evaluator
from cuda_agent_wb.agent_triton import (check_language, language_script_path, scripted_solution, triton_script_tasks,
                                        triton_skill_document)
from cuda_agent_wb.tasks import load_task

TASKS = triton_script_tasks()


def test_at_least_ten_tasks_have_triton_scripts():
    assert len(TASKS) >= 10 and set(TASKS) <= {p.stem for p in (ROOT/'data/tasks').glob('*.py')}, TASKS


@pytest.mark.parametrize('task_id', TASKS)
def test_triton_script_shape(task_id):
    "Profile first, finish last, a first and a second (v2/) version, each verified; the final solution is one Triton file."
    p = language_script_path(task_id, 'cpu', 'triton')
    items = json.loads(p.read_text())
    tools = [it['tool'] for it in items]
    assert tools[0] == 'profile' and tools[-1] == 'finish' and tools.count('verify') >= 2, tools
    files = [(it.get('args') or {}).get('content', {}).get('file') for it in items if it['tool'] == 'write_file']
    assert any(f.startswith('v1/') for f in files) and any(f.startswith('v2/') for f in files), files
    sol = scripted_solution(p)
    assert list(sol) == ['model_new.py'] and '@triton.jit' in sol['model_new.py'] and 'import triton' in sol['model_new.py']


def test_bad_language_is_one_error():
    from cuda_agent_wb.rollout import make_policy_factory
    with pytest.raises(ValueError, match=r"language 'rust': choose cuda \(the native C\+\+/CUDA path\) or triton"):
        make_policy_factory('scripted', 'cpu', language='rust')
    with pytest.raises(ValueError, match="--language 'c'"): check_language('c', '--language')
    from typer.testing import CliRunner
    from cuda_agent_wb.cli import app
    r = CliRunner().invoke(app, ['demo', '--language', 'python'])
    assert r.exit_code == 2 and "--language 'python': choose cuda" in r.output, r.output


def test_triton_skill_sheet():
    cpu, gpu = triton_skill_document('cpu'), triton_skill_document('cuda')
    for doc in (cpu, gpu):
        assert 'model_new.py' in doc and '@triton.jit' in doc and 'mask=' in doc and 'No tricks' in doc
        assert 'kernels/' not in doc and 'cawb_binding.h' not in doc
    assert "Triton's interpreter" in cpu and 'not speedups' in cpu and 'not speedups' not in gpu


needs_triton = pytest.mark.skipif(importlib.util.find_spec('triton') is None,
                                  reason="triton is the optional extra 'triton' (make install-triton)")


@pytest.fixture(scope='module')
def ev():
    e = interpreter_evaluator()
    yield e
    e.close()


@needs_triton
@pytest.mark.parametrize('task_id', ['relu', 'softmax', 'layernorm_gelu_residual'])
def test_scripted_triton_plays_on_the_cpu(ev, tmp_path, task_id):
    "The whole script through KernelEnv and the evaluator: header says triton, every verify passes, reward 1 at best."
    from cuda_agent_wb.policy import load_script
    from cuda_agent_wb.rollout import run_trajectory, read_trajectory
    task = load_task(ROOT/f'data/tasks/{task_id}.py')
    summary = run_trajectory(task, load_script(language_script_path(task_id, 'cpu', 'triton')), ev, tmp_path, language='triton', backend='cpu')
    traj = read_trajectory(tmp_path/f'{task_id}__s0.jsonl')
    assert traj['header']['language'] == 'triton' and summary['stop_reason'] == 'finish', summary
    assert summary['best_reward'] >= 1 and not summary['invalid'], summary
    verifies = [s for s in traj['steps'] if s['action']['tool'] == 'verify']
    assert verifies and all(s['reward'] == 1 and s['result']['kernel_runtime'] == 'triton-interpreter' for s in verifies)
    assert not (tmp_path/'work'/f'{task_id}__s0'/'kernels').exists()
    if task_id == 'relu':      # its first version fails the JIT check with the interpreter's error; the edit fixes it
        jit = [s for s in traj['steps'] if s['action']['tool'] == 'compile'][0]
        assert jit['reward'] == -1 and 'BLOCK_SIZE' in jit['observation'] and 'JIT check FAILED' in jit['observation']


@needs_triton
@pytest.mark.parametrize('task_id', ['matmul', 'attention'])
def test_final_triton_solutions_compile_for_sm90_without_spills(task_id):
    "bench/triton_sm90_compile.py: every launch at the gpu preset compiles for the H100 (no GPU needed), within its registers."
    import importlib.util as iu
    spec = iu.spec_from_file_location('triton_sm90_compile', ROOT/'bench'/'triton_sm90_compile.py')
    sm90 = iu.module_from_spec(spec); spec.loader.exec_module(sm90)
    import triton
    if not (Path(triton.__file__).parent/'backends/nvidia/bin/cuobjdump').exists(): pytest.skip("this Triton ships no cuobjdump")
    launches = sm90.check_solution(task_id, sm90.script_versions(task_id)['final'])
    assert launches and all(l['registers'] and l['spill_bytes'] == 0 and l['shared_bytes'] < 228 * 1024 for l in launches), launches


@needs_triton
def test_resume_in_another_language_is_one_error(ev, tmp_path):
    "A trajectory recorded in Triton is not continued as a native one (nor the other way round)."
    from cuda_agent_wb.policy import ScriptedPolicy
    from cuda_agent_wb.rollout import run_trajectory
    relu = load_task(ROOT/'data/tasks/relu.py')
    run_trajectory(relu, ScriptedPolicy([{'tool': 'read_file', 'args': {'path': 'model.py'}}]), ev, tmp_path, language='triton', max_turns=1)
    (tmp_path/'relu__s0.jsonl').write_text((tmp_path/'relu__s0.jsonl').read_text().splitlines()[0] + '\n')   # cut off after its header
    with pytest.raises(ValueError, match="recorded in triton, resumed in cuda"):
        run_trajectory(relu, ScriptedPolicy([]), ev, tmp_path, resume=True)
