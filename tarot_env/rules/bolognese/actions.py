"""The Tarocchino action space as strings, and why an action is refused.

| ids | action strings (docs/interface.md §3) |
|---|---|
| 0–61 | ``play <card>`` |
| 62–123 | ``discard <card>`` |
| 124–185 | ``give <card>`` (the card given for the Matto, ``matto_exchange="choose"``) |
| 186–194 | ``declare``, ``no_declare``, ``claim``, ``no_claim``, ``pass``, ``posso``, ``di_mio``, ``va_bene``, ``oppose`` |

The ids are laid out in :mod:`.state` (``AB_*``, ``WORDS``); legality itself is the engine's
(``state.legal``). :func:`refusal` explains, from the rules' state, why an illegal action is
illegal: the envs raise it as the message of their ``IllegalActionError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, IS_SCARTINO, MATTO, SUIT_NAMES
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.rules.bolognese.state import (
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    BIDDER,
    CARD_VERBS,
    CURRENT,
    HAND_OF,
    LEAD_SUIT,
    NUM_ACTIONS,
    PHASE,
    PILE_OF,
    PL_HAND,
    PLACE,
    TRICK_SIZE,
    WORDS,
    Phase,
    TarocchinoState,
)

if TYPE_CHECKING:
    from tarot_env.rules.bolognese.game import TarocchinoGame

_WORD_ACTIONS = {w: a for a, w in WORDS.items()}
#: what each decision asks for, and the verbs that answer it
_EXPECTED = {
    "auction": (
        "an auction call (pass, posso, di_mio; va_bene or oppose to answer a posso)",
        ("pass", "posso", "di_mio", "va_bene", "oppose"),
    ),
    "claim": ("claim or no_claim", ("claim", "no_claim")),
    "discard": ("discard <card>", ("discard",)),
    "declare": ("declare or no_declare", ("declare", "no_declare")),
    "play": ("play <card>", ("play",)),
    "give": ("give <card> (the card given for the Matto)", ("give",)),
}


def action_to_string(action: int) -> str:
    """Canonical string of an action id (docs/interface.md §3)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} is out of range: action ids are 0..{NUM_ACTIONS - 1}")
    if a in WORDS:
        return WORDS[a]
    for verb, base in reversed(CARD_VERBS):
        if a >= base:
            return f"{verb} {BOLOGNESE_DECK.names[a - base]}"
    raise AssertionError(a)


def string_to_action(text: str) -> int:
    """Action id of a canonical string, case-insensitive (``"play ks"``, ``"Claim"``)."""
    if not isinstance(text, str):
        raise TypeError(f"an action string is a str such as 'play KS', got {text!r}")
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in _WORD_ACTIONS:
        return _WORD_ACTIONS[words[0]]
    if len(words) == 2:
        for verb, base in CARD_VERBS:
            if words[0] == verb:
                return base + BOLOGNESE_DECK.parse(words[1])
    verbs = ", ".join(f"'{v} <card>'" for v, _ in CARD_VERBS)
    raise ValueError(f"{text!r} is not a Tarocchino action; actions are {verbs}, or one of {', '.join(WORDS.values())}")


def refusal(game: TarocchinoGame, state: TarocchinoState, action: int, row: int = 0) -> str:
    """Why ``action`` is refused to the player to act at ``row``, and what is allowed."""
    agent = f"player_{int(state.ints[row, CURRENT])}"
    allowed = ", ".join(action_to_string(x) for x in np.flatnonzero(state.legal[row]))
    if not 0 <= action < NUM_ACTIONS:
        return f"action {action} refused for {agent}: action ids are 0..{NUM_ACTIONS - 1}; legal now: {allowed}"
    return f"action {action_to_string(action)!r} ({action}) refused for {agent}: {_why(game, state, action, row)}; legal now: {allowed}"


def _why(game: TarocchinoGame, s: TarocchinoState, a: int, row: int) -> str:
    p = int(s.ints[row, CURRENT])
    cards = s.cards[row]
    kind = Phase.name(int(s.ints[row, PHASE]))
    expected, verbs = _EXPECTED[kind]
    if action_to_string(a).split()[0] not in verbs:
        return f"the decision now is {kind}: {expected}"
    if kind == "auction":
        return (
            "a posso waits for its answers (va_bene or oppose)"
            if s.ints[row, BIDDER] >= 0
            else "va_bene and oppose answer a posso; now speak: pass, posso or di_mio"
        )
    c = a - {"play": AB_PLAY, "discard": AB_DISCARD, "give": AB_GIVE}[kind]
    name = BOLOGNESE_DECK.names[c]
    held = cards[HAND_OF, c] == p and cards[PLACE, c] == PL_HAND
    if kind == "discard":
        if not held:
            return f"{name} is not in the hand"
        if IS_CARTA_DA_5[c]:
            return f"{name} is a Carta da 5 (the Kings and the Tarocchi: Angelo, Mondo, Bégato, Matto), which may never be discarded (§5.3)"
    if kind == "give":
        if cards[PILE_OF, c] < 0 or game.side_of(s, row, int(cards[PILE_OF, c])) != game.side_of(s, row, p) or c == MATTO:
            return f"{name} is not a card of your side's pile (the Matto itself is kept)"
        if not IS_SCARTINO[c]:
            return (
                f"{name} is not a scartino, and your side has scartini: "
                "the card given for the Matto is a low card (U3, matto_gift='scartino')"
            )
    if kind == "play":
        if not held:
            return f"{name} is not in the hand"
        led = int(s.ints[row, LEAD_SUIT])
        if s.ints[row, TRICK_SIZE] == 0 and c == MATTO:
            return "the Matto may not be led while other cards are held (matto_lead='never', U2)"
        holds = led >= 0 and bool(np.any((cards[HAND_OF] == p) & (cards[PLACE] == PL_HAND) & (BOLOGNESE_DECK.suit == led)))
        if game.config.must_overtrump and BOLOGNESE_DECK.suit[c] == TRUMP_SUIT and (led == TRUMP_SUIT or not holds):
            return "a trump played must beat the trumps in the trick when it can (must_overtrump=True, U1)"
        if led >= 0 and led != TRUMP_SUIT and BOLOGNESE_DECK.suit[c] != led:
            if holds:
                return f"you must follow suit: {SUIT_NAMES[led]} was led and you hold {SUIT_NAMES[led]} (docs/rules/tarocchino.md §4.2)"
            return "you hold no card of the suit led, so you must play a trump (§4.2)"
        if led == TRUMP_SUIT:
            return "a trump was led and you hold trumps: you must play one (§4.2)"
        return "a trump played must beat the trumps in the trick when it can (must_overtrump=True, U1)"
    return "not allowed now"
