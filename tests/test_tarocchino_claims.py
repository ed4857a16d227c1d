"""Tarocchino through the envs: declarations (§7), claims (§8.4, §11, §12, §13, U8, U15, U21,
U23, U24), the Terziglio auction (§10.3, U12, U13), scoring outcomes (cappotto §4.6, Quindici
rounding §13, Mattazza losers §14.5) and match episodes (issue 3 §2–3, §8.4 end, §9, §10.7,
§11–§14, U9, U10), with fixed deals whose numbers are worked by hand in the comments.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``helpers_tarocchino.make_deal``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import ALL_CARDS, cards, legal, make_deal, new_env, seat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tarot_env
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.combinations import combination_points
from tarot_env.rules.bolognese.state import DEALER, DECLARED, HAND_NO, PL_EXTRA, PL_POZZO, PLACE, SOLOIST, TOTAL, TRICK_NO

# ====================================================================== helpers


def field(env, viewer: int, name: str) -> np.ndarray:
    """One field of ``viewer``'s observation (tarot_env.encoding.bolognese.layout)."""
    f = {x.name: x for x in layout(env.num_players)}[name]
    return env.observe(f"player_{viewer}")["observation"][f.offset : f.offset + f.length]


def binary(v) -> int:
    """A little-endian bit field as an int."""
    return int(sum(int(b) << i for i, b in enumerate(v)))


def shown(env, viewer: int, who: int) -> set[str]:
    """The cards ``viewer`` sees as shown in a declaration by seat ``who``."""
    n = env.num_players
    block = field(env, viewer, "shown").reshape(n, 62)[(who - viewer) % n]
    return {ALL_CARDS[c] for c in np.flatnonzero(block)}


def obs_totals(env, viewer: int) -> list[int]:
    """The running totals ``viewer`` sees, back in absolute seat order (magnitude bits then a sign bit)."""
    n = env.num_players
    f = field(env, viewer, "totals").reshape(n, 13)
    rel = [binary(row[:12]) * (-1 if row[12] else 1) for row in f]
    return [rel[(s - viewer) % n] for s in range(n)]


def hand_of(env, s: int) -> set[str]:
    """The cards in seat ``s``'s hand (the dealer's last 2 not yet picked up excluded)."""
    return {ALL_CARDS[c] for c in env.state.hand(0, s)}


def kind(actions: list[str]) -> str:
    """The decision a legal-action list stands for."""
    first = actions[0]
    if first in ("claim", "no_claim"):
        return "claim"
    if first in ("declare", "no_declare"):
        return "declare"
    if first in ("pass", "posso", "di_mio", "va_bene", "oppose"):
        return "auction"
    return first.split()[0]


class Driver:
    """Steps an env with a simple policy and logs each decision as (seat, kind, action).

    ``declare``: seats that declare when asked (the others say no_declare); ``claim``: seats
    that claim when a window opens; ``discards``: cards to discard, in order, per seat (else
    the first legal discard); ``order``: "first" plays the lowest card id that is legal,
    "last" the highest; ``script``: exact action strings used first, one per step.
    Rewards are summed per agent over every step.
    """

    def __init__(self, env, declare=(), claim=(), discards=None, order="first", script=None):
        self.env = env
        self.declare = set(declare)
        self.claim = set(claim)
        self.discards = {s: list(cards(v)) for s, v in (discards or {}).items()}
        self.order = order
        self.script = list(script or [])
        self.log: list[tuple[int, str, str]] = []
        self.claim_values: list[tuple[int, int]] = []
        self.rewards = dict.fromkeys(env.possible_agents, 0.0)
        self.steps_rewards: list[dict[str, float]] = []

    def choose(self) -> str:
        env = self.env
        acts = legal(env)
        s = seat(env)
        k = kind(acts)
        if self.script:
            return self.script.pop(0)
        if k == "claim":
            return "claim" if s in self.claim else "no_claim"
        if k == "declare":
            return "declare" if s in self.declare else "no_declare"
        if k == "discard" and self.discards.get(s):
            return "discard " + self.discards[s].pop(0)
        if k == "auction":
            raise AssertionError("auction steps need a script")
        return acts[0] if self.order == "first" else acts[-1]

    def step(self) -> str:
        env = self.env
        acts = legal(env)
        s = seat(env)
        k = kind(acts)
        if k == "claim":
            self.claim_values.append((s, binary(field(env, s, "claim_value"))))
        a = self.choose()
        self.log.append((s, k, a))
        env.step(a)
        self.steps_rewards.append(dict(env.rewards))
        for ag, r in env.rewards.items():
            self.rewards[ag] += r
        return a

    def run(self, until=None, max_steps: int = 5000) -> Driver:
        k = 0
        while not self.env.game_over and not (until is not None and until(self.env)):
            self.step()
            k += 1
            assert k < max_steps
        return self

    def decisions(self, k: str) -> list[tuple[int, str]]:
        return [(s, a) for s, kk, a in self.log if kk == k]


def info(env) -> dict:
    return env.infos["player_0"]


def first_play_index(log, s: int) -> int:
    return next(i for i, (ss, k, _) in enumerate(log) if ss == s and k == "play")


