"""Dealing, discarding and trick play of the Tarocchino envs, with fixed deals (rules/tarocchino.md).

What is checked, each against values worked out by hand from the spec:

1. the deal of every game (§5.2, §8–§14): hand sizes, the dealer's last 2 cards hidden until
   he picks them up, the Pozzo, Millone's second deal, the cards out of play; seeds;
2. the Scartata (§5.3, §10.3, §11.4–5, U22): who discards how many, never a Carta da 5,
   trumps allowed, the discards count for the discarder's side;
3. trick play (§4.2–4.3, U1): following, trumping, over-trumping only with the option, who
   wins (highest trump, the last Moro, the reversed pips of Coppe and Denari), who leads next;
4. the Matto (§2.4, §4.5, U2–U4, U19, U20): covered, led, exchanged at the end of the hand;
5. bad input: refused with a message that names it, the state unchanged, play going on.

Mattazza with 3 or 4 players (10 cards each, no discard, no declarations) is used where a rule
of play is checked on its own: seat 0 leads the first trick when the dealer is the last seat.
Card ids: AS 6S … KS 0–9, Bastoni 10–19, Coppe 20–29, Denari 30–39, BEG 40, M1–M4 41–44,
T5–T16 45–56, LUN SOL MON ANG 57–60, MAT 61.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_tarocchino import ALL_CARDS, card_id, cards, legal, make_deal, new_env, play, seat

import tarot_env
from tarot_env import IllegalActionError
from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.state import (
    BIDDER,
    CONTRACT,
    DEALT_TO,
    DISCARDER,
    DISCARDS_LEFT,
    HAND_OF,
    LEAD_SUIT,
    MATTO_SEAT,
    MATTO_WINNER,
    PHASE,
    PILE_OF,
    PL_DISCARD,
    PL_EXTRA,
    PL_OUT,
    PL_PILE,
    PL_POZZO,
    PL_SECOND,
    PLACE,
    PLAYED_BY,
    SOLOIST,
    TRICK_OF,
    TRICKS,
    Phase,
)

CARTE_DA_5 = {"KS", "KB", "KC", "KD", "ANG", "MON", "BEG", "MAT"}
#: §1, §3.1: the Carte di Valore are the 16 Figures and the 4 Tarocchi; every other card is a scartino (42 of them)
SCARTINI = set(ALL_CARDS) - {f"{r}{x}" for r in "KQNJ" for x in "SBCD"} - {"ANG", "MON", "BEG", "MAT"}
assert len(SCARTINI) == 42
GAMES_2SIDES = ["ottocento", "quattro_scartate", "terziglio", "millone", "centocinquanta", "quindici"]
TABLES = [(g, None) for g in GAMES_2SIDES] + [("mattazza", n) for n in (3, 4, 5, 6)]
NUM_ACTIONS = 3 * 62 + 9  # play / discard / give <card> for each of the 62 cards, and 9 words


# ---------------------------------------------------------------------- helpers
def env_id(game: str) -> str:
    return f"{game}_v0"


def phase(env) -> str:
    return Phase.name(int(env.game_state.ints[0, PHASE]))


def hand(env, s: int) -> set[str]:
    """Seat ``s``'s hand (the dealer's last 2 cards not yet picked up excluded)."""
    return {ALL_CARDS[c] for c in env.game_state.hand(0, s)}


def pile(env, s: int) -> set[str]:
    return {ALL_CARDS[c] for c in env.game_state.pile(0, s)}


def where(env, name: str, row: int) -> int:
    return int(env.game_state.cards[0, row, card_id(name)])


def plays(names: str) -> set[str]:
    return {f"play {c}" for c in cards(names)}


def obs_hand(env, s: int) -> set[str]:
    """The cards of the ``hand`` field of seat ``s``'s observation."""
    f = next(f for f in layout(env.num_players) if f.name == "hand")
    vec = env.observe(f"player_{s}")["observation"][f.offset : f.offset + f.length]
    return {ALL_CARDS[c] for c in np.flatnonzero(vec)}


def mattazza(*hands: str, **options):
    """A Mattazza env with the given full hands of 10 (seat 0 leads: the dealer is the last seat)."""
    n = len(hands)
    deal = make_deal("mattazza", n - 1, dict(enumerate(hands)), num_players=n)
    assert all(len(h) == 10 for h in deal["hands"])
    return new_env("mattazza_v0", deal, num_players=n, **options)


def first_turn_answers(env) -> None:
    """Say no to the claim and declaration questions until a card decision comes."""
    while phase(env) in ("claim", "declare"):
        env.step("no_claim" if phase(env) == "claim" else "no_declare")


def finish(env) -> None:
    """Play the hand out: the first legal card each time, never claiming or declaring."""
    while not env.game_over:
        first_turn_answers(env)
        if env.game_over:
            break
        env.step(env.legal_actions()[0])


def snapshot(env):
    s = env.game_state
    return tuple(b.copy() for b in s.blocks.values()), env.agent_selection, len(env._deals[-1]["actions"])


def assert_unchanged(env, snap) -> None:
    blocks, agent, n_actions = snap
    for before, after in zip(blocks, env.game_state.blocks.values()):
        np.testing.assert_array_equal(before, after)
    assert env.agent_selection == agent
    assert len(env._deals[-1]["actions"]) == n_actions


def refuse(env, action, error: type[Exception], *fragments: str) -> str:
    """``action`` raises ``error`` whose message holds every fragment; the state is unchanged."""
    snap = snapshot(env)
    with pytest.raises(error) as info:
        env.step(action)
    msg = str(info.value)
    for f in fragments:
        assert f.lower() in msg.lower(), f"{f!r} not in the message {msg!r}"
    assert_unchanged(env, snap)
    return msg


def trick_env(trick: list[str], **options):
    """Mattazza with len(trick) players in which seat i plays trick[i] to the first trick (seat 0
    leads). Each hand is the card played plus fillers that keep the play legal: a seat not
    following suit holds no card of the suit led, and no trump if it discards."""
    n = len(trick)
    suit = BOLOGNESE_DECK.suit
    named = [card_id(c) for c in trick]
    led = next((int(suit[c]) for c in named if c != 61), -1)
    banned: list[set[int]] = []
    for i, c in enumerate(named):
        ban = {5}  # no Matto among the fillers
        if i > 0 and led >= 0 and c != 61 and int(suit[c]) != led:
            ban.add(led)
            if int(suit[c]) != 4:
                ban.add(4)
        banned.append(ban)
    free = [c for c in range(62) if c not in named]
    hands: list[list[int]] = [[c] for c in named]
    for i in sorted(range(n), key=lambda i: -len(banned[i])):
        ok = [c for c in free if int(suit[c]) not in banned[i]][:9]
        assert len(ok) == 9, "not enough filler cards for this trick"
        hands[i] += ok
        free = [c for c in free if c not in ok]
    env = mattazza(*(" ".join(ALL_CARDS[c] for c in h) for h in hands), **options)
    for c in trick:
        env.step(f"play {c}")
    return env


# ====================================================================== 1. deals
EXPECTED_SIZES = {  # (dealt to each seat, dealer last; the rest's place and size)
    "ottocento": ([15, 15, 15, 17], None, 0),
    "quattro_scartate": ([15, 15, 15, 17], None, 0),
    "terziglio": ([18, 18, 18], PL_POZZO, 8),
    "millone": ([20, 22], PL_SECOND, 20),
    "centocinquanta": ([15, 17], PL_OUT, 30),
    "quindici": ([15, 17], PL_OUT, 30),
}


