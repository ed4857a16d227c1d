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
from tarot_env.rules.bolognese.state import DEALER, DECLARED, HAND_NO, HAND_OF, PL_EXTRA, PL_POZZO, PLACE, SOLOIST, TOTAL, TRICK_NO

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
    return {ALL_CARDS[c] for c in env.game_state.hand(0, s)}


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


class MatchLog:
    """Plays a match with ``choose(env) -> action`` and records, at each hand's first decision,
    the dealer, the seats holding cards and every viewer's `totals` field, and at each hand's end
    its info and the step rewards."""

    def __init__(self, env, choose):
        self.env = env
        self.starts: list[dict] = []
        self.ends: list[dict] = []
        self.rewards = dict.fromkeys(env.possible_agents, 0.0)
        self.nonzero_reward_steps: list[dict[str, float]] = []
        self.actors: list[set[int]] = []
        self.kinds: set[str] = set()
        while not env.game_over:
            if len(self.starts) == len(self.ends):
                n = env.num_players
                self.starts.append(
                    {
                        "dealer": int(env.game_state.ints[0, DEALER]),
                        "holding": [s for s in range(n) if (env.game_state.cards[0, HAND_OF] == s).any()],
                        "obs_hand": [int(field(env, v, "hand").sum()) for v in range(n)],
                        "totals": [obs_totals(env, v) for v in range(n)],
                        "hand_no": [binary(field(env, v, "hand_no")) for v in range(n)],
                    }
                )
                self.actors.append(set())
            before = len(env.hands_played())
            self.actors[-1].add(seat(env))
            self.kinds.add(kind(legal(env)))
            env.step(choose(env))
            if any(env.rewards.values()):
                self.nonzero_reward_steps.append(dict(env.rewards))
            for a, r in env.rewards.items():
                self.rewards[a] += r
            if len(env.hands_played()) > before:
                self.ends.append(dict(info(env)))


def first_choice(env) -> str:
    """No claims, no declarations, the first legal card."""
    acts = legal(env)
    k = kind(acts)
    return {"claim": "no_claim", "declare": "no_declare"}.get(k, acts[0])


def random_choice(rng):
    def choose(env) -> str:
        acts = legal(env)
        if kind(acts) == "auction" and len(acts) == 3:  # never pass: no thrown-in deals here
            acts = ["posso", "di_mio"]
        return acts[int(rng.integers(len(acts)))]

    return choose


def no_claim_random(rng):
    """Random legal actions, but never a claim (so that a match runs hand after hand)."""

    def choose(env) -> str:
        acts = legal(env)
        return "no_claim" if kind(acts) == "claim" else acts[int(rng.integers(len(acts)))]

    return choose


def match_env(env_id: str, deals=None, totals=None, seed=None, **config):
    env = tarot_env.make(env_id, episode="match", **config)
    options = {}
    if deals is not None:
        options["deals"] = deals
    if totals is not None:
        options["totals"] = totals
    env.reset(seed=seed, options=options)
    return env.unwrapped


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
    d = Driver(env, declare=(1,)).run(until=lambda e: e.game_state.ints[0, TRICK_NO] == 1)  # the first trick is over
    assert d.claim_values == ([(1, 800), (3, 800)] if window else [(1, 800)])
    assert (3, "declare", "no_declare") not in d.log and (3, "declare", "declare") not in d.log


def test_declarations_off_claims_use_the_total_alone():
    """§8.4 with `declarations=False` (the library's documented choice: a hand then declares
    nothing, so it has no declaration to claim with): TV9 at 730 opens no window anywhere."""
    env = tv9_env(totals=[790, 730, 790, 730], declarations=False)
    d = Driver(env).run()
    assert d.claim_values == [] and info(env)["result"] == "played"


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
    assert not (env.game_state.cards[0, PLACE] == PL_EXTRA).any()


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


