"""Helpers for tests/test_french_play.py: fixed deals written as card strings, scripted play.

A hand is written as one string of cards separated by spaces, *in the order its holder
prefers to play them*: :func:`play_out` lets every player play the first card of his list
that the rules allow at that moment. Deals are designed so that this order is the one the
test means; the tests then check the trick winners they expect.
"""

from __future__ import annotations

import numpy as np

import tarot_env
from tarot_env.cards.french import FRENCH_DECK, NUM_CARDS, card
from tarot_env.rules.french.state import Phase

CONTRACT_BID = {"petite": "bid petite", "garde": "bid garde", "garde_sans": "bid garde_sans", "garde_contre": "bid garde_contre"}


def cards(text: str) -> list[str]:
    return text.split()


def fixed_deal(dealer: int, hands: list[str], rest: str) -> dict:
    """A fixed deal (interface.md §4) from hand strings; checks that all 78 cards appear once."""
    listed = [cards(h) for h in hands] + [cards(rest)]
    ids = [card(c) for group in listed for c in group]
    assert len(ids) == NUM_CARDS and len(set(ids)) == NUM_CARDS, "a test deal must hold each of the 78 cards exactly once"
    return {"dealer": dealer, "hands": listed[:-1], "rest": listed[-1]}


def new_env(num_players: int = 4, **rules):
    return tarot_env.make("french_tarot_v0", num_players=num_players, **rules)


def start(env, deal: dict, taker: int, contract: str, *, call: str | None = None, discards: str = "", chelem: bool = False) -> None:
    """Reset to ``deal``; everybody passes except ``taker``, who bids ``contract``; then the
    call (5 players), the écart and the chelem decision. Stops before the first card."""
    env.reset(options={"deal": deal})
    n = env.unwrapped.game.num_players
    for k in range(n):
        seat = (deal["dealer"] + 1 + k) % n
        assert env.agent_selection == f"player_{seat}"
        env.step(CONTRACT_BID[contract] if seat == taker else "pass")
    if call is not None:
        env.step(f"call {call}")
    for c in cards(discards):
        env.step(f"discard {c}")
    s = env.unwrapped.game_state
    if s.phase[0] == Phase.CHELEM:
        env.step("chelem" if chelem else "no_chelem")
    else:
        assert not chelem, "the chelem decision was not offered"


def answer_poignees(env, poignees: dict[int, str] | None = None) -> None:
    """Answer the poignée question of the player to act (``no_poignee`` unless told)."""
    s = env.unwrapped.game_state
    while s.phase[0] == Phase.POIGNEE:
        seat = int(s.current[0])
        env.step((poignees or {}).get(seat, "no_poignee"))


def legal_cards(env) -> set[str]:
    """The cards the player to act may play now (after his poignée question, if any)."""
    answer_poignees(env)
    raw = env.unwrapped
    assert raw.game_state.phase[0] == Phase.PLAY
    actions = [raw.action_to_string(a) for a in raw.legal_actions()]
    assert all(a.startswith("play ") for a in actions)
    return {a.split()[1] for a in actions}


def play(env, *played: str, poignees: dict[int, str] | None = None) -> None:
    """Play the given cards in turn, whoever is to act."""
    for c in played:
        answer_poignees(env, poignees)
        seat = int(env.unwrapped.game_state.current[0])
        assert env.unwrapped.game_state.hands[0, seat, card(c)], f"{c} is not in the hand of seat {seat}"
        env.step(f"play {c}")


def play_out(env, prefs: list[str], *, tricks: int | None = None, poignees: dict[int, str] | None = None) -> None:
    """Each player plays the first legal card of his preference list (one string per seat),
    until the deal is over or ``tricks`` tricks are complete."""
    s = env.unwrapped.game_state
    queues = [cards(p) for p in prefs]
    for seat, q in enumerate(queues):  # cards already played are gone from the lists
        queues[seat] = [c for c in q if s.hands[0, seat, card(c)]]
    while not env.unwrapped.game_over and (tricks is None or s.trick_no[0] < tricks):
        answer_poignees(env, poignees)
        seat = int(s.current[0])
        legal = legal_cards(env)
        choice = next((c for c in queues[seat] if FRENCH_DECK.format(card(c)) in legal), None)
        assert choice is not None, f"seat {seat} has no legal card in its list {queues[seat]} (legal: {sorted(legal)})"
        queues[seat].remove(choice)
        env.step(f"play {choice}")


def trick_cards(env, t: int) -> list[str]:
    """The cards of trick ``t`` (0-based) in play order from its leader."""
    s = env.unwrapped.game_state
    n = env.unwrapped.game.num_players
    in_trick = np.flatnonzero(s.trick_of[0] == t)
    by_seat = {int(np.flatnonzero(s.played[0, :, c])[0]): FRENCH_DECK.names[c] for c in in_trick}
    lead = int(s.leaders[0, t])
    return [by_seat[(lead + k) % n] for k in range(n)]


def winners(env) -> list[int]:
    return [int(w) for w in env.unwrapped.game_state.winners[0]]


def pile_of(env, c: str) -> int:
    """Seat whose won cards hold card ``c`` at the end (or now, for a finished trick)."""
    return int(env.unwrapped.game_state.pile[0, card(c)])


def info(env) -> dict:
    assert env.unwrapped.game_over
    return env.infos["player_0"]
