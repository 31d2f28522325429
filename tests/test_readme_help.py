"""README and `--help` agree: every `cawb VERB [SUB] --option` the README shows (code blocks and inline code) is a
verb whose --help lists that option, and every `papermill nbs/workflows/X.ipynb ... -p NAME` names a parameter of
that notebook's parameters cell."""
import json, re
from functools import lru_cache
from conftest import ROOT

README = (ROOT/'README.md').read_text()


def readme_commands(prog: str) -> list[str]:
    "Every `prog ...` command line in the README's code blocks (continuations joined) and inline code spans."
    blocks = [b for lang, b in re.findall(r'^```(\w*)\n(.*?)^```', README, re.S | re.M) if lang != 'python']
    lines = [l for b in blocks for l in b.replace('\\\n', ' ').splitlines()]
    inline = re.findall(r'`([^`\n]+)`', re.sub(r'^```.*?^```', '', README, flags=re.S | re.M))
    cmds = [re.split(r'\s+#', l)[0].strip() for l in lines + inline]
    found = [(c, re.search(rf'(?:^|\s){prog}\s', c + ' ')) for c in cmds]
    return [c[m.start():].strip() for c, m in found if m]


@lru_cache(maxsize=None)
def help_text(*verbs) -> str:
    from typer.testing import CliRunner
    from cuda_agent_wb.cli import app
    r = CliRunner().invoke(app, [*verbs, '--help'], terminal_width=200)
    assert r.exit_code == 0, f"cawb {' '.join(verbs)} --help: {r.output[-500:]}"
    return r.output


def verb_of(words: list[str]) -> tuple:
    "The verb (and sub-verb) a command line names: `cawb tasks list` -> ('tasks', 'list')."
    return tuple(words[:2]) if words[0] == 'tasks' and len(words) > 1 and not words[1].startswith('-') and words[1] in ('list', 'audit') else (words[0],)


def test_readme_cawb_options_exist():
    cmds = readme_commands('cawb')
    assert len(cmds) > 20, cmds                       # the README shows many; the parser found them
    missing = []
    for c in cmds:
        words = c.split()[1:]
        if not words or words[0].startswith('-'): continue
        verb = verb_of(words)
        text = help_text(*verb)
        for opt in re.findall(r'(?<![\w-])(--[a-z][\w-]*)', c):
            if opt not in text: missing.append(f"README `{c}`: {opt} is not in `cawb {' '.join(verb)} --help`")
    assert not missing, '\n'.join(missing)


def test_readme_papermill_parameters_exist():
    cmds = readme_commands('papermill')
    assert cmds, 'no papermill command in the README'
    bad = []
    for c in cmds:
        nb = re.search(r'(nbs/workflows/\w+\.ipynb)', c)
        if not nb: continue
        cells = json.loads((ROOT/nb.group(1)).read_text())['cells']
        params = ''.join(next(x for x in cells if x['cell_type'] == 'code')['source'])
        for name in re.findall(r'-p\s+(\w+)', c):
            if not re.search(rf'^{name}\s*=', params, re.M): bad.append(f"README `{c}`: {nb.group(1)} has no parameter {name}")
    assert not bad, '\n'.join(bad)


def test_help_names_what_the_code_writes():
    assert 'inspect' not in help_text('tasks')
    assert 'reverify.jsonl' in help_text('evaluate-dir') and 'reverify.jsonl' in README
