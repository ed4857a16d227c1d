"""The rule decisions U25–U30 of docs/rules/tarocchino.md §15, one group of tests each.

- U25: Terziglio "di mio": the Pozzo joins the last trick's winner's pile before the Matto
  exchange, which is computed (U20) on the final piles.
- U26: ``mori="mori"`` (a Moro counts in one family only): a Moro counts in the Grande when the
  side's Mori make no sequence of their own.
- U27: a hand ended by a claim credits every declaration made so far to its side.
- U28: a claim needs a declaration worth more than 0 (a total already past the target is not
  enough).
- U29: Millone: each player may also claim at his own first turn, with the first-deal cards of
  his declaration only (§11.6).
- U30: a decision with a single possible answer is never asked (``give`` with one candidate).

Each test but U26's fails with the behaviour before the decision (see the docstrings). Seats are
in play order; the Primo di Mano is dealer + 1; in a trick written "A B C" the cards are in play
order from its leader.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import ALL_CARDS, cards, legal, make_deal, new_env, play, seat

import tarot_env
from tarot_env.cards.bolognese import IS_SCARTINO, MATTO, NUM_CARDS, card
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.combinations import breakdown, combination_points, sequence_lengths
from tarot_env.rules.bolognese.config import TarocchinoConfig
from tarot_env.rules.bolognese.counting import CARD_VALUE
from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.bolognese.state import (
    AB_PLAY,
    HAND_OF,
    LAST_WINNER,
    MATTO_WINNER,
    NUM_ACTIONS,
    PH_DONE,
    PH_PLAY,
    PHASE,
    PILE_OF,
    PL_HAND,
    PL_POZZO,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    SOLOIST,
    TOTAL,
    TRICKS,
)


# ====================================================================== helpers
def info(env) -> dict:
    return env.infos["player_0"]


def field(env, viewer: int, name: str) -> np.ndarray:
    """One field of ``viewer``'s observation (tarot_env.encoding.bolognese.layout)."""
    f = {x.name: x for x in layout(env.num_players)}[name]
    return env.observe(f"player_{viewer}")["observation"][f.offset : f.offset + f.length]


def binary(v) -> int:
    """A little-endian bit field as an int."""
    return int(sum(int(b) << i for i, b in enumerate(v)))


def pile_of(env, name: str) -> int:
    return int(env.game_state.cards[0, PILE_OF, card(name)])


def run(env, answer) -> list[tuple[int, str]]:
    """Play to the end: ``answer(env, legal actions)`` chooses each action. Returns the claim
    windows seen, as (seat, the claim value his observation shows)."""
    windows = []
    while not env.game_over:
        acts = legal(env)
        if acts[0] == "claim":
            windows.append((seat(env), binary(field(env, seat(env), "claim_value"))))
        env.step(answer(env, acts))
    return windows


def scripted(claim=None, declare=(), discards=None):
    """A policy: ``claim`` maps a seat to the window (1 = his first) at which he claims, the
    others say no_claim; the seats of ``declare`` declare; discards in the order given per seat;
    otherwise the first legal card."""
    todo = {s: cards(v) for s, v in (discards or {}).items()}
    seen: dict[int, int] = {}

    def answer(env, acts):
        s = seat(env)
        if acts[0] == "claim":
            seen[s] = seen.get(s, 0) + 1
            return "claim" if (claim or {}).get(s) == seen[s] else "no_claim"
        if acts[0] == "declare":
            return "declare" if s in declare else "no_declare"
        if acts[0].startswith("discard") and todo.get(s):
            return "discard " + todo[s].pop(0)
        return acts[0]

    return answer


