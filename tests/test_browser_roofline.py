"""The roofline chart (`ncu.roofline_figure`) of the recorded GPU run (bench/results/ncu_gpu.json) in headless Chromium:
hovering a kernel shows its numbers; the screenshot goes to test-artifacts/roofline.png. Run with `make test-browser`."""
import json, shutil
from pathlib import Path
import pytest
from conftest import ROOT

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
RESULTS = ROOT / 'bench/results/ncu_gpu.json'


def test_roofline_chart_hover(tmp_path):
    if not Path(CHROMIUM).exists(): pytest.skip('chromium is not installed (make test-browser installs it)')
    if not RESULTS.exists(): pytest.skip('no recorded GPU run (bench/ncu_gpu.py writes bench/results/ncu_gpu.json)')
    sync_playwright = pytest.importorskip('playwright.sync_api').sync_playwright
    from cuda_agent_wb.ncu import roofline_figure
    rec = json.loads(RESULTS.read_text())
    kernels = [{**k, 'name': f"{t['task']}: {k['name']}"} for t in rec['tasks'] for k in t['kernels']]
    page_file = tmp_path / 'roofline.html'
    page_file.write_text(roofline_figure(kernels, rec['peaks'], f"Roofline ({rec['device']})").to_html(include_plotlyjs=True))
    art = ROOT / 'test-artifacts'; art.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox', '--disable-gpu'])
        page = browser.new_page(viewport={'width': 1200, 'height': 700})
        page.goto(page_file.as_uri())
        page.wait_for_selector('.js-plotly-plot .scatterlayer .point', timeout=60_000)
        page.locator('.js-plotly-plot .scatterlayer .trace:last-child .point').first.hover(force=True)
        page.wait_for_selector('.hoverlayer .hovertext', timeout=10_000)
        assert 'intensity' in page.locator('.hoverlayer').inner_text()
        page.screenshot(path=str(art / 'roofline.png'))
        browser.close()
    assert (art / 'roofline.png').stat().st_size > 20_000