def _usable_value(env, pickup: bool, primo_declared: int, rounded: bool) -> int:
    """The claim value the rules allow now (§8.4, §12.3, §13 with their defaults), computed from
    the hands: the dealer's first 15 cards before his pickup; else the player's own hand, plus
    the Primo's declared value for the Primo's partner (Ottocento); Quindici adds q(declaration)."""
    st_ = env.game_state
    d = int(st_.ints[0, DEALER])
    p = seat(env)
    mask = np.zeros(62, dtype=bool)
    if pickup:
        dealt = env.game.format_deal(*env.deals.dealt[0][-1])["hands"][d][:15]  # his last 2 are at the end
        mask[[ALL_CARDS.index(c) for c in dealt]] = True
    else:
        mask[st_.hand(0, p)] = True
    own = int(combination_points(mask))
    if not pickup and env.num_players == 4 and p == (d + 3) % 4:
        own += primo_declared
    if rounded:
        own = (own + 5) // 10
    return int(st_.seat_ints[0, p, TOTAL]) + own


CLAIM_GAMES = {"ottocento_v0": (800, 720), "centocinquanta_v0": (150, 90), "quindici_v0": (15, 10)}  # target, lowest total drawn


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(sorted(CLAIM_GAMES)), seed=st.integers(0, 2**31 - 1), a=st.floats(0, 1), b=st.floats(0, 1))
def test_claim_offered_exactly_when_it_reaches_the_target(env_id, seed, a, b):
    """Property (§8.4, §12.3, §13, default `wrong_claim="refused"`, U8, U21, U23, U24): over random
    deals and running totals, whenever `claim` is legal the claimant's total + usable declaration
    is >= the target (and his observation shows that value); at every opportunity where the
    value reaches the target the window opens; a claim wins for the claimant's side."""
    target, low = CLAIM_GAMES[env_id]
    ta, tb = (low + int(x * (target - 1 - low)) for x in (a, b))
    env = new_env(env_id, seed=seed, totals=[ta, tb, ta, tb] if env_id == "ottocento_v0" else [ta, tb])
    n = env.num_players
    rng = np.random.default_rng(seed)
    seen: set[int] = set()
    primo_declared = 0
    d = int(env.game_state.ints[0, DEALER])
    first = True
    windows = 0
    while not env.game_over:
        acts = legal(env)
        p = seat(env)
        k = kind(acts)
        if first or (k in ("claim", "declare", "play") and p not in seen):  # an opportunity
            value = _usable_value(env, first, primo_declared, env_id == "quindici_v0")
            assert (k == "claim") == (value >= target), (p, value, acts)
            if k == "claim":
                windows += 1
                assert binary(field(env, p, "claim_value")) == value
            if not first:
                seen.add(p)
        else:
            assert k != "claim"
        first = False
        a_ = acts[int(rng.integers(len(acts)))]
        if k == "declare" and p == (d + 1) % n:
            mask = np.zeros(62, dtype=bool)
            mask[env.game_state.hand(0, p)] = True
            primo_declared = int(combination_points(mask)) if a_ == "declare" else 0
        env.step(a_)
        if a_ == "claim":
            i = info(env)
            assert i["result"] == "claimed" and i["game_winner"] == p % 2
    assert windows <= (5 if n == 4 else 3)


@pytest.mark.parametrize(("total", "window"), [(983, True), (982, False)])
def test_millone_opponent_window_right_after_the_pickup(total, window):
    """§11.3: once the dealer has picked up (22 cards), the opponent may claim with his 20 cards
    (Re KS KB KC = 17): 983 + 17 = 1000 opens the window, 982 does not. U29: having said
    no_claim, he has a second window at his first turn, with the first-deal cards he still holds
    (the Kings cannot be discarded: 17 again)."""
    env = new_env("millone_v0", millone_deal(), totals=[0, total])
    if window:
        assert seat(env) == 1 and legal(env) == ["claim", "no_claim"]
        assert binary(field(env, 1, "claim_value")) == 1000
        assert len(hand_of(env, 0)) == 22 and len(hand_of(env, 1)) == 20  # after the pickup, before any discard
    d = Driver(env, discards=MIL_DISCARDS).run()
    assert d.claim_values == ([(1, 1000), (1, 1000)] if window else [])
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
    assert d.claim_values == []  # no other window: the opponent, at 0 + 17, is far from 1000


