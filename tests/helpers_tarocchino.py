"""Helpers for the Tarocchino env tests: fixed deals from partial hands, playing action strings, the
fields of an observation, a driver that plays a deal with a simple policy and logs each decision, a
match log, and the fixed deals several test files share, their numbers worked by hand in the comments.

Conventions of the fixed deals: seats are in play order, the Primo di Mano is dealer + 1, the
dealer's last 2 cards are the last 2 of his list (``make_deal``).
"""

from __future__ import annotations

import numpy as np

import tarot_env
from tarot_env.cards.bolognese import BOLOGNESE_DECK, card
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.deal import deal_destinations
from tarot_env.rules.bolognese.state import DEALER, HAND_OF

ALL_CARDS = list(BOLOGNESE_DECK.names)


def cards(text: str) -> list[str]:
    """'KS QS T5..T9 MAT' -> ['KS', 'QS', 'T5', 'T6', 'T7', 'T8', 'T9', 'MAT'] (ranges of numbered trumps with '..')."""
    out: list[str] = []
    for word in text.split():
        if ".." in word:
            lo, hi = word.split("..")
            out += [f"T{t}" for t in range(int(lo[1:]), int(hi[1:]) + 1)]
        else:
            out.append(word.upper())
    return out


def make_deal(
    game: str, dealer: int, fixed: dict[int, str], rest: str | None = None, num_players: int | None = None, extra: str | None = None
) -> dict:
    """A fixed deal (interface.md §4) for ``game``: the hands of ``fixed`` (seat -> cards) as
    given, ``rest`` if given, the dealer's last 2 cards ``extra`` if given (else the last 2 of
    his list). Every other card fills, in card-id order, the seats with room left (seat order),
    then the rest. Hands in ``fixed`` may be partial; they are filled the same way."""
    dest = deal_destinations(game, num_players)
    n = dest.num_players
    sizes = {(s - dealer - 1) % n: dest.hand_sizes[(s - dealer - 1) % n] for s in range(n)}
    hands = {s: cards(fixed.get(s, "")) for s in range(n)}
    tail = cards(extra) if extra else []
    rest_list = cards(rest) if rest is not None else None
    used = [c for h in hands.values() for c in h] + tail + (rest_list or [])
    assert len(set(used)) == len(used), f"a card is given twice: {sorted(c for c in used if used.count(c) > 1)}"
    free = [c for c in ALL_CARDS if c not in set(used)]
    for s in range(n):
        room = sizes[(s - dealer - 1) % n] - len(hands[s]) - (len(tail) if s == dealer else 0)
        assert room >= 0, f"seat {s} is given too many cards"
        hands[s] += free[:room]
        free = free[room:]
    if tail:
        hands[dealer] += tail
    if rest_list is None:
        rest_list = free
    assert len(rest_list) == dest.rest_size, f"rest has {len(rest_list)} cards, {dest.rest_size} needed"
    return {"dealer": dealer, "hands": [hands[s] for s in range(n)], "rest": rest_list}


def new_env(env_id: str, deal: dict | None = None, seed: int | None = None, totals: list[int] | None = None, **config):
    """An env reset to ``deal`` (and ``totals``); returns the raw env."""
    env = tarot_env.make(env_id, **config)
    options = {}
    if deal is not None:
        options["deal"] = deal
    if totals is not None:
        options["totals"] = totals
    env.reset(seed=seed, options=options)
    return env.unwrapped


def play(env, actions: str | list[str]) -> None:
    """Step the env with action strings: a list, or one string with actions separated by ';'."""
    if isinstance(actions, str):
        actions = [a.strip() for a in actions.split(";") if a.strip()]
    for a in actions:
        env.step(a)


def legal(env) -> list[str]:
    """The legal action strings of the player to act."""
    return [env.action_to_string(a) for a in env.legal_actions()]


def seat(env) -> int:
    """The seat to act."""
    return int(env.agent_selection.split("_")[1])


def random_play(env, rng: np.random.Generator, max_steps: int = 100_000) -> int:
    """Play random legal actions to the end of the episode; returns the number of decisions."""
    k = 0
    while not env.game_over:
        env.step(int(rng.choice(env.legal_actions())))
        k += 1
        assert k < max_steps
    return k


def card_id(name: str) -> int:
    return card(name)


# ====================================================================== observations, drivers
def field(env, viewer: int, name: str) -> np.ndarray:
    """One field of ``viewer``'s observation (tarot_env.encoding.bolognese.layout)."""
    f = {x.name: x for x in layout(env.num_players)}[name]
    return env.observe(f"player_{viewer}")["observation"][f.offset : f.offset + f.length]


def binary(v) -> int:
    """A little-endian bit field as an int."""
    return int(sum(int(b) << i for i, b in enumerate(v)))


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