# ====================================================================== U25: the Pozzo before the Matto exchange
# Terziglio, dealer seat 2: seat 0 (the receiver) plays "di mio" and leads first (U13); seats 1
# and 2 are the opponents (one side). Seat 1 declares Cavalli NB NC ND 13 + Aces AS AC + BEG 10
# = 23; seat 2 the Grande ANG LUN + MAT = 10. The soloist loses.
U25_DEAL = {
    "dealer": 2,
    "hands": [
        cards("NS KS 9B 10B QB KB 6C 10C QC JD KD M1 M4 T11 T14 T15 T16 MON"),
        cards("AS 6S 9S 10S JS 7B NB AC 7C 9C JC NC 6D 9D ND BEG T7 T8"),
        cards("7S 6B JB 8C KC 7D 8D 10D QD M2 T5 T6 T10 T12 T13 LUN ANG MAT"),
    ],
    "rest": cards("SOL AD M3 QS 8B 8S AB T9"),  # the Pozzo
}
# The tricks, leader first, and their winners. Trick 4: seat 2 covers the Matto, and the soloist
# wins the trick: at the end the opponents owe him a card. Trick 18: seat 2 wins the last trick,
# so the Pozzo joins the opponents' pile.
U25_TRICKS = [
    "M4 BEG LUN",  # 2
    "8D JD 9D",  # 0
    "MON T7 T13",  # 0
    "10B 7B MAT",  # 0 (the Matto stays seat 2's)
    "9B NB JB",  # 1
    "JS 7S NS",  # 0
    "T16 T8 ANG",  # 2
    "7D KD 6D",  # 0
    "T15 AC T6",  # 0
    "6C JC KC",  # 2
    "T12 M1 AS",  # 2: the AS goes to the opponents' pile
    "T5 T11 10S",  # 0
    "KB 7C 6B",  # 0
    "QC 9C 8C",  # 0
    "10C NC T10",  # 2
    "QD T14 ND",  # 0
    "QB 6S M2",  # 2: the 6S too
    "10D KS 9S",  # 2: the last trick, and the Pozzo
]


def u25_actions() -> list[str]:
    plays = [f"play {c}" for t in U25_TRICKS for c in t.split()]
    # the auction; then the first turns: seat 0 (no_declare), seat 1 and seat 2 (declare)
    return ["di_mio", "no_declare", plays[0], "declare", plays[1], "declare", *plays[2:]]


def test_u25_the_pozzo_joins_the_pile_before_the_matto_exchange():
    """U25, worked by hand. On the final piles the opponents hold KS QS AS and AS AB AD with the
    contatori BEG MAT: a Spade sequence K Q A + 2 (5 cards, 20) and an Aces sequence (5 cards,
    20); the QS, AB and AD came with the Pozzo. Giving the AS would shorten both (15 + 15), and
    they hold 3+ sequences (doubled): it costs them 20 more than any other scartino, which costs
    its card alone. So they give the 6S: the lowest id of those, and no help to the soloist.
    Combinations: opponents 18 (Tarocchi ANG BEG MAT) + (Grande 25 + Spade 20 + Coppe 20 + Mori
    25 + Aces 20) × 2 = 238; total 48 + 6 + 238 + 33 = 325, Poste ⌊(325 − 5)/10⌋ = 32, di mio
    lost: soloist −4 × 32 = −128, each opponent +64.

    Before U25 the exchange was computed without the Pozzo: the opponents had no QS, AB or AD,
    the AS made nothing, cost as little as the 6S and went as the lower card id; their count
    lost 20 (218), 305 points, 30 Poste: [−120, 60, 60]."""
    env = tarot_env.make("terziglio_v0")
    env.reset(options={"deal": U25_DEAL})
    raw = env.unwrapped
    for a in u25_actions():
        assert a in legal(raw), (a, legal(raw))
        env.step(a)
    assert raw.game_over
    s = raw.game_state
    assert int(s.ints[0, SOLOIST]) == 0 and int(s.ints[0, LAST_WINNER]) == 2 and int(s.ints[0, MATTO_WINNER]) == 0
    assert pile_of(raw, "6S") == 0 and pile_of(raw, "AS") == 2  # the 6S given, the AS kept
    assert all(pile_of(raw, c) == 2 for c in U25_DEAL["rest"])  # §10.3: the Pozzo, in the last winner's pile
    assert pile_of(raw, "MAT") == 2
    i = info(raw)
    assert i["points"]["combinations"] == [15, 238] and i["points"]["total"] == [54, 325]
    assert (i["winner_points"], i["poste"], i["soloist_won"]) == (325, 32, False)
    assert i["scores"] == [-128, 64, 64]
    opponents = [ALL_CARDS[c] for c in range(NUM_CARDS) if s.cards[0, PILE_OF, c] in (1, 2)]
    assert breakdown(opponents).total == 238
    assert tarot_env.replay(raw.record()) == [-128, 64, 64]


