# Two commands do everything on a fresh machine with Python 3.10+ and make:
#   make play   set up .venv and play a game against three bots in the terminal
#   make test   set up .venv with the test tools; lint, type-check and run the whole suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test

.PHONY: play test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

play: $(STAMP)
	$(BIN)/kdm play --bots 3

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check kdm net plugins tests benchmarks
	$(BIN)/ruff format --check kdm net plugins tests benchmarks

# mypy cannot follow setuptools' package-dir mapping (net/ is installed as kdm.net), so it checks a
# tree of symlinks laid out the way the package is installed.
typecheck: $(STAMP)
	rm -rf .typecheck && mkdir -p .typecheck/kdm
	for entry in kdm/*; do ln -s ../../$$entry .typecheck/kdm/; done
	ln -s ../../net .typecheck/kdm/net && ln -s ../../plugins .typecheck/kdm/plugins
	cd .typecheck && ../$(BIN)/mypy -p kdm

pytest: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/sim.py

clean:
	rm -rf $(VENV) .typecheck .pytest_cache .mypy_cache .ruff_cache .hypothesis
