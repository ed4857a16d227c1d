"""Small helpers for test_french_setup.py and test_french_errors.py (fixed deals, playing actions)."""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

import tarot_env
from tarot_env.cards.french import FRENCH_DECK, card
from tarot_env.encoding.french import layout
from tarot_env.rules.french.state import Phase

ALL_CARDS = list(FRENCH_DECK.names)
SIZES = {3: (24, 6), 4: (18, 6), 5: (15, 3)}


def cards(text: str) -> list[str]:
    """'KS QS T1..T5 EX' -> ['KS', 'QS', 'T1', 'T2', 'T3', 'T4', 'T5', 'EX'] (ranges of trumps with '..')."""
    out: list[str] = []
    for word in text.split():
        if ".." in word:
            lo, hi = word.split("..")
            out += [f"T{t}" for t in range(int(lo[1:]), int(hi[1:]) + 1)]
        else:
            out.append(word)
    return out


def make_deal(n: int, dealer: int, fixed: dict[int, str], rest: str | None = None, petit_sec: bool = False) -> dict:
    """A fixed deal (interface.md §4): the hands of ``fixed`` as given, the chien ``rest`` if given;
    every other card goes, in card-id order, to the first seat (then the chien) with room left,
    except the Petit, which goes to the chien when the chien is not given. Unless ``petit_sec``,
    checks that no hand is a petit sec (which would annul the deal)."""
    hand_size, chien_size = SIZES[n]
    hands: list[list[str]] = [cards(fixed.get(s, "")) for s in range(n)]
    chien = cards(rest) if rest is not None else []
    used = {card(c) for h in hands for c in h} | {card(c) for c in chien}
    assert len(used) == sum(map(len, hands)) + len(chien), "a card is given twice"
    free = [c for c in ALL_CARDS if card(c) not in used]
    if rest is None and "T1" in free:
        free.remove("T1")
        chien.append("T1")
    for s in range(n):
        if s in fixed:
            assert len(hands[s]) == hand_size, f"seat {s} has {len(hands[s])} cards"
            continue
        while len(hands[s]) < hand_size:
            hands[s].append(free.pop(0))
    while len(chien) < chien_size:
        chien.append(free.pop(0))
    assert not free and len(chien) == chien_size
    for h in hands:
        trumps = [c for c in h if c.startswith("T")]
        assert petit_sec or trumps != ["T1"] or "EX" in h, f"petit sec in {h}"
    return {"dealer": dealer, "hands": hands, "rest": chien}


def new_env(n: int = 4, **options):
    return tarot_env.make("french_tarot_v0", num_players=n, **options)


def start(n: int, deal: dict, **options):
    env = new_env(n, **options)
    env.reset(options={"deal": deal})
    return env


def seat(env) -> int:
    return int(env.agent_selection.split("_")[1])


def act(env, *actions: str, by: list[int] | None = None) -> None:
    """Play action strings in order; ``by`` optionally names the seat expected to act for each."""
    for i, a in enumerate(actions):
        if by is not None:
            assert seat(env) == by[i], f"{a!r}: expected seat {by[i]} to act, not {seat(env)}"
        assert not env.unwrapped.game_over, f"{a!r}: the deal is over"
        env.step(a)


def legal(env) -> set[str]:
    raw = env.unwrapped
    return {raw.action_to_string(a) for a in raw.legal_actions()}


def phase(env) -> str:
    return Phase.name(int(env.unwrapped.game_state.phase[0]))


def field(env, agent: int | str, name: str) -> np.ndarray:
    """One field of ``agent``'s observation vector (encoding/french.py layout)."""
    if isinstance(agent, int):
        agent = f"player_{agent}"
    raw = env.unwrapped
    f = {x.name: x for x in layout(raw.game.num_players)}[name]
    return raw.observe(agent)["observation"][f.offset : f.offset + f.length]


def card_set(mask: np.ndarray) -> set[str]:
    return {ALL_CARDS[c] for c in np.flatnonzero(mask)}


def hand(env, s: int) -> set[str]:
    return card_set(env.unwrapped.game_state.hands[0, s])


def play_out(env, policy=None) -> list[tuple[int, str]]:
    """Play to the end of the deal and return the ``(seat, action)`` pairs played.

    ``policy(env)`` returns an action string, or None for the default: ``no_poignee`` and
    ``no_chelem`` where asked, otherwise the legal action of lowest id (so a player without a
    trump to play keeps the Excuse, id 77, to the end)."""
    raw = env.unwrapped
    done: list[tuple[int, str]] = []
    while not raw.game_over:
        a = policy(env) if policy else None
        if a is None:
            options = legal(env)
            a = next((x for x in ("no_poignee", "no_chelem") if x in options), raw.action_to_string(raw.legal_actions()[0]))
        done.append((seat(env), a))
        env.step(a)
    return done


def highest_first(env) -> str:
    """The legal card of highest id: trumps from T21 down, then the kings and queens of C, D, H, S
    (for a player holding only trumps, kings and queens)."""
    raw = env.unwrapped
    return raw.action_to_string(max(a for a in raw.legal_actions() if raw.action_to_string(a).startswith("play ")))


def snapshot(env) -> dict:
    """Copies of every field of the state, of every observation, and of the env's bookkeeping."""
    raw = env.unwrapped
    state = {f.name: getattr(raw.game_state, f.name).copy() for f in dataclasses.fields(raw.game_state)}
    obs = {a: {k: v.copy() for k, v in raw.observe(a).items()} for a in raw.possible_agents}
    book = {
        "agent_selection": raw.agent_selection,
        "agents": list(raw.agents),
        "terminations": dict(raw.terminations),
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "actions": list(getattr(raw, "_actions", [])),
        "legal": raw.legal_actions(),
    }
    return {"state": state, "obs": obs, "book": book}


def assert_same(before: dict, after: dict) -> None:
    for name, value in before["state"].items():
        assert np.array_equal(value, after["state"][name]), f"state field {name} changed"
    for agent, obs in before["obs"].items():
        for key, value in obs.items():
            assert np.array_equal(value, after["obs"][agent][key]), f"observation {key} of {agent} changed"
    assert before["book"] == after["book"]


@contextlib.contextmanager
def plain_python(*modules):
    """Within the block, every compiled function of ``modules`` is its Python original
    (``py_func``): the calls between them (the inlined helpers included) are looked up in the
    module at run time, so the whole path runs as Python."""
    swapped = [(m, name, value) for m in modules for name, value in vars(m).items() if callable(getattr(value, "py_func", None))]
    try:
        for module, name, value in swapped:
            setattr(module, name, value.py_func)
        yield
    finally:
        for module, name, value in swapped:
            setattr(module, name, value)
