# cuda-agent-wb: `make demo` runs the main job, `make test` runs every test. Both set up .venv first.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# torch: a machine with a working NVIDIA driver gets the default (CUDA) build; any other machine gets the
# CPU build, pinned so pip takes the local CPU wheel instead of a multi-GB CUDA download.
# Override with e.g. `make test TORCH_SPEC=torch==2.11.0`.
TORCH_SPEC ?= $(shell if nvidia-smi -L >/dev/null 2>&1; then echo torch; else echo torch==2.13.0; fi)
# OpenMP threads sleep at barriers rather than spin (tests/conftest.py says why; the notebooks' tests get it here)
export OMP_WAIT_POLICY ?= PASSIVE
PIP_QUIET := 2>&1 | { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }

.PHONY: install install-triton venv demo test test-py test-nbs test-browser check-sync export clean-nbs bench-gpu

# .venv/.installed holds the sha1 of the pyproject.toml it was installed from: nbdev-export rewrites that file (same
# text, new time), so a time-based rule would reinstall after every export.
install:
	@want=$$(sha1sum pyproject.toml | cut -c1-40); \
	if [ "$$(cat $(VENV)/.installed 2>/dev/null)" != "$$want" ]; then $(MAKE) --no-print-directory venv && echo $$want > $(VENV)/.installed; fi

venv:
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip $(PIP_QUIET)
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install -q "$(TORCH_SPEC)" $(PIP_QUIET)
	$(BIN)/python -m pip install -q -e ".[dev,agents,rl,env]" $(PIP_QUIET)
	$(BIN)/python -m pip install -q --no-deps "verl==0.9.1" $(PIP_QUIET)

## Triton (about 1 GB): the tests need it (Triton solutions through its interpreter); `make demo` does not
install-triton: install
	@$(BIN)/python -c "import triton" 2>/dev/null || $(BIN)/python -m pip install -q -e ".[triton]" $(PIP_QUIET)

## the main job, on bundled data: no GPU and no model needed
demo: install
	$(BIN)/cawb demo

## pytest (integration) + nbdev-test (notebook cells) + notebooks/library sync check
test: install-triton
	$(MAKE) --no-print-directory test-py test-nbs check-sync

# pytest-xdist: TEST_WORKERS processes, each taking whole test files (module fixtures stay shared). On the 2-core
# machine, 2 workers ran pytest in 15:33 against 21:16 one at a time, fresh clones (much of it waits on subprocesses and servers).
# Three workers are slower there: 23:24 against 19:16 with two (fresh clones of 815dfa1 and 9923ca1, 2026-11-28): the
# third competes for the two cores with the compilers and servers the others start.
TEST_WORKERS ?= 2
test-py: install-triton
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=40 -n $(TEST_WORKERS) --dist loadfile -m "not browser" tests

## JupyterLab + headless Chromium (Debian's chromium, installed here if missing; Playwright drives it)
test-browser: install-triton
	command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python -m pytest -q -p no:cacheprovider -m browser tests

test-nbs: install-triton
	$(BIN)/nbdev-test --n-workers 2 --skip-folder-re '^(workflows|[_.])' nbs

export: install
	$(BIN)/nbdev-export
	$(BIN)/nbdev-clean

## nbdev-export and nbdev-clean must leave the committed notebooks and library unchanged
check-sync: install
	@snap() { find nbs cuda_agent_wb -type f \( -name '*.py' -o -name '*.ipynb' \) -not -path '*/.ipynb_checkpoints/*' | sort | xargs sha1sum; }; \
	before=$$(snap); $(BIN)/nbdev-export; $(BIN)/nbdev-clean; after=$$(snap); \
	if [ "$$before" != "$$after" ]; then diff <(echo "$$before") <(echo "$$after"); \
	  echo "check-sync: nbdev-export/nbdev-clean changed the files above: export and clean from the notebooks, then commit"; exit 1; fi; \
	echo "check-sync: notebooks and library in sync"
