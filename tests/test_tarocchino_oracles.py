"""The Tarocchino engine against the test oracles of ``tests/oracles/``: the same rules stated a
second, independent way, compared decision by decision over random hands.

The package states each rule once, in the engine's phase modules (``tarot_env/rules/bolognese/``); the oracles
(batch NumPy, written from the rules text) are here only to catch the engine going wrong:

- the claim windows of the two-player games (§11.3, §12.3, §13, U8, U15/U24, U21, U28)
  against :func:`oracles.tarocchino_claims.duel_claims` / ``quindici_claims``
  (Ottocento's, §8.4, is in ``tests/test_tarocchino_engine.py``);
- the Terziglio auction (§10.3, U12) against :func:`oracles.tarocchino_claims.terziglio_auction`;
- the discards (§5.3, U22: who discards, how many, never a Carta da 5) against
  :mod:`oracles.tarocchino_discards`.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles.tarocchino_claims import duel_claims, quindici_claims, terziglio_auction
from oracles.tarocchino_discards import discard_mask, discard_seats, discard_steps

import tarot_env
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.rules.bolognese.state import (
    A_DI_MIO,
    A_OPPOSE,
    A_PASS,
    A_POSSO,
    A_VA_BENE,
    AB_DISCARD,
    CLAIM_DECL,
    CLAIM_OK,
    CLAIM_VALUE,
    CONTRACT,
    DISCARDS_LEFT,
    PH_AUCTION,
    PH_CLAIM,
    PH_DISCARD,
    PH_PLAY,
    PHASE,
    PICKUP_DECL,
    SOLOIST,
    WINDOW,
)

W_PICKUP, W_AFTER_PICKUP, W_FIRST_TURN = 0, 1, 2  # engine.W_*: the claim windows
TARGETS = {"millone": 1000, "centocinquanta": 150, "quindici": 15}


@pytest.mark.parametrize("game", ["millone", "centocinquanta", "quindici"])
def test_duel_claim_windows_equal_the_batch_statement(game):
    """Every claim window of the two-player games gives the value and verdict of the oracle:
    the dealer before picking up (step 0), the opponent (step 1: Millone's window right after
    the pickup, §11.3; elsewhere his first turn, U21), the dealer at his first turn (step 2,
    U8). ``wrong_claim="loses"`` opens every window whose declaration is worth more than 0, so
    each step is seen. Millone's opponent's first-turn window (U29) has no step in the oracle
    and is passed by."""
    rng = np.random.default_rng(5)
    target = TARGETS[game]
    seen = np.zeros(3, dtype=int)
    for episode in range(150):
        env = tarot_env.make(f"{game}_v0", wrong_claim="loses").unwrapped
        tot = [int(x) for x in rng.integers(0, target, size=2)]
        env.reset(seed=episode, options={"totals": tot})
        while not env.game_over:
            s = env.game_state
            if int(s.ints[0, PHASE]) != PH_CLAIM:
                env.step(int(rng.choice(env.legal_actions())))
                continue
            d, p, window = int(s.dealer[0]), int(s.current[0]), int(s.ints[0, WINDOW])
            if window == W_PICKUP:
                step = 0
            elif p != d:
                if game == "millone" and window == W_FIRST_TURN:  # U29: not a step of the oracle
                    env.step("no_claim")
                    continue
                step = 1
            else:
                step = 2
            dec = s.seat_ints[0, :, CLAIM_DECL][None]
            if game == "quindici":
                claims = quindici_claims(np.array([tot]), np.array([d]), s.ints[0:1, PICKUP_DECL], dec, target=target)
            else:
                claims = duel_claims(np.array([tot]), np.array([d]), s.ints[0:1, PICKUP_DECL], dec, target=target)
            assert int(s.ints[0, CLAIM_VALUE]) == int(claims.value[0, step]), (game, episode, step, claims.value)
            assert bool(s.ints[0, CLAIM_OK]) == bool(claims.allowed[0, step]), (game, episode, step)
            assert int(claims.side[0, step]) == p
            seen[step] += 1
            env.step("no_claim")
    assert np.all(seen > 10), seen


AUCTION_WORDS = {A_PASS: "passo", A_POSSO: "posso", A_DI_MIO: "faccio di mio", A_VA_BENE: "va bene", A_OPPOSE: "faccio di mio"}


def test_terziglio_auction_equals_the_oracle():
    """The soloist and contract the engine's auction ends with are the oracle's for the calls
    made, from the player who spoke first (§10.3, U12), thrown-in deals included."""
    rng = np.random.default_rng(7)
    outcomes = set()
    for episode in range(400):
        env = tarot_env.make("terziglio_v0").unwrapped
        env.reset(seed=episode)
        s = env.game_state
        receiver = int(s.current[0])
        calls = []
        while not env.game_over and int(s.ints[0, PHASE]) == PH_AUCTION:
            a = int(rng.choice(env.legal_actions()))
            calls.append(AUCTION_WORDS[a])
            env.step(a)
            s = env.game_state
        expected = terziglio_auction(calls, receiver)
        got = (int(s.ints[0, SOLOIST]), int(s.ints[0, CONTRACT]))
        assert got == expected, (episode, receiver, calls)
        outcomes.add(expected[1])
    assert outcomes == {0, 1, 2}  # thrown in, su, di mio: each seen


@pytest.mark.parametrize("game", ["ottocento", "quattro_scartate", "terziglio", "millone", "centocinquanta", "quindici", "mattazza"])
def test_discards_equal_the_oracle(game):
    """At every discard decision the legal cards are the oracle's (the hand less the Carte da
    5, §5.3), and the discards made before the first card is played come in the oracle's
    steps: who, how many, in order (Millone: the two discards of 10, U22, then the dealer's 2
    after the second deal, §11.5)."""
    rng = np.random.default_rng(3)
    n_checked = 0
    for episode in range(40):
        env = tarot_env.make(f"{game}_v0").unwrapped
        env.reset(seed=episode)
        n = env.num_players
        runs: list[list[int]] = []  # [seat, count] of each run of discards
        dealer, soloist, played = int(env.game_state.dealer[0]), -1, False
        while not env.game_over:
            s = env.game_state
            phase = int(s.ints[0, PHASE])
            if phase == PH_DISCARD:
                p = int(s.current[0])
                hand = np.zeros((1, NUM_CARDS), dtype=bool)
                hand[0, s.hand(0, p)] = True
                left = int(s.ints[0, DISCARDS_LEFT])
                legal = s.legal[0, AB_DISCARD : AB_DISCARD + NUM_CARDS]
                assert np.array_equal(legal, discard_mask(hand, np.array([left]))[0]), (game, episode, p)
                n_checked += 1
                if runs and runs[-1][0] == p and runs[-1][2] == left + 1:
                    runs[-1][1] += 1
                    runs[-1][2] = left
                else:
                    runs.append([p, 1, left])
                soloist = int(s.ints[0, SOLOIST])
            elif phase == PH_PLAY and not played:
                played = True
                soloist = int(s.ints[0, SOLOIST])
                steps = [st for st in discard_steps(game) if not (st.who == "soloist" and int(s.ints[0, CONTRACT]) != 1)]
                expected = [(int(discard_seats(st, np.array([dealer]), n, np.array([soloist]))[0]), st.count) for st in steps]
                assert [(seat, count) for seat, count, _ in runs] == expected, (game, episode, runs)
            env.step(int(rng.choice(env.legal_actions())))
    assert (n_checked == 0) == (game == "mattazza")  # Mattazza has no discards