@pytest.mark.parametrize(("game", "n"), TABLES)
@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_sizes_per_seat(game, n, dealer):
    """§5.2, §10.2, §11.2, §12.1, §14.2: the cards dealt to each seat (the dealer's right first,
    the dealer last) and the rest: Ottocento/QS 15 15 15 17; Terziglio 18 each + Pozzo 8;
    Millone 20/22 + 20 for the second deal; Centocinquanta/Quindici 15/17 + 30 out; Mattazza
    10 each + 62 − 10n out (32, 22, 12, 2)."""
    kw = {"num_players": n} if n else {}
    env = new_env(env_id(game), seed=7, dealer=dealer, **kw)
    n = env.num_players
    if game == "mattazza":
        sizes, rest_place, rest = [10] * n, PL_OUT, 62 - 10 * n
    else:
        sizes, rest_place, rest = EXPECTED_SIZES[game]
    cards_ = env.game_state.cards[0]
    first = (cards_[PLACE] != PL_SECOND) & (cards_[PLACE] != PL_POZZO) & (cards_[PLACE] != PL_OUT)
    for k in range(n):  # offset k from the dealer's right
        s = (dealer + 1 + k) % n
        assert np.count_nonzero(first & (cards_[DEALT_TO] == s)) == sizes[k], (s, sizes)
        assert np.count_nonzero(first & (cards_[HAND_OF] == s)) == sizes[k]
    if rest_place is not None:
        assert np.count_nonzero(cards_[PLACE] == rest_place) == rest
        assert not np.any(cards_[HAND_OF][cards_[PLACE] == rest_place] >= 0)  # in nobody's hand
    assert sum(sizes) + rest == 62


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_same_seed_same_deal_different_seeds_differ(game, n):
    """interface.md §4: reset(seed=s) deals the same cards (and dealer) for the same s, in a new env too."""
    kw = {"num_players": n} if n else {}

    def dealt(seed, env=None):
        env = env or tarot_env.make(env_id(game), **kw).unwrapped
        env.reset(seed=seed)
        c = env.game_state.cards[0]
        return env, (int(env.game_state.dealer[0]), c[DEALT_TO].tolist(), c[PLACE].tolist())

    env, a = dealt(11)
    _, b = dealt(11)
    _, c = dealt(12)
    _, d = dealt(11, env)  # the same env, reset again
    assert a == b == d
    assert a != c


def test_fixed_deal_is_dealt_exactly():
    """interface.md §4: a fixed deal puts each listed card in its seat's hand (Ottocento, dealer 2)."""
    deal = make_deal("ottocento", 2, {})
    env = new_env("ottocento_v0", deal)
    for s in range(4):
        assert {ALL_CARDS[c] for c in np.flatnonzero(env.game_state.cards[0, DEALT_TO] == s)} == set(deal["hands"][s])
    assert len(hand(env, 2)) == 17  # no claim window: the dealer picked up his last 2 (15 + 2)


@pytest.mark.parametrize("game", ["ottocento", "millone", "centocinquanta", "quindici"])
def test_dealer_last_two_hidden_until_picked_up(game):
    """§8.4.1, §11.3, §12.3: the dealer looks at only his first cards (15; Millone 20) in his claim
    window; his last 2 are neither in his hand nor in his observation's ``hand`` field until
    he says no_claim and picks them up. (wrong_claim="loses" opens the window at any total.)"""
    deal = make_deal(game, 1, {1: "AS 6S"}, extra="KD QD")
    env = new_env(env_id(game), deal, wrong_claim="loses")
    first = len(deal["hands"][1]) - 2
    assert phase(env) == "claim" and seat(env) == 1
    assert {ALL_CARDS[c] for c in np.flatnonzero(env.game_state.cards[0, PLACE] == PL_EXTRA)} == {"KD", "QD"}
    assert len(obs_hand(env, 1)) == first == (20 if game == "millone" else 15)
    assert {"KD", "QD"}.isdisjoint(obs_hand(env, 1) | hand(env, 1))
    assert {"AS", "6S"} <= obs_hand(env, 1)
    env.step("no_claim")
    assert {"KD", "QD"} <= obs_hand(env, 1) == hand(env, 1)
    assert len(hand(env, 1)) == first + 2


def test_quattro_scartate_dealer_picks_up_at_once():
    """§9 (no target, so no claim): the dealer holds 17 at his first decision, his discard."""
    deal = make_deal("quattro_scartate", 0, {}, extra="KD QD")
    env = new_env("quattro_scartate_v0", deal)
    assert phase(env) == "discard" and seat(env) == 0
    assert len(hand(env, 0)) == 17 and {"KD", "QD"} <= obs_hand(env, 0)


def test_terziglio_pozzo_is_the_rest():
    """§10.2: 18 each, the remaining 8 face down as the Pozzo, in nobody's hand."""
    pozzo = "T14 T15 T16 LUN SOL MON ANG MAT"
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {}, rest=pozzo))
    got = {ALL_CARDS[c] for c in np.flatnonzero(env.game_state.cards[0, PLACE] == PL_POZZO)}
    assert got == set(cards(pozzo))
    assert all(len(hand(env, s)) == 18 for s in range(3))


@pytest.mark.parametrize(("second_deal_first", "gets_first_packet"), [("opponent", "opp"), ("dealer", "dealer")])
def test_millone_second_deal_after_the_first_discards(second_deal_first, gets_first_packet):
    """§11.2–11.5, U22: 20 to the opponent, 22 to the dealer; the opponent discards 10, the dealer
    10; then the other 20 cards, 5 at a time alternately (first packet to the opponent by
    default): rest[0:5] + rest[10:15] to the first receiver, rest[5:10] + rest[15:20] to the
    other; hands 20 and 22, and the dealer discards 2 more; then the opponent leads."""
    rest = cards("AD 6D 7D 8D 9D 10D JD ND QD KD BEG M1 M2 M3 M4 T5 T6 T7 T8 T9")
    deal = make_deal("millone", 0, {}, rest=" ".join(rest))
    env = new_env("millone_v0", deal, declarations=False, second_deal_first=second_deal_first)
    dealer, opp = 0, 1
    assert env.game_state.cards[0, PLACE, [card_id(c) for c in rest]].tolist() == [PL_SECOND] * 20
    assert (len(hand(env, opp)), len(hand(env, dealer))) == (20, 22)
    assert phase(env) == "discard" and seat(env) == opp
    for _ in range(10):
        env.step(env.legal_actions()[0])
    assert seat(env) == dealer and (len(hand(env, opp)), len(hand(env, dealer))) == (10, 22)
    assert set(rest).isdisjoint(hand(env, opp) | hand(env, dealer))  # the second deal is not dealt yet
    for _ in range(10):
        env.step(env.legal_actions()[0])
    first, other = set(rest[0:5] + rest[10:15]), set(rest[5:10] + rest[15:20])
    a, b = (opp, dealer) if gets_first_packet == "opp" else (dealer, opp)
    assert first <= hand(env, a) and other <= hand(env, b)
    assert (len(hand(env, opp)), len(hand(env, dealer))) == (20, 22)
    assert phase(env) == "discard" and seat(env) == dealer and int(env.game_state.ints[0, DISCARDS_LEFT]) == 2
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert (len(hand(env, opp)), len(hand(env, dealer))) == (20, 20)
    assert phase(env) == "play" and seat(env) == opp


def test_out_of_play_cards_never_reach_a_hand():
    """§12.1: Centocinquanta's 30 cards out of play stay out for the whole hand."""
    rest = [c for c in ALL_CARDS if c not in cards("AS 6S 7S 8S 9S 10S JS NS QS KS AB 6B 7B 8B 9B 10B JB NB QB KB")][:30]
    deal = make_deal("centocinquanta", 0, {}, rest=" ".join(rest))
    env = new_env("centocinquanta_v0", deal, declarations=False)
    finish(env)
    ids = [card_id(c) for c in rest]
    assert env.game_state.cards[0, PLACE, ids].tolist() == [PL_OUT] * 30
    assert env.game_state.cards[0, PILE_OF, ids].tolist() == [-1] * 30


# ====================================================================== 2. discards
DISCARD_GAMES = ["ottocento", "quattro_scartate", "centocinquanta", "quindici"]


@pytest.mark.parametrize("game", DISCARD_GAMES)
def test_dealer_discards_two_then_the_primo_leads(game):
    """§5.3, §12.2: the dealer (Scartatore) discards 2, one per action, then the Primo di Mano
    (the dealer's right) leads; the discards go to the dealer's pile, face down."""
    dealer = 2 if game in ("ottocento", "quattro_scartate") else 1
    n = 4 if dealer == 2 else 2
    deal = make_deal(game, dealer, {dealer: "SOL LUN"})
    env = new_env(env_id(game), deal, declarations=False)
    assert phase(env) == "discard" and seat(env) == dealer
    assert int(env.game_state.ints[0, DISCARDER]) == dealer and int(env.game_state.ints[0, DISCARDS_LEFT]) == 2
    env.step("discard SOL")  # trumps may be discarded (§5.3)
    assert phase(env) == "discard" and seat(env) == dealer and int(env.game_state.ints[0, DISCARDS_LEFT]) == 1
    env.step("discard LUN")
    assert phase(env) == "play" and seat(env) == (dealer + 1) % n
    for c in ("SOL", "LUN"):
        assert where(env, c, PLACE) == PL_DISCARD and where(env, c, PILE_OF) == dealer and where(env, c, HAND_OF) == -1
    assert len(hand(env, dealer)) == 15