def test_u25_choose_offers_the_pozzo_to_the_giver_who_took_it():
    """U25 with ``matto_exchange="choose"``: the exchange is made on the final piles, so the
    opponents, who took the Pozzo with the last trick, may give one of its scartini (SOL 8S 8B
    AB AD M3 T9). Before U25 only the cards of their tricks were offered."""
    env = tarot_env.make("terziglio_v0", matto_exchange="choose")
    env.reset(options={"deal": U25_DEAL})
    raw = env.unwrapped
    for a in u25_actions():
        env.step(a)
    assert not raw.game_over and seat(raw) == 2  # the Matto's owner gives
    offered = {a.split()[1] for a in legal(raw)}
    assert {"8S", "8B", "AB", "AD", "M3", "T9", "SOL"} <= offered
    assert "QS" not in offered  # not a scartino (U3)
    env.step("give AB")
    assert raw.game_over and pile_of(raw, "AB") == 0


def _u20_pick(giver: np.ndarray, receiver: np.ndarray) -> int:
    """U3 and U20 stated plainly, for one exchange: among the giver's pile (a scartino when it has
    one; never the Matto) the card whose loss leaves the giver the most (card values +
    combinations of what he keeps), then the one that gives the receiver the least, then the
    lowest card id."""
    cand = [c for c in np.flatnonzero(giver) if c != MATTO]
    scartini = [c for c in cand if IS_SCARTINO[c]]
    cand = scartini or cand
    best = None
    for c in cand:
        kept = giver.copy()
        kept[c] = False
        got = receiver.copy()
        got[c] = True
        key = (-(int(CARD_VALUE[kept].sum()) + int(combination_points(kept))), int(CARD_VALUE[got].sum()) + int(combination_points(got)), c)
        best = key if best is None or key < best else best
    return best[2]


def test_u25_property_the_card_given_is_u20s_pick_on_the_final_piles():
    """U25 with U20, over random "di mio" hands (the receiver plays di mio, then random legal
    cards): whenever the Matto's side owes a card, the card given is the one U20 picks on the
    final piles, the Pozzo in the last trick's winner's pile. Before U25 the pick was made without
    the Pozzo: here it differs in 16 of the 173 exchanges (the Pozzo completes or feeds a
    combination of either side), and those hands fail."""
    wrong, exchanges, pozzo_matters = [], 0, 0
    for seed in range(300):
        env = tarot_env.make("terziglio_v0")
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        env.step("di_mio")  # the receiver speaks first
        while not raw.game_over:
            before = raw.game_state.copy()
            a = int(rng.choice(raw.legal_actions()))
            env.step(a)
        s = raw.game_state
        sol = int(s.ints[0, SOLOIST])
        side = np.array([0 if p == sol else 1 for p in range(3)])
        owner = int(s.cards[0, PLAYED_BY, MATTO])
        if owner < 0:  # the Matto was in the Pozzo
            continue
        winner, last = int(s.ints[0, MATTO_WINNER]), int(s.ints[0, LAST_WINNER])
        giver, receiver = side[owner], side[winner]
        if giver == receiver or sum(int(s.seat_ints[0, p, TRICKS]) for p in range(3) if side[p] == giver) == 0:
            continue  # nothing owed, or the Matto itself goes (§4.5)
        # the final piles before the exchange: the earlier tricks; the last trick's cards (the
        # table, and the card played last) to its winner, the Matto to its owner; the Pozzo to the
        # last trick's winner (§10.3, U25)
        b = before.cards[0]
        pre = b[PILE_OF].astype(np.int64)
        last_trick = b[PLACE] == PL_TABLE
        last_trick[a - AB_PLAY] = True
        pre[last_trick] = last
        pre[MATTO] = owner
        pozzo = b[PLACE] == PL_POZZO
        pre[pozzo] = last
        assert (pre >= 0).all()
        pre_side = side[pre]
        pick = _u20_pick(pre_side == giver, pre_side == receiver)
        final = s.cards[0, PILE_OF].astype(np.int64)
        moved = [c for c in range(NUM_CARDS) if final[c] >= 0 and side[final[c]] != pre_side[c]]
        exchanges += 1
        pozzo_matters += int(_u20_pick((pre_side == giver) & ~pozzo, (pre_side == receiver) & ~pozzo) != pick)
        if moved != [pick]:
            wrong.append((seed, [ALL_CARDS[c] for c in moved], ALL_CARDS[pick]))
    assert exchanges > 50 and pozzo_matters > 0, (exchanges, pozzo_matters)
    assert not wrong, wrong


