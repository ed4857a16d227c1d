"""The room makes public what the rules make public, and nothing that foretells a deal: the trumps the
taker puts in his écart are shown to the defence (the rest of the écart stays hidden), and no finished
deal's record lets anyone find the deals to come (no hidden card on the wire: tests/test_web_wire_hidden.py)."""

from __future__ import annotations

import numpy as np
from helpers_web import people

import tarot_env
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.web.room import Room


def test_trumps_the_taker_must_put_in_his_ecart_are_shown_to_the_defence() -> None:
    """rules/french_tarot.md §4: a trump in the écart is shown to the defence (the rest stays hidden)."""
    names = FRENCH_DECK.names
    kings = [c for c in names if c.startswith("K")]
    plain = [c for c in names if not c.startswith(("K", "T")) and c != "EX"]
    taker = kings + [f"T{k}" for k in range(1, 15)]  # nothing he may discard but trumps
    others = [*plain, "T21", "EX"]
    deal = {"dealer": 3, "hands": [taker, others[:18], others[18:36], others[36:54]], "rest": [f"T{k}" for k in range(15, 21)]}
    r = Room(robot_delay=0.0, pause=0.0)
    users = people(4)
    t = r.create(users[0], "french_tarot_v0", 4, seed=1)
    for k, u in enumerate(users[1:], 1):
        t.sit(u, k)
    t.next_deal_options = {"deal": deal}
    t.start(users[0], 0.0)
    raw = t.env.unwrapped

    def act(p: int, text: str) -> None:
        t.move(users[p], raw.string_to_action(text), 1.0)

    act(0, "bid garde")
    for p in (1, 2, 3):
        act(p, "pass")
    assert t.view(1, 1.0)["deal"]["chien"]  # garde: the chien turned up for everybody
    discards = [m["text"] for m in t.view(0, 1.0)["deal"]["moves"] if m["verb"] == "discard"]
    assert discards and all(d.split()[1].startswith("T") for d in discards)  # only trumps may go
    act(0, discards[0])
    shown = discards[0].split()[1]
    for seat in (1, 2, 3, None):
        d = t.view(seat, 1.0)["deal"]
        assert [c["name"] for c in d["ecart_trumps"]] == [shown]
        assert "ecart" not in d
    assert any(shown in e for e in t.events[-2:])  # the log names it too
    assert [c["name"] for c in t.view(0, 1.0)["deal"]["ecart"]] == [shown]


def test_the_next_deal_cannot_be_found_from_a_finished_deals_record() -> None:
    """A table's deals are not shuffled from seed*1000 + deal number with a seed below a million: one
    public record of a finished deal would then be enough to find the seed and know every hand to come."""
    (a,) = people(1)
    r = Room(robot_delay=0.0, pause=0.0)
    t = r.create(a, "french_tarot_v0", 3)
    for p in (1, 2):
        t.set_robot(a, p, "random")
    t.change_settings(a, {"deals": 3})
    t.start(a, 0.0)
    for seed_guess in (t.seed * 1000, t.seed * 1000 + 1):  # what a shuffle from seed*1000 + deal number would deal
        env = tarot_env.make("french_tarot_v0", num_players=3)
        env.reset(seed=seed_guess)
        foreseen = env.unwrapped.game_state.hands[0].copy()
        assert not np.array_equal(foreseen, t.env.unwrapped.game_state.hands[0])
    # a table made with a seed (the tests) still deals the same deals
    u = r.create(people(2)[1], "french_tarot_v0", 3, seed=5)
    assert u.seeded and not t.seeded
