# neardup: two commands on a fresh machine with only Python >= 3.11:
#   make demo   creates .venv, installs neardup, deduplicates examples/corpus
#   make test   installs the dev extras, runs ruff and pytest
#   make test-fast  pytest without the tests marked slow (no lint; `make lint` runs it)
#   make test-seconds  a full run that rewrites tests/file_seconds.json (test order)
#   make docs   builds the documentation site into site/ (mkdocs build --strict)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Tests run in parallel (pytest-xdist): PYTEST_WORKERS workers (default: one a core), each
# test file on one worker (its module fixtures, a browser or a server, are made once), the
# longest files first (tests/conftest.py, by tests/file_seconds.json: make test-seconds).
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder
PIP    := $(BIN)/python -m pip

.PHONY: demo test test-fast test-seconds lint docs audit bench clean

# The demo's install has the report extra (matplotlib) too, so that the README's
# `neardup evaluate ... --html` example runs after `make demo`. setup.py and the .pyx:
# pip install -e . also (re)builds the compiled prepare kernel.
$(BIN)/neardup: pyproject.toml setup.py src/neardup/methods/_kernel.pyx src/neardup/text/_scan.pyx
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[report]'
	@touch $@

# The dev extra's requirements, read from pyproject.toml, not `pip install -e '.[dev]'`:
# reinstalling the package would compile the kernel a second time (27 s on 2 cores).
$(VENV)/.dev: $(BIN)/neardup
	$(BIN)/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]))' > $(VENV)/dev-requirements.txt
	$(PIP) install --quiet -r $(VENV)/dev-requirements.txt
	@touch $@

demo: $(BIN)/neardup
	$(BIN)/neardup dedup examples/corpus --measure containment --threshold 0.5 --out out/demo
	@echo "results in out/demo/ (pairs.jsonl, clusters.jsonl, dropped.jsonl, skipped.jsonl, summary.json)"

# ruff; mypy on src/ and tests/ (strict, see [tool.mypy]); import-linter's layer contracts.
lint: $(VENV)/.dev
	$(BIN)/ruff check src tests benchmarks examples docs/hooks
	$(BIN)/mypy
	$(BIN)/lint-imports

# --durations=20: the slowest twenty tests, at the end of every run.
test: lint
	$(PYTEST) --durations=20

# The tests not marked slow (pytest -m 'not slow'), without lint: the quick loop while editing.
test-fast: $(VENV)/.dev
	$(PYTEST) -m "not slow"

# Rewrites tests/file_seconds.json (the seconds of each test file) from a full run.
test-seconds: $(VENV)/.dev
	$(PYTEST) --junitxml=.pytest-junit.xml -q
	$(BIN)/python tests/file_seconds.py .pytest-junit.xml

# The documentation site (MkDocs Material + mkdocstrings) in site/; warnings are errors.
# Only the docs extra is installed for it (its own stamp), not the whole dev extra.
# (nothing to install when the dev extra brought them: a reinstall would rebuild the kernel)
$(VENV)/.docs: $(BIN)/neardup
	$(BIN)/python -c "import mkdocs, material, mkdocstrings_handlers.python" 2>/dev/null \
		|| $(PIP) install --quiet -e '.[docs]'
	@touch $@

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# Known vulnerabilities in the installed dependencies (pip-audit; fatal when found,
# a warning when the vulnerability service cannot be reached). See .ci/audit.py.
audit: $(VENV)/.dev
	$(BIN)/python .ci/audit.py

bench: $(VENV)/.dev
	$(PIP) install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run_all.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) out site .pytest_cache .ruff_cache