# ====================================================================== U26: mori="mori"
GRANDE_TO_5 = "ANG MON SOL LUN T5..T16"  # the Angelo, the head, and the chain 16 … 5: 16 cards


@pytest.mark.parametrize(
    ("mori", "extra", "grande", "mori_seq"),
    [
        # two Mori, no contatore: no Mori sequence of their own, so they count in the Grande
        ("mori", "M1 M2", 18, 0),
        # three Mori make their own sequence: it keeps them and the Grande stops at the 5
        ("mori", "M1 M2 M3", 16, 3),
        # U5 (default "both"): in the Grande and in their sequence
        ("both", "M1 M2 M3", 19, 3),
        ("both", "M1 M2", 18, 0),
    ],
)
def test_u26_a_moro_counts_in_the_grande_when_the_mori_make_no_sequence(mori, extra, grande, mori_seq):
    """U26 (U5's alternative "one family only", ``mori="mori"``): a Moro counts in the Grande when
    the side's Mori make no sequence of their own: ANG + MON SOL LUN + 12 numbers + 2 Mori = 18
    cards (85 points), not 16 (75, "never in the Grande")."""
    hand = np.zeros(NUM_CARDS, dtype=bool)
    hand[[card(c) for c in cards(f"{GRANDE_TO_5} {extra}")]] = True
    lengths = sequence_lengths(hand, mori=mori)
    assert (int(lengths[0]), int(lengths[5])) == (grande, mori_seq)  # grande, mori (SEQUENCE_FAMILIES order)


def test_u26_through_the_env_declaration():
    """U26 through an env: a Terziglio receiver holding the Grande to the 5 and M1 M2 declares 85
    with ``mori="mori"`` (the Grande counts the two Mori: 18 cards)."""
    deal = make_deal("terziglio", 0, {1: f"{GRANDE_TO_5} M1 M2"}, rest="M3 M4 BEG MAT KS KB KC KD")
    env = new_env("terziglio_v0", deal, mori="mori")
    env.step("di_mio")
    assert legal(env) == ["declare", "no_declare"] and binary(field(env, 1, "my_declaration")) == 85


# ====================================================================== U27: a claimed hand's score
# Ottocento, dealer seat 0: seat 1 Primo, seat 2 the dealer's partner, seat 3 the Primo's partner.
# TV9 (the Primo): Tarocchi MAT ANG MON 18 + Re KS KC KB 17; Spade K Q N F A + MAT 25, Grande
# ANG MON SOL (LUN skipped) T16 + MAT 20: 80.
TV9 = "KS KC KB QS NS JS AS MAT ANG MON SOL T16 6C 7D 8B"
S2_12 = "JB JC JD AB AC 6S 7S 8S 6B 7B 7C 8C 6D 8D T14"  # Fanti JB JC JD: 12
S3_27 = "QB QC QD NB NC ND 9S 10S 9B 10B 9C 10C 9D 10D T15"  # Regine 14 + Cavalli 13: 27
# the dealer: first 15 cards Mori M1 M2 + BEG: 10; with M3 M4 (his last 2): Mori 4 + BEG: 20
S0 = "AD KD BEG M1 M2 T5 T6 T7 T8 T9 T10 T11 T12 T13 LUN M3 M4"


def otto_env(totals, **config):
    return new_env("ottocento_v0", make_deal("ottocento", 0, {0: S0, 1: TV9, 2: S2_12, 3: S3_27}), totals=totals, **config)


