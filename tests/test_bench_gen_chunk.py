"""bench/gen_chunk.py (issue 26: pooled sampling in chunks) end to end on a CPU with a toy model: both modes play every
episode and write their rows; a bad --chunks is one line. Measures nothing (the GPU run does)."""
import json, subprocess, sys
from conftest import ROOT

TOY = ['--backend', 'cpu', '--set', 'tiny={"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2}', '--set', 'dtype=float32',
       '--set', 'gen_cache=dynamic', '--set', 'grad_ckpt=false', '--prompt', '48', '--episodes', '3', '--turns', '2', '--max-new', '24',
       '--stop-every', '8']


def test_gen_chunk_compares_whole_and_chunked_replies(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, str(ROOT/'bench'/'gen_chunk.py'), *TOY, *a], capture_output=True, text=True, cwd=tmp_path)
    r = run('--chunks', '0,8', '--results', str(tmp_path/'r.json'))
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((tmp_path/'r.json').read_text())
    assert [m['gen_chunk'] for m in res['modes']] == [0, 8] and res['episodes'] == 3 and res['max_new_tokens'] == 24
    assert all(0 < m['tokens'] <= 3 * 2 * 24 and m['wall_s'] > 0 and m['generator_busy_s'] > 0 for m in res['modes'])
    bad = run('--chunks', '0,x', '--results', str(tmp_path/'bad.json'))
    assert bad.returncode != 0 and bad.stderr.strip().splitlines()[-1] == "--chunks '0,x': give whole numbers, comma-separated, e.g. 0,256"
    zero = run('--stop-every', '0', '--results', str(tmp_path/'zero.json'))
    assert zero.returncode != 0 and zero.stderr.strip().splitlines()[-1].startswith('--episodes, --turns, --prompt, --stop-every and --max-new must be')
