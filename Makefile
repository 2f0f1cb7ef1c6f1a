# Two commands do everything on a fresh machine with Python 3.10+ and make (a third checks quickly):
#   make play   set up .venv and play a game against three bots in the terminal
#   make test   set up .venv with the test tools; lint, type-check and run the whole suite
#   make check  the quick one: lint, type-check and every test that starts no process
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test
PLAY_STAMP := $(VENV)/.installed
EXAMPLE_STAMP := $(VENV)/.installed-examples

.PHONY: play test check lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Playing needs kdm and its dependencies alone; the test tools (pytest, hypothesis, ruff, mypy) come with
# the first `make test`.
$(PLAY_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP): $(PLAY_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The example third-party plugins, installed the way a stranger's packages would be, after kdm (their
# dependency).
$(EXAMPLE_STAMP): examples/lightaces/pyproject.toml examples/aceback/pyproject.toml \
		examples/snap/pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e examples/lightaces -e examples/aceback -e examples/snap
	touch $@

play: $(PLAY_STAMP)
	$(BIN)/kdm play --bots 3

test: lint typecheck pytest

# The unit and virtual-time tests: everything but what starts processes, namespaces or tmux, and the soaks
# (pyproject's markers; tests/conftest.py fails a test that starts a process unmarked).
# They run on one worker per core (pytest-xdist): each binds its own ports and writes its own temporary files.
QUICK_TESTS := not processes and not netns and not tmux and not slow

check: lint typecheck $(STAMP) $(EXAMPLE_STAMP)
	KDM_QUICK=1 $(BIN)/python -m pytest -q -n auto -m "$(QUICK_TESTS)"

lint: $(STAMP)
	$(BIN)/ruff check kdm net plugins tests benchmarks examples
	$(BIN)/ruff format --check kdm net plugins tests benchmarks examples

# mypy cannot follow setuptools' package-dir mapping (net/ is installed as kdm.net), so it checks a
# tree of symlinks laid out the way the package is installed.
typecheck: $(STAMP)
	rm -rf .typecheck && mkdir -p .typecheck/kdm
	for entry in kdm/*; do ln -s ../../$$entry .typecheck/kdm/; done
	ln -s ../../net .typecheck/kdm/net && ln -s ../../plugins .typecheck/kdm/plugins
	cd .typecheck && ../$(BIN)/mypy --cache-dir ../.mypy_cache -p kdm

# Collects tests/ and every example's tests (pyproject's testpaths); tests/test_example_plugin.py
# runs the installed kdm with the example plugin. One worker per core here too: the tests that start
# processes keep out of each other's way as the quick ones do (ports of their own; tables joined by
# address, by name only on a namespace LAN of their own; namespaces and tmux sockets named by the
# worker's pid), and each stands another job on both cores. The slowest tests are listed at the end.
pytest: $(STAMP) $(EXAMPLE_STAMP)
	$(BIN)/python -m pytest -n auto --durations=15

bench: $(STAMP)
	$(BIN)/python benchmarks/sim.py

clean:
	rm -rf $(VENV) .typecheck .pytest_cache .mypy_cache .ruff_cache .hypothesis