@pytest.mark.parametrize("game", ["ottocento", "quattro_scartate", "centocinquanta", "quindici", "millone"])
def test_carte_da_5_never_discardable_trumps_are(game):
    """§5.3: the legal discards are exactly the hand minus the Carte da 5 (4 Kings, ANG, MON, BEG, MAT);
    trumps (SOL, LUN, numbered, Mori) are allowed."""
    dealer = 3 if game in ("ottocento", "quattro_scartate") else 1
    discarder = (dealer + 1) % 2 if game == "millone" else dealer  # Millone: the opponent discards first (U22)
    held = "KS KB KC KD ANG MON BEG MAT SOL LUN T16 T5 M1 AS 6S"
    deal = make_deal(game, dealer, {discarder: held})
    env = new_env(env_id(game), deal)
    assert phase(env) == "discard" and seat(env) == discarder
    expected = {f"discard {c}" for c in hand(env, discarder) - CARTE_DA_5}
    assert set(legal(env)) == expected
    assert {"discard SOL", "discard LUN", "discard T16", "discard T5", "discard M1"} <= expected
    assert hand(env, discarder) >= CARTE_DA_5


@pytest.mark.parametrize("king", sorted(CARTE_DA_5))
def test_discarding_a_carta_da_5_is_refused(king):
    """§5.3: a King or a Tarocco discard raises IllegalActionError naming the card and the rule;
    the state is unchanged and the discard goes on."""
    deal = make_deal("ottocento", 3, {3: "KS KB KC KD ANG MON BEG MAT AS"})
    env = new_env("ottocento_v0", deal)
    refuse(env, f"discard {king}", IllegalActionError, f"'discard {king}'", "Carta da 5")
    env.step("discard AS")
    assert int(env.game_state.ints[0, DISCARDS_LEFT]) == 1


def test_terziglio_soloist_going_up_discards_eight():
    """§10.3: posso + two va_bene: the bidder takes the Pozzo (26 cards) and discards 8 (never a
    Carta da 5), which count for him; the receiver then leads (U13)."""
    pozzo = "T14 T15 T16 LUN SOL MON ANG MAT"
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {}, rest=pozzo), declarations=False)
    play(env, "pass")  # the receiver, seat 1
    assert seat(env) == 2
    play(env, "posso")
    assert seat(env) == 0 and set(legal(env)) == {"va_bene", "oppose"}
    play(env, "va_bene; va_bene")
    assert int(env.game_state.ints[0, SOLOIST]) == 2 and int(env.game_state.ints[0, CONTRACT]) == 1
    assert len(hand(env, 2)) == 26 and set(cards(pozzo)) <= hand(env, 2)
    assert phase(env) == "discard" and seat(env) == 2 and int(env.game_state.ints[0, DISCARDS_LEFT]) == 8
    assert set(legal(env)) == {f"discard {c}" for c in hand(env, 2) - CARTE_DA_5}
    gone = ["T14", "T15", "T16", "LUN", "SOL", *sorted(hand(env, 2) - CARTE_DA_5 - set(cards(pozzo)))[:3]]
    for c in gone:
        env.step(f"discard {c}")
    assert len(hand(env, 2)) == 18 and phase(env) == "play" and seat(env) == 1
    assert all(where(env, c, PILE_OF) == 2 and where(env, c, PLACE) == PL_DISCARD for c in gone)


@pytest.mark.parametrize("how", ["di_mio", "oppose"])
def test_terziglio_di_mio_no_discard(how):
    """§10.3: "faccio di mio" (said at once, or in answer to a posso) plays 18 cards without the
    Pozzo: no discard, the Pozzo stays face down, the receiver leads."""
    env = new_env("terziglio_v0", make_deal("terziglio", 2, {}), declarations=False)
    play(env, "di_mio" if how == "di_mio" else "posso; oppose")  # the receiver is seat 0
    soloist = 0 if how == "di_mio" else 1
    assert int(env.game_state.ints[0, SOLOIST]) == soloist and int(env.game_state.ints[0, CONTRACT]) == 2
    assert phase(env) == "play" and seat(env) == 0
    assert all(len(hand(env, s)) == 18 for s in range(3))
    assert np.count_nonzero(env.game_state.cards[0, PLACE] == PL_POZZO) == 8
    assert not np.any(env.game_state.cards[0, PLACE] == PL_DISCARD)


@pytest.mark.parametrize(("first_discarder", "order"), [("opponent", (1, 0)), ("dealer", (0, 1))])
def test_millone_discards_ten_ten_then_two(first_discarder, order):
    """§11.4–11.5, U22: the opponent discards 10, then the dealer 10 (first_discarder="dealer"
    reverses), then after the second deal the dealer 2 more: 10 + 12 discards, each counting
    for its discarder."""
    env = new_env("millone_v0", make_deal("millone", 0, {}), declarations=False, first_discarder=first_discarder)
    by: dict[int, list[str]] = {0: [], 1: []}
    for who, count in ((order[0], 10), (order[1], 10), (0, 2)):
        for left in range(count, 0, -1):
            assert phase(env) == "discard" and seat(env) == who and int(env.game_state.ints[0, DISCARDS_LEFT]) == left
            a = env.legal_actions()[0]
            by[who].append(env.action_to_string(a).split()[1])
            env.step(a)
    assert phase(env) == "play" and seat(env) == 1
    discarded = np.flatnonzero(env.game_state.cards[0, PLACE] == PL_DISCARD)
    for s in (0, 1):
        assert {ALL_CARDS[c] for c in discarded if env.game_state.cards[0, PILE_OF, c] == s} == set(by[s])
    assert (len(by[0]), len(by[1])) == (12, 10)


def test_mattazza_has_no_discard():
    """§14.2: no discard: the first decision is the first card, and none is ever discarded."""
    env = new_env("mattazza_v0", seed=3, num_players=4, dealer=1)
    assert phase(env) == "play" and seat(env) == 2
    rng = np.random.default_rng(0)
    while not env.game_over:
        assert not any(a >= 62 for a in env.legal_actions())  # only play <card>
        env.step(int(rng.choice(env.legal_actions())))
    assert not np.any(env.game_state.cards[0, PLACE] == PL_DISCARD)