def test_u27_the_dealer_claims_after_both_sides_declared():
    """U27, §8.4 step 5: at 790 / 730 everybody declares (Primo 80, dealer's partner 12, Primo's
    partner 27, none of them claiming); the dealer claims at his first turn with his own 20
    (810). The hand's score: side 0 = the dealer's 20 + his partner's 12 = 32; side 1 = 80 + 27 =
    107. Before U27: 20 for side 0, 0 for side 1."""
    env = otto_env([790, 730, 790, 730])
    windows = run(env, scripted(claim={0: 2}, declare=(0, 1, 2, 3), discards={0: "T5 T6"}))
    assert windows == [(0, 800), (1, 810), (2, 802), (3, 837), (0, 810)]  # he said no at his pickup (790 + 10)
    i = info(env)
    assert (i["result"], i["claimer"], i["game_winner"]) == ("claimed", 0, 0)
    assert i["scores"] == [32, 107, 32, 107]


def test_u27_the_primos_declaration_counts_once_in_step_4():
    """U27 with §8.4 step 4: at 700 the Primo declares 80 (780: no window); the dealer's partner
    declares 12; the Primo's partner claims with 700 + 80 + his own 27 = 807. Side 1 scores the
    107 its claim used (the Primo's 80 once); side 0 the 12 its player declared. Before U27:
    [0, 107, 0, 107]."""
    env = otto_env([0, 700, 0, 700])
    windows = run(env, scripted(claim={3: 1}, declare=(1, 2)))
    assert windows == [(3, 807)]
    assert info(env)["scores"] == [12, 107, 12, 107]


CENTO1 = "ANG MON SOL LUN T16 T15 T14 T13 T12 T11 T10 T9 T8 T7 T6"  # the opponent: Grande to T6, 70
CENTO0 = "MAT KS QS NS 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C"  # the dealer: Spade K Q N + MAT, 15


@pytest.mark.parametrize(
    ("env_id", "totals", "claim_value", "scores"), [("centocinquanta_v0", [135, 0], 150, [15, 70]), ("quindici_v0", [13, 0], 15, [2, 7])]
)
def test_u27_duel_the_opponents_declaration_counts(env_id, totals, claim_value, scores):
    """U27 in the 2-player games: the dealer (seat 0) declines his pickup window, the opponent
    declares his Grande (70) at his first turn, and the dealer claims at his (U8) with Spade K Q N
    + MAT (15). Centocinquanta: 15 and 70. Quindici rounds a hand's score (§13): q(15) = 2, the
    claim's value, and q(70) = 7. Before U27 the opponent scored 0."""
    env = new_env(env_id, make_deal(env_id.removesuffix("_v0"), 0, {0: CENTO0, 1: CENTO1}), totals=totals)
    answer = scripted(claim={0: 2}, declare=(1,), discards={0: "6C 7C"})
    windows = run(env, answer)
    assert windows == [(0, claim_value), (0, claim_value)]
    i = info(env)
    assert (i["result"], i["claimer"]) == ("claimed", 0)
    assert i["scores"] == scores


# ====================================================================== U28: a claim needs a declaration
def test_u28_no_claim_with_nothing_declared_after_a_tie():
    """U28: Centocinquanta at 150 all (U9: equal totals past the target play another hand). The
    dealer's first 15 cards (seed 9) make no combination: before U28 his claim window opened at
    150 + 0 and his empty claim ended U9's extra hand; now it does not open."""
    env = tarot_env.make("centocinquanta_v0")
    env.reset(seed=9, options={"totals": [150, 150]})
    raw = env.unwrapped
    assert "claim" not in legal(raw)


@pytest.mark.parametrize(
    ("env_id", "totals"),
    [
        ("ottocento_v0", [800, 800, 800, 800]),
        ("millone_v0", [1000, 1000]),
        ("centocinquanta_v0", [150, 150]),
        ("quindici_v0", [15, 15]),
    ],
)
def test_u28_every_claim_window_uses_a_declaration(env_id, totals):
    """U28 over random deals with both sides already at the target: a claim window opens only to a
    player whose claim adds a declaration worth more than 0 (the value he sees is above his
    total), and such windows do open."""
    opened = 0
    for seed in range(40):
        env = new_env(env_id, seed=seed, totals=totals)
        rng = np.random.default_rng(seed)
        while not env.game_over:
            acts = legal(env)
            if acts[0] == "claim":
                p = seat(env)
                assert binary(field(env, p, "claim_value")) > int(env.game_state.seat_ints[0, p, TOTAL]), (seed, p)
                opened += 1
                env.step("no_claim")
            else:
                env.step(acts[int(rng.integers(len(acts)))])
    assert opened > 0