def test_millone_dealer_first_turn_claim_credits_the_whole_declaration():
    """U29 with U27: a claim at a player's first turn is made with the declaration he makes
    there; only its first-deal cards count toward the target (§11.6), and the hand's score
    credits the whole of it. The opponent leads and declares 162 (tests/test_tarocchino_decisions.py
    works it out); the dealer then claims at 986 with Regine QS QB QC (14: QD came in the second
    deal) and his hand scores his whole 28. Before the fix it scored the first-deal 14:
    [14, 162]. (The opponent's first-turn claim: test_u29_the_opponent_claims_at_his_first_turn.)"""
    env = new_env("millone_v0", millone_deal(), totals=[986, 0])
    d = Driver(env, discards=MIL_DISCARDS, declare=(0, 1), claim=(0,))
    d.run()
    assert d.claim_values == [(0, 1000)] and d.log[-1] == (0, "claim", "claim")
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 0, 1000, 0)
    assert i["scores"] == [28, 162]


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


def test_quindici_raw_sum_counts_the_running_totals_given_at_reset():
    """U24 `claim_rounding="raw_sum"` with running totals set by the `totals` reset option: the
    opponent stands at 14 (of 15) and holds the Grande (70). A rounded total of 14 means at least
    135 raw points (q(p) = 14 needs p >= 135), so q(raw + 70) >= q(205) = 20 >= 15: whatever raw
    points the 14 stands for, his claim reaches the target and the window must open (it does
    with the default rounding: 14 + q(70) = 21)."""
    for rounding in ("declaration", "raw_sum"):
        env = new_env("quindici_v0", cento_deal(), totals=[0, 14], claim_rounding=rounding)
        d = Driver(env, discards={0: "6C 7C"}).run(until=lambda e: seat(e) == 1 and kind(legal(e)) == "play")
        assert [s for s, _ in d.claim_values] == [1], rounding


# hand 2 of the Quindici match below: dealer 1, whose first 15 cards hold Regine QS QB QC (14) and
# nothing else; the opponent (seat 0) holds 2 Aces, 2 Fanti, 2 Cavalli: nothing
Q2_DEALER = "QS QB QC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6D 7D 8D 9D"
Q2_OPP = "AC 6C 7C 8C 9C 10C AD 10D JS JB NC ND T5 T6 T7"


@pytest.mark.parametrize(("rounding", "window"), [("declaration", False), ("raw_sum", True)])
def test_quindici_claim_rounding_raw_sum(rounding, window):
    """U24: hand 1 (the cappotto below, both declaring) scores raw 15 and 221, rounded 2 and 22.
    In hand 2 (target 24) the dealer (seat 1) holds Regine = 14 in his first 15 cards:
    default 22 + q(14) = 23 < 24, no window; `claim_rounding="raw_sum"`: q(221 + 14) = q(235) = 24."""
    env = match_env("quindici_v0", [cento_deal(), make_deal("quindici", 1, {1: Q2_DEALER, 0: Q2_OPP})], target=24, claim_rounding=rounding)
    d = Driver(env, declare=(0, 1), discards={0: "6C 7C"}).run(until=lambda e: int(e.game_state.ints[0, HAND_NO]) == 1)
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
    assert d.claim_values == []  # no window in hand 1 (q(15), q(70) are far from 24)


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
    assert not (env.game_state.cards[0, PLACE] == PL_POZZO).any()
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
    assert int(env.game_state.ints[0, SOLOIST]) == soloist
    assert one_hot(env, 1, "soloist") == [int((soloist - 1) % 3 == r) for r in range(3)]
    assert one_hot(env, 1, "contract") == [0, 1]
    assert int((env.game_state.cards[0, PLACE] == PL_POZZO).sum()) == 8
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
    assert [w for w in env.game_state.hist[0, :18]] == [1] * 17 + [0]


