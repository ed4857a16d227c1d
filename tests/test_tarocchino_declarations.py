"""Tarocchino declarations through the envs (§7, §6.2, U6, §14.2): each player is asked once, at his
first turn, when his hand is worth something; what he declares goes to his side's hand score and its
cards are shown to everyone; the dealer declares after his discard, without the cards he discarded;
`declarations=False` and `doubling=False` change what is asked and what it is worth; Mattazza never
asks. The fixed deals (TV9 and its variants, ``helpers_tarocchino``) have their numbers worked by hand.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import (
    ALL_CARDS,
    S2_0,
    S3_27B,
    TV9_SHOWN,
    Driver,
    binary,
    cards,
    field,
    info,
    kind,
    legal,
    make_deal,
    new_env,
    seat,
    tv9_env,
)

import tarot_env
from tarot_env.rules.bolognese.state import DECLARED


def shown(env, viewer: int, who: int) -> set[str]:
    """The cards ``viewer`` sees as shown in a declaration by seat ``who``."""
    n = env.num_players
    block = field(env, viewer, "shown").reshape(n, 62)[(who - viewer) % n]
    return {ALL_CARDS[c] for c in np.flatnonzero(block)}


def test_declaration_offered_once_at_first_turn_iff_value_positive():
    """§7: each player is asked at his own first turn, before his first card, and only when his
    hand's declaration value is > 0 (the dealer's partner holds nothing here: never asked)."""
    env = tv9_env(s2=S2_0, s3=S3_27B)
    d = Driver(env, declare=(0, 1, 3), discards={0: "T5 T6"}).run()
    # the dealer discards, then trick 1: Primo (80) asked, partner (0) not, Primo's partner (27), dealer (20)
    assert d.log[:9] == [
        (0, "discard", "discard T5"),
        (0, "discard", "discard T6"),
        (1, "declare", "declare"),
        (1, "play", d.log[3][2]),
        (2, "play", d.log[4][2]),
        (3, "declare", "declare"),
        (3, "play", d.log[6][2]),
        (0, "declare", "declare"),
        (0, "play", d.log[8][2]),
    ]
    assert [k for _, k, _ in d.log[9:]] == ["play"] * 56  # 15 tricks of 4 cards, then nothing else
    assert not d.decisions("claim")


def test_declaring_adds_the_value_to_the_side_hand_score():
    """§7 [BP p.52]: declared points are added to the declaring side's hand score. The same play
    with and without the Primo's declaration (TV9: 80) differs by exactly 80 for his side."""
    with_ = tv9_env(s2=S2_0, s3=S3_27B)
    Driver(with_, declare=(1,)).run()
    without = tv9_env(s2=S2_0, s3=S3_27B)
    Driver(without).run()
    a, b = info(with_)["points"], info(without)["points"]
    assert a["declarations"] == [0, 80] and b["declarations"] == [0, 0]
    assert a["total"][1] - b["total"][1] == 80 and a["total"][0] == b["total"][0]
    assert a["cards"] == b["cards"] and a["combinations"] == b["combinations"]
    parts = ("cards", "last_trick", "combinations", "declarations", "bonus")
    for p in (a, b):  # the parts add up to the side's hand score
        assert [sum(p[k][i] for k in parts) for i in (0, 1)] == p["total"]
    assert info(with_)["scores"] == [a["total"][0], a["total"][1], a["total"][0], a["total"][1]]


def test_every_player_declaration_goes_to_his_side():
    """§7, §8.3: all four declare: side 0 = dealer 20 (Mori M1-M4 + BEG, after discarding T5 T6)
    + his partner 12 (Fanti) = 32; side 1 = Primo 80 (TV9) + his partner 27 (Regine 14 + Cavalli 13) = 107."""
    env = tv9_env()
    Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"}).run()
    assert info(env)["points"]["declarations"] == [32, 107]