# ====================================================================== fixed deals
# ---- Ottocento, dealer 0 (Primo 1, dealer's partner 2, Primo's partner 3) -----------
# TV9: the Primo's hand. Cricche: Tarocchi MAT ANG MON 18 + Re KS KC KB 17 = 35; sequences
# (C = 1, the Matto): Spade K Q N F A + MAT = 6 cards -> 25, Grande ANG MON SOL (LUN skipped)
# T16 [MAT for 15], stops at 14 -> 5 cards -> 20; 2 sequences, no doubling: 45. Total 80.
TV9 = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"
TV9_SHOWN = set(cards("KS KC KB QS NS JS AS MAT ANG MON SOL T16"))  # everything but 6C 7D 8B
# the dealer's partner: Fanti JB JC JD = 12 (AB AC: 2 Aces and no contatore, nothing)
S2_12 = "JB JC JD AB AC 6S 7S 8S 6B 7B 7C 8C 6D 8D T14"
# the Primo's partner: Regine QB QC QD 14 + Cavalli NB NC ND 13 = 27 (no King, Ace or contatore)
S3_27 = "QB QC QD NB NC ND 9S 10S 9B 10B 9C 10C 9D 10D T15"
# the dealer: his first 15 have Mori M1 M2 + BEG (m = 2, C = 1) -> 3 cards -> 10; with his
# last 2 (M3 M4) the Mori are 4 + BEG -> 5 cards -> 20. AD + BEG: one Ace, no sequence; KD alone.
S0 = "AD KD BEG M1 M2 T5 T6 T7 T8 T9 T10 T11 T12 T13 LUN M3 M4"
# variants: JD <-> 9D makes the dealer's partner worth 0 (JB JC only) and keeps the Primo's partner at 27
S2_0 = "JB JC 9D AB AC 6S 7S 8S 6B 7B 7C 8C 6D 8D T14"
S3_27B = "QB QC QD NB NC ND 9S 10S 9B 10B 9C 10C JD 10D T15"
# QD ND <-> 6D 8D makes the Primo's partner worth 0 (2 Regine, 2 Cavalli) and the dealer's partner 12
S2_12B = "JB JC JD AB AC 6S 7S 8S 6B 7B 7C 8C QD ND T14"
S3_0 = "QB QC 6D NB NC 8D 9S 10S 9B 10B 9C 10C 9D 10D T15"


def otto_deal(s2: str = S2_12, s3: str = S3_27, s1: str = TV9, s0: str = S0) -> dict:
    return make_deal("ottocento", 0, {0: s0, 1: s1, 2: s2, 3: s3})


def tv9_env(totals=None, s2: str = S2_12, s3: str = S3_27, **config):
    return new_env("ottocento_v0", otto_deal(s2, s3), totals=totals, **config)


# ---- Ottocento cappotto, dealer 0: the Primo holds the 15 top numbered trumps (ANG MON SOL LUN
# T16..T6) and leads every trick; his partner has the other 6 numbered trumps (T5, the Mori,
# BEG), all lower; the dealer's side has no numbered trump. So seat 1 wins all 15 tricks
# whatever is played, and his side ends with all 62 cards: TV4, 939.
CAP1 = "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6"  # Grande to T6 (5 missing): 15 cards -> 70
CAP3 = "T5 M1 M2 M3 M4 BEG 6D 7D 8D 9D 10D 6C 7C 8C 9C"  # Mori 4 + BEG -> 5 cards -> 20
# Spade K Q N F A + MAT -> 6 -> 25; Aces AS AB + MAT -> 3 -> 10; 2 sequences: 35
CAP0 = "MAT KS QS NS AS 6S 7S 8S 9S 10S JS AB 6B 7B 8B 9B 10B"
# Re KB KC KD 17, Regine 14, Cavalli 13, Fanti 12: criccone (17+14+13+12)*2 = 112; Bastoni K Q N F
# -> 4 -> 15, Coppe K Q N F A -> 5 -> 20, Denari K Q N F A -> 20: 3 sequences, doubled 110. Total 222.
CAP2 = "JB NB QB KB AC 10C JC NC QC KC AD JD ND QD KD"
CAP_HANDS = [CAP0, CAP1, CAP2, CAP3]


def cappotto_deal(dealer: int = 0) -> dict:
    """The cappotto deal rotated so that ``dealer`` deals: the side of seat dealer + 1 capots."""
    return make_deal("ottocento", dealer, {(s + dealer) % 4: CAP_HANDS[s] for s in range(4)})


# ---- Centocinquanta / Quindici, dealer 0, opponent 1 (the opponent leads) -----------------
# opponent: ANG MON SOL LUN T16..T6: Grande 15 cards -> 70 (ANG MON: 2 Tarocchi, no cricca)
CENTO1 = CAP1
# dealer: first 15 and all 17: Spade K Q N + MAT -> 4 cards -> 15 (last 2: 7C 8C)
CENTO0 = "MAT KS QS NS 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C"


def cento_deal() -> dict:
    return make_deal("centocinquanta", 0, {0: CENTO0, 1: CENTO1})