@pytest.mark.parametrize(("declare", "total", "settlement"), [((1,), 1024, [-202, 404, -202]), ((), 939, [-186, 372, -186])])
def test_terziglio_di_mio_soloist_takes_the_last_trick_and_the_pozzo(declare, total, settlement):
    """§10.3, §10.6, TV4, TV12: the receiver plays di mio with the 18 trumps ANG MON SOL LUN
    T16..T5 M1 M2; the opponents hold only suit cards, so he wins all 18 tricks, the last one
    too, and the Pozzo (M3 M4 BEG MAT and 4 suit cards) goes to him: all 62 cards, 87 + 6 +
    846 = 939 (TV4). Declaration: Grande with M1 M2 past the 5 = 18 cards -> 85. Declared:
    1024 -> poste (1024 - 5) // 10 = 101 -> 4 x 101 = 404; undeclared: 939 -> 93 -> 372."""
    deal = make_deal(
        "terziglio", 0, {1: "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6 T5 M1 M2"}, rest="M3 M4 BEG MAT AS AB AC AD"
    )
    env = new_env("terziglio_v0", deal)
    env.step("di_mio")
    Driver(env, declare=declare, order="last").run()
    i = info(env)
    assert [int(w) for w in env.game_state.hist[0, :18]] == [1] * 18
    p = i["points"]
    assert p["cards"] == [87, 0] and p["last_trick"] == [6, 0] and p["combinations"] == [846, 0]
    assert p["declarations"] == [total - 939, 0] and p["total"] == [total, 0] and p["capotted"] == [False, True]
    assert (i["soloist_won"], i["winner_points"], i["poste"]) == (True, total, (total - 5) // 10)
    assert i["scores"] == settlement


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
    assert [int(w) for w in env.game_state.hist[0, :15]] == [1] * 15
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
    assert [int(w) for w in env.game_state.hist[0, :10]] == [1, 1, 1, 1, 2, 2, 2, 2, 0, 0]
    assert i["points"]["total"] == ([2, 7, 7] if not full_count else [8, 7, 7])
    assert i["losers"] == losers


def test_mattazza_players_without_a_trick_lose():
    """§14.5: when somebody took no trick, every player with no trick loses (and the one who
    took them all, with the highest score, does not). Seat 1 holds the 10 top trumps."""
    deal = make_deal("mattazza", 0, {1: "ANG MON SOL LUN T16 T15 T14 T13 T12 T11"}, num_players=3)
    env = new_env("mattazza_v0", deal, num_players=3)
    Driver(env).run()
    i = info(env)
    assert [int(w) for w in env.game_state.hist[0, :10]] == [1] * 10
    assert i["losers"] == [0, 2]
    assert i["scores"][0] == 0 and i["scores"][2] == 0 and i["scores"][1] > 0


# ====================================================================== 5. match episodes
def test_ottocento_match_runs_hand_after_hand_to_the_target():
    """issue 3 §2, §8.4 end, §5.5: a match to 1000 with the cappotto deal dealt by seats 0, 1, 2
    (declarations off): each hand one side scores 939 (TV4). Totals 0/939, 939/939, then side 1
    reaches 1878 >= 1000 and wins after 3 hands. The dealer moves one seat right each hand; every
    observation shows the running totals and the hand number."""
    env = match_env("ottocento_v0", [cappotto_deal(d) for d in range(3)], target=1000, declarations=False)
    m = MatchLog(env, first_choice)
    assert env.hands_played() == [[0, 939, 0, 939], [939, 0, 939, 0], [0, 939, 0, 939]]
    assert [s["dealer"] for s in m.starts] == [0, 1, 2]
    expected = [[0, 0, 0, 0], [0, 939, 0, 939], [939, 939, 939, 939]]
    for start, totals, k in zip(m.starts, expected, range(3)):
        assert start["totals"] == [totals] * 4
        assert start["hand_no"] == [k] * 4
    assert [e["totals"] for e in m.ends] == [[0, 939, 0, 939], [939, 939, 939, 939], [939, 1878, 939, 1878]]
    assert [e["match_over"] for e in m.ends] == [False, False, True]
    assert m.ends[-1]["game_winner"] == 1 and env.totals() == [939, 1878, 939, 1878]


def test_ottocento_match_default_target_800():
    """§8.1: the target is 800: 939 after the first hand ends the match."""
    env = match_env("ottocento_v0", [cappotto_deal(0)], declarations=False)
    MatchLog(env, first_choice)
    assert len(env.hands_played()) == 1 and info(env)["game_winner"] == 1 and info(env)["match_over"]


@pytest.mark.parametrize(("tie", "hands", "winner"), [("play_on", 2, 0), ("draw", 1, "draw")])
def test_u9_both_sides_past_the_target_with_equal_totals(tie, hands, winner):
    """U9: from 939/0 (target 900) side 1 capots: 939/939, both past the target and equal. By
    default another hand is played (side 0 capots: 1878/939, side 0 wins); `tie="draw"`: a draw."""
    env = match_env("ottocento_v0", [cappotto_deal(0), cappotto_deal(1)], totals=[939, 0, 939, 0], target=900, declarations=False, tie=tie)
    MatchLog(env, first_choice)
    assert len(env.hands_played()) == hands and info(env)["game_winner"] == winner


def test_both_sides_past_the_target_higher_total_wins():
    """§8.4 end: from 950/0 (target 900) side 1 scores 939: both past it, the higher (950) wins."""
    env = match_env("ottocento_v0", [cappotto_deal(0)], totals=[950, 0, 950, 0], target=900, declarations=False)
    MatchLog(env, first_choice)
    assert env.totals() == [950, 939, 950, 939] and info(env)["game_winner"] == 0


@pytest.mark.parametrize(("tie", "hands", "winner", "totals"), [("draw", 4, "draw", [1878, 1878]), ("extra_hand", 5, 1, [1878, 2817])])
def test_quattro_scartate_four_hands_then_the_tie_rule(tie, hands, winner, totals):
    """§9, U10: exactly 4 hands, each player dealing once; the cappotto deal dealt by 0, 1, 2, 3
    gives 1878 each: a draw by default; `tie="extra_hand"` plays a fifth hand (dealer 0 again,
    side 1 capots: 2817) and side 1 wins."""
    env = match_env("quattro_scartate_v0", [cappotto_deal(d % 4) for d in range(5)], declarations=False, tie=tie)
    m = MatchLog(env, first_choice)
    assert len(env.hands_played()) == hands
    assert [s["dealer"] for s in m.starts] == [d % 4 for d in range(hands)]
    assert info(env)["game_winner"] == winner and env.totals()[:2] == totals
    assert "claim" not in m.kinds  # no target, no claim (§9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quattro_scartate_random_match(seed):
    """§9: random play: no claim window ever (no target), 4 hands (unless tied), dealers d..d+3,
    the higher total wins; the totals are the sums of the hands."""
    env = match_env("quattro_scartate_v0", seed=seed)
    rng = np.random.default_rng(seed)

    def choose(e):
        acts = legal(e)
        assert kind(acts) != "claim"
        return acts[int(rng.integers(len(acts)))]

    m = MatchLog(env, choose)
    hp = env.hands_played()
    tot = [sum(h[s] for h in hp) for s in range(4)]
    assert env.totals() == tot
    d0 = m.starts[0]["dealer"]
    assert [s["dealer"] for s in m.starts] == [(d0 + k) % 4 for k in range(len(hp))]
    if tot[0] != tot[1]:
        assert len(hp) == 4 and info(env)["game_winner"] == int(tot[1] > tot[0])
    else:
        assert info(env)["game_winner"] == "draw"


@pytest.mark.parametrize(("match_hands", "seed"), [(3, 0), (4, 1), (2, 2)])
def test_terziglio_match_hands_and_the_soloist_deals_next(match_hands, seed):
    """§10.7: `match_hands` hands, each a game in itself; the soloist deals the next hand; each
    seat's total is the sum of his settlements; the best total wins."""
    env = match_env("terziglio_v0", seed=seed, match_hands=match_hands)
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    hp = env.hands_played()
    assert len(hp) == match_hands
    assert [s["dealer"] for s in m.starts[1:]] == [e["soloist"] for e in m.ends[:-1]]
    assert all(sum(h) == 0 for h in hp)  # zero-sum settlements
    tot = [sum(h[s] for h in hp) for s in range(3)]
    assert env.totals() == tot
    best = max(tot)
    assert info(env)["game_winner"] == (tot.index(best) if tot.count(best) == 1 else "draw")


def test_terziglio_thrown_in_deal_is_dealt_again_and_not_counted():
    """U12, §10.7: a deal thrown in (three passes) is dealt again by the next dealer; it is not
    one of the match's hands: with `match_hands=2`, two hands are still played after it."""
    env = match_env("terziglio_v0", seed=5, match_hands=2)
    rng = np.random.default_rng(5)
    choose = random_choice(rng)
    d0 = int(env.game_state.ints[0, DEALER])
    for _ in range(3):
        env.step("pass")
    assert env.hands_played() == [[0, 0, 0]] and not env.game_over
    assert int(env.game_state.ints[0, DEALER]) == (d0 + 1) % 3
    m = MatchLog(env, choose)
    assert [e["result"] for e in m.ends] == ["played", "played"]
    assert len(env.hands_played()) == 3


@pytest.mark.parametrize(("n", "target", "seed"), [(5, 2, 0), (4, 1, 1), (6, 2, 2), (3, 2, 3)])
def test_mattazza_match_target_way(n, target, seed):
    """§14.6 (a): each loser takes a penalty point; at `target` a player drops out: his agent gets
    no cards and never acts; the match ends when two or fewer players are left. With
    match_reward="result" the only reward is at the end: -1 for those out, +1 for the others."""
    env = match_env("mattazza_v0", seed=seed, num_players=n, target=target, match_reward="result")
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    penalties = [0] * n
    for start, actors, end in zip(m.starts, m.actors, m.ends):
        active = [s for s in range(n) if penalties[s] < target]
        assert len(active) > 2
        assert start["holding"] == active and actors == set(active)
        assert start["obs_hand"] == [10 if s in active else 0 for s in range(n)]
        assert start["dealer"] in active
        for s in end["losers"]:
            penalties[s] += 1
        assert end["penalties"] == penalties
    out = [s for s in range(n) if penalties[s] >= target]
    assert n - len(out) <= 2 and info(env)["match_losers"] == out
    assert len(m.nonzero_reward_steps) == 1
    assert m.rewards == {f"player_{s}": (-1.0 if s in out else 1.0) for s in range(n)}


@pytest.mark.parametrize(("n", "seed"), [(3, 0), (4, 1), (4, 2)])
def test_mattazza_match_first_two_way(n, seed):
    """§14.6 (b): nobody drops out; the match ends after the hand in which a second player
    reaches 3 penalty points, and those at 3 or more lose."""
    env = match_env("mattazza_v0", seed=seed, num_players=n, way="first_two")
    m = MatchLog(env, random_choice(np.random.default_rng(seed)))
    penalties = [0] * n
    for k, (start, end) in enumerate(zip(m.starts, m.ends)):
        assert start["holding"] == list(range(n))
        for s in end["losers"]:
            penalties[s] += 1
        reached = sum(p >= 3 for p in penalties)
        assert end["match_over"] == (reached >= 2), (k, penalties)
    assert info(env)["match_losers"] == [s for s in range(n) if penalties[s] >= 3]


def test_a_claim_ends_the_match():
    """§8.4: a claim ends the game at once (TV9 at 730: the Primo claims 810)."""
    env = match_env("ottocento_v0", [otto_deal()], totals=[0, 730, 0, 730], match_reward="result")
    m = MatchLog(env, lambda e: "claim" if kind(legal(e)) == "claim" else first_choice(e))
    assert env.game_over and len(m.ends) == 1
    e = m.ends[0]
    assert (e["result"], e["claimer"], e["game_winner"], e["match_over"]) == ("claimed", 1, 1, True)
    assert m.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}


