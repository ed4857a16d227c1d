# One command for each job; each sets up .venv (Python 3.11+) on first use.
#   make demo    - play one deal of every environment between random agents and print the results
#   make test    - lint (ruff) and run the whole test suite
#   make bench   - measure decisions per second, AEC and vector APIs (results/benchmark.json, results/vector_throughput.png)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo test bench lint setup clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,fast,train]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) -m experiments.play_random

lint: $(STAMP)
	$(PY) -m ruff check .

test: lint
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m experiments.benchmark

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis results