# ---- Millone, dealer 0, opponent 1 -----------------------------------------------------------
# opponent's 20 first-deal cards: Re KS KB KC -> 17, nothing else (no Ace, no contatore, no Grande)
MIL1 = "KS KB KC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C T5 T6"
# dealer's 22: first 20 hold QS QB (2 Regine), AS AB (2 Aces, no contatore), no Angelo: 0;
# his last 2 are QC LUN: with them Regine QS QB QC -> 14
MIL0 = "QS QB 6D 7D 8D 9D 10D T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 AS AB SOL QC LUN"
# the second deal, 10 each: the dealer gets QD (Regine 4 -> 28 in hand, but QD may not serve a
# claim, §11.6) and cards that make nothing (JS JB, NS NB, AC AD, M1 M2 without contatore, MON alone)
MIL_SECOND_1 = "KD JC NC JD ND BEG M3 M4 ANG MAT"
MIL_SECOND_0 = "QD JS NB AC AD M1 M2 NS JB MON"
MIL_DISCARDS = {1: "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B", 0: "6D 7D 8D 9D 10D AS AB T7 T8 T9 T10 T11"}


def millone_deal() -> dict:
    o, d = cards(MIL_SECOND_1), cards(MIL_SECOND_0)
    rest = " ".join(o[:5] + d[:5] + o[5:] + d[5:])  # 5 at a time, the opponent first (U22)
    return make_deal("millone", 0, {0: MIL0, 1: MIL1}, rest=rest)


# ---- Terziglio, dealer 0, receiver 1 ------------------------------------------------------------
# the receiver: 17 trumps ANG MON SOL LUN T16..T5 M1 and the 6S. Declaration: Grande ANG + MON SOL
# LUN + T16..T5 (12) + M1 (past the 5) = 17 cards -> 80; nothing else (ANG MON: 2 Tarocchi).
TERZ1 = "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 M1 6S"
TERZ_POZZO = "MAT BEG M2 M3 M4 KS KB KC"


def terz_deal() -> dict:
    # the opponents hold only suit cards; seat 2's lowest card id is AS, seat 0's is 7S
    return make_deal("terziglio", 0, {1: TERZ1, 2: "AS", 0: "7S"}, rest=TERZ_POZZO)


# ---- Mattazza, 3 players, dealer 0 (seat 1 leads) ----------------------------------------------
MAT_TIE = {0: "QD 6D 7D 8D 10D JD ND 9D AC AD", 1: "T16 T15 T14 T13 AS 6S 7S AB 6B 7B", 2: "10S 9S 8S 10B 10C 8B 6C 7C 8C 9C"}
# the 30 cards played trick by trick (leader first): seat 1 wins 1-4, seat 2 wins 5-8, seat 0 wins 9-10
MAT_TIE_PLAY = (
    "play T16; play 6C; play QD; play T15; play 7C; play 6D; play T14; play 8C; play 7D; play T13; play 9C; play 8D;"
    " play AS; play 10S; play 10D; play 9S; play JD; play 6S; play 8S; play ND; play 7S; play 10B; play 9D; play AB;"
    " play 10C; play AC; play 6B; play AD; play 7B; play 8B"
)


# ====================================================================== 1. declarations (§7)
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
    for p in (a, b):  # the parts add up to the side's hand score
        assert [p["cards"][i] + p["last_trick"][i] + p["combinations"][i] + p["declarations"][i] + p["bonus"][i] for i in (0, 1)] == p["total"]
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
    assert int(env.state.seat_ints[0, 1, DECLARED]) == 0


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


# ====================================================================== 2. claims (§8.4 and the duels)
@pytest.mark.parametrize(("total", "window"), [(730, True), (720, True), (719, False), (700, False)])
def test_tv9_primo_claims_when_total_plus_declaration_reaches_800(total, window):
    """TV9, §8.4 step 2: the Primo's declaration is 80; at 730 (810), and at 720 (exactly 800)
    he may claim at his first turn; at 719 (799) or 700 (780) no window opens (wrong_claim
    "refused": a claim below the target is never offered)."""
    env = tv9_env(totals=[0, total, 0, total])
    d = Driver(env, claim=(1,), declare=(1,)).run(until=lambda e: seat(e) == 1)
    assert [k for _, k, _ in d.log] == ["discard", "discard"]  # no window for the dealer (0 + 10)
    if not window:
        assert legal(env) == ["declare", "no_declare"]
        return
    assert legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 1, "claim_value")) == total + 80
    assert not field(env, 0, "claim_value").any() and not field(env, 0, "decision").any()  # private
    env.step("claim")
    assert env.game_over
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 1, total + 80, 1)


def test_tv9_at_700_the_primo_partner_adds_his_declaration_to_the_primo():
    """TV9 at 700, §8.4 step 4: the Primo (780) may not claim; he declares 80; the dealer's
    partner (side at 0) has no window; the Primo's partner claims with 700 + 80 + his own 27 = 807."""
    env = tv9_env(totals=[0, 700, 0, 700])
    d = Driver(env, declare=(1,), claim=(3,)).run()
    assert d.claim_values == [(3, 807)]
    assert [(s, k) for s, k, _ in d.log if s in (1, 2, 3)] == [(1, "declare"), (1, "play"), (2, "declare"), (2, "play"), (3, "claim")]
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 3, 807, 1)


def test_primo_partner_adds_only_what_the_primo_declared():
    """§8.4 step 4: without the Primo's declaration his partner has only 700 + 27 = 727: no window."""
    env = tv9_env(totals=[0, 700, 0, 700])
    d = Driver(env, claim=(0, 1, 2, 3)).run()
    assert d.claim_values == []
    assert info(env)["result"] == "played"