@pytest.mark.parametrize(
    ("match_reward", "steps", "total"),
    [
        # each hand pays own side minus the other side: +939, -939, +939 for side 1
        ("deals", [939.0, -939.0, 939.0], 939.0),
        # only the result, at the end: side 1 won
        ("result", [1.0], 1.0),
    ],
)
def test_match_reward_deals_or_result(match_reward, steps, total):
    """issue 3 §3: `match_reward="deals"` pays each hand's reward as the hand ends; `"result"`
    pays only +1 / -1 (0 for a draw) when the match ends."""
    env = match_env("ottocento_v0", [cappotto_deal(d) for d in range(3)], target=1000, declarations=False, match_reward=match_reward)
    m = MatchLog(env, first_choice)
    assert [r["player_1"] for r in m.nonzero_reward_steps] == steps
    assert all(r["player_1"] == r["player_3"] == -r["player_0"] == -r["player_2"] for r in m.nonzero_reward_steps)
    assert m.rewards["player_1"] == total and m.rewards["player_0"] == -total


def test_match_result_reward_of_a_draw_is_zero():
    """issue 3 §3: a drawn match (U9 `tie="draw"`) pays 0 to everybody."""
    env = match_env(
        "ottocento_v0", [cappotto_deal(0)], totals=[939, 0, 939, 0], target=900, declarations=False, tie="draw", match_reward="result"
    )
    m = MatchLog(env, first_choice)
    assert info(env)["game_winner"] == "draw" and m.rewards == dict.fromkeys(env.possible_agents, 0.0)


