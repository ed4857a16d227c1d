"""No hidden card on the wire: the same game played twice with two hidden cards swapped.

For a viewer (a seat, or a spectator) two cards he cannot see are exchanged in the deal, and every
action that uses one of them uses the other instead (the swap keeps every move legal: two plain
cards of one suit, checked by replaying). The robots replay the same scripted moves, the viewer
sends the same moves and a few bad ones. Every message the viewer and a spectator receive (table
states after each person's or robot's move, the lobby, errors, the leaderboard, the welcome) must
be the same, byte for byte apart from the clock, until the rules make one of the two cards
visible to him (played, shown in a poignée or a declaration, the chien turned up, his own hand).
The swapped cards are chosen where the rules hide them: the chien of a garde sans or a garde
contre, the écart of a taker, the dealer's discards in Ottocento, the other hands. The test then
checks that the messages do differ once a swapped card is shown, so that it can fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

import tarot_env
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.env_facts import facts, is_french
from tarot_env.web.app import create_app
from tarot_env.web.room import Room, Table

#: what depends on the clock or on chance, not on the cards: the time left, the secret token and invitation
VOLATILE = ("time_left", "next_deal_in", "invite", "token")


# ------------------------------------------------------------------------------ the reference deal
def reference(env_id: str, n: int, dealer: int, contract: str | None, seed: int) -> dict[str, Any]:
    """A whole deal: the first speaker bids ``contract`` (French), the others pass, then random legal moves."""
    env = tarot_env.make(env_id, num_players=n, dealer=dealer)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    while not raw.game_over:
        legal = raw.legal_actions()
        texts = {raw.action_to_string(a): a for a in legal}
        if contract is not None and "pass" in texts and f"bid {contract}" in texts and not raw.game_state.bids[0].max() > 0:
            action = texts[f"bid {contract}"]
        elif contract is not None and "pass" in texts and any(t.startswith("bid ") for t in texts):
            action = texts["pass"]
        else:
            action = int(rng.choice(legal))
        env.step(action)
    return raw.record()


def swapped(record: dict[str, Any], x: str, y: str) -> tuple[dict[str, Any], list[str]]:
    """The deal and the actions with cards ``x`` and ``y`` exchanged."""

    def sw(c: str) -> str:
        return y if c == x else x if c == y else c

    deal = {
        **record["deal"],
        "hands": [[sw(c) for c in h] for h in record["deal"]["hands"]],
        "rest": [sw(c) for c in record["deal"]["rest"]],
    }
    actions = [" ".join([a.split()[0], sw(a.split()[1])]) if len(a.split()) == 2 else a for a in record["actions"]]
    return deal, actions


def visible(env_id: str, raw: Any, seat: int | None) -> set[int]:
    """The cards ``seat`` (None: a spectator) may know, from the rules (not from the web views)."""
    deck = facts(env_id).deck
    if raw.game_over:
        return set(range(deck.size))
    if is_french(env_id):
        s = raw.game_state
        out = set(np.flatnonzero(s.played[0].any(axis=0))) | {int(c) for c in s.trick[0] if c >= 0}
        out |= set(np.flatnonzero(s.poignee_cards[0].any(axis=0)))
        if s.chien_seen[0]:
            out |= set(np.flatnonzero(s.chien[0]))
        ecart = set(np.flatnonzero(s.ecart[0]))
        out |= {c for c in ecart if deck.suit[c] == TRUMP_SUIT}  # trumps in the écart are shown
        if seat is not None:
            out |= set(np.flatnonzero(s.hands[0, seat]))
            if seat == int(s.taker[0]):
                out |= ecart
        return {int(c) for c in out}
    from tarot_env.rules.bolognese import state as S

    cs = raw.game_state.cards[0]
    place = cs[S.PLACE]
    out = set(np.flatnonzero((place == S.PL_TABLE) | (place == S.PL_PILE) | (cs[S.SHOWN] == 1)))
    if seat is not None:
        out |= set(np.flatnonzero((cs[S.HAND_OF] == seat) & (place == S.PL_HAND)))
        out |= set(np.flatnonzero((place == S.PL_DISCARD) & (cs[S.PILE_OF] == seat)))
    return {int(c) for c in out}


def reveal_step(env_id: str, n: int, deal: dict[str, Any], actions: list[str], cards: tuple[str, str], seat: int | None) -> int | None:
    """After how many steps one of ``cards`` becomes visible to ``seat``; None if the actions are not
    all legal for ``deal`` (then that swap does not make a game)."""
    env = tarot_env.make(env_id, num_players=n)
    env.reset(options={"deal": deal})
    raw = env.unwrapped
    ids = {facts(env_id).deck.index[c] for c in cards}
    first = None
    for k, a in enumerate(actions):
        if first is None and ids & visible(env_id, raw, seat):
            first = k
        if raw.game_over:
            return None
        try:
            env.step(raw.string_to_action(a))
        except Exception:
            return None
    if not raw.game_over:
        return None
    return first if first is not None else len(actions)


def choose_swap(env_id: str, n: int, record: dict[str, Any], seat: int, where: list[str], exclude: set[str]) -> tuple[str, str, int]:
    """Two cards hidden from ``seat`` (one of them in ``where``), same plain suit, not kings; the swap
    that stays hidden longest."""
    deck = facts(env_id).deck
    holder = {c: p for p, h in enumerate(record["deal"]["hands"]) for c in h}
    # the other card: in another seat's hand, not the viewer's, not where the first one lies (so that
    # the swap changes who holds what, and the messages must change once either card is shown)
    others = [
        c for c, p in holder.items() if p != seat and c not in exclude and deck.suit[deck.index[c]] < TRUMP_SUIT and not c.startswith("K")
    ]
    best: tuple[str, str, int] | None = None
    for x in where:
        for y in others:
            if holder.get(y) == holder.get(x) or deck.suit[deck.index[y]] != deck.suit[deck.index[x]]:
                continue
            deal, actions = swapped(record, x, y)
            r = reveal_step(env_id, n, deal, actions, (x, y), seat)
            if r is not None and (best is None or r > best[2]):
                best = (x, y, r)
    assert best is not None, "no swap of hidden cards makes a legal game"
    return best


# ------------------------------------------------------------------------------ the wire
class Script:
    """A robot that plays the scripted deal (its seat's moves), whatever its cards."""

    def __init__(self, actions: list[str]) -> None:
        self.actions = actions
        self.raw: Any = None

    def bind(self, raw: Any) -> None:
        self.raw = raw

    def act(self, obs: Any, mask: Any) -> int:
        return int(self.raw.string_to_action(self.actions[len(self.raw._actions)]))


def strip(m: dict[str, Any]) -> dict[str, Any]:
    if m["type"] == "table":
        return {**m, "table": {k: v for k, v in m["table"].items() if k not in VOLATILE}}
    return {k: v for k, v in m.items() if k not in VOLATILE}


def play(
    tmp_path: Path, name: str, env_id: str, n: int, seat: int, deal: dict[str, Any], actions: list[str]
) -> tuple[list[Any], list[Any]]:
    """The deal on the wire: a person at ``seat``, scripted robots elsewhere, a spectator. Every message
    to the person and to the spectator, each table state tagged with the steps taken."""
    # the heartbeat an hour apart: a ping in one run and not in the other would differ for no hidden card
    app = create_app(str(tmp_path / f"{name}.sqlite"), room=Room(robot_delay=0.0, pause=0.0), tick=0.002, heartbeat=3600.0, silence=7200.0)
    server = app.state.server
    log: list[Any] = []
    spy_log: list[Any] = []
    started = False
    counts = {id(log): 0, id(spy_log): 0}  # table states received since the start: the k-th follows k steps

    def recv(ws: Any, out: list[Any]) -> dict[str, Any]:
        m = json.loads(ws.receive_text())
        steps = None
        if m["type"] == "table":
            steps = counts[id(out)] if started else -1
            counts[id(out)] += started
        out.append((steps, strip(m)))
        return m

    def until(ws: Any, out: list[Any], pred: Any) -> dict[str, Any]:
        for _ in range(5000):
            m = recv(ws, out)
            if pred(m):
                return m
        raise AssertionError("message not received")

    def send(ws: Any, **msg: Any) -> None:
        ws.send_text(json.dumps(msg))

    with TestClient(app) as client, client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as spy:
        send(ws, type="hello", name="Ann")
        until(ws, log, lambda m: m["type"] == "lobby")
        send(spy, type="hello", name="Spy")
        until(spy, spy_log, lambda m: m["type"] == "lobby")
        send(ws, type="create", env=env_id, players=n)
        until(ws, log, lambda m: m["type"] == "table")
        if seat:
            send(ws, type="leave")
            until(ws, log, lambda m: m["type"] == "lobby")
            send(ws, type="join", table=1, seat=seat)
            until(ws, log, lambda m: m["type"] == "table" and m["table"]["you"] == seat)
        for p in range(n):
            if p != seat:
                send(ws, type="robot", seat=p, robot="rules")
                until(ws, log, lambda m, p=p: m["type"] == "table" and m["table"]["seats"][p]["kind"] == "robot")
        send(ws, type="settings", changes={"time_per_turn": 600})
        until(ws, log, lambda m: m["type"] == "table" and m["table"]["settings"]["time_per_turn"] == 600)
        send(spy, type="watch", table=1)
        until(spy, spy_log, lambda m: m["type"] == "table")
        until(ws, log, lambda m: m["type"] == "table")  # the table, with its new spectator
        table: Table = server.room.tables[1]
        table.next_deal_options = {"deal": deal}
        script = Script(actions)
        table.seats.make_agent = lambda p, robot: script  # type: ignore[method-assign]
        started = True
        send(ws, type="start")
        bad_sent = False
        while True:
            m = until(ws, log, lambda m: m["type"] == "table")
            t = m["table"]
            if t["state"] == "over":
                break
            d = t["deal"]
            if not d or not d["moves"]:
                continue
            raw = table.env.unwrapped
            action = int(raw.string_to_action(actions[len(raw._actions)]))
            if not bad_sent:  # bad requests at his first turn: errors, then the lobby and the leaderboard
                bad_sent = True
                illegal = [c["action"] for c in d.get("hand", []) if c.get("legal") is False and c.get("action") is not None]
                for bad in (
                    {"type": "move", "action": illegal[0] if illegal else 10_000},
                    {"type": "move", "action": 10_000},
                    {"type": "move", "action": "1"},
                    {"type": "settings", "changes": {"stake": 5}},
                    {"type": "join", "table": 1, "seat": (seat + 1) % n},
                    {"type": "lobby"},
                    {"type": "leaderboard"},
                ):
                    send(ws, **bad)
                    until(ws, log, lambda m: m["type"] in ("error", "lobby", "leaderboard"))
            send(ws, type="move", action=action)
        until(spy, spy_log, lambda m: m["type"] == "table" and m["table"]["state"] == "over")
        assert table.env.unwrapped.record()["actions"] == actions  # the scripted deal was played
    return log, spy_log


def before(log: list[Any], step: int) -> list[Any]:
    """The messages received before the first table state after ``step`` steps."""
    for i, (steps, _) in enumerate(log):
        if steps is not None and steps >= step:
            return [m for _, m in log[:i]]
    return [m for _, m in log]


CASES = [
    # env, players, dealer, contract, seed, viewer seat, where one swapped card lies
    ("french_tarot_v0", 3, 2, "garde_sans", 1, 1, "chien"),  # taker seat 0; the viewer, a defender
    ("french_tarot_v0", 3, 2, "garde_sans", 2, 0, "chien"),  # the taker himself never sees it
    ("french_tarot_v0", 4, 3, "garde", 3, 2, "ecart"),  # a defender; the écart is the taker's
    ("french_tarot_v0", 4, 3, "garde", 4, 0, "hand"),  # the taker: the defenders' hands
    ("french_tarot_v0", 5, 4, "garde_contre", 5, 3, "chien"),
    ("french_tarot_v0", 5, 4, "petite", 6, 2, "ecart"),
    ("ottocento_v0", 4, 3, None, 8, 1, "discard"),  # the dealer's (seat 3) discards
    ("ottocento_v0", 4, 3, None, 9, 3, "hand"),  # the dealer: the others' hands
]


@pytest.mark.parametrize(("env_id", "n", "dealer", "contract", "seed", "seat", "where"), CASES)
def test_a_viewers_messages_do_not_depend_on_the_cards_hidden_from_him(
    tmp_path: Path, env_id: str, n: int, dealer: int, contract: str | None, seed: int, seat: int, where: str
) -> None:
    record = reference(env_id, n, dealer, contract, seed)
    deck = facts(env_id).deck
    hands, rest = record["deal"]["hands"], record["deal"]["rest"]
    plain = [c for c in deck.names if deck.suit[deck.index[c]] < TRUMP_SUIT and not c.startswith("K")]
    if where == "chien":
        pool = [c for c in rest if c in plain]
    elif where == "ecart":
        taker = (dealer + 1) % n
        pool = [a.split()[1] for a in record["actions"] if a.startswith("discard")]
        assert pool and seat != taker
        pool = [c for c in pool if c in plain]
    elif where == "discard":
        pool = [a.split()[1] for a in record["actions"] if a.startswith("discard")]
        assert pool and seat != dealer
        pool = [c for c in pool if c in plain]
    else:
        pool = [c for p, h in enumerate(hands) if p != seat for c in h if c in plain]
    assert pool, "no card of the kind to hide"
    x, y, step = choose_swap(env_id, n, record, seat, pool, set() if where == "hand" else set(pool) | set(rest))
    assert step >= n + 2, f"the swap {x}/{y} shows at step {step}: too early to test much"
    deal_b, actions_b = swapped(record, x, y)
    log_a, spy_a = play(tmp_path, "a", env_id, n, seat, record["deal"], record["actions"])
    log_b, spy_b = play(tmp_path, "b", env_id, n, seat, deal_b, actions_b)
    for la, lb in ((log_a, log_b), (spy_a, spy_b)):
        head_a, head_b = before(la, step), before(lb, step)
        assert len(head_a) > step  # every state up to the reveal, and the lobby, the errors ...
        for ma, mb in zip(head_a, head_b):
            assert ma == mb
        assert len(head_a) == len(head_b)
        # and the messages do change when a swapped card is shown: the comparison can fail
        assert [m for _, m in la] != [m for _, m in lb]
    types = {m["type"] for _, m in log_a[: len(before(log_a, step))]}
    assert {"welcome", "lobby", "table", "error", "leaderboard"} <= types