def test_declared_cards_are_shown_to_everyone():
    """§7: the cards of a declaration are shown: the `shown` field of every observation holds,
    under the Primo's relative seat, his 12 combination cards (TV9 without 6C 7D 8B); they stay
    shown once played, and nothing else is shown."""
    env = tv9_env(s2=S2_0, s3=S3_27B)
    d = Driver(env, discards={0: "T5 T6"})
    d.run(until=lambda e: seat(e) == 1)
    assert all(shown(env, v, w) == set() for v in range(4) for w in range(4))
    env.step("declare")
    for v in range(4):
        assert shown(env, v, 1) == TV9_SHOWN
        assert all(shown(env, v, w) == set() for w in (0, 2, 3))
        assert binary(field(env, v, "declared").reshape(4, -1)[(1 - v) % 4]) == 80
    env.step("play AS")
    assert shown(env, 0, 1) == TV9_SHOWN and shown(env, 2, 1) == TV9_SHOWN


def test_no_declare_shows_nothing():
    """§7 (declaring is optional): a player who says no_declare shows no card and declares 0."""
    env = tv9_env(s2=S2_0, s3=S3_27B)
    Driver(env, discards={0: "T5 T6"}).run(until=lambda e: seat(e) == 1)
    env.step("no_declare")
    env.step("play AS")
    for v in range(4):
        assert not field(env, v, "shown").any()
        assert not field(env, v, "declared").any()
    assert int(env.game_state.seat_ints[0, 1, DECLARED]) == 0


@pytest.mark.parametrize(
    ("discards", "value", "cards_shown"),
    [
        ("M3 M4", 10, "M1 M2 BEG"),  # Mori m = 2 + BEG -> 3 cards -> 10: the discarded Mori do not count
        ("T5 T6", 20, "M1 M2 M3 M4 BEG"),  # Mori 4 + BEG -> 5 cards -> 20
    ],
)
def test_dealer_declares_after_discarding(discards, value, cards_shown):
    """§7: the dealer declares at his first turn, after his discard; his 2 discarded cards are
    not part of his declaration (nor shown)."""
    env = tv9_env(s2=S2_0, s3=S3_27B)
    d = Driver(env, declare=(0,), discards={0: discards})
    d.run(until=lambda e: seat(e) == 0 and kind(legal(e)) == "declare")
    assert binary(field(env, 0, "my_declaration")) == value
    env.step("declare")
    assert shown(env, 1, 0) == set(cards(cards_shown))
    d.run()
    assert info(env)["points"]["declarations"] == [value, 0]


def test_declarations_off_never_asks():
    """§7 option `declarations=False`: nobody is ever asked, nothing is declared."""
    env = tv9_env(declarations=False)
    d = Driver(env).run()
    assert {k for _, k, _ in d.log} == {"discard", "play"}
    assert info(env)["points"]["declarations"] == [0, 0]


# a Primo with 3 sequences: Spade K Q N -> 3 cards -> 10, Bastoni K Q F -> 10, Coppe K N F -> 10;
# Re KS KB KC 17; Regine, Cavalli, Fanti 2 each: nothing. Doubled (3 sequences): 17 + 60 = 77; U6 off: 17 + 30 = 47.
THREE_SEQ = "KS QS NS KB QB JB KC NC JC 6S 7S 8S 6B 7B 6C"


@pytest.mark.parametrize(("doubling", "value"), [(True, 77), (False, 47)])
def test_doubling_option_changes_a_declaration_with_three_sequences(doubling, value):
    """§6.2, U6: with 3 sequences the declaration doubles them (77); `doubling=False` leaves
    declarations undoubled (47)."""
    env = new_env("ottocento_v0", make_deal("ottocento", 0, {1: THREE_SEQ}), doubling=doubling)
    d = Driver(env, declare=(1,))
    d.run(until=lambda e: seat(e) == 1)
    assert legal(env) == ["declare", "no_declare"]
    assert binary(field(env, 1, "my_declaration")) == value
    d.run()
    assert info(env)["points"]["declarations"] == [0, value]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_mattazza_never_asks_for_declarations(n):
    """§14.2: no declarations in Mattazza (and the option does not exist there)."""
    rng = np.random.default_rng(n)
    for s in range(3):
        env = new_env("mattazza_v0", seed=s, num_players=n)
        while not env.game_over:
            acts = legal(env)
            assert kind(acts) == "play"
            env.step(acts[int(rng.integers(len(acts)))])
        assert info(env)["points"]["declarations"] == [0] * n
    with pytest.raises(TypeError):
        tarot_env.make("mattazza_v0", num_players=3, declarations=True)
