"""``tarot list``: the env ids, their player counts and every option with its default and allowed values.

The facts are the env's row of :mod:`tarot_env.env_facts`, made from where the rules keep them
(:class:`FrenchTarotConfig` and its checks, the Tarocchino ``OPTIONS`` table), so the listing
cannot drift from what ``make`` accepts.
"""

from __future__ import annotations

import argparse
import textwrap

import tarot_env
from tarot_env.env_facts import ENV_OPTIONS, facts


def run(args: argparse.Namespace) -> int:
    """``tarot list [env_id]``."""
    if args.env_id is not None and args.env_id not in tarot_env.ENV_IDS:
        raise SystemExit(f"tarot list: error: unknown env id {args.env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if args.env_id is None:
        for env_id in tarot_env.ENV_IDS:
            row = facts(env_id)
            print(f"{env_id:<20} {row.title}, players {row.players_text()}")
            opts = ", ".join(f"{name}={default!r}" for name, default, _, _ in row.options() if name != "num_players")
            print(textwrap.fill(f"options: {opts}", width=110, initial_indent="    ", subsequent_indent="      "))
        print("\nenv options of every game: " + ", ".join(f"{k}={v[0]!r}" for k, v in ENV_OPTIONS.items()))
        print("tarot list <env_id> describes each option and its allowed values; give options as tarot play ... --option KEY=VALUE")
        return 0
    env_id = args.env_id
    row = facts(env_id)
    print(f"{env_id}: {row.title}, players {row.players_text()}")
    print("\nrules options (name = default; allowed values):")
    for name, default, allowed, doc in row.options():
        if name == "num_players":
            continue
        print(f"  {name} = {default!r}   [{allowed}]")
        if doc:
            print(textwrap.fill(doc, width=110, initial_indent="      ", subsequent_indent="      "))
    print("\nenv options:")
    for name, (default, allowed, doc) in ENV_OPTIONS.items():
        print(f"  {name} = {default!r}   [{allowed}]\n      {doc}")
    print(f"\nthe rules: {row.rules_doc} ({row.rule_refs})")
    print(f"more in {row.guide_doc}; e.g. tarot play {env_id} --option KEY=VALUE")
    return 0
