"""A real browser: JupyterLab on localhost, Debian's headless Chromium driven by Playwright, runs the explorer
notebook and takes a screenshot (test-artifacts/explorer.png). Run with `make test-browser` (installs chromium)."""
import os, secrets, shutil, socket, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest
from conftest import ROOT

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
ARTIFACTS = ROOT / 'test-artifacts'


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


@pytest.fixture(scope='module')
def lab():
    if not os.path.exists(CHROMIUM): pytest.skip('chromium is not installed (make test-browser installs it)')
    pytest.importorskip('playwright')
    port, token = free_port(), secrets.token_hex(16)
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / 'jupyterlab.log', 'w')
    proc = subprocess.Popen([str(Path(sys.executable).parent / 'jupyter'), 'lab', '--no-browser', f'--port={port}',
                             '--ip=127.0.0.1', f'--IdentityProvider.token={token}', '--allow-root',
                             f'--ServerApp.root_dir={ROOT}', '--LabApp.expose_app_in_browser=True'],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f'http://127.0.0.1:{port}'
    for _ in range(120):
        try:
            urllib.request.urlopen(f'{url}/api/status?token={token}', timeout=2); break
        except OSError: time.sleep(0.5)
    else:
        proc.kill(); pytest.fail('JupyterLab did not start (see test-artifacts/jupyterlab.log)')
    yield url, token
    proc.terminate()
    try: proc.wait(10)
    except subprocess.TimeoutExpired: proc.kill()


def test_explorer_renders_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright
    url, token = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync'])
        page = browser.new_page(viewport={'width': 1400, 'height': 1800})
        page.goto(f'{url}/lab/tree/nbs/workflows/explore.ipynb?token={token}', timeout=120_000)
        page.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget && window.jupyterapp.shell.currentWidget.sessionContext", timeout=120_000)
        page.wait_for_function("window.jupyterapp.shell.currentWidget.sessionContext.session && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel", timeout=120_000)
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_selector('.widget-slider, .jupyter-widgets.widget-slider', timeout=180_000)    # the step slider
        page.wait_for_selector('.js-plotly-plot', timeout=180_000)                                    # reward/speedup figure
        page.wait_for_timeout(3000)
        page.screenshot(path=str(ARTIFACTS / 'explorer.png'), full_page=True)
        text = page.inner_text('.jp-NotebookPanel')
        browser.close()
    assert (ARTIFACTS / 'explorer.png').stat().st_size > 20_000
    assert 'Traceback' not in text and 'Error' not in text.split('Per-kernel speedups')[0], text[:2000]
