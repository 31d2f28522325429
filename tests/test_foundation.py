"Integration tests of the foundation: settings, task loading and the `cawb tasks` CLI."
import json, os
from pathlib import Path
from conftest import ROOT, run_cawb


def test_tasks_list_bundled():
    r = run_cawb('tasks', 'list', ROOT / 'data/tasks')
    assert r.returncode == 0, r.stderr
    rows = [l for l in r.stdout.splitlines()[1:] if l.strip()]
    assert len(rows) >= 12
    assert '0 error(s)' in r.stderr


def test_tasks_list_broken_file_one_line(tmp_path):
    bad = tmp_path / 'broken.py'
    bad.write_text("import torch\nclass Model(torch.nn.Module:\n    pass\n")
    r = run_cawb('tasks', 'list', bad)
    assert r.returncode == 1
    errs = [l for l in r.stderr.splitlines() if 'broken.py' in l]
    assert len(errs) == 1 and 'syntax error' in errs[0], r.stderr
    assert 'Traceback' not in r.stderr


def test_folder_with_bad_files_goes_on(tmp_path):
    (tmp_path / 'good.py').write_text((ROOT / 'data/tasks/relu.py').read_text())
    (tmp_path / 'nomodel.py').write_text("def get_inputs(): return []\ndef get_init_inputs(): return []\n")
    (tmp_path / 'raises.py').write_text((ROOT / 'data/tasks/relu.py').read_text() + "\nraise ValueError('boom')\n")
    (tmp_path / 'strs.py').write_text((ROOT / 'data/tasks/relu.py').read_text().replace(
        'return [torch.randn(batch_size, dim)]', "return ['not a tensor']"))
    r = run_cawb('tasks', 'list', tmp_path, '--run')
    assert r.returncode == 0, r.stderr
    assert 'good' in r.stdout
    assert 'nomodel.py: missing Model' in r.stderr
    assert "raises.py: loading the module raised ValueError: boom" in r.stderr
    assert "strs.py: get_inputs()[0] is str, expected a tensor or a number" in r.stderr
    assert 'Traceback' not in r.stderr


def test_bad_setting_names_key_and_file(tmp_path):
    ini = tmp_path / 'settings.ini'
    ini.write_text((ROOT / 'settings.ini').read_text().replace('atol = 1e-2', 'atol = lots'))
    r = run_cawb('tasks', 'list', env={'CAWB_SETTINGS': str(ini)})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == f"cawb: error: {ini}: [eval] atol = 'lots': not a number"


def test_every_verb_has_help():
    for verb in [[], ['tasks'], ['tasks', 'list'], ['demo']]:
        r = run_cawb(*verb, '--help')
        assert r.returncode == 0 and 'Usage' in r.stdout, (verb, r.stderr)


def test_bundled_tasks_run_at_cpu_preset():
    import torch
    from cuda_agent_wb.tasks import load_tasks, describe_task, load_module, make_inputs, build_model
    from cuda_agent_wb.verify import flat_outputs
    tasks, errors = load_tasks()
    assert not errors
    for t in tasks:
        assert set(t.presets) >= {'cpu', 'gpu'}, t.id
        row = describe_task(t, 'cpu')
        assert row['eager_ms'] > 0, (t.id, row)
        mod = load_module(t, 'cpu'); xs = make_inputs(t, mod, 0); model = build_model(t, mod, 0)
        with torch.no_grad(): out = model(*xs)
        sizes = [sum(x.numel() for x in xs if isinstance(x, torch.Tensor)), sum(o.numel() for o in flat_outputs(out)[0]),
                 sum(p.numel() for p in model.parameters())]
        assert max(sizes) <= 1 << 19, (t.id, sizes)      # small enough for CI: inputs, outputs and weights each under 512k values


def test_test_shards_split_a_suite(tmp_path):
    "CAWB_TEST_SHARD=k/n keeps every n-th test from the k-th (tests/conftest.py): two shards hold the suite once; a bad value is one clear error."
    import subprocess, sys
    def collected(shard):
        env = {**os.environ, **({'CAWB_TEST_SHARD': shard} if shard else {})}
        r = subprocess.run([sys.executable, '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider', 'tests/test_gpu.py'], capture_output=True, text=True, cwd=ROOT, env=env)
        return r, [l for l in r.stdout.splitlines() if '::' in l]
    whole, halves = collected(None)[1], [collected(f"{k}/2")[1] for k in (1, 2)]
    assert len(whole) > 2 and sorted(halves[0] + halves[1]) == sorted(whole) and not set(halves[0]) & set(halves[1])
    bad, _ = collected('3/2')
    assert bad.returncode != 0 and "CAWB_TEST_SHARD='3/2': expected k/n" in bad.stdout + bad.stderr