def test_ottocento_discards_count_for_the_dealer_side_at_the_end():
    """§5.3, §8.3: after the hand the 2 discards are in the dealer's pile, and each side's card
    points are its pile's Σv − N/2 (the two sides adding up to 87, §3.2). The dealer's side
    holds the Angelo, so it wins a trick and is not capotted; the Matto is on the other side, so
    no Matto exchange can move a discard (the discards are part of the side's pile, §5.3)."""
    deal = make_deal("ottocento", 3, {3: "ANG 6S 7S", 0: "MAT"})
    env = new_env("ottocento_v0", deal, declarations=False)
    play(env, "discard 6S; discard 7S")
    finish(env)
    for c in ("6S", "7S"):
        assert where(env, c, PILE_OF) == 3 and where(env, c, PLACE) == PL_DISCARD
    piles = env.game_state.cards[0, PILE_OF]
    value = BOLOGNESE_DECK.value.astype(int)
    side_cards = []
    for side in (0, 1):
        mask = (piles == side) | (piles == side + 2)
        n_cards = int(np.count_nonzero(mask))
        tricks = int(env.game_state.seat_ints[0, side, TRICKS] + env.game_state.seat_ints[0, side + 2, TRICKS])
        assert n_cards == 4 * tricks + (2 if side == 1 else 0)
        side_cards.append(int(value[mask].sum()) - n_cards // 2)
    assert env.infos["player_0"]["points"]["cards"] == side_cards
    assert sum(side_cards) == 87


# ====================================================================== 3. trick play
# Scenario A (Mattazza, 3 players, seat 0 leads): seat 1 has spades, coppe, 2 trumps and the
# Matto but no bastoni or denari; seat 2 has spades, bastoni, coppe but no trumps or denari.
A0 = "KS 6B AC AD 6D 7D 8D 9D 10D JD"
A1 = "AS 7S T5 T9 MAT 7C 8C 9C 10C JC"
A2 = "9S 10S NS 7B 8B 9B 10B NC QC KC"


def test_must_follow_suit():
    """§4.2: holding the suit led you must play it (the Matto may always be covered, §2.4)."""
    env = mattazza(A0, A1, A2)
    env.step("play KS")
    assert set(legal(env)) == plays("AS 7S MAT")
    env.step("play AS")
    assert set(legal(env)) == plays("9S 10S NS")


def test_void_must_trump():
    """§4.2: void in the suit led, a player holding trumps must trump (any trump: U1); the next
    player, who holds the suit, must still follow it, not over-trump."""
    env = mattazza(A0, A1, A2)
    env.step("play 6B")
    assert set(legal(env)) == plays("T5 T9 MAT")
    env.step("play T9")
    assert set(legal(env)) == plays("7B 8B 9B 10B")


def test_void_and_no_trump_plays_anything():
    """§4.2: void in the suit led and without trumps: any card."""
    env = mattazza(A0, A1, A2)
    play(env, "play AD; play T5")
    assert set(legal(env)) == plays(A2)


def test_follow_suit_in_coppe():
    """§4.2: the same duty in another suit; the Matto stays playable."""
    env = mattazza(A0, A1, A2)
    env.step("play AC")
    assert set(legal(env)) == plays("7C 8C 9C 10C JC MAT")
    env.step("play 7C")
    assert set(legal(env)) == plays("NC QC KC")


def test_leader_plays_any_card():
    """§4.2.1: the Primo di Mano leads any card (the Matto too, U2 default)."""
    env = mattazza(A1, A0, A2)
    assert set(legal(env)) == plays(A1)


# Scenario B: a trump led. Seat 1 holds T5 T12 and the Matto; seat 2 no trump.
B1 = "T5 T12 MAT AB 6B 7B 8B 9B 10B JB"
B2 = "AC 6C 7C 8C 9C 10C JC NC QC KC"


@pytest.mark.parametrize(
    ("lead", "must_overtrump", "allowed"),
    [
        ("T10", False, "T5 T12 MAT"),  # U1: no duty to beat: the T5 is allowed under the T10
        ("T10", True, "T12 MAT"),  # the option: only a trump that beats the T10
        ("T16", True, "T5 T12 MAT"),  # the option, nothing beats the T16: any trump
        ("T16", False, "T5 T12 MAT"),
    ],
)
def test_trump_led_must_trump(lead, must_overtrump, allowed):
    """§4.2: a trump led must be answered with a trump; U1: no obligation to over-trump unless
    must_overtrump=True (then a beating trump when one is held); the Matto may always be covered."""
    s0 = f"{lead} KS QS NS JS 10S 9S 8S 7S 6S"
    env = mattazza(s0, B1, B2, must_overtrump=must_overtrump)
    env.step(f"play {lead}")
    assert set(legal(env)) == plays(allowed)
    env.step("play T5" if "T5" in allowed else "play T12")
    assert set(legal(env)) == plays(B2)  # no trump: any card


@pytest.mark.parametrize(
    ("s1", "s2", "must_overtrump", "allowed2"),
    [
        # seat 1 trumps the bastoni lead with the T10; seat 2, void, holds T5 T12 M1
        ("T10 AC 6C 7C 8C 9C 10C JC NC QC", "T5 T12 M1 AD 6D 7D 8D 9D 10D JD", False, "T5 T12 M1"),
        ("T10 AC 6C 7C 8C 9C 10C JC NC QC", "T5 T12 M1 AD 6D 7D 8D 9D 10D JD", True, "T12"),
        # nothing beats the T10 (T5 and M1 lower): any trump, with or without the option
        ("T10 AC 6C 7C 8C 9C 10C JC NC QC", "T5 M1 AD 6D 7D 8D 9D 10D JD QD", True, "T5 M1"),
    ],
)
def test_overtrump_on_a_trumped_suit_trick(s1, s2, must_overtrump, allowed2):
    """U1: void in the suit led, a player must trump but need not beat the trump already played;
    with must_overtrump=True he must beat it (T12 over T10)."""
    env = mattazza("6B KS QS NS JS 10S 9S 8S 7S 6S", s1, s2, must_overtrump=must_overtrump)
    play(env, "play 6B; play T10")
    assert set(legal(env)) == plays(allowed2)


def test_must_overtrump_untrumped_trick_any_trump_beats():
    """must_overtrump=True: a suit card led and no trump played yet: every trump beats it, so any trump."""
    env = mattazza("6B KS QS NS JS 10S 9S 8S 7S 6S", "T5 T12 M1 AD 6D 7D 8D 9D 10D JD", B2, must_overtrump=True)
    env.step("play 6B")
    assert set(legal(env)) == plays("T5 T12 M1")


@pytest.mark.parametrize(("must_overtrump", "allowed"), [(False, "M2 T5 BEG"), (True, "M2 T5")])
def test_must_overtrump_a_moro_beats_a_moro(must_overtrump, allowed):
    """§4.3 with U1's option: over a Moro, another Moro beats it (the last Moro wins) and so does
    the T5; the Bégato does not."""
    env = mattazza("M1 KS QS NS JS 10S 9S 8S 7S 6S", "M2 T5 BEG AD 6D 7D 8D 9D 10D JD", B2, must_overtrump=must_overtrump)
    env.step("play M1")
    assert set(legal(env)) == plays(allowed)


WINNERS = [
    # (cards played by seats 0, 1, 2(, 3); seat 0 leads) -> the winning seat
    (["6B", "T5", "T12"], 2, "the highest trump wins"),
    (["6B", "T12", "T5"], 1, "a lower trump after a higher one does not win"),
    (["BEG", "M1", "T5"], 2, "T5 beats a Moro, a Moro beats the Bégato"),
    (["M1", "M2", "M3"], 2, "Mori equal: the last Moro played wins"),
    (["M4", "M3", "M2", "M1"], 3, "the last Moro wins whatever its number"),
    (["M1", "M2", "BEG"], 1, "the Bégato after two Mori: the second Moro wins"),
    (["M1", "T5", "M2"], 1, "a Moro after the T5 does not win"),
    (["6S", "M3", "M1"], 2, "Mori trumping a suit card: the last Moro wins"),
    (["10C", "AC", "6C"], 1, "Coppe pips reversed: A > 6 > 10"),
    (["9D", "6D", "10D"], 1, "Denari pips reversed: 6 > 9 > 10"),
    (["AC", "JC", "6C"], 1, "Coppe: the Fante beats the Ace"),
    (["AS", "10S", "6S"], 1, "Spade pips natural: 10 > 6 > A"),
    (["7B", "AB", "8B"], 2, "Bastoni pips natural: 8 > 7 > A"),
    (["KD", "AD", "QD"], 0, "the King is the highest suit card"),
    (["6S", "KB", "AS"], 0, "an off-suit King takes nothing; 6S > AS"),
    (["6B", "KC", "T5"], 2, "a trump beats the suit led and the off-suit card"),
    (["KS", "MAT", "6S"], 0, "a covered Matto never wins"),
    (["MAT", "6B", "7B"], 2, "a led Matto: the next card sets the suit (U2)"),
    (["MAT", "T5", "ANG"], 2, "a led Matto, then trumps"),
    (["AD", "6D", "MAT", "9D"], 0, "Denari: the Ace beats 6 and 9; a Matto in third place changes nothing"),
]


@pytest.mark.parametrize(("trick", "winner", "why"), WINNERS, ids=[w[2] for w in WINNERS])
def test_trick_winner_and_next_leader(trick, winner, why):
    """§4.3: with a trump, the highest trump; among Mori the last played; otherwise the highest
    card of the suit led (K Q N J 10 9 8 7 6 A in Spade/Bastoni, K Q N J A 6 7 8 9 10 in
    Coppe/Denari, §2.3). The winner takes the trick (but not a covered Matto) and leads next."""
    env = trick_env(trick)
    assert int(env.game_state.hist[0, 0]) == winner, why
    assert int(env.game_state.seat_ints[0, winner, TRICKS]) == 1
    assert seat(env) == winner and phase(env) == "play"
    for i, c in enumerate(trick):
        assert where(env, c, PILE_OF) == (i if c == "MAT" else winner)
        assert where(env, c, PLACE) == PL_PILE


def test_winner_leads_next_in_ottocento():
    """§4.3, §5.4: the Primo di Mano (the dealer's right) leads trick 1; its winner leads trick 2;
    seats play in order s, s+1, ..."""
    # make_deal fills the hands in card-id order, seat 0 first: seat 0 gets the other six spades
    deal = make_deal("ottocento", 3, {0: "6S", 1: "7S", 2: "KS", 3: "8S"})
    env = new_env("ottocento_v0", deal, declarations=False)
    discards = [c for c in deal["hands"][3] if c not in CARTE_DA_5 and not c.endswith("S")][:2]
    play(env, f"discard {discards[0]}; discard {discards[1]}")
    assert seat(env) == 0
    play(env, "play 6S")
    assert seat(env) == 1
    play(env, "play 7S")
    assert seat(env) == 2
    play(env, "play KS")
    assert seat(env) == 3
    play(env, "play 8S")
    assert int(env.game_state.hist[0, 0]) == 2 and seat(env) == 2
    assert {ALL_CARDS[c] for c in np.flatnonzero(env.game_state.cards[0, TRICK_OF] == 0)} == {"6S", "7S", "KS", "8S"}
    assert pile(env, 2) == {"6S", "7S", "KS", "8S"}


# ====================================================================== 4. the Matto
def test_covered_matto_goes_to_its_owner():
    """§2.4, §4.5: the Matto covered in a trick goes to its owner's pile; the other cards to the winner."""
    env = trick_env(["KS", "MAT", "6S"])
    assert where(env, "MAT", PILE_OF) == 1
    assert pile(env, 0) == {"KS", "6S"} and pile(env, 1) == {"MAT"}
    assert int(env.game_state.ints[0, MATTO_SEAT]) == 1 and int(env.game_state.ints[0, MATTO_WINNER]) == 0


# Scenario M: seat 0 leads the Matto; seat 1 plays freely and sets the suit; seat 2 follows it.
M0 = "MAT AD 6D 7D 8D 9D 10D JD ND QD"
M1 = "6B AS 6S 7S 8S 9S 10S JS NS QS"
M2 = "7B KS AC 6C 7C 8C 9C 10C JC NC"


def test_led_matto_next_card_sets_the_suit():
    """U2 default: the Matto may be led; the next player plays any card, which becomes the Carta
    Dominante; the third must follow it."""
    env = mattazza(M0, M1, M2)
    assert "play MAT" in legal(env)
    env.step("play MAT")
    assert set(legal(env)) == plays(M1)
    env.step("play 6B")
    assert int(env.game_state.ints[0, LEAD_SUIT]) == int(BOLOGNESE_DECK.suit[card_id("6B")])
    assert set(legal(env)) == plays("7B")
    env.step("play 7B")
    assert int(env.game_state.hist[0, 0]) == 2 and seat(env) == 2 and where(env, "MAT", PILE_OF) == 0


def test_matto_lead_never():
    """U2 alternative matto_lead="never": the Matto may not be led while other cards are held;
    refused with a message naming the option; covering it as a follower stays allowed."""
    env = mattazza(M0, M1, M2, matto_lead="never")
    assert set(legal(env)) == plays("AD 6D 7D 8D 9D 10D JD ND QD")
    refuse(env, "play MAT", IllegalActionError, "'play MAT'", "matto_lead='never'")
    env2 = mattazza(A0, A1, A2, matto_lead="never")
    env2.step("play KS")
    assert "play MAT" in legal(env2)


def test_matto_lead_never_allows_it_as_the_last_card():
    """U2 alternative: the Matto is led when it is the only card left (the hand must end)."""
    env = mattazza("MAT ANG MON SOL LUN T16 T15 T14 T13 T12", "AS 6S 7S 8S 9S 10S JS NS QS KS", "AB 6B 7B 8B 9B 10B JB NB QB KB",
                   matto_lead="never")  # fmt: skip
    trumps = cards("ANG MON SOL LUN T16 T15 T14 T13 T12")
    for i, t in enumerate(trumps):
        assert set(legal(env)) == plays(" ".join(trumps[i:]))  # seat 0 leads each trick it wins
        play(env, f"play {t}; play {cards('AS 6S 7S 8S 9S 10S JS NS QS')[i]}; play {cards('AB 6B 7B 8B 9B 10B JB NB QB')[i]}")
        assert seat(env) == 0
    assert legal(env) == ["play MAT"]


# Hand E (Mattazza, 3 players): seat 0 wins trick 1 (AS AB AC), leads the Matto in trick 2, which
# seat 1 wins (6B; 6C off-suit), trumps trick 3 with the T5 and wins the last 7 with spades.
E0 = "AS 7S 8S 9S 10S JS NS QS MAT T5"
E1 = "AB 6B 7B 8B 9B 10B JB NB QB KB"
E2 = "AC 6C 7C 8C 9C 10C JC NC QC KC"
E_SCARTINI = cards("AS AB AC 7B 7C T5 7S 8S 9S 10S 8B 9B 10B 8C 9C 10C")
E_OTHERS = cards("JS NS QS JB NB QB KB JC NC QC KC")


def play_hand_e(env, last: bool = True) -> None:
    play(env, "play AS; play AB; play AC")
    play(env, "play MAT; play 6B; play 6C")
    play(env, "play 7B; play 7C; play T5")
    tricks = list(zip(cards("7S 8S 9S 10S JS NS QS"), cards("8B 9B 10B JB NB QB KB"), cards("8C 9C 10C JC NC QC KC")))
    for s, b, c in tricks if last else tricks[:-1]:
        play(env, f"play {s}; play {b}; play {c}")


def test_matto_exchange_is_made_at_the_end_of_the_hand():
    """§4.5: after the Matto's trick the Matto is in its owner's pile and the winner has only the
    other cards; nothing is given before the hand ends."""
    env = mattazza(E0, E1, E2)
    play_hand_e(env, last=False)
    assert pile(env, 1) == {"6B", "6C"}
    assert where(env, "MAT", PILE_OF) == 0
    assert int(env.game_state.ints[0, MATTO_SEAT]) == 0 and int(env.game_state.ints[0, MATTO_WINNER]) == 1


def test_matto_exchange_auto_gives_the_cheapest_scartino_worked_case():
    """§4.5, U3, U20, worked by hand. Seat 0's pile at the end: AS AB AC, 7B 7C T5, 7S–QS, 8B–KB,
    8C–KC and the Matto. Its combinations: Queens QS QB QC 14, Cavalli 13, Fanti 12 (3 cricche,
    doubled); Bastoni K Q N J A + Matto (L 6) 25, Coppe the same 25, Aces AS AB AC + Matto (L 4)
    15 (3 sequences, doubled). Every candidate is a scartino worth 1, but giving an Ace also
    shortens the Aces sequence (and AB/AC their suit's): those cost more. The other scartini
    (7S 8S 9S 10S 7B 8B 9B 10B 7C 8C 9C 10C T5) cost the same and help seat 1's pile (6B 6C)
    equally, so the lowest card id goes: 7S (id 2), not AS (id 0)."""
    env = mattazza(E0, E1, E2)
    play_hand_e(env)
    assert env.game_over
    assert where(env, "7S", PILE_OF) == 1
    assert pile(env, 1) == {"6B", "6C", "7S"}
    assert pile(env, 0) == set(E_SCARTINI + E_OTHERS + ["MAT"]) - {"7S"}


def test_matto_exchange_auto_without_scartini_gives_the_cheapest_card():
    """§4.5 (no scartino in the side's pile: the card that costs the giver least), worked by hand.
    Seat 0 wins only trick 1 (KS, QB, QC), leads the Matto in trick 2 (won by seat 1's KB) and
    never wins again. His pile KS QB QC MAT: giving a Queen (4) costs less than the King (5);
    QB and QC each complete a K Q N J (A) sequence in seat 1's pile, so they help alike, and the
    lower id goes: QB."""
    env = mattazza("KS MAT AD 6D 7D 8D 9D 10D JD ND", "AB 6B 7B 8B 9B 10B JB NB QB KB", "AC 6C 7C 8C 9C 10C JC NC QC KC")
    play(env, "play KS; play QB; play QC; play MAT; play KB; play KC")
    for b, c, d in zip(cards("AB 6B 7B 8B 9B 10B JB NB"), cards("AC 6C 7C 8C 9C 10C JC NC"), cards("AD 6D 7D 8D 9D 10D JD ND")):
        play(env, f"play {b}; play {c}; play {d}")
    assert env.game_over
    assert pile(env, 0) == {"KS", "QC", "MAT"}
    assert where(env, "QB", PILE_OF) == 1


def test_matto_exchange_auto_least_help_to_the_receiver_worked_case():
    """U20's second key, worked by hand. Trick 1: seat 0's 9S beats seat 1's AS (Spade: 9 > A),
    seat 2 discards the 7C; trick 2: seat 0 leads the Matto, seat 1's AB takes it (seat 2's AC
    off-suit); seat 1 wins the last 8 tricks with bastoni. Seat 0's pile 9S AS 7C + Matto has no
    combination, so the three scartini cost him the same. Seat 1's pile holds AB AC: the AS
    would make him an Aces sequence (3 cards, 10 points); the 9S and the 7C help by their card
    value only. So the least helpful, lowest id goes: 9S (id 4), not AS (id 0)."""
    env = mattazza("9S MAT 6D 7D 8D 9D 10D JD ND QD", "AS AB 6B 7B 8B 9B 10B JB NB QB", "AC 6C 7C 8C 9C 10C JC NC QC KC")
    play(env, "play 9S; play AS; play 7C; play MAT; play AB; play AC")
    for b, c, d in zip(cards("6B 7B 8B 9B 10B JB NB QB"), cards("6C 8C 9C 10C JC NC QC KC"), cards("6D 7D 8D 9D 10D JD ND QD")):
        play(env, f"play {b}; play {c}; play {d}")
    assert env.game_over and int(env.game_state.seat_ints[0, 0, TRICKS]) == 1
    assert pile(env, 0) == {"AS", "7C", "MAT"}
    assert where(env, "9S", PILE_OF) == 1


def test_matto_exchange_choose_only_scartini():
    """U3 with matto_exchange="choose": the coverer is asked give <card>; with scartini in his pile
    only those are legal (never the Matto); a non-scartino is refused with a reason; the card
    given goes to the trick's winner and the hand ends."""
    env = mattazza(E0, E1, E2, matto_exchange="choose")
    play_hand_e(env)
    assert not env.game_over and phase(env) == "give" and seat(env) == 0
    assert set(E_SCARTINI) <= SCARTINI and not set(E_OTHERS) & SCARTINI
    assert set(legal(env)) == {f"give {c}" for c in E_SCARTINI}
    refuse(env, "give KB", IllegalActionError, "'give KB'", "scartino")
    refuse(env, "give MAT", IllegalActionError, "'give MAT'")
    refuse(env, "give 6B", IllegalActionError, "'give 6B'", "not a card of your side's pile")
    refuse(env, "play AS", IllegalActionError, "'play AS'", "the decision now is give")
    env.step("give 9C")
    assert env.game_over and where(env, "9C", PILE_OF) == 1 and where(env, "MAT", PILE_OF) == 0


def test_matto_gift_any():
    """U3 alternative matto_gift="any": any card of the side's pile except the Matto may be given."""
    env = mattazza(E0, E1, E2, matto_exchange="choose", matto_gift="any")
    play_hand_e(env)
    assert set(legal(env)) == {f"give {c}" for c in E_SCARTINI + E_OTHERS}
    env.step("give KB")
    assert where(env, "KB", PILE_OF) == 1


def test_matto_exchange_choose_without_scartini_any_card():
    """U3: a side with no scartino in its pile gives any card of it (not the Matto)."""
    env = mattazza("KS MAT AD 6D 7D 8D 9D 10D JD ND", "AB 6B 7B 8B 9B 10B JB NB QB KB", "AC 6C 7C 8C 9C 10C JC NC QC KC",
                   matto_exchange="choose")  # fmt: skip
    play(env, "play KS; play QB; play QC; play MAT; play KB; play KC")
    for b, c, d in zip(cards("AB 6B 7B 8B 9B 10B JB NB"), cards("AC 6C 7C 8C 9C 10C JC NC"), cards("AD 6D 7D 8D 9D 10D JD ND")):
        play(env, f"play {b}; play {c}; play {d}")
    assert phase(env) == "give" and seat(env) == 0
    assert set(legal(env)) == {"give KS", "give QB", "give QC"}


# Hand Y: seat 0 holds the Matto and nine Denari; seat 1 ten spades, seat 2 ten bastoni.
Y0 = "MAT AD 6D 7D 8D 9D 10D JD ND QD"
Y1 = "AS 6S 7S 8S 9S 10S JS NS QS KS"
Y2 = "AB 6B 7B 8B 9B 10B JB NB QB KB"


@pytest.mark.parametrize("exchange", ["auto", "choose"])
def test_side_without_tricks_loses_the_matto(exchange):
    """§4.5, [LIP]: the Matto's owner won no trick, so he has nothing to give: the Matto itself
    goes to the winner of its trick (no give decision, even with matto_exchange="choose")."""
    env = mattazza(Y0, Y1, Y2, matto_exchange=exchange)
    play(env, "play MAT; play KS; play KB")  # seat 1 wins, leads spades to the end
    for s, b, d in zip(cards("AS 6S 7S 8S 9S 10S JS NS QS"), cards("AB 6B 7B 8B 9B 10B JB NB QB"), cards("AD 6D 7D 8D 9D 10D JD ND QD")):
        play(env, f"play {s}; play {b}; play {d}")
    assert env.game_over
    assert int(env.game_state.seat_ints[0, 0, TRICKS]) == 0
    assert where(env, "MAT", PILE_OF) == 1
    assert pile(env, 0) == set()


@pytest.mark.parametrize(("last_trick", "matto_pile", "gift"), [("kept", 0, "6S"), ("lost", 1, None)])
def test_matto_in_the_last_trick(last_trick, matto_pile, gift):
    """U4: seat 0 wins 9 Denari tricks and covers (leads) the Matto in the last, won by seat 1.
    Default "kept": the Matto stays his and he gives a scartino: his pile holds AD–QD, AS–QS,
    AB–QB and the Matto: Queens, Cavalli, Fanti cricche; the only sequence is the Aces (AD AS AB
    + Matto); so an Ace costs more than a pip and the lowest pip id goes: 6S (id 1). "lost": the
    Matto goes to the trick's winner and nothing is exchanged."""
    env = mattazza(Y0, Y1, Y2, matto_last_trick=last_trick)
    for d, s, b in zip(cards("AD 6D 7D 8D 9D 10D JD ND QD"), cards("AS 6S 7S 8S 9S 10S JS NS QS"), cards("AB 6B 7B 8B 9B 10B JB NB QB")):
        play(env, f"play {d}; play {s}; play {b}")
    assert seat(env) == 0
    play(env, "play MAT; play KS; play KB")
    assert env.game_over and int(env.game_state.hist[0, 9]) == 1
    assert where(env, "MAT", PILE_OF) == matto_pile
    if gift is None:
        assert pile(env, 1) == {"KS", "KB", "MAT"}
        assert len(pile(env, 0)) == 27
    else:
        assert pile(env, 1) == {"KS", "KB", gift}
        assert len(pile(env, 0)) == 27  # 27 won + the Matto − the gift


def test_matto_last_trick_lost_no_give_decision():
    """U4 "lost" with matto_exchange="choose": the Matto is gone, so nobody is asked to give."""
    env = mattazza(Y0, Y1, Y2, matto_last_trick="lost", matto_exchange="choose")
    for d, s, b in zip(cards("AD 6D 7D 8D 9D 10D JD ND QD"), cards("AS 6S 7S 8S 9S 10S JS NS QS"), cards("AB 6B 7B 8B 9B 10B JB NB QB")):
        play(env, f"play {d}; play {s}; play {b}")
    play(env, "play MAT; play KS; play KB")
    assert env.game_over and where(env, "MAT", PILE_OF) == 1


# Scenario T (U19): seat 1 is void in bastoni and its only trump is the Matto.
T0 = "6B T5 KS QS NS JS 10S 9S 8S 7S"
T1 = "MAT AC 6C 7C 8C 9C 10C JC NC QC"
T2 = "7B 8B 9B 10B JB NB QB KB AS 6S"


@pytest.mark.parametrize("lead", ["6B", "T5"])
@pytest.mark.parametrize(("is_trump", "allowed"), [(False, T1), (True, "MAT")])
def test_matto_is_trump_option(lead, is_trump, allowed):
    """U19: by default the Matto is no trump for the duty to trump: void in the suit led (or a
    trump led) with the Matto as only trump, any card may be played. matto_is_trump=True: he
    must cover the Matto."""
    env = mattazza(T0, T1, T2, matto_is_trump=is_trump)
    env.step(f"play {lead}")
    assert set(legal(env)) == plays(allowed)


# Ottocento (partners 0 & 2 v 1 & 3, dealer 3, seat 0 leads): all the spades are placed by hand.
def ottocento_matto_deal(s0: str, s1: str, s2: str, s3: str):
    return make_deal("ottocento", 3, {0: s0, 1: s1, 2: s2, 3: s3})


@pytest.mark.parametrize(("winner_card", "partner_wins"), [("KS", False), ("AS", True)])
def test_ottocento_matto_exchange_only_with_opponents(winner_card, partner_wins):
    """§2.4, §4.5: in partnership play the card is given only when the Matto's trick went to an
    opponent, at the end of the hand; after it each side's pile holds 4 × its tricks (+ the
    dealer side's 2 discards). Seat 1 covers the Matto in trick 1: won by seat 0 (opponent,
    exchange) or seat 3 (partner, none). Seat 3's side holds the Angelo, so it wins a trick."""
    if partner_wins:  # seat 0 leads AS; seat 3 wins with the KS
        deal = ottocento_matto_deal("AS 9S 8S", "MAT 7S", "6S 10S", "KS JS NS QS ANG")
        trick = "play AS; play MAT; play 6S; play KS"
    else:  # seat 0 leads the KS and wins
        deal = ottocento_matto_deal("KS 9S 8S", "MAT 7S", "6S 10S", "AS JS NS QS ANG")
        trick = "play KS; play MAT; play 6S; play AS"
    env = new_env("ottocento_v0", deal, declarations=False)
    nonspade = [c for c in deal["hands"][3] if c not in CARTE_DA_5 and not c.endswith("S")]
    play(env, f"discard {nonspade[0]}; discard {nonspade[1]}")
    play(env, trick)
    w = 3 if partner_wins else 0
    assert int(env.game_state.hist[0, 0]) == w and where(env, "MAT", PILE_OF) == 1
    won = {ALL_CARDS[c] for c in np.flatnonzero((env.game_state.cards[0, PILE_OF] == w) & (env.game_state.cards[0, PLACE] == PL_PILE))}
    assert won == set(cards(trick.replace("play ", "").replace(";", ""))) - {"MAT"}  # not the Matto
    finish(env)
    piles = env.game_state.cards[0, PILE_OF]
    t = env.game_state.seat_ints[0, :, TRICKS]
    assert where(env, "MAT", PILE_OF) == 1
    side0 = int(np.count_nonzero((piles == 0) | (piles == 2)))
    side1 = int(np.count_nonzero((piles == 1) | (piles == 3)))
    assert (side0, side1) == (4 * (t[0] + t[2]), 4 * (t[1] + t[3]) + 2)
    # the card that changed sides: in side 0's pile though won in a trick of side 1
    moved = [c for c in np.flatnonzero(env.game_state.cards[0, PLACE] == PL_PILE)
             if c != 61 and piles[c] % 2 != int(env.game_state.hist[0, env.game_state.cards[0, TRICK_OF, c]]) % 2]  # fmt: skip
    moved += [c for c in np.flatnonzero(env.game_state.cards[0, PLACE] == PL_DISCARD) if piles[c] % 2 != 1]
    if partner_wins:
        assert moved == [] and int(env.game_state.ints[0, MATTO_SEAT]) == 1
    else:
        assert len(moved) == 1 and ALL_CARDS[moved[0]] in SCARTINI and piles[moved[0]] == 0


# ====================================================================== 5. bad input
def in_play():
    """Scenario A after seat 0 led the KS: seat 1 must follow spades (AS 7S) or cover the Matto."""
    env = mattazza(A0, A1, A2)
    env.step("play KS")
    return env


@pytest.mark.parametrize(
    ("bad", "fragments"),
    [
        ("play KD", ["'play KD'", "not in the hand", "legal now: play AS, play 7S, play MAT"]),
        ("play 7C", ["'play 7C'", "must follow suit", "spade"]),
        ("play T5", ["'play T5'", "must follow suit"]),
        ("claim", ["'claim'", "the decision now is play"]),
        ("no_declare", ["'no_declare'", "the decision now is play"]),
        ("discard AS", ["'discard AS'", "the decision now is play"]),
        ("give AS", ["'give AS'", "the decision now is play"]),
        ("posso", ["'posso'", "the decision now is play"]),
        (card_id("KD"), ["'play KD'", "not in the hand"]),
        (62 + card_id("AS"), ["'discard AS'", "the decision now is play"]),
    ],
)
def test_illegal_action_refused_state_unchanged_play_goes_on(bad, fragments):
    """interface.md §6, §4.2: an illegal card or an action of the wrong kind raises
    IllegalActionError naming it, why, and what is legal; nothing changes; play goes on."""
    env = in_play()
    refuse(env, bad, IllegalActionError, *fragments)
    env.step("play 7S")
    assert seat(env) == 2


def test_not_trumping_is_refused():
    """§4.2: void in the suit led while holding trumps, a suit card is refused: 'must play a trump'."""
    env = mattazza(A0, A1, A2)
    env.step("play 6B")
    refuse(env, "play 7C", IllegalActionError, "'play 7C'", "must play a trump")
    env.step("play T5")


def test_not_answering_a_trump_lead_is_refused():
    """§4.2: a trump led, a player with trumps must play one."""
    env = mattazza("T10 KS QS NS JS 10S 9S 8S 7S 6S", B1, B2)
    env.step("play T10")
    refuse(env, "play AB", IllegalActionError, "'play AB'", "trump was led")


def test_not_overtrumping_is_refused_with_the_option():
    """U1 option: must_overtrump=True refuses a lower trump with a reason naming the option."""
    env = mattazza("T10 KS QS NS JS 10S 9S 8S 7S 6S", B1, B2, must_overtrump=True)
    env.step("play T10")
    refuse(env, "play T5", IllegalActionError, "'play T5'", "must_overtrump")


def test_not_overtrumping_a_trumped_suit_trick_is_refused_with_the_option():
    """U1 option, void in the suit led: after the T10 trumped the bastoni lead, the T5 (a trump,
    but lower) is refused; the reason must be the over-trump duty, not a duty to trump."""
    env = mattazza(
        "6B KS QS NS JS 10S 9S 8S 7S 6S", "T10 AC 6C 7C 8C 9C 10C JC NC QC", "T5 T12 M1 AD 6D 7D 8D 9D 10D JD", must_overtrump=True
    )
    play(env, "play 6B; play T10")
    refuse(env, "play T5", IllegalActionError, "'play T5'", "must_overtrump")


def test_wrong_kind_in_a_claim_window():
    """§8.4: in the dealer's claim window only claim / no_claim; a discard or a play is refused."""
    env = new_env("ottocento_v0", make_deal("ottocento", 0, {0: "AS"}), wrong_claim="loses")
    assert phase(env) == "claim"
    refuse(env, "discard AS", IllegalActionError, "'discard AS'", "the decision now is claim")
    refuse(env, "play AS", IllegalActionError, "'play AS'", "claim or no_claim")
    env.step("no_claim")
    assert phase(env) == "discard"


def test_action_after_the_hand_is_over():
    """PettingZoo AEC: once the hand is over a card is refused (ValueError naming it); step(None) is the dead step."""
    env = mattazza(E0, E1, E2)
    play_hand_e(env)
    assert env.game_over
    with pytest.raises(ValueError, match="play AS"):
        env.step("play AS")
    env.step(None)


def test_discard_errors_during_the_scartata():
    """§5.3: during the dealer's discard, a card not in his hand and a play are refused, unchanged."""
    deal = make_deal("ottocento", 3, {3: "KS AS 6S", 0: "KD"})
    env = new_env("ottocento_v0", deal)
    refuse(env, "discard KD", IllegalActionError, "'discard KD'", "not in the hand")
    refuse(env, "play AS", IllegalActionError, "'play AS'", "the decision now is discard")
    refuse(env, "no_claim", IllegalActionError, "'no_claim'", "discard")
    env.step("discard AS")
    assert where(env, "AS", PLACE) == PL_DISCARD


def test_auction_errors_in_terziglio():
    """§10.3: in the auction, answers before a posso and plays are refused; then after a posso only answers."""
    env = new_env("terziglio_v0", make_deal("terziglio", 0, {}))
    refuse(env, "va_bene", IllegalActionError, "'va_bene'", "answer a posso")
    refuse(env, "play AS", IllegalActionError, "'play AS'", "auction")
    env.step("posso")
    refuse(env, "pass", IllegalActionError, "'pass'", "waits for its answers")
    assert int(env.game_state.ints[0, BIDDER]) == 1


@pytest.mark.parametrize("bad", [NUM_ACTIONS, NUM_ACTIONS + 1, 10**9, -1, -NUM_ACTIONS])
def test_out_of_range_action_id(bad):
    """interface.md §6: an id outside 0..194 is refused, naming the id and the range; unchanged."""
    env = in_play()
    refuse(env, bad, IllegalActionError, str(bad), f"0..{NUM_ACTIONS - 1}")
    env.step("play AS")


@pytest.mark.parametrize(
    ("bad", "error", "fragments"),
    [
        ("play XX", ValueError, ["'XX'", "not a card"]),
        ("play 5S", ValueError, ["'5S'", "not a card"]),
        ("play", ValueError, ["'play'", "not a Tarocchino action"]),
        ("jump", ValueError, ["'jump'", "not a Tarocchino action"]),
        ("", ValueError, ["''", "not a Tarocchino action"]),
        ("play AS now", ValueError, ["'play AS now'", "not a Tarocchino action"]),
        ("bid garde", ValueError, ["'bid garde'", "not a Tarocchino action"]),
        (None, TypeError, ["None"]),
        (1.0, TypeError, ["1.0", "not an action id"]),
        (True, TypeError, ["True", "not an action id"]),
        ([0], TypeError, ["[0]", "not an action id"]),
        (b"play AS", TypeError, ["not an action id"]),
    ],
    ids=repr,
)
def test_malformed_action(bad, error, fragments):
    """interface.md §6: malformed strings raise ValueError, non-actions TypeError, naming what
    was given; the state is unchanged and play goes on."""
    env = in_play()
    refuse(env, bad, error, *fragments)
    env.step("play AS")
    assert seat(env) == 2


@pytest.mark.parametrize("text", ["play as", "  PLAY   As ", "Play aS"])
def test_action_strings_are_case_insensitive(text):
    """interface.md §2: parsing is case-insensitive."""
    env = in_play()
    env.step(text)
    assert where(env, "AS", PLAYED_BY) == 1


def _ottocento_deal():
    return make_deal("ottocento", 0, {})


def _bad_deals():
    good = _ottocento_deal()
    out = []

    def variant(name, change, error, *fragments):
        d = {"dealer": good["dealer"], "hands": [list(h) for h in good["hands"]], "rest": list(good["rest"])}
        change(d)
        out.append((name, d, error, fragments))

    variant("hand of 14", lambda d: d["hands"][1].pop(), ValueError, "seat 1", "14 cards", "15")
    variant("dealer with 18", lambda d: d["hands"][0].append(d["hands"][1].pop()), ValueError, "18 cards")
    variant("repeated card", lambda d: d["hands"][2].__setitem__(0, d["hands"][1][0]), ValueError, "both in")
    variant("repeated in one hand", lambda d: d["hands"][2].__setitem__(1, d["hands"][2][0]), ValueError, "listed twice")
    variant("unknown card", lambda d: d["hands"][1].__setitem__(0, "ZZ"), ValueError, "'ZZ'", "not a card")
    variant("card not a string", lambda d: d["hands"][1].__setitem__(0, 5), TypeError, "5", "strings")
    variant("dealer 4", lambda d: d.__setitem__("dealer", 4), ValueError, "dealer 4", "0..3")
    variant("dealer -1", lambda d: d.__setitem__("dealer", -1), ValueError, "dealer -1", "0..3")
    variant("dealer '0'", lambda d: d.__setitem__("dealer", "0"), ValueError, "dealer '0'", "0..3")
    variant("dealer True", lambda d: d.__setitem__("dealer", True), ValueError, "dealer True")
    variant("three hands", lambda d: d["hands"].pop(), ValueError, "4 hands")
    variant("rest not empty", lambda d: d["rest"].append("AS"), ValueError, "rest", "must be empty")
    variant("unknown key", lambda d: d.__setitem__("pozzo", []), ValueError, "pozzo", "'dealer', 'hands', 'rest'")
    out.append(("not a dict", [good["hands"]], TypeError, ("dict",)))
    return out


BAD_DEALS = _bad_deals()


@pytest.mark.parametrize(("name", "deal", "error", "fragments"), BAD_DEALS, ids=[b[0] for b in BAD_DEALS])
def test_malformed_deal_is_refused_and_the_current_hand_goes_on(name, deal, error, fragments):
    """interface.md §4, §6: a malformed fixed deal raises a clear error naming the problem; the
    deal in progress is untouched and goes on."""
    env = new_env("ottocento_v0", make_deal("ottocento", 3, {}))
    snap = snapshot(env)
    with pytest.raises(error) as info:
        env.reset(options={"deal": deal})
    for f in fragments:
        assert f.lower() in str(info.value).lower(), (f, str(info.value))
    assert_unchanged(env, snap)
    env.step(env.legal_actions()[0])


@pytest.mark.parametrize(
    ("game", "n", "change", "fragments"),
    [
        ("terziglio", None, lambda d: d["rest"].pop(), ["rest", "7 cards", "Pozzo"]),
        ("millone", None, lambda d: d["rest"].pop(), ["rest", "19 cards", "second deal"]),
        ("centocinquanta", None, lambda d: d["hands"][0].pop(), ["seat 0", "16 cards", "17"]),
        ("mattazza", 4, lambda d: d["hands"][0].append(d["rest"].pop()), ["seat 0", "11 cards", "10"]),
        ("mattazza", 3, lambda d: d.__setitem__("dealer", 3), ["dealer 3", "0..2"]),
    ],
)
def test_malformed_deals_of_other_games(game, n, change, fragments):
    """interface.md §4: counts are checked for each game's deal (Pozzo 8, Millone's second deal
    20, Centocinquanta 15/17, Mattazza 10 each)."""
    kw = {"num_players": n} if n else {}
    deal = make_deal(game, 0, {}, num_players=n)
    change(deal)
    env = tarot_env.make(env_id(game), **kw)
    with pytest.raises(ValueError) as info:
        env.reset(options={"deal": deal})
    for f in fragments:
        assert f.lower() in str(info.value).lower(), (f, str(info.value))


@pytest.mark.parametrize(
    ("game", "name"),
    [
        ("ottocento", "foo"),
        ("ottocento", "first_discarder"),
        ("mattazza", "matto_leads"),
        ("terziglio", "target"),
        ("millone", "tie_break"),
    ],
)
def test_unknown_option_at_make(game, name):
    """interface.md §6: an unknown option (or one of another game) raises TypeError naming it and
    listing the game's options."""
    kw = {"num_players": 4} if game == "mattazza" else {}
    with pytest.raises(TypeError) as info:
        tarot_env.make(env_id(game), **kw, **{name: 1})
    msg = str(info.value)
    assert name in msg and "must_overtrump" in msg and "matto_lead" in msg and "matto_exchange" in msg


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("must_overtrump", "yes", ["False", "True"]),
        ("must_overtrump", 1, ["False", "True"]),
        ("matto_lead", "sometimes", ["'allowed'", "'never'"]),
        ("matto_gift", "best", ["'scartino'", "'any'"]),
        ("matto_exchange", "random", ["'auto'", "'choose'"]),
        ("matto_last_trick", "Lost", ["'kept'", "'lost'"]),
        ("matto_is_trump", None, ["False", "True"]),
    ],
)
def test_bad_option_value_at_make(name, value, allowed):
    """interface.md §6: an option value outside the allowed ones raises ValueError naming the
    option, the value, and the allowed values."""
    with pytest.raises(ValueError) as info:
        tarot_env.make("ottocento_v0", **{name: value})
    msg = str(info.value)
    assert name in msg and repr(value) in msg
    for a in allowed:
        assert a in msg


