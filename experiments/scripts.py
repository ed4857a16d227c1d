"""``tarot bench``, ``tarot train``, ``tarot arena``: the experiment scripts behind one interface.

The same flags mean the same thing everywhere (``--env``, ``--players``, ``--seed``, ``--out``,
``--time-per-move``); they are translated to the script's own flags, and every other flag is
passed to the script as it is (``tarot train --n-steps 256``), so the scripts stay the one
place their options are defined. ``--script-help`` shows the script's full list.

The ``tarot`` command (:mod:`tarot_env.command`) parses the command line and calls these; they
live with the scripts they run, since the terminal front end (:mod:`tarot_env.cli`) does not
import the experiments.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator

TRAIN_EXTRA = 'pip install "tarot_env[train]"'


def missing(modules: list[str]) -> list[str]:
    """The modules of ``modules`` that are not installed."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def need(command: str, modules: list[str], why: str) -> None:
    """Stop with a clear message naming the extra to install when a module is missing."""
    absent = missing(modules)
    if absent:
        raise SystemExit(f"tarot {command}: {why} needs {', '.join(absent)}, from the train extra: {TRAIN_EXTRA}")


@contextlib.contextmanager
def argv0(name: str) -> Iterator[None]:
    """Run a script with ``sys.argv[0]`` set, so that its argparse messages say ``tarot bench: error: …``."""
    saved = sys.argv[:]
    sys.argv = [name, *saved[1:]]
    try:
        yield
    finally:
        sys.argv = saved


def _flag(argv: list[str], name: str, value: object) -> None:
    if value is not None:
        argv += [name, str(value)]


def script_help(module: str, name: str) -> int:
    with argv0(name):
        mod = importlib.import_module(module)
        try:
            if module == "tarot_env.experiments.benchmark":
                sys.argv = [name, "--help"]
                mod.main()
            else:
                mod.main(["--help"])
        except SystemExit as e:
            return int(e.code or 0)
    return 0


# ------------------------------------------------------------------------------------- bench
def run_bench(args: argparse.Namespace, rest: list[str]) -> int:
    if args.script_help:
        return script_help("tarot_env.experiments.benchmark", "tarot bench")
    argv: list[str] = []
    for env_id in args.env or []:
        argv += ["--env", env_id]
    for n in args.players or []:
        argv += ["--players", str(n)]
    _flag(argv, "--api", args.api)
    _flag(argv, "--seconds", args.seconds)
    _flag(argv, "--out", args.out)
    argv += rest
    plotting = (args.api or "all") in ("vector", "all") and not _empty_plot(rest)
    if plotting and missing(["matplotlib"]):
        raise SystemExit(f"tarot bench: the vector plot needs matplotlib, from the train extra: {TRAIN_EXTRA} (or give --plot '')")
    from tarot_env.experiments import benchmark

    with argv0("tarot bench"):
        sys.argv = ["tarot bench", *argv]  # benchmark.main reads sys.argv
        benchmark.main()
    return 0


def _empty_plot(rest: list[str]) -> bool:
    """Whether ``--plot ''`` (no plot) is among the flags passed through."""
    for i, a in enumerate(rest):
        if a == "--plot" and i + 1 < len(rest) and rest[i + 1] == "":
            return True
        if a == "--plot=":
            return True
    return False


# ------------------------------------------------------------------------------------- arena
def run_arena(args: argparse.Namespace, rest: list[str]) -> int:
    if args.script_help:
        return script_help("tarot_env.experiments.arena", "tarot arena")
    if not args.env:
        raise SystemExit("tarot arena: error: no env id: give it first, tarot arena ENV_ID, or with --env (tarot list shows the env ids)")
    need("arena", ["tqdm", "openskill", "matplotlib"], "the arena (progress, ratings, plot)")
    if args.agents and any(s.strip().startswith("sb3:") or s.strip() == "pretrained" for s in args.agents.split(",")):
        need("arena", ["torch", "stable_baselines3", "sb3_contrib"], "an sb3 agent")
    argv = ["--env", args.env]
    _flag(argv, "--players", args.players)
    _flag(argv, "--agents", args.agents)
    _flag(argv, "--deals", args.deals)
    _flag(argv, "--seed", args.seed)
    _flag(argv, "--time-limit", args.time_per_move)
    _flag(argv, "--out", args.out)
    _flag(argv, "--ratings", args.ratings)
    from tarot_env.experiments import arena

    with argv0("tarot arena"):
        arena.main(argv + rest)
    return 0


# ------------------------------------------------------------------------------------- train
def run_train(args: argparse.Namespace, rest: list[str]) -> int:
    if args.script_help:
        return script_help("tarot_env.experiments.train", "tarot train")
    need("train", ["torch", "stable_baselines3", "sb3_contrib", "tqdm", "matplotlib", "tensorboard"], "training")
    argv: list[str] = []
    _flag(argv, "--env", args.env)
    _flag(argv, "--players", args.players)
    _flag(argv, "--steps", args.steps)
    _flag(argv, "--num-envs", args.num_envs)
    _flag(argv, "--seed", args.seed)
    _flag(argv, "--out", args.out)
    for item in args.option or []:
        argv += ["--option", item]
    from tarot_env.experiments import train

    with argv0("tarot train"):
        train.main(argv + rest)
    return 0