# ====================================================================== U29: Millone's first-turn windows
# Millone, dealer seat 0, opponent seat 1 (he leads). The opponent's 20 first-deal cards: Re KS KB
# KC (17) and nothing else; in the second deal he gets KD (Re 4: 34), BEG, ANG, MAT.
MIL1 = "KS KB KC 6S 7S 8S 9S 10S 6B 7B 8B 9B 10B 6C 7C 8C 9C 10C T5 T6"
MIL0 = "QS QB 6D 7D 8D 9D 10D T7 T8 T9 T10 T11 T12 T13 T14 T15 T16 AS AB SOL QC LUN"
MIL_SECOND_1 = "KD JC NC JD ND BEG M3 M4 ANG MAT"
MIL_SECOND_0 = "QD JS NB AC AD M1 M2 NS JB MON"
MIL_DISCARDS = {1: "6S 7S 8S 9S 10S 6B 7B 8B 9B 10B", 0: "6D 7D 8D 9D 10D AS AB T7 T8 T9 T10 T11"}


def millone_env(totals):
    o, d = cards(MIL_SECOND_1), cards(MIL_SECOND_0)
    rest = " ".join(o[:5] + d[:5] + o[5:] + d[5:])  # 5 at a time, the opponent first (U22)
    return new_env("millone_v0", make_deal("millone", 0, {0: MIL0, 1: MIL1}, rest=rest), totals=totals)


def test_u29_the_opponent_claims_at_his_first_turn():
    """U29: at 983 the opponent's window after the dealer's pickup opens (983 + 17); he declines
    it, and at his first turn, before his first card, he has a second window with the first-deal
    cards he still holds (KS KB KC: 17, not the 34 of his four Kings, §11.6). His claim there wins,
    and the hand credits him the whole declaration he claimed with (U27): Re KS KB KC KD 34 +
    Tarocchi ANG BEG MAT 18; Coppe K N F and Denari K N F with the two contatori 20 each, Mori M3
    M4 with them 15, three sequences doubled: 110; 162. Before U29 he had no window at his first
    turn; before its clarification the hand credited the 17 his claim counted."""
    env = millone_env([0, 983])
    policy = scripted(claim={1: 2}, discards=MIL_DISCARDS)
    holds_kd = []

    def answer(env, acts):
        if acts[0] == "claim":  # the KD (second deal) is in his hand at the second window only
            holds_kd.append(
                bool(env.game_state.cards[0, HAND_OF, card("KD")] == 1 and env.game_state.cards[0, PLACE, card("KD")] == PL_HAND)
            )
        return policy(env, acts)

    windows = run(env, answer)
    assert windows == [(1, 1000), (1, 1000)] and holds_kd == [False, True]
    i = info(env)
    assert (i["result"], i["claimer"], i["claim_value"], i["game_winner"]) == ("claimed", 1, 1000, 1)
    assert i["scores"] == [0, 162]


def test_u29_first_turn_claims_count_only_first_deal_cards():
    """U29 with §11.6: at 966 his whole hand would reach 1000 (Kings 34), but the KD came in the
    second deal: 966 + 17 = 983, no window at his first turn (nor after the pickup)."""
    env = millone_env([0, 966])
    windows = run(env, scripted(discards=MIL_DISCARDS))
    assert windows == []
    assert info(env)["points"]["declarations"] == [0, 0]  # nobody declared (the policy says no)


# ====================================================================== U30: one answer, not asked
# Mattazza, 3 players, dealer seat 2: seat 0 wins trick 1 (KS QB 6C: his pile has one scartino,
# the 6C), leads the Matto in trick 2 (KB wins it), and seat 1 wins the 8 bastoni tricks left.
U30_HANDS = {0: "KS MAT AD 6D 7D 8D 9D 10D JD ND", 1: "AB 6B 7B 8B 9B 10B JB NB QB KB", 2: "AC 6C 7C 8C 9C 10C JC NC QC KC"}


