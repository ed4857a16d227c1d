# One command for each job; each sets up .venv (Python 3.11+) and compiles the numba kernels on first use.
#   make demo    - the main job: train a small MaskablePPO agent on French Tarot (4 players, a few minutes),
#                  then evaluate it in the arena against random and rule-based agents (runs/main)
#   make play    - play one deal of every environment between random agents and print the results
#   make test    - lint (ruff) and run the whole test suite, mypy over the online room among it (installs Debian's chromium for the browser tests if missing)
#   make bench   - measure decisions per second, AEC and vector APIs (results/benchmark.json, results/vector_throughput.png)
#   make arena   - the rule-based bot against random players in every game (results/arena)
#   make train   - a short MaskablePPO self-play run on French Tarot, 4 players (runs/french4)
#   make benchmark - the benchmark suite: every table's leaderboard (random, rules, trained) under protocol v1
#                  (results/leaderboard, and its section of docs/results.md)
#   make env-docs - rewrite the generated blocks of the env modules' docstrings (tools/env_docs.py --write)
# The tarot command is installed in .venv: run .venv/bin/tarot, or activate with `. .venv/bin/activate`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo play test bench arena train benchmark env-docs lint setup clean chromium

# torch first: the CPU build these machines serve locally (torch==2.13.0). The train extra then finds
# torch satisfied and downloads no CUDA build. Elsewhere, TORCH="torch" (or your own build) works too.
TORCH ?= torch==2.13.0

# The set-up ends with the warm-up: one deal of every table compiles the numba kernels into their cache (a few
# minutes, once, one progress line), so later commands start at once. A failed warm-up stops make before the stamp.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[test,train,rllib,web]"
	$(PY) -m tarot_env.warmup
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) -m tarot_env.experiments.main

play: $(STAMP)
	$(PY) -m tarot_env.experiments.play_random

lint: $(STAMP)
	$(PY) -m ruff check .

# the browser tests (tests/test_web_browser.py) drive Debian's Chromium: installed here where missing, as root or with sudo
chromium:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver; \
	fi

test: lint chromium
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m tarot_env.experiments.benchmark --out results/benchmark.json --plot results/vector_throughput.png

arena: $(STAMP)
	for n in 3 4 5; do $(PY) -m tarot_env.experiments.arena --env french_tarot_v0 --players $$n --agents rules,random --deals 200 --out results/arena || exit 1; done
	for env in ottocento_v0 quattro_scartate_v0 terziglio_v0 millone_v0 centocinquanta_v0 quindici_v0; do \
		$(PY) -m tarot_env.experiments.arena --env $$env --agents rules,random --deals 200 --out results/arena || exit 1; done
	for n in 3 4 5 6; do $(PY) -m tarot_env.experiments.arena --env mattazza_v0 --players $$n --agents rules,random --deals 200 --out results/arena || exit 1; done

train: $(STAMP)
	$(PY) -m tarot_env.experiments.train --env french_tarot_v0 --players 4 --timesteps 300000 --out runs/french4

benchmark: $(STAMP)
	$(PY) -m tarot_env.experiments.suite --out results/leaderboard --docs docs/results.md

env-docs: $(STAMP)
	$(PY) tools/env_docs.py --write

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis build dist