def test_first_discarder_bad_value():
    """U22: Millone's first_discarder accepts only 'opponent' and 'dealer'."""
    with pytest.raises(ValueError, match="first_discarder"):
        tarot_env.make("millone_v0", first_discarder="both")


@pytest.mark.parametrize("env_id", ["ottocento_v0", "terziglio_v0", "millone_v0"])
def test_render_lists_the_last_trick_in_play_order_from_its_leader(env_id):
    """The rendered last trick starts with its leader: the first leader for trick 1, then the last winner (§4.2)."""
    import re

    env = tarot_env.make(env_id, render_mode="ansi")
    rng = np.random.default_rng(4)
    env.reset(seed=11)
    leaders = []  # the leader of each trick, read from the table as the trick starts
    n = env.unwrapped.num_players
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        text = env.render()
        m = re.search(r"trick (\d+): player_(\d+):", text)
        if m and int(m.group(1)) == len(leaders) + 1 and text.count("trick " + m.group(1) + ": ") == 1:
            leaders.append(int(m.group(2)))
        last = re.search(r"trick (\d+) won by player_\d+ \(player_(\d+):", text)
        if last:
            t = int(last.group(1))
            assert int(last.group(2)) == leaders[t - 1], text
            if t == 3:
                assert n > 1 and len(leaders) >= 3
                break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    else:
        raise AssertionError("the hand ended before trick 3")
