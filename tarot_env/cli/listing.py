"""``tarot list``: the env ids, their player counts and every option with its default and allowed values.

The facts come from where the rules keep them (:class:`FrenchTarotConfig` and its checks, the
Tarocchino ``OPTIONS`` table), so the listing cannot drift from what ``make`` accepts.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import textwrap
from typing import Any

import tarot_env
from tarot_env.cli import views

#: the keywords every env takes besides its rules options
ENV_OPTIONS: dict[str, tuple[Any, str, str]] = {
    "render_mode": (None, "None, 'ansi', 'human'", "text view of the table from render()"),
    "reward": ("score", "'score', 'normalised', 'win_loss'", "the reward: the deal's score, scaled, or its sign"),
    "shaping": (False, "False, True", "a reward after each trick (the deal's rewards sum to the same)"),
    "oracle": (False, "False, True", "adds the hidden information to the observation (centralised critics)"),
    "dealer": (None, "None (random), a seat", "who deals"),
    "illegal_action": ("raise", "'raise', 'terminate'", "an illegal action raises (state unchanged), or ends the episode"),
    "illegal_reward": (-1.0, "a number", "the offender's reward when illegal_action='terminate' ends the episode"),
}


def _french_docs() -> dict[str, str]:
    """Each option's description, from the ``Attributes:`` section of FrenchTarotConfig's docstring."""
    from tarot_env.rules.french.config import FrenchTarotConfig

    doc = inspect.cleandoc(FrenchTarotConfig.__doc__ or "")  # the first line is not indented: dedent would keep the rest
    out: dict[str, str] = {}
    name = None
    for line in doc.splitlines():
        m = re.match(r"^\s{4}(\w+): (.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2).strip()
        elif name and line.startswith(" " * 8):
            out[name] += " " + line.strip()
        elif not line.strip():
            name = None
    return out


def french_options() -> list[tuple[str, Any, str, str]]:
    """``(name, default, allowed, description)`` for each French Tarot rules option."""
    from tarot_env.rules.french.config import _CHOICES, FrenchTarotConfig

    docs = _french_docs()
    out = []
    for f in dataclasses.fields(FrenchTarotConfig):
        if f.name in _CHOICES:
            allowed = ", ".join(repr(v) for v in _CHOICES[f.name])
        elif f.type == "bool":
            allowed = "False, True"
        elif f.name == "chien_after_packets":
            allowed = "None (the pattern of the player count), or a list of packet numbers"
        else:
            allowed = str(f.type)
        out.append((f.name, f.default, allowed, docs.get(f.name, "")))
    return out


def tarocchino_options(env_id: str) -> list[tuple[str, Any, str, str]]:
    """``(name, default, allowed, description)`` for each rules option of a Tarocchino game."""
    from tarot_env.rules.bolognese.config import OPTIONS, TarocchinoConfig, default, option_names

    game = env_id[: -len("_v0")]
    out = []
    for name in option_names(game):
        opt = OPTIONS[name]
        if isinstance(opt.allowed, type):
            allowed = f"{opt.allowed.__name__} ≥ {0 if name == 'cappotto_bonus' else 1}"
        else:  # the values this game accepts (Quattro Scartate's tie differs): asked of the config itself
            ok = []
            for v in opt.allowed:
                try:
                    TarocchinoConfig.make(game, **{name: v})  # at the default player count
                    ok.append(v)
                except (TypeError, ValueError):
                    pass
            allowed = ", ".join(repr(v) for v in ok)
        out.append((name, default(game, name), allowed, f"{opt.doc} ({opt.ref})" if opt.ref != "—" else opt.doc))
    return out


def players(env_id: str) -> str:
    if views.is_french(env_id):
        return "3, 4, 5 (default 4)"
    from tarot_env.rules.bolognese.deal import DEFAULT_PLAYERS, PLAYER_COUNTS

    game = env_id[: -len("_v0")]
    counts = PLAYER_COUNTS[game]
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]} (default {DEFAULT_PLAYERS[game]})"


def options_of(env_id: str) -> list[tuple[str, Any, str, str]]:
    return french_options() if views.is_french(env_id) else tarocchino_options(env_id)


def run(args: argparse.Namespace) -> int:
    """``tarot list [env_id]``."""
    from tarot_env.cli.play import title

    if args.env_id is not None and args.env_id not in tarot_env.ENV_IDS:
        raise SystemExit(f"tarot list: error: unknown env id {args.env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if args.env_id is None:
        for env_id in tarot_env.ENV_IDS:
            print(f"{env_id:<20} {title(env_id)}, players {players(env_id)}")
            opts = ", ".join(f"{name}={default!r}" for name, default, _, _ in options_of(env_id) if name != "num_players")
            print(textwrap.fill(f"options: {opts}", width=110, initial_indent="    ", subsequent_indent="      "))
        print("\nenv options of every game: " + ", ".join(f"{k}={v[0]!r}" for k, v in ENV_OPTIONS.items()))
        print("tarot list <env_id> describes each option and its allowed values; give options as tarot play ... --option KEY=VALUE")
        return 0
    env_id = args.env_id
    print(f"{env_id}: {title(env_id)}, players {players(env_id)}")
    print("\nrules options (name = default; allowed values):")
    for name, default, allowed, doc in options_of(env_id):
        if name == "num_players":
            continue
        print(f"  {name} = {default!r}   [{allowed}]")
        if doc:
            print(textwrap.fill(doc, width=110, initial_indent="      ", subsequent_indent="      "))
    print("\nenv options:")
    for name, (default, allowed, doc) in ENV_OPTIONS.items():
        print(f"  {name} = {default!r}   [{allowed}]\n      {doc}")
    doc = "docs/french_tarot.md" if views.is_french(env_id) else "docs/tarocchino.md"
    rules = "docs/rules/french_tarot.md" if views.is_french(env_id) else "docs/rules/tarocchino.md"
    refs = "§ references are its sections" if views.is_french(env_id) else "§ and U references are its sections and decisions"
    print(f"\nthe rules: {rules} ({refs})")
    print(f"more in {doc}; e.g. tarot play {env_id} --option KEY=VALUE")
    return 0
