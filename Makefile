# raggin-lsp developer commands. `make help` lists them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Tests and the demo share one download cache (docs, models) between runs.
export RAGGIN_CACHE_DIR ?= $(HOME)/.cache/raggin

.DEFAULT_GOAL := help
.PHONY: help install demo test test-fast fuzz lint docs wheel-check bench eval versions-snapshot clean

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install the package with its test and dev extras

demo: $(STAMP) ## Index the latest Next.js docs with the offline light profile and run three searches
	$(BIN)/python -m raggin_lsp demo

test: $(STAMP) ## Run the whole test suite (unit, integration on real docs, end-to-end over stdio)
	$(BIN)/python -m pytest -ra

test-fast: $(STAMP) ## Unit tests only (no network, no whole-version embedding)
	$(BIN)/python -m pytest -ra -m "not network and not slow"

# make test runs the wire fuzzer with 60 examples (~20 s); this runs many more.
FUZZ_EXAMPLES ?= 2000

fuzz: $(STAMP) ## Long run of the JSON-RPC fuzzer against the real server (FUZZ_EXAMPLES=2000)
	RAGGIN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -ra tests/e2e/test_fuzz_wire.py

lint: $(STAMP) ## ruff and mypy
	$(BIN)/ruff check raggin_lsp bench tests tools
	$(BIN)/ruff format --check raggin_lsp bench tests tools
	$(BIN)/mypy

docs: $(STAMP) ## Regenerate the settings table of docs/protocol.md from raggin_lsp.settings.SETTINGS
	$(BIN)/python -m tools.settings_docs

# A fresh venv outside the checkout, so the installed command cannot import the source tree.
WHEEL_VENV ?= /tmp/raggin-wheel-venv

wheel-check: $(STAMP) ## Build the wheel into dist/, install it in a fresh venv, smoke-test its raggin-lsp
	rm -rf dist $(WHEEL_VENV)
	$(BIN)/python -m pip wheel . --no-deps --quiet --wheel-dir dist
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet dist/raggin_lsp-*.whl
	$(BIN)/python -m tests.support.wheel_smoke $(WHEEL_VENV)/bin/raggin-lsp

# The version the README's figures are measured on (light profile).
MEASURED_VERSION ?= 16.4.6

bench: $(STAMP) ## Performance table, `python -m bench` (index and search speed, LSP latency, memory; 16.4.6)
	$(BIN)/python -m bench --version $(MEASURED_VERSION)

eval: $(STAMP) ## Retrieval quality on the test split (16.4.6, light): strategies, then each stage on/off
	$(BIN)/python -m raggin_lsp index $(MEASURED_VERSION) --profile light -q
	$(BIN)/python -m raggin_lsp eval --profile light --version $(MEASURED_VERSION) --split test --no-plot
	$(BIN)/python -m raggin_lsp eval --profile light --version $(MEASURED_VERSION) --split test --ablation

versions-snapshot: $(STAMP) ## Regenerate corpus/versions.yaml from the npm registry
	$(BIN)/python -m raggin_lsp versions --refresh-snapshot corpus/versions.yaml

clean: ## Remove the venv and build leftovers (keeps ~/.cache/raggin)
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
