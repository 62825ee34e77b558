# jantaku: two commands, each doing its own set-up from a fresh clone.
#   make run    the daemon on the simulated table, API on 127.0.0.1:8737 (Ctrl-C stops it)
#   make test   every test tier: CPython, MicroPython unix port + mpy-cross, end to end
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: run test venv bench clean

$(STAMP): pyproject.toml
	@echo "== setting up $(VENV) (first run only)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(BIN)/jantaku run --sim

test: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: venv
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
