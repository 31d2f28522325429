"""The explorer's roofline chart in headless Chromium: a bundled CUDA trajectory whose last turn carries the recorded
Nsight Compute metrics of its task (bench/results/ncu_gpu.json, as the agent's `profile` with `ncu: true` records them),
exported by `explore.export_html`; hovering a kernel shows its numbers; the screenshot goes to
test-artifacts/roofline.png. Run with `make test-browser`."""
import json, shutil
from pathlib import Path
import pytest
from conftest import ROOT

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
RESULTS = ROOT / 'bench/results/ncu_gpu.json'


def trajectory_with_metrics(task: str, dest: Path) -> Path:
    "The bundled CUDA trajectory of `task` with the recorded metrics of its task in its last step's result."
    rec = json.loads(RESULTS.read_text())
    got = next(t for t in rec['tasks'] if t['task'] == task and t['kernels'])
    lines = (ROOT / f'data/trajectories/cuda/{task}__s0.jsonl').read_text().splitlines()
    last = max(i for i, l in enumerate(lines) if json.loads(l).get('type') == 'step')
    step = json.loads(lines[last])
    step['result'] = {**(step.get('result') or {}), 'ncu': {'kernels': got['kernels'], 'peaks': rec['peaks']}}
    lines[last] = json.dumps(step)
    dest.write_text('\n'.join(lines) + '\n')
    return dest


def test_explorer_roofline_hover(tmp_path):
    if not Path(CHROMIUM).exists(): pytest.skip('chromium is not installed (make test-browser installs it)')
    if not RESULTS.exists(): pytest.skip('no recorded GPU run (bench/ncu_gpu.py writes bench/results/ncu_gpu.json)')
    sync_playwright = pytest.importorskip('playwright.sync_api').sync_playwright
    from cuda_agent_wb.explore import export_html
    page_file = export_html(trajectory_with_metrics('matmul_scale_softmax_mean', tmp_path / 'matmul_scale_softmax_mean__s0.jsonl'), tmp_path / 'explorer.html')
    assert page_file.read_text().count('<h4>roofline</h4>') == 1
    art = ROOT / 'test-artifacts'; art.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox', '--disable-gpu'])
        page = browser.new_page(viewport={'width': 1200, 'height': 900})
        page.goto(page_file.as_uri())
        plot = page.locator('.js-plotly-plot').last                      # the roofline: after the turn figure
        plot.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2 && "
                               "[...document.querySelectorAll('.js-plotly-plot')].pop().querySelectorAll('.scatterlayer .point').length > 0", timeout=60_000)
        plot.locator('.scatterlayer .trace:last-child .point').first.hover(force=True)
        page.wait_for_selector('.hoverlayer .hovertext', timeout=10_000)
        assert 'intensity' in plot.locator('.hoverlayer').text_content()
        plot.screenshot(path=str(art / 'roofline.png'))
        browser.close()
    assert (art / 'roofline.png').stat().st_size > 20_000
