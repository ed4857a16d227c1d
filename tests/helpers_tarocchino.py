"""Helpers for the Tarocchino env tests: fixed deals from partial hands, playing action strings."""

from __future__ import annotations

import numpy as np

import tarot_env
from tarot_env.cards.bolognese import BOLOGNESE_DECK, card
from tarot_env.rules.bolognese.deal import deal_destinations

ALL_CARDS = list(BOLOGNESE_DECK.names)


def cards(text: str) -> list[str]:
    """'KS QS T5..T9 MAT' -> ['KS', 'QS', 'T5', 'T6', 'T7', 'T8', 'T9', 'MAT'] (ranges of numbered trumps with '..')."""
    out: list[str] = []
    for word in text.split():
        if ".." in word:
            lo, hi = word.split("..")
            out += [f"T{t}" for t in range(int(lo[1:]), int(hi[1:]) + 1)]
        else:
            out.append(word.upper())
    return out


def make_deal(
    game: str, dealer: int, fixed: dict[int, str], rest: str | None = None, num_players: int | None = None, extra: str | None = None
) -> dict:
    """A fixed deal (interface.md §4) for ``game``: the hands of ``fixed`` (seat -> cards) as
    given, ``rest`` if given, the dealer's last 2 cards ``extra`` if given (else the last 2 of
    his list). Every other card fills, in card-id order, the seats with room left (seat order),
    then the rest. Hands in ``fixed`` may be partial; they are filled the same way."""
    dest = deal_destinations(game, num_players)
    n = dest.num_players
    sizes = {(s - dealer - 1) % n: dest.hand_sizes[(s - dealer - 1) % n] for s in range(n)}
    hands = {s: cards(fixed.get(s, "")) for s in range(n)}
    tail = cards(extra) if extra else []
    rest_list = cards(rest) if rest is not None else None
    used = [c for h in hands.values() for c in h] + tail + (rest_list or [])
    assert len(set(used)) == len(used), f"a card is given twice: {sorted(c for c in used if used.count(c) > 1)}"
    free = [c for c in ALL_CARDS if c not in set(used)]
    for s in range(n):
        room = sizes[(s - dealer - 1) % n] - len(hands[s]) - (len(tail) if s == dealer else 0)
        assert room >= 0, f"seat {s} is given too many cards"
        hands[s] += free[:room]
        free = free[room:]
    if tail:
        hands[dealer] += tail
    if rest_list is None:
        rest_list = free
    assert len(rest_list) == dest.rest_size, f"rest has {len(rest_list)} cards, {dest.rest_size} needed"
    return {"dealer": dealer, "hands": [hands[s] for s in range(n)], "rest": rest_list}


def new_env(env_id: str, deal: dict | None = None, seed: int | None = None, totals: list[int] | None = None, **config):
    """An env reset to ``deal`` (and ``totals``); returns the raw env."""
    env = tarot_env.make(env_id, **config)
    options = {}
    if deal is not None:
        options["deal"] = deal
    if totals is not None:
        options["totals"] = totals
    env.reset(seed=seed, options=options)
    return env.unwrapped


def play(env, actions: str | list[str]) -> None:
    """Step the env with action strings: a list, or one string with actions separated by ';'."""
    if isinstance(actions, str):
        actions = [a.strip() for a in actions.split(";") if a.strip()]
    for a in actions:
        env.step(a)


def legal(env) -> list[str]:
    """The legal action strings of the player to act."""
    return [env.action_to_string(a) for a in env.legal_actions()]


def seat(env) -> int:
    """The seat to act."""
    return int(env.agent_selection.split("_")[1])


def random_play(env, rng: np.random.Generator, max_steps: int = 100_000) -> int:
    """Play random legal actions to the end of the episode; returns the number of decisions."""
    k = 0
    while not env.game_over:
        env.step(int(rng.choice(env.legal_actions())))
        k += 1
        assert k < max_steps
    return k


def card_id(name: str) -> int:
    return card(name)
