"""A real browser: JupyterLab on localhost, Debian's headless Chromium driven by Playwright, runs the explorer
notebook on a passing run (the bundled CPU trajectories) and on a failing one (a real rollout of a policy whose
kernels never pass), clicks through turns and the speedup bars, and saves screenshots under test-artifacts/.
Run with `make test-browser` (installs chromium)."""
import json, os, re, secrets, shutil, socket, subprocess, sys, time, urllib.request
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


def explorer_copy(name: str, trajectories: Path) -> str:
    "A copy of the explore workflow in test-artifacts/ (git-ignored: the source notebook is never autosaved) opening `trajectories`."
    nb = json.loads((ROOT/'nbs/workflows/explore.ipynb').read_text())
    params = next(c for c in nb['cells'] if c['cell_type'] == 'code')
    params['source'] = [re.sub(r"^trajectories = '[^']*'", f"trajectories = {str(trajectories)!r}", l) for l in params['source']]
    (ARTIFACTS/f'{name}.ipynb').write_text(json.dumps(nb))
    return f'test-artifacts/{name}.ipynb'


def run_notebook(p, url, token, rel):
    "Open `rel` in JupyterLab in a fresh Chromium page, run every cell, wait for the explorer; the page."
    browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'])
    page = browser.new_page(viewport={'width': 1400, 'height': 1800})
    ws = Path(rel).stem                                            # a workspace of its own, reset: no tab restored from another test
    page.goto(f'{url}/lab/workspaces/{ws}/tree/{rel}?token={token}&reset', timeout=120_000)
    page.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget && window.jupyterapp.shell.currentWidget.sessionContext", timeout=120_000)
    page.wait_for_function("window.jupyterapp.shell.currentWidget.sessionContext.session && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel", timeout=120_000)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector('.widget-slider, .jupyter-widgets.widget-slider', timeout=180_000)    # the turn slider
    page.wait_for_selector('.js-plotly-plot', timeout=180_000)                                    # reward/speedup figure
    page.wait_for_function("document.body.innerText.includes('turn 1 of')", timeout=60_000)
    page.wait_for_timeout(3000)
    no = page.locator('.Toastify button:text-is("No")')         # JupyterLab's "notified about news?" toast: decline
    if no.count() and no.first.is_visible(): no.first.click()
    return browser, page


def header(page) -> str:
    "The explorer's header pane: 'turn K of N · reward ... · tokens ...'."
    return page.locator('.cawb-explorer').inner_text().split('turn ', 1)[1].split('\n')[0]


def wait_header(page, prefix: str, timeout: int = 90_000):
    "Wait until the explorer's header starts with `prefix` (a kernel round trip away; on a loaded machine seconds)."
    page.wait_for_function("(p) => { const e = document.querySelector('.cawb-explorer'); const t = e && e.innerText.split('turn ')[1];"
                           " return !!t && t.startsWith(p); }", arg=prefix, timeout=timeout)


def step_turns(page, k: int):
    "Focus the turn slider and press the right arrow `k` times (as a user steps through turns)."
    page.locator('.cawb-explorer .noUi-handle, .cawb-explorer .ui-slider-handle').first.click()
    for _ in range(k): page.keyboard.press('ArrowRight'); page.wait_for_timeout(300)
    page.wait_for_timeout(1500)


def shot(page, name):
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    assert (ARTIFACTS / name).stat().st_size > 20_000


def test_explorer_on_a_passing_run(lab):
    from playwright.sync_api import sync_playwright
    url, token = lab
    with sync_playwright() as p:
        browser, page = run_notebook(p, url, token, explorer_copy('explore_passing', ROOT/'data/trajectories/cpu'))
        assert header(page).startswith('1 of'), header(page)
        shot(page, 'explorer.png')
        step_turns(page, 4); wait_header(page, '5 of')
        assert header(page).startswith('5 of'), header(page)                         # the slider's turn is the header's turn
        assert "{'" not in header(page) and 'None' not in header(page)
        shot(page, 'explorer_passing_turn5.png')
        first = page.locator('.cawb-explorer select').nth(3).input_value()
        bars = page.locator('.js-plotly-plot').last.locator('.barlayer .point path')
        assert bars.count() >= 10, bars.count()
        bars.nth(0).scroll_into_view_if_needed(); page.wait_for_timeout(500)
        box = bars.nth(0).bounding_box()
        page.mouse.click(box['x'] + box['width'] / 2, box['y'] + box['height'] * 0.7)   # the tallest bar
        page.wait_for_function("(first) => document.querySelectorAll('.cawb-explorer select')[3].value !== first", arg=first, timeout=90_000)
        wait_header(page, '1 of')
        page.wait_for_function("() => { const t = document.querySelector('.cawb-explorer').getBoundingClientRect().top; return t > -50 && t < 400; }", timeout=90_000)
        assert page.locator('.cawb-explorer select').nth(3).input_value() != first  # that trajectory opened
        assert header(page).startswith('1 of'), header(page)
        top = page.evaluate("document.querySelector('.cawb-explorer').getBoundingClientRect().top")
        assert -50 < top < 400, top                                                  # and the page scrolled up to it
        page.screenshot(path=str(ARTIFACTS / 'explorer_passing_bar_click.png'))
        text = page.inner_text('.jp-NotebookPanel')
        browser.close()
    assert 'Traceback' not in text, text[:2000]