@pytest.mark.parametrize(("needs_own", "window"), [(False, True), (True, False)])
def test_u23_partner_with_no_declaration_of_his_own(needs_own, window):
    """U23: the Primo's partner (own declaration 0) adds the Primo's 80 to 720 -> 800 by default;
    with `partner_needs_own_declaration=True` he may not (and, worth 0, is not asked to declare)."""
    env = tv9_env(totals=[0, 720, 0, 720], s2=S2_12B, s3=S3_0, partner_needs_own_declaration=needs_own)
    d = Driver(env, declare=(1,)).run(until=lambda e: e.state.ints[0, TRICK_NO] == 1)  # the first trick is over
    assert d.claim_values == ([(1, 800), (3, 800)] if window else [(1, 800)])
    assert (3, "declare", "no_declare") not in d.log and (3, "declare", "declare") not in d.log


def test_dealer_window_before_pickup_uses_his_first_15_cards():
    """§8.4 step 1: the dealer looks at his first 15 cards only (Mori M1 M2 + BEG = 10): at 790 he
    may claim 800 before picking up; a claim then wins at once."""
    env = tv9_env(totals=[790, 0, 790, 0])
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 800
    assert hand_of(env, 0) == set(cards(S0)[:15])  # M3 M4 still face down
    assert int(field(env, 0, "hand").sum()) == 15
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 800, 0)


def test_dealer_last_two_cards_do_not_count_before_pickup():
    """§8.4 step 1: at 785 his first 15 give 795 (no window), although all 17 would give 805;
    he picks up, so his hand has 17 cards at his discard."""
    env = tv9_env(totals=[785, 0, 785, 0])
    assert seat(env) == 0 and kind(legal(env)) == "discard"
    assert hand_of(env, 0) == set(cards(S0)) and int(field(env, 0, "hand").sum()) == 17
    assert not (env.state.cards[0, PLACE] == PL_EXTRA).any()


def test_order_of_the_claim_windows():
    """§8.4 order: dealer before pickup (790 + 10), Primo (730 + 80), dealer's partner (790 + 12),
    Primo's partner (730 + 27 + the Primo's 80), dealer at his first turn with his own only
    (790 + 20 = 810, not + his partner's 12, §8.4 step 5, U8). His claim wins for side 0."""
    env = tv9_env(totals=[790, 730, 790, 730])
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"})
    d.run(until=lambda e: kind(legal(e)) == "claim" and len(d.claim_values) == 4)
    assert d.claim_values == [(0, 800), (1, 810), (2, 802), (3, 837)]
    assert [k for s, k, _ in d.log if s == 0] == ["claim", "discard", "discard"]
    assert seat(env) == 0 and binary(field(env, 0, "claim_value")) == 810
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 810, 0)


def test_u8_dealer_does_not_claim_after_pickup():
    """U8 `dealer_claims_after_pickup=False`: the dealer keeps his window before pickup but has
    none at his first turn."""
    env = tv9_env(totals=[790, 730, 790, 730], dealer_claims_after_pickup=False)
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"}).run()
    assert d.claim_values == [(0, 800), (1, 810), (2, 802), (3, 837)]
    assert info(env)["result"] == "played"


def test_wrong_claim_loses_offers_a_claim_below_target_and_loses():
    """§8.4, `wrong_claim="loses"`: windows open below the target; the dealer's claim at 0 + 10
    loses the game: the other side wins."""
    env = tv9_env(wrong_claim="loses", reward="win_loss")
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 10
    env.step("claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["game_winner"]) == ("wrong_claim", 0, 1)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


def test_wrong_claim_loses_opens_every_window():
    """`wrong_claim="loses"`: every claim opportunity of §8.4 opens, with the values the rule
    gives: dealer first 15 (10), Primo 80, dealer's partner 12, Primo's partner 27 + 80, dealer 20."""
    env = tv9_env(wrong_claim="loses")
    d = Driver(env, declare=(0, 1, 2, 3), discards={0: "T5 T6"}).run()
    assert d.claim_values == [(0, 10), (1, 80), (2, 12), (3, 107), (0, 20)]
    assert info(env)["result"] == "played"


def _claim_check(env, primo_declared: int | None) -> int:
    """The claim value the rules allow now (§8.4, defaults), computed from the hands: the dealer's
    first 15 before pickup; else the player's own hand, plus the Primo's declared value for the
    Primo's partner."""
    st_ = env.state
    d = int(st_.ints[0, DEALER])
    p = seat(env)
    mask = np.zeros(62, dtype=bool)
    if primo_declared is None and p == d and kind(legal(env)) in ("claim", "discard"):  # before the pickup
        dealt = env.game.format_deal(*env.game.dealt[0][-1])["hands"][d][:15]  # his last 2 are at the end
        mask[[ALL_CARDS.index(c) for c in dealt]] = True
        return int(st_.seat_ints[0, p, TOTAL]) + int(combination_points(mask))
    mask[st_.hand(0, p)] = True
    own = int(combination_points(mask))
    if p == (d + 3) % 4:
        own += primo_declared or 0
    return int(st_.seat_ints[0, p, TOTAL]) + own


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), a=st.integers(720, 799), b=st.integers(720, 799))
def test_claim_offered_exactly_when_it_reaches_the_target(seed, a, b):
    """Property (§8.4, default `wrong_claim="refused"`, U8, U23): over random deals and running
    totals, whenever `claim` is legal the claimant's total + usable declaration is >= 800 (and
    the observation shows that value); at every opportunity with such a value the window opens."""
    env = new_env("ottocento_v0", seed=seed, totals=[a, b, a, b])
    rng = np.random.default_rng(seed)
    seen: set[int] = set()
    primo_declared = None
    d = int(env.state.ints[0, DEALER])
    first = True
    while not env.game_over:
        acts = legal(env)
        p = seat(env)
        k = kind(acts)
        pickup = first or bool((env.state.cards[0, PLACE] == PL_EXTRA).any())
        at_opportunity = first or (k in ("claim", "declare", "play") and p not in seen)
        if at_opportunity:
            value = _claim_check(env, None if pickup else (primo_declared or 0))
            assert (k == "claim") == (value >= 800), (p, value, acts)
            if k == "claim":
                assert binary(field(env, p, "claim_value")) == value
            if not pickup:
                seen.add(p)
        else:
            assert k != "claim"
        first = False
        a_ = acts[int(rng.integers(len(acts)))]
        if k == "declare" and p == (d + 1) % 4:
            mask = np.zeros(62, dtype=bool)
            mask[env.state.hand(0, p)] = True
            primo_declared = int(combination_points(mask)) if a_ == "declare" else 0
        env.step(a_)
        if a_ == "claim":
            i = info(env)
            assert i["result"] == "claimed" and i["game_winner"] == p % 2


