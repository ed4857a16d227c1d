"""The French Tarot action space: one ``Discrete`` space, one canonical string per action.

| ids | action strings (docs/interface.md §3) |
|---|---|
| 0–77 | ``play <card>`` |
| 78–155 | ``discard <card>`` (the écart, one card per action) |
| 156–160 | ``pass``, ``bid petite``, ``bid garde``, ``bid garde_sans``, ``bid garde_contre`` |
| 161–176 | ``call <card>`` (5 players: K, Q, N, J of S, H, D, C) |
| 177–178 | ``chelem``, ``no_chelem`` |
| 179–182 | ``poignee simple``, ``poignee double``, ``poignee triple``, ``no_poignee`` |
| 183–204 | ``show <card>`` (T1…T21, EX: the trumps of a poignée, with ``poignee_trumps="choose"``) |
"""

from __future__ import annotations

import numpy as np

from tarot_env.cards.french import CALLABLE, FRENCH_DECK, NUM_CARDS, POIGNEE_CARDS

PLAY = 0
DISCARD = PLAY + NUM_CARDS
BID = DISCARD + NUM_CARDS  # BID + 0 is "pass", BID + c bids contract c (1..4)
CALL = BID + 5
CHELEM = CALL + len(CALLABLE)
NO_CHELEM = CHELEM + 1
POIGNEE = NO_CHELEM + 1  # POIGNEE + 0..2: simple, double, triple
NO_POIGNEE = POIGNEE + 3
SHOW = NO_POIGNEE + 1
NUM_ACTIONS = SHOW + len(POIGNEE_CARDS)

CONTRACTS = ("petite", "garde", "garde_sans", "garde_contre")
#: Contract multipliers (§3), indexed by contract code 1..4 (0 = no contract).
MULTIPLIER = np.array([0, 1, 2, 4, 6], dtype=np.int64)
POIGNEE_NAMES = ("simple", "double", "triple")
#: Poignée bonuses (§5.2), indexed by poignée code 0 (none) .. 3.
POIGNEE_BONUS = np.array([0, 20, 30, 40], dtype=np.int64)


def _strings() -> tuple[str, ...]:
    names = FRENCH_DECK.names
    out = [f"play {c}" for c in names]
    out += [f"discard {c}" for c in names]
    out += ["pass"] + [f"bid {c}" for c in CONTRACTS]
    out += [f"call {names[c]}" for c in CALLABLE]
    out += ["chelem", "no_chelem"]
    out += [f"poignee {p}" for p in POIGNEE_NAMES] + ["no_poignee"]
    out += [f"show {names[c]}" for c in POIGNEE_CARDS]
    assert len(out) == NUM_ACTIONS
    return tuple(out)


ACTION_STRINGS = _strings()
_BY_STRING = {s: i for i, s in enumerate(ACTION_STRINGS)}
#: For ``show`` actions: card id of each show slot.
SHOW_CARDS = POIGNEE_CARDS


def action_to_string(action: int) -> str:
    """Canonical string of an action id."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is out of range: French Tarot actions are 0..{NUM_ACTIONS - 1}")
    return ACTION_STRINGS[a]


def string_to_action(text: str) -> int:
    """Action id of a string such as ``"play KS"`` or ``"bid garde"`` (case-insensitive)."""
    if not isinstance(text, str):
        raise TypeError(f"an action string is expected, got {text!r}")
    words = text.strip().split()
    if len(words) == 2 and words[0].lower() in ("play", "discard", "call", "show"):
        verb = words[0].lower()
        card = FRENCH_DECK.format(FRENCH_DECK.parse(words[1]))
        key = f"{verb} {card}"
    else:
        key = " ".join(w.lower() for w in words)
    if key not in _BY_STRING:
        raise ValueError(
            f"{text!r} is not a French Tarot action; actions are 'play <card>', 'discard <card>', "
            "'pass', 'bid petite|garde|garde_sans|garde_contre', 'call <card>', 'chelem', "
            "'no_chelem', 'poignee simple|double|triple', 'no_poignee', 'show <card>'"
        )
    return _BY_STRING[key]
