# jantaku: two commands, each doing its own set-up from a fresh clone.
#   make run    the daemon on the simulated table, API on 127.0.0.1:8737 (Ctrl-C stops it)
#   make test   every test tier: CPython, MicroPython unix port + mpy-cross, end to end,
#               the emulated microcontroller (tests/mcu: skipped, saying why, without
#               qemu-system-arm or the firmware JANTAKU_MCU_FIRMWARE names)
#               and the firmware on a 32-bit MicroPython compiled to WebAssembly (tests/wasm32:
#               npm's package, pinned in package-lock.json, installed by `npm ci` on first
#               use; skipped, saying why, without Node)
#   make test-slow  the tests marked slow, which make test leaves out (the fault matrix's
#               whole cross product: every fault kind at every stage)
#   make test-mcu   that last tier alone, in one process, failing instead of skipping
#               (docs/FIRMWARE.md §10)
# The venv's interpreter: the distribution's own python3 when it is 3.11 or newer and
# can make a venv, else the python3 on PATH; `make PYTHON=...` overrides.  Debian's and
# Raspberry Pi OS's python3 is built with PGO and links libpython statically: the
# in-process simulator runs about 10 % faster on it than on a plain source build such as
# pyenv's default (shared libpython, no PGO); docs/SIMULATOR.md §8.
ifndef PYTHON
PYTHON := $(or $(shell for p in /usr/bin/python3 python3; do \
	$$p -c 'import sys, venv, ensurepip; ensurepip.version(); sys.exit(sys.version_info < (3, 11))' \
	>/dev/null 2>&1 && { command -v $$p; break; }; done),python3)
endif
VENV   := .venv
BIN    := $(VENV)/bin
# a new pyproject.toml or another interpreter makes a new venv
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)-$(shell $(PYTHON) -c 'import sys; print(sys.executable, sys.version)' 2>/dev/null | cksum | cut -d' ' -f1)

.PHONY: run test test-slow test-mcu test-wasm32 venv wasm32 bench clean

$(STAMP): pyproject.toml
	@echo "== setting up $(VENV) (first run only)"
	@echo "   with $(PYTHON): $$($(PYTHON) -c 'import sys; print(sys.version.split()[0])')"
	$(PYTHON) -m venv --clear $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

# The wasm32 tier's runtime (tests/wasm32): npm ci from package-lock.json, again only
# when the lock changes.  Without Node the tier is skipped (it says why); with Node but
# without npm or the registry, a one-line error.
NODE_STAMP := node_modules/.installed-$(shell cksum package-lock.json | cut -d' ' -f1)

$(NODE_STAMP): package.json package-lock.json
	@if ! command -v node >/dev/null 2>&1; then \
	  echo "== no Node on this machine: the wasm32 tier will be skipped (Debian: apt-get install nodejs npm)"; \
	elif ! command -v npm >/dev/null 2>&1; then \
	  echo "make: Node is here but npm is not: the wasm32 tier needs it to install its MicroPython (Debian: apt-get install npm)" >&2; exit 1; \
	else \
	  echo "== installing the wasm32 tier's MicroPython with npm ci (first run only)"; \
	  log=$$(mktemp); \
	  if npm ci --no-audit --no-fund --loglevel=error >$$log 2>&1; then rm -f $$log; \
	  else echo "make: npm ci failed (is the npm registry reachable?): $$(grep -m1 -i 'err' $$log || tail -n1 $$log)" >&2; rm -f $$log; exit 1; fi; \
	  rm -f node_modules/.installed-*; touch $@; \
	fi

wasm32: $(NODE_STAMP)

run: venv
	$(BIN)/jantaku run --sim

# The test files run on TEST_JOBS workers (pytest-xdist; the cores, at most 4): a file's
# tests stay together and in order in one worker (--dist loadfile: the page's evening and
# the e2e fixtures are per file). `make test TEST_JOBS=0` runs them in this one process.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)

test: venv wasm32
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile -m "not slow" $(PYTEST_ARGS)

# The tests marked slow, left out of make test: the fault matrix's whole cross product
# (tests/unit/test_fault_matrix.py; make test runs each fault kind and each stage once).
# Its combinations are independent: spread over the workers one by one.
test-slow: venv
	$(BIN)/python -m pytest -n $(TEST_JOBS) -m slow $(PYTEST_ARGS)

test-mcu: venv
	$(BIN)/python -m pytest tests/mcu --mcu-required $(PYTEST_ARGS)

test-wasm32: venv wasm32
	$(BIN)/python -m pytest tests/wasm32 $(PYTEST_ARGS)

bench: venv
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) node_modules .pytest_cache build *.egg-info