@pytest.mark.parametrize(("mode", "value"), [("score", 939.0), ("normalised", 9.39), ("win_loss", 1.0)])
def test_reward_modes_on_one_deal(mode, value):
    """Rewards of one deal (side 1 capots, 939 to 0, declarations off): `score` own side minus the
    other (939), `normalised` divided by 100 in Ottocento, `win_loss` the sign."""
    env = new_env("ottocento_v0", cappotto_deal(0), declarations=False, reward=mode)
    d = Driver(env).run()
    assert d.rewards["player_1"] == pytest.approx(value) and d.rewards["player_3"] == pytest.approx(value)
    assert d.rewards["player_0"] == pytest.approx(-value) and d.rewards["player_2"] == pytest.approx(-value)
    assert sum(1 for r in d.steps_rewards if any(r.values())) == 1


GAMES = [
    ("ottocento_v0", {}),
    ("quattro_scartate_v0", {}),
    ("terziglio_v0", {}),
    ("millone_v0", {}),
    ("centocinquanta_v0", {}),
    ("quindici_v0", {}),
    ("mattazza_v0", {"num_players": 4}),
    ("mattazza_v0", {"num_players": 6}),
]


def _episode_rewards(env_id, config, seed, shaping):
    env = tarot_env.make(env_id, shaping=shaping, **config)
    env.reset(seed=seed)
    env = env.unwrapped
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    per_step = []
    while not env.game_over:
        env.step(int(rng.choice(env.legal_actions())))
        per_step.append(dict(env.rewards))
        for a, r in env.rewards.items():
            total[a] += r
    return total, per_step


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 2**31 - 1),
    reward=st.sampled_from(["score", "normalised", "win_loss"]),
    episode=st.sampled_from([("deal", "deals"), ("match", "deals"), ("match", "result")]),
)
def test_shaping_sums_to_the_unshaped_rewards(game, seed, reward, episode):
    """Property: with `shaping=True` (trick rewards along the way) each agent's rewards over an
    episode add up to the unshaped rewards (same game, same actions), deals and matches alike."""
    env_id, config = game
    config = dict(config, reward=reward, episode=episode[0], match_reward=episode[1])
    if episode[0] == "match" and env_id == "millone_v0":
        config["target"] = 300  # a shorter match
    plain, plain_steps = _episode_rewards(env_id, config, seed, False)
    shaped, shaped_steps = _episode_rewards(env_id, config, seed, True)
    assert len(plain_steps) == len(shaped_steps)
    for a in plain:
        if reward != "score":  # trick rewards are divided by the scale: float sums
            assert shaped[a] == pytest.approx(plain[a], abs=1e-9)
        else:
            assert shaped[a] == plain[a]
    assert any(any(r.values()) for r in shaped_steps[:-1]) or len(shaped_steps) < 2 or all(v == 0 for v in plain.values())


@pytest.mark.parametrize(("env_id", "step"), [("ottocento_v0", 1), ("millone_v0", 1), ("centocinquanta_v0", 1), ("quindici_v0", 1)])
def test_dealer_rotation_between_hands(env_id, step):
    """§5.5 (Ottocento: the Primo, dealer + 1, deals next), §11.1 and §12.1 (the two players deal
    alternately, which with 2 seats is also dealer + 1)."""
    for seed in range(3):
        env = match_env(env_id, seed=seed)
        m = MatchLog(env, no_claim_random(np.random.default_rng(seed)))
        n = env.num_players
        dealers = [s["dealer"] for s in m.starts]
        assert dealers == [(dealers[0] + step * k) % n for k in range(len(dealers))]
        hp = env.hands_played()
        assert env.totals() == [sum(h[s] for h in hp) for s in range(n)]
        assert m.ends[-1]["match_over"] and all(not e["match_over"] for e in m.ends[:-1])