@pytest.mark.parametrize(("total", "window"), [(983, True), (982, False)])
def test_millone_opponent_window_right_after_the_pickup(total, window):
    """§11.3: once the dealer has picked up (22 cards), the opponent may claim with his 20 cards
    (Re KS KB KC = 17): 983 + 17 = 1000 opens the window, 982 does not. He has no other window:
    not at his first turn."""
    env = new_env("millone_v0", millone_deal(), totals=[0, total])
    if window:
        assert seat(env) == 1 and legal(env) == ["claim", "no_claim"]
        assert binary(field(env, 1, "claim_value")) == 1000
        assert len(hand_of(env, 0)) == 22 and len(hand_of(env, 1)) == 20  # after the pickup, before any discard
    d = Driver(env, discards=MIL_DISCARDS).run()
    assert d.claim_values == ([(1, 1000)] if window else [])
    first_discard = next(s for s, k, _ in d.log if k == "discard")
    assert first_discard == 1  # the opponent discards first (U22)


def test_millone_second_deal_goes_five_at_a_time_from_the_opponent():
    """§11.5, U22: after the first discards (10 each) the 20 cards are dealt 5 at a time,
    the opponent first: each gets 10; the dealer (22) then discards 2 more."""
    env = new_env("millone_v0", millone_deal())
    d = Driver(env, discards=MIL_DISCARDS)
    d.run(until=lambda e: len(d.decisions("discard")) == 20)
    assert seat(env) == 0 and kind(legal(env)) == "discard"
    assert hand_of(env, 0) == set(cards("QS QB QC T10 T11 T12 T13 T14 T15 T16 SOL LUN") + cards(MIL_SECOND_0))
    assert hand_of(env, 1) == set(cards("KS KB KC 6C 7C 8C 9C 10C T5 T6") + cards(MIL_SECOND_1))


@pytest.mark.parametrize(("total", "window"), [(986, True), (985, False)])
def test_millone_claims_use_only_first_deal_cards(total, window):
    """§11.6: the dealer's first 20 cards are worth 0 (no window before pickup at 986); at his
    first turn his hand holds Regine QS QB QC QD = 28, but QD came in the second deal, so his
    claim uses QS QB QC = 14: 986 + 14 = 1000 opens the window, 985 does not. His declaration
    is still worth 28 and counts in the hand (§11.6)."""
    env = new_env("millone_v0", millone_deal(), totals=[total, 0])
    d = Driver(env, discards=MIL_DISCARDS, declare=(0,))
    d.run(until=lambda e: seat(e) == 0 and kind(legal(e)) in ("claim", "declare"))
    assert d.claim_values == []
    if window:
        assert legal(env) == ["claim", "no_claim"] and binary(field(env, 0, "claim_value")) == 1000
        env.step("no_claim")
    assert legal(env) == ["declare", "no_declare"]
    assert binary(field(env, 0, "my_declaration")) == 28
    d.run()
    assert info(env)["points"]["declarations"] == [28, 0]
    assert d.claim_values == []  # no other window: none at the opponent's first turn (§11.3)


@pytest.mark.parametrize("early", [False, True])
def test_centocinquanta_opponent_claim_timing(early):
    """U21: the opponent's window comes at his first turn (default: after the dealer's discard),
    or with `opponent_claim="before_discard"` right after the dealer picks up. Opponent at 80 with
    the Grande to T6 (70): 150."""
    env = new_env("centocinquanta_v0", cento_deal(), totals=[0, 80], opponent_claim="before_discard" if early else "first_turn")
    d = Driver(env, discards={0: "6C 7C"}, declare=(1,)).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
    if early:
        assert [(s, k) for s, k, _ in d.log] == [(1, "claim"), (0, "discard"), (0, "discard"), (1, "declare")]
    else:
        assert [(s, k) for s, k, _ in d.log] == [(0, "discard"), (0, "discard"), (1, "claim"), (1, "declare")]
    assert d.claim_values == [(1, 150)]