def u30_env(**config):
    env = new_env("mattazza_v0", make_deal("mattazza", 2, U30_HANDS, num_players=3), num_players=3, **config)
    play(env, "play KS; play QB; play 6C; play MAT; play KB; play KC")
    for b, c, d in zip(cards("AB 6B 7B 8B 9B 10B JB NB"), cards("AC 7C 8C 9C 10C JC NC QC"), cards("AD 6D 7D 8D 9D 10D JD ND")):
        play(env, f"play {b}; play {c}; play {d}")
    return env


def test_u30_a_give_with_one_candidate_is_not_asked():
    """U30 with ``matto_exchange="choose"``: seat 0 owes a card for the Matto and his pile (KS QB
    6C) holds one scartino: U3 leaves him one answer, ``give 6C``, which the engine applies; the
    hand ends after the last card. Before U30 he was asked, with ``give 6C`` the only legal action."""
    env = u30_env(matto_exchange="choose")
    assert env.game_over
    assert pile_of(env, "6C") == 1 and pile_of(env, "MAT") == 0
    assert len(tarot_env.replay(env.record())) == 3
    assert not any(a.startswith("give") for a in env.record()["actions"])


def test_u30_a_give_with_a_choice_is_still_asked():
    """U30 asks a decision with two answers or more: with ``matto_gift="any"`` he may give the KS,
    the QB or the 6C, and is asked."""
    env = u30_env(matto_exchange="choose", matto_gift="any")
    assert not env.game_over and seat(env) == 0
    assert set(legal(env)) == {"give KS", "give QB", "give 6C"}


GAMES = [
    ("ottocento", 4, {"wrong_claim": "loses"}),
    ("quattro_scartate", 4, {}),
    ("terziglio", 3, {}),
    ("millone", 2, {"wrong_claim": "loses"}),
    ("centocinquanta", 2, {"wrong_claim": "loses"}),
    ("quindici", 2, {"wrong_claim": "loses"}),
    ("mattazza", 3, {}),
    ("mattazza", 6, {}),
]


@pytest.mark.parametrize(("game", "n", "options"), GAMES, ids=[f"{g}-{n}" for g, n, _ in GAMES])
def test_u30_every_decision_asked_has_two_answers(game, n, options):
    """U30 over random hands of every game, with the options that add decisions
    (``matto_exchange="choose"``, and ``wrong_claim="loses"``, which opens every claim window),
    and running totals near the target: every decision asked but a card play offers two answers
    or more. (A card play is asked even when only one card is legal: each card played is a step.)"""
    g = TarocchinoGame(TarocchinoConfig.make(game, n, matto_exchange="choose", **options))
    rng = np.random.default_rng(30)
    batch = 96
    s = g.new_state(batch)
    rows = np.arange(batch)
    packs = np.argsort(rng.random((batch, NUM_CARDS)), axis=1)
    totals = None
    if game in ("ottocento", "millone", "centocinquanta", "quindici"):
        target = int(g.config.target)
        side = rng.integers(int(0.7 * target), target, size=(batch, 2))
        totals = side[:, np.arange(n) % 2] if n == 4 else side
    g.start_deals(s, rows, rng.integers(n, size=batch), packs, totals=totals)
    asked = np.zeros(NUM_ACTIONS, dtype=bool)
    for _ in range(2000):
        live = np.flatnonzero(s.ints[:, PHASE] != PH_DONE)
        if not len(live):
            break
        legal_ = s.legal[live]
        count = legal_.sum(axis=1)
        not_play = s.ints[live, PHASE] != PH_PLAY
        assert (count[not_play] >= 2).all(), [(int(r), int(s.ints[r, PHASE])) for r in live[not_play & (count < 2)]]
        asked |= legal_.any(axis=0)
        u = rng.random(legal_.shape)
        u[~legal_] = -1
        g.step(s, u.argmax(axis=1), live, rng=rng)
    assert (s.ints[:, PHASE] == PH_DONE).all()
    if game == "mattazza":
        assert asked[2 * NUM_CARDS : 3 * NUM_CARDS].any()  # some give decisions were asked
