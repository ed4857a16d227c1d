"""Compile every numba kernel of tarot_env ahead, so that the first deal starts at once.

    python -m tarot_env.warmup                       # every env id at every player count
    python -m tarot_env.warmup --env ottocento_v0    # some of them (repeatable)

The rules, the observation encoders, the rule-based bots and the search's deal sampler are numba
kernels, compiled on first use and then read from numba's disk cache (:mod:`tarot_env._jit`). On a
fresh install a first French Tarot deal therefore takes 10-15 s and a Tarocchino game's 30-50 s
on a 2-core machine, where a cached start takes 1.5 s (docs/performance.md, "The first run"). The warm-up
plays, for every env id at every player count, one deal of the AEC env with the rule-based bot
at every seat and the oracle observations on, that deal again from its record (how the arena
replays its fixed deals), one deal at each of 4 tables of the vector env on one thread and on
two (the kernels' plain and parallel variants), and, for the first player count of each env id,
a deal of the search agent (``pimc``). ``make``'s set-up runs it (Makefile), so that later
commands start at once; it exits 1, with the error, when a deal fails, which stops the set-up.

A library user who never runs it is told once, on stderr, when the first kernel compiles
(:func:`tarot_env._jit.cold_cache`, called when a kernel finds nothing in its cache, which also
counts the kernels compiled): a first run is not a silent wait.

Where numba writes the cache: next to the sources, in each package folder's ``__pycache__``
(an editable install, a checkout); where ``NUMBA_CACHE_DIR`` points, when set; and, for a
package folder that is read-only and no ``NUMBA_CACHE_DIR``, in numba's cache folder in the
user's home (``~/.cache/numba``). The cache is valid for this numba version, these sources and
this machine's CPU: a change of any recompiles.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from typing import Any, TextIO

import numpy as np

from tarot_env.env_facts import ENV_IDS, facts


def cases(env_ids: list[str] | None = None) -> list[tuple[str, int]]:
    """(env id, player count) for every player count of each env id (default: every env id)."""
    ids = list(ENV_IDS) if env_ids is None else env_ids
    for env_id in ids:
        if env_id not in ENV_IDS:
            raise ValueError(f"unknown env id {env_id!r}; the env ids are {', '.join(ENV_IDS)}")
    return [(env_id, n) for env_id in ids for n in facts(env_id).player_counts]


def _options(env_id: str, num_players: int, **options: Any) -> dict[str, Any]:
    """``options`` with ``num_players`` added where the game has several counts (the module's own
    ``env()`` and the vector env are made as a user makes them, without it for a game of one count)."""
    if len(facts(env_id).player_counts) > 1:
        options["num_players"] = num_players
    return options


def make_env(env_id: str, num_players: int, **options: Any) -> Any:
    """The AEC env of the env's own module (``tarot_env.<env_id>.env``) at ``num_players``."""
    return importlib.import_module(facts(env_id).module).env(**_options(env_id, num_players, **options))


def play_aec(env: Any, agent: Any, **reset: Any) -> dict:
    """One deal of the AEC ``env`` (reset with ``reset``), ``agent`` at every seat; its record."""
    env.reset(**reset)
    for _ in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(agent.act(obs["observation"], obs["action_mask"])))
    return env.unwrapped.record()


def play_vector(env_id: str, num_players: int, bot: Any, num_threads: int, num_envs: int = 4, **options: Any) -> None:
    """``num_envs`` tables of the vector env on ``num_threads`` threads, ``bot`` deciding at
    every table, until each table has finished a deal."""
    from tarot_env import vector

    venv = vector.make(env_id, num_envs, num_threads=num_threads, **_options(env_id, num_players, **options))
    step = venv.reset(seed=0)
    finished = np.zeros(num_envs, dtype=bool)
    while not finished.all():
        step = venv.step(np.asarray(bot.act(step.observations, step.action_masks), dtype=np.int64))
        finished |= step.terminations


def warm_case(env_id: str, num_players: int, search: bool) -> None:
    """The deals of one case (see the module docstring); ``search``: a deal of the search agent too."""
    from tarot_env.agents import rule_agent

    bot = rule_agent(env_id)
    env = make_env(env_id, num_players, oracle=True)
    record = play_aec(env, bot, seed=0)
    play_aec(env, bot, options={"deal": record["deal"]})
    play_vector(env_id, num_players, bot, num_threads=1)
    play_vector(env_id, num_players, bot, num_threads=2, oracle=True)
    if search:
        from tarot_env.agents.pimc import PIMCAgent

        env = make_env(env_id, num_players)
        play_aec(env, PIMCAgent(samples=2, chunk=2, time=60.0).bind(env), seed=0)


def warm_up(env_ids: list[str] | None = None, out: TextIO = sys.stderr) -> int:
    """Play the deals of every case of :func:`cases` (see the module docstring), writing one
    progress line to ``out``; the number of kernels compiled (0 when all were cached)."""
    from tarot_env import _jit
    from tarot_env._jit import JIT_AVAILABLE, WHY_NOT_JIT

    todo = cases(env_ids)
    if not JIT_AVAILABLE:  # the plain-Python reference path: nothing to compile, and its deals would take minutes
        print(f"tarot_env warm-up: nothing to compile, the compiled kernels are off ({WHY_NOT_JIT})", file=out, flush=True)
        return 0
    start, before = time.perf_counter(), _jit.compiled
    print(
        f"tarot_env warm-up: a deal of each of {len(todo)} tables, compiling the numba kernels not cached yet (minutes the first time):",
        end="",
        file=out,
        flush=True,
    )
    _jit.quiet(True)
    try:
        for k, (env_id, n) in enumerate(todo):
            warm_case(env_id, n, search=k == 0 or todo[k - 1][0] != env_id)
            print(f" {env_id.removesuffix('_v0')}/{n}", end="", file=out, flush=True)
    finally:
        _jit.quiet(False)
    done = _jit.compiled - before
    print(f" - done in {time.perf_counter() - start:.0f} s, {done} kernels compiled", file=out, flush=True)
    return done


def main(argv: list[str] | None = None) -> int:
    """The command: 0 when every deal was played, 1 (with the error) when one failed."""
    from tarot_env.arguments import OneLineParser

    parser = OneLineParser(prog="python -m tarot_env.warmup", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", action="append", metavar="ENV_ID", help="an env id to warm up (repeatable; default: every env id)")
    args = parser.parse_args(argv)
    try:
        cases(args.env)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        warm_up(args.env)
    except Exception as exc:
        print(file=sys.stderr)
        traceback.print_exc()
        print(f"tarot_env warm-up FAILED ({type(exc).__name__}: {exc}): the kernels are not all compiled", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # run as tarot_env.warmup, the module the kernels' cache misses reach, not as a copy (__main__)
    from tarot_env.warmup import main as _main

    sys.exit(_main())