def test_centocinquanta_dealer_window_before_pickup():
    """§12.3: the dealer claims with his first 15 cards (Spade K Q N + MAT = 15): 135 + 15 = 150."""
    env = new_env("centocinquanta_v0", cento_deal(), totals=[135, 0])
    assert seat(env) == 0 and legal(env) == ["claim", "no_claim"]
    assert binary(field(env, 0, "claim_value")) == 150
    env.step("claim")
    assert (info(env)["result"], info(env)["game_winner"]) == ("claimed", 0)


@pytest.mark.parametrize(("totals", "who", "window"), [([0, 8], 1, True), ([0, 7], 1, False), ([13, 0], 0, True), ([12, 0], 0, False)])
def test_quindici_claim_adds_the_rounded_declaration(totals, who, window):
    """§13, U15, U24 (default): claim when total + q(declaration) >= 15, q(p) = floor((p + 5)/10).
    Opponent: q(70) = 7, so 8 + 7 = 15 opens, 7 + 7 = 14 does not; dealer's first 15: q(15) = 2,
    so 13 + 2 = 15 opens, 12 + 2 does not."""
    env = new_env("quindici_v0", cento_deal(), totals=totals)
    d = Driver(env, discards={0: "6C 7C"}).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
    assert d.claim_values == ([(who, 15)] if window else [])


# hand 2 of the Quindici match below: dealer 1, whose first 15 cards hold Regine QS QB QC (14) and
# nothing else; the opponent (seat 0) holds 2 Aces, 2 Fanti, 2 Cavalli: nothing
Q2_DEALER = "QS QB QC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6D 7D 8D 9D"
Q2_OPP = "AC 6C 7C 8C 9C 10C AD 10D JS JB NC ND T5 T6 T7"


@pytest.mark.parametrize(("rounding", "window"), [("declaration", False), ("raw_sum", True)])
def test_quindici_claim_rounding_raw_sum(rounding, window):
    """U24: hand 1 (the cappotto below, both declaring) scores raw 15 and 221, rounded 2 and 22.
    In hand 2 (target 24) the dealer (seat 1) holds Regine = 14 in his first 15 cards:
    default 22 + q(14) = 23 < 24, no window; `claim_rounding="raw_sum"`: q(221 + 14) = q(235) = 24."""
    env = new_env(
        "quindici_v0", None, episode="match", target=24, claim_rounding=rounding
    )
    env.reset(options={"deals": [cento_deal(), make_deal("quindici", 1, {1: Q2_DEALER, 0: Q2_OPP})]})
    d = Driver(env, declare=(0, 1), discards={0: "6C 7C"}).run(until=lambda e: int(e.state.ints[0, HAND_NO]) == 1)
    assert env.hands_played() == [[2, 22]]
    assert info(env)["points"]["total"] == [15, 221] and info(env)["raw"] == [15, 221]
    assert obs_totals(env, 0) == [2, 22] and obs_totals(env, 1) == [2, 22]
    assert seat(env) == 1
    if not window:
        assert kind(legal(env)) == "discard"
        return
    assert legal(env) == ["claim", "no_claim"] and binary(field(env, 1, "claim_value")) == 24
    env.step("claim")
    assert env.game_over and info(env)["game_winner"] == 1 and info(env)["match_over"]
    del d


# ====================================================================== 3. the Terziglio auction (§10.3, U12, U13)
def terz_env(**config):
    return new_env("terziglio_v0", terz_deal(), **config)


def one_hot(env, viewer: int, name: str) -> list[int]:
    return [int(x) for x in field(env, viewer, name)]


def test_terziglio_auction_actions():
    """§10.3: the speaker says pass, posso or di_mio; a posso is answered va_bene or oppose."""
    env = terz_env()
    assert seat(env) == 1 and legal(env) == ["pass", "posso", "di_mio"]  # the receiver (dealer's right) speaks first
    env.step("posso")
    assert seat(env) == 2 and legal(env) == ["va_bene", "oppose"]
    with pytest.raises(tarot_env.IllegalActionError):
        env.step("pass")
    env.step("va_bene")
    assert seat(env) == 0 and legal(env) == ["va_bene", "oppose"]


def test_terziglio_three_passes_throw_the_deal_in():
    """§10.3, U12: three passes: the deal is thrown in, nobody scores."""
    env = terz_env()
    for s in (1, 2, 0):
        assert seat(env) == s
        env.step("pass")
    assert env.game_over
    assert info(env)["result"] == "thrown_in" and info(env)["scores"] == [0, 0, 0]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_terziglio_posso_accepted_goes_up_with_the_pozzo():
    """§10.3: posso + va_bene + va_bene: the bidder goes up, takes the 8 Pozzo cards (26) and
    discards 8 (never a King or a Tarocco), then the receiver leads."""
    env = terz_env()
    play_ = ["posso", "va_bene", "va_bene"]
    for a in play_:
        env.step(a)
    assert hand_of(env, 1) == set(cards(TERZ1) + cards(TERZ_POZZO))
    assert int(field(env, 1, "hand").sum()) == 26
    assert not (env.state.cards[0, PLACE] == PL_POZZO).any()
    allowed = set(cards(TERZ1) + cards(TERZ_POZZO)) - set(cards("ANG MON MAT BEG KS KB KC"))
    assert set(legal(env)) == {f"discard {c}" for c in allowed}
    assert one_hot(env, 0, "soloist") == [0, 1, 0] and one_hot(env, 0, "contract") == [1, 0]
    for c in cards("6S T5 T6 T7 T8 T9 T10 T11"):
        assert seat(env) == 1
        env.step(f"discard {c}")
    assert len(hand_of(env, 1)) == 18
    assert set(cards("6S T5 T6 T7 T8 T9 T10 T11")) == {ALL_CARDS[c] for c in np.flatnonzero(field(env, 1, "discard"))}
    assert seat(env) == 1 and kind(legal(env)) in ("declare", "play")


