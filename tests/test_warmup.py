"""The first run (tarot_env/warmup.py): the warm-up compiles the kernels ahead, and a process whose
kernels' cache is cold says so once on stderr, a warm one says nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tarot_env import _jit, warmup

ROOT = Path(__file__).resolve().parents[1]
NOTICE = "tarot_env: compiling the game's numba kernels on first use"

#: two small kernels, compiled where their cache is cold; prints how many compiled in the process
TWO_KERNELS = "from tarot_env import _jit; _jit.shares(40); _jit.share(1, 40); print(_jit.compiled)"

#: what a user does first, a deal of the AEC env, the vector env and the rule-based bot
FIRST_DEALS = """
import numpy as np, tarot_env, tarot_env.vector
from tarot_env import _jit
from tarot_env.agents import rule_agent
env = tarot_env.make("terziglio_v0")
env.reset(seed=1)
rng = np.random.default_rng(1)
for _ in env.agent_iter():
    obs, _, term, trunc, _ = env.last()
    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
venv = tarot_env.vector.make("terziglio_v0", 3)
step = venv.reset(seed=1)
bot = rule_agent("terziglio_v0")
for _ in range(20):
    step = venv.step(bot.act(step.observations, step.action_masks))
print(_jit.compiled)
"""


def python(args: list[str], **env: str) -> subprocess.CompletedProcess:
    """``python args`` in a fresh process with the compiled kernels on (the suite may run under TAROT_ENV_JIT=0)."""
    clean = {k: v for k, v in os.environ.items() if k != "TAROT_ENV_JIT"}
    return subprocess.run([sys.executable, *args], env={**clean, **env}, cwd=ROOT, capture_output=True, text=True, timeout=1800)


def test_the_first_compile_of_a_process_says_so_once_and_a_warm_cache_nothing(tmp_path):
    cold = python(["-c", TWO_KERNELS], NUMBA_CACHE_DIR=str(tmp_path))
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["2"]  # both compiled...
    assert cold.stderr.count(NOTICE) == 1 and len(cold.stderr.splitlines()) == 1, cold.stderr  # ...one line said so
    assert f"NUMBA_CACHE_DIR={tmp_path}" in cold.stderr and "python -m tarot_env.warmup" in cold.stderr
    warm = python(["-c", TWO_KERNELS], NUMBA_CACHE_DIR=str(tmp_path))
    assert warm.returncode == 0 and warm.stdout.split() == ["0"] and warm.stderr == "", warm.stderr


def test_after_the_warm_up_a_first_deal_compiles_nothing():
    """The module runs (one game, with the package's own cache: compiled by `make`'s set-up), says
    what it did in one line, and leaves nothing to compile for the AEC env, the vector env and the
    bot in a new process, which then says nothing on stderr."""
    run = python(["-m", "tarot_env.warmup", "--env", "terziglio_v0"])
    assert run.returncode == 0, run.stderr
    assert re.fullmatch(r"tarot_env warm-up: .*: terziglio/3 - done in \d+ s, \d+ kernels compiled\n", run.stderr), run.stderr
    first = python(["-c", FIRST_DEALS])
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["0"] and first.stderr == "", first.stderr


def test_without_the_compiled_path_there_is_nothing_to_warm_up():
    run = python(["-W", "ignore::UserWarning", "-m", "tarot_env.warmup"], TAROT_ENV_JIT="0")
    assert run.returncode == 0, run.stderr
    assert run.stderr == "tarot_env warm-up: nothing to compile, the compiled kernels are off (TAROT_ENV_JIT=0 is set)\n"


def test_an_unknown_env_id_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        warmup.main(["--env", "tarot_v0"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "unknown env id 'tarot_v0'; the env ids are french_tarot_v0, ottocento_v0" in err


def test_a_failed_deal_fails_the_warm_up_loudly(capsys, monkeypatch):
    def broken(env_id: str, num_players: int, search: bool) -> None:
        raise RuntimeError(f"no deal of {env_id} with {num_players}")

    monkeypatch.setattr(warmup, "warm_case", broken)
    assert warmup.main(["--env", "terziglio_v0"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "tarot_env warm-up FAILED (RuntimeError: no deal of terziglio_v0 with 3)" in err
    assert not _jit._quiet  # a later compile in the process is told again


def test_the_set_up_warms_up_before_it_is_done():
    """The Makefile's set-up (the $(STAMP) rule behind every target) runs the warm-up after the
    install and before its stamp: a fresh clone's `make test` and `make demo` find the kernels
    compiled, and a failed warm-up stops make and leaves no stamp, so the next make tries again."""
    lines = (ROOT / "Makefile").read_text().split("\n$(STAMP): pyproject.toml\n", 1)[1].split("\n\n", 1)[0].splitlines()
    recipe = [line.strip() for line in lines]
    install = max(k for k, line in enumerate(recipe) if "pip install" in line)
    warm = recipe.index("$(PY) -m tarot_env.warmup")
    assert install < warm < recipe.index("touch $(STAMP)")
