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

run: $(VENV)/.installed
	$(VENV)/bin/panic-lens check examples/burn-app || [ $$? -eq 1 ]

test: $(VENV)/.test-installed lint
	$(PY) -m pytest -q

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check server tests
	$(VENV)/bin/ruff format --check server tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