@pytest.mark.parametrize(
    ("calls", "soloist"),
    [
        (["posso", "oppose"], 2),  # the first answerer refuses
        (["posso", "va_bene", "oppose"], 0),  # the second answerer refuses
        (["pass", "posso", "va_bene", "oppose"], 1),  # the receiver passed, then refuses the posso (U12)
        (["di_mio"], 1),
        (["pass", "pass", "di_mio"], 0),
    ],
)
def test_terziglio_di_mio_paths(calls, soloist):
    """§10.3, U12: "No! Faccio di mio" makes the refuser (even one who passed) the soloist, who
    plays with his 18 cards; "faccio di mio" at one's turn to speak does the same. The Pozzo
    stays aside (8 cards), nobody discards, and the receiver (seat 1) leads (U13)."""
    env = terz_env()
    for a in calls:
        env.step(a)
    assert int(env.state.ints[0, SOLOIST]) == soloist
    assert one_hot(env, 1, "soloist") == [int((soloist - 1) % 3 == r) for r in range(3)]
    assert one_hot(env, 1, "contract") == [0, 1]
    assert int((env.state.cards[0, PLACE] == PL_POZZO).sum()) == 8
    assert all(len(hand_of(env, s)) == 18 for s in range(3))
    assert seat(env) == 1 and kind(legal(env)) in ("declare", "play")


@pytest.mark.parametrize(("first_lead", "leader"), [("receiver", 1), ("soloist", 2)])
def test_terziglio_first_lead(first_lead, leader):
    """U13: the receiver leads the first trick by default; `first_lead="soloist"`: the soloist.
    Here the receiver passes and seat 2 goes up."""
    env = terz_env(first_lead=first_lead)
    for a in ["pass", "posso", "va_bene", "va_bene"]:
        env.step(a)
    for _ in range(8):
        assert seat(env) == 2
        env.step(legal(env)[0])
    assert seat(env) == leader and kind(legal(env)) in ("declare", "play")
    Driver(env).run(until=lambda e: kind(legal(e)) == "play")
    assert seat(env) == leader
    assert one_hot(env, 0, "primo") == [int((leader - 0) % 3 == r) for r in range(3)]


@pytest.mark.parametrize(
    ("declare", "points", "settlement"),
    [
        # soloist 61.5 + 376 + 80 = 517.5 -> 517 -> poste (517 - 5) // 10 = 51 -> 4 x 51 = 204
        ((1,), {"total": [517.5, 68.5], "declarations": [80, 0]}, [-102, 204, -102]),
        # without the declaration: 437.5 -> 437 -> poste 43 -> 172
        ((), {"total": [437.5, 68.5], "declarations": [0, 0]}, [-86, 172, -86]),
    ],
)
def test_terziglio_di_mio_whole_hand(declare, points, settlement):
    """§10.3, §10.6, U18, TV12 on a whole hand. The receiver plays di mio with 17 trumps and the
    6S; everybody plays his highest card id: he wins tricks 1-17 with trumps, then leads the 6S
    and loses the last trick to seat 0's 7S (seat 2 has the AS). The Pozzo (MAT BEG M2 M3 M4 KS
    KB KC) goes unseen to the opponents, who won the last trick.

    Opponents (11 cards: 6S AS 7S + Pozzo): Σv 31, cards 31 - 11/2 = 25.5; last trick 6; Re KS KB
    KC 17; Mori M2 M3 M4 + 2 contatori -> 5 cards -> 20 (AS alone, no King with a figure): 37.
    Total 68.5. Soloist (51 cards): cards 87 - 25.5 = 61.5; criccone Regine 28 + Cavalli 26 +
    Fanti 24 = 78 x 2 = 156; Grande ANG MON SOL LUN T16..T5 + M1 = 17 cards -> 80, Denari K Q N F
    A -> 20, Aces AB AC AD -> 10, 3 sequences doubled: 220; combinations 376. Di mio: stake 4 x
    poste to the soloist, half of it from each opponent (TV12)."""
    env = terz_env()
    env.step("di_mio")
    d = Driver(env, declare=declare, order="last").run()
    i = info(env)
    assert i["points"]["cards"] == [61.5, 25.5]
    assert i["points"]["last_trick"] == [0, 6]
    assert i["points"]["combinations"] == [376, 37]
    for key, value in points.items():
        assert i["points"][key] == value
    assert (i["soloist"], i["contract"], i["soloist_won"]) == (1, "di_mio", True)
    assert i["winner_points"] == int(points["total"][0]) and i["poste"] == (int(points["total"][0]) - 5) // 10
    assert i["scores"] == settlement
    assert d.rewards == {f"player_{s}": float(settlement[s]) for s in range(3)}
    assert [w for w in env.state.hist[0, :18]] == [1] * 17 + [0]


