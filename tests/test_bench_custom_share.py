"""bench/custom_share.py without a GPU: its --help, CUDA-L1's format read into task and solution files (only the
solutions with CUDA of their own unless --all), and the summary's quantiles and per-threshold counts."""
import json, subprocess, sys
from conftest import ROOT

sys.path.insert(0, str(ROOT / 'bench'))
import custom_share as cs

REF = "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x): return torch.relu(x)\ndef get_inputs(): return [torch.randn(4)]\ndef get_init_inputs(): return []\n"
OWN = "from torch.utils.cpp_extension import load_inline\nsrc = '__global__ void k() {}'\nclass ModelNew: pass\n"


def test_help_names_every_source():
    out = subprocess.run([sys.executable, str(ROOT / 'bench/custom_share.py'), '--help'], capture_output=True, text=True).stdout
    assert all(s in out for s in ('--bundled', '--cuda-l1', '--pairs', '--time-budget', '--out'))


def test_cuda_l1_lines_become_task_and_solution_files(tmp_path):
    f = tmp_path / 'h100.json'
    f.write_text('\n'.join(json.dumps(d) for d in [dict(level_id='1', task_id='19', ref_code=REF, custom_code=OWN),
                                                    dict(level_id='2', task_id='4', ref_code=REF, custom_code='class ModelNew: pass\n'),
                                                    dict(level_id='1', task_id='20', ref_code=REF, custom_code=None)]))
    items = cs.cuda_l1_items(f, tmp_path / 'work', False, None)
    assert [(it['name'], it['kind']) for it in items] == [('cudal1_h100_L1_19', 'public')]
    assert open(items[0]['task']).read() == REF and open(items[0]['solution']).read() == OWN
    assert [it['kind'] for it in cs.cuda_l1_items(f, tmp_path / 'work', True, None)] == ['public', 'torch-only']
    assert cs.cuda_l1_items(f, tmp_path / 'work', True, {2})[0]['level'] == 2


def test_summary_counts_what_each_threshold_flags():
    rows = [dict(source='s', kind='public', custom_kernel_share=x, correct=True, flags=[]) for x in (0.015, 0.04, 0.3, 0.9)]
    rows += [dict(source='s', kind='decoy', custom_kernel_share=0.017, correct=False, flags=['no_custom_kernel']),
             dict(source='s', kind='decoy', custom_kernel_share=None, correct=False, flags=['compile_error'])]
    s = cs.summarise(rows)
    assert s['s/public']['flagged_at'] == {'0.01': 0, '0.02': 1, '0.05': 2, '0.1': 2, '0.2': 2} and s['s/public']['shares']['min'] == 0.015
    assert s['s/decoy']['n'] == 2 and s['s/decoy']['shares']['max'] == 0.017