def test_explorer_on_a_failing_run(lab, tmp_path):
    from playwright.sync_api import sync_playwright
    from test_report_paths import failing_run
    url, token = lab
    failed = failing_run(tmp_path)
    with sync_playwright() as p:
        browser, page = run_notebook(p, url, token, explorer_copy('explore_failing', failed))
        page.wait_for_function("document.body.innerText.includes('What failed and why')", timeout=60_000)
        assert 'nothing to plot' in page.inner_text('.jp-NotebookPanel')          # no correct solution: said, not blank
        shot(page, 'explorer_failing.png')
        step_turns(page, 3); wait_header(page, '4 of 7')
        assert header(page).startswith('4 of 7'), header(page)                       # the compile that failed
        panel = page.locator('.cawb-explorer').inner_text()
        assert 'kernels/relu.cpp:6:' in panel and 'builds/src' not in panel, panel[:3000]
        shot(page, 'explorer_failing_turn4.png')
        step_turns(page, 2); wait_header(page, '6 of 7')
        assert header(page).startswith('6 of 7') and 'incorrect_output' in page.locator('.cawb-explorer').inner_text()
        shot(page, 'explorer_failing_turn6.png')
        assert page.locator('.cawb-explorer select').nth(2).evaluate('s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : ""') == 'any'
        text = page.inner_text('.jp-NotebookPanel')
        browser.close()
    assert 'Traceback' not in text, text[:2000]


def mixed_run(tmp_path) -> Path:
    "The bundled CPU trajectories with the first one cut right after its header (a rollout killed as its episode began)."
    d = tmp_path/'mixed'; shutil.copytree(ROOT/'data/trajectories/cpu', d, ignore=shutil.ignore_patterns('report', 'best', 'work'))
    first = sorted(d.glob('*__s*.jsonl'))[0]
    first.write_text(first.read_text().splitlines()[0] + '\n')
    return d


def test_explorer_on_a_run_cut_short_and_a_bar_click_under_a_filter(lab, tmp_path):
    "Issue 49: a header-only first trajectory is shown as such (no KeyError, nothing stale); the legend is there; a bar click on a trajectory the outcome filter hides names it in the chooser."
    from playwright.sync_api import sync_playwright
    from cuda_agent_wb.explore import index_trajectories
    from cuda_agent_wb.eval import best_solutions
    url, token = lab
    run = mixed_run(tmp_path)
    idx, _ = index_trajectories(run)
    best, _ = best_solutions(run)
    top = best.sort_values('speedup_vs_compile', ascending=False).iloc[0]                  # the tallest bar
    hide = next(o for o in idx['outcome'].unique() if o != idx.set_index('file').loc[top['file'], 'outcome'] and o != 'header only')
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox', '--disable-gpu', '--no-first-run'])
        page = browser.new_page(viewport={'width': 1400, 'height': 1800})
        page.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
        rel = explorer_copy('explore_cut_short', run)
        page.goto(f'{url}/lab/workspaces/{Path(rel).stem}/tree/{rel}?token={token}&reset', timeout=120_000)
        page.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget && window.jupyterapp.shell.currentWidget.sessionContext"
                               " && window.jupyterapp.shell.currentWidget.sessionContext.session && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel", timeout=120_000)
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function("document.querySelector('.cawb-explorer') && document.querySelector('.cawb-explorer').innerText.includes('header only')", timeout=180_000)
        panel = page.locator('.cawb-explorer').inner_text()
        assert 'was cut off before its first turn' in panel and 'what the outcome labels mean' in panel, panel[:2000]
        page.wait_for_timeout(2000); shot(page, 'explorer_header_only.png')
        page.locator('.cawb-explorer details summary').first.click(); page.wait_for_timeout(500)
        assert 'faster than compile' in page.locator('.cawb-explorer details').first.inner_text()
        shot(page, 'explorer_legend.png')
        page.locator('.cawb-explorer details summary').first.click(); page.wait_for_timeout(500)   # closed again: `header` reads the first 'turn '
        page.locator('.cawb-explorer select').nth(1).select_option(label=hide)             # the outcome filter hides the tallest bar's
        page.wait_for_timeout(1500)
        bars = page.locator('.js-plotly-plot').last.locator('.barlayer .point path')
        bars.nth(0).scroll_into_view_if_needed(); page.wait_for_timeout(500)
        box = bars.nth(0).bounding_box()
        page.mouse.click(box['x'] + box['width'] / 2, box['y'] + box['height'] * 0.7)
        label = f"{top['task_id']} #{top['sample']} · "
        page.wait_for_function("(l) => { const s = document.querySelectorAll('.cawb-explorer select')[3]; return s.selectedIndex >= 0 && s.options[s.selectedIndex].text.replace(/\\u00a0/g, ' ').startsWith(l); }",
                               arg=label, timeout=90_000)
        wait_header(page, '1 of')
        chosen = page.locator('.cawb-explorer select').nth(3).evaluate('s => s.options[s.selectedIndex].text').replace('\xa0', ' ')   # the DOM's spaces are non-breaking
        assert chosen.startswith(label), chosen                                                # the chooser names what is shown
        assert page.locator('.cawb-explorer select').nth(1).input_value() == 'all'
        page.wait_for_timeout(1000); page.screenshot(path=str(ARTIFACTS / 'explorer_bar_click_under_filter.png'))
        text = page.inner_text('.jp-NotebookPanel')
        browser.close()
    (ARTIFACTS/'explorer_cut_short_console_errors.txt').write_text('\n'.join(errors))
    assert 'Traceback' not in text and 'KeyError' not in text, text[:2000]