# ====================================================================== 4. outcomes
@pytest.mark.parametrize(("keep", "declarations"), [(True, [257, 90]), (False, [0, 90])])
def test_ottocento_cappotto(keep, declarations):
    """§4.6, TV4, U7: seat 1 wins all 15 tricks. The capotted dealer's side loses its 2
    discards and the Matto (covered by the dealer), so side 1 ends with all 62 cards: cards 87,
    last trick 6, combinations 296 + 550 = 846 (TV4: 939). Declarations: side 0 = dealer 35 +
    partner 222 = 257, kept by default (U7), cancelled with `keep_capotted_declarations=False`;
    side 1 = 70 + 20 = 90."""
    env = new_env("ottocento_v0", cappotto_deal(0), keep_capotted_declarations=keep)
    Driver(env, declare=(0, 1, 2, 3), discards={0: "9B 10B"}).run()
    p = info(env)["points"]
    assert [int(w) for w in env.state.hist[0, :15]] == [1] * 15
    assert p["capotted"] == [True, False]
    assert p["cards"] == [0, 87] and p["last_trick"] == [0, 6] and p["combinations"] == [0, 846]
    assert p["declarations"] == declarations
    assert p["total"] == [declarations[0], 939 + 90]
    assert info(env)["scores"] == [declarations[0], 1029, declarations[0], 1029]


@pytest.mark.parametrize(("keep", "dealer_total"), [(True, 15), (False, 0)])
def test_centocinquanta_cappotto(keep, dealer_total):
    """§4.6, §12.4: the opponent wins all 15 tricks and gets all 32 cards in play (the dealer's 2
    discards and the Matto, covered in the last trick, included): Σv 53 - 16 = 37 card points,
    last trick 6; Tarocchi ANG MON MAT 18; Grande ANG MON SOL LUN T16..T6 + MAT (for the 5) = 16
    cards -> 75, Spade K Q N + MAT -> 15: 90; combinations 108; declaration 70: total 221. The
    capotted dealer keeps his declared 15 (U7) or not."""
    env = new_env("centocinquanta_v0", cento_deal(), keep_capotted_declarations=keep)
    Driver(env, declare=(0, 1), discards={0: "6C 7C"}).run()
    p = info(env)["points"]
    assert p["capotted"] == [True, False]
    assert p["cards"] == [0, 37] and p["last_trick"] == [0, 6] and p["combinations"] == [0, 108]
    assert p["declarations"] == [dealer_total, 70]
    assert p["total"] == [dealer_total, 221] and info(env)["scores"] == [dealer_total, 221]


@pytest.mark.parametrize(("declare", "raw", "scores"), [((0, 1), [15, 221], [2, 22]), ((), [0, 151], [0, 15])])
def test_quindici_rounds_each_hand_score(declare, raw, scores):
    """§13, TV13: the Centocinquanta hand above, each score rounded q(p) = floor((p + 5)/10):
    q(15) = 2, q(221) = 22; without declarations q(0) = 0, q(151) = 15."""
    env = new_env("quindici_v0", cento_deal())
    Driver(env, declare=declare, discards={0: "6C 7C"}).run()
    assert info(env)["raw"] == raw
    assert info(env)["scores"] == scores


@pytest.mark.parametrize(("full_count", "losers"), [(False, [1, 2]), (True, [0])])
def test_mattazza_everybody_took_a_trick(full_count, losers):
    """§14.4-5: everybody took a trick, so the highest score loses, all of those tied for it.
    Card points per trick: Σv - N + N/3. Seat 1 (tricks 1-4: T16..T13, 6C..9C, QD 6D 7D 8D):
    15 - 12 + 4 = 7; seat 2 (tricks 5-8, JD and ND among 10 scartini): 15 - 12 + 4 = 7; seat 0
    (tricks 9-10, 6 scartini): 6 - 6 + 2 = 2. Card points only (U16 off): 1 and 2 tie -> both
    lose. Full count: seat 0 adds the last trick, 8 (no combination anywhere): he alone loses."""
    env = new_env("mattazza_v0", make_deal("mattazza", 0, MAT_TIE, num_players=3), num_players=3, full_count=full_count)
    Driver(env, script=[a.strip() for a in MAT_TIE_PLAY.split(";")]).run()
    i = info(env)
    assert [int(w) for w in env.state.hist[0, :10]] == [1, 1, 1, 1, 2, 2, 2, 2, 0, 0]
    assert i["points"]["total"] == ([2, 7, 7] if not full_count else [8, 7, 7])
    assert i["losers"] == losers


def test_mattazza_players_without_a_trick_lose():
    """§14.5: when somebody took no trick, every player with no trick loses (and the one who
    took them all, with the highest score, does not). Seat 1 holds the 10 top trumps."""
    deal = make_deal("mattazza", 0, {1: "ANG MON SOL LUN T16 T15 T14 T13 T12 T11"}, num_players=3)
    env = new_env("mattazza_v0", deal, num_players=3)
    Driver(env).run()
    i = info(env)
    assert [int(w) for w in env.state.hist[0, :10]] == [1] * 10
    assert i["losers"] == [0, 2]
    assert i["scores"][0] == 0 and i["scores"][2] == 0 and i["scores"][1] > 0
