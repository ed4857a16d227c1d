"""The rule-based bots' decisions over a fixed set of seeded deals: the golden file ``tests/data/bot_golden.json``.

Why: the compiled bots (``agents/french_rules.py``, ``agents/tarocchino_rules.py``) were checked
against verbatim copies of the Python bots they were compiled from. A second copy of a bot is
a second place to change; a record of its decisions is not. So the bots' decisions over a fixed
deal set are recorded once (the file was written while the copies still existed, and every
decision then equalled theirs), and the tests require the compiled bots to reproduce them.

What is recorded, per table (an env id and options, or a set of fixed deals): at every step of
seeded play, the bot's answer for every row of the batch (the rows of the random players' turns
included, so that the states are varied: strange bids, discards and leads the bot would not make
itself), hashed with the observations and masks it answered; one short hash per step, so that a
failure names the first step that differs, and the number of decisions. The actions played are
the bot's on its seats and a seeded random legal action elsewhere (drawn here, not by an agent of
``agents/``, so that only the bot's own decisions are under test).

``tests/data/make_bot_golden.py`` writes the file; ``tests/test_french_rules_compiled.py`` and
``tests/test_tarocchino_rules_compiled.py`` replay and compare.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

#: hex digits kept of each step's hash: enough that a changed step cannot pass unnoticed by chance
STEP_HEX = 8


class Tape:
    """The record of one table's play: a hash per step of (observations, masks, the bot's answers),
    the decisions answered and those with a choice, and the kinds of decision met."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.decisions = 0
        self.choices = 0
        self.kinds: set[str] = set()
        self.counts: dict[str, int] = {}

    def add(self, observations: np.ndarray, masks: np.ndarray, actions: np.ndarray) -> None:
        h = hashlib.sha256()
        for a in (observations, masks, np.asarray(actions, dtype=np.int64)):
            h.update(np.ascontiguousarray(a).tobytes())
        self.steps.append(h.hexdigest()[:STEP_HEX])
        self.decisions += len(actions)
        self.choices += int((masks.sum(axis=-1) > 1).sum())

    def count(self, name: str, k: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + k

    def golden(self) -> dict[str, Any]:
        """What the golden file keeps: the step hashes (one string) and the decision count."""
        return {"decisions": self.decisions, "steps": "".join(self.steps)}


def same_start(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Whether a sample (a replay stopped early) is the start of the record."""
    return want["steps"].startswith(got["steps"])


def first_difference(got: dict[str, Any], want: dict[str, Any]) -> str:
    """Where a replay first leaves the golden record."""
    a, b = got["steps"], want["steps"]
    for i in range(0, min(len(a), len(b)), STEP_HEX):
        if a[i : i + STEP_HEX] != b[i : i + STEP_HEX]:
            return f"step {i // STEP_HEX} differs (the bot's answers or the states it was asked about)"
    return f"{len(a) // STEP_HEX} steps and {got['decisions']} decisions, the golden file has {len(b) // STEP_HEX} and {want['decisions']}"


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row (seeded)."""
    return (rng.random(masks.shape) * masks).argmax(axis=-1)


# ---------------------------------------------------------------------------- French Tarot
def french_bot_seats(table: int, n: int) -> np.ndarray:
    """Which seats the bot plays at a table: all, one, all but one, or none (random everywhere)."""
    kind, seat = table % 4, (table // 4) % n
    seats = np.arange(n)
    return [seats >= 0, seats == seat, seats != seat, seats < 0][kind]


def play_french(
    act: Callable[[np.ndarray, np.ndarray], np.ndarray],
    n: int,
    options: dict[str, Any],
    seed: int,
    tables: int,
    deals: int | None = None,
    fixed: list[dict] | None = None,
    bot_discards: bool = False,
    table_offset: int = 0,
    max_steps: int | None = None,
) -> Tape:
    """French Tarot at ``tables`` tables, bot and random players mixed (:func:`french_bot_seats`),
    until ``deals`` deals are played, or each table has played its ``fixed`` deal; every row's
    bot answer at every step taped. ``bot_discards``: the bot makes every écart (the trumps-only
    écarts of strong hands). ``max_steps``: stop there (a sample, compared with the record's first steps)."""
    import tarot_env.vector
    from tarot_env.cards.french import IS_TRUMP
    from tarot_env.rules.french import actions as A

    env = tarot_env.vector.make("french_tarot_v0", num_envs=tables, num_players=n, **options)
    rng = np.random.default_rng(seed)
    plays_bot = np.stack([french_bot_seats(t + table_offset, n) for t in range(tables)])
    out = env.reset(seed=seed, options=None if fixed is None else {"deals": fixed})
    tape, ended = Tape(), np.zeros(tables, dtype=bool)
    played = 0
    while ((played < deals) if fixed is None else not ended.all()) and len(tape.steps) != max_steps:
        masks = out.action_masks
        new = np.asarray(act(out.observations, masks), dtype=np.int64)
        tape.add(out.observations, masks, new)
        legal = masks.sum(axis=1)
        tape.kinds.update(french_decision(int(a)) for a in masks.argmax(axis=1)[legal > 1])
        discards = masks[:, A.DISCARD : A.BID]
        tape.count("trump_discards", int(((legal > 1) & discards.any(axis=1) & ~(discards & ~IS_TRUMP).any(axis=1)).sum()))
        by_bot = plays_bot[np.arange(tables), out.players]
        if bot_discards:
            by_bot |= discards.any(axis=1)
        out = env.step(np.where(by_bot, new, random_legal(rng, masks)))
        played += sum(result == "played" for result in out.infos.get("results", []))
        ended[out.infos["ended"]] = True
    tape.count("played", played)
    return tape


def french_decision(action: int) -> str:
    """The decision an action answers (each decision has its range of ids)."""
    from tarot_env.rules.french import actions as A

    for name, start in (
        ("show", A.SHOW),
        ("poignee", A.POIGNEE),
        ("chelem", A.CHELEM),
        ("call", A.CALL),
        ("bid", A.BID),
        ("discard", A.DISCARD),
    ):
        if action >= start:
            return name
    return "play"


#: French tables: player count, options, deals (the old oracle test's settings)
FRENCH_TABLES = [
    (3, {}),
    (3, {"poignee_trumps": "choose", "chelem_announcement": "before_ecart"}),
    (4, {}),
    (4, {"poignee_trumps": "choose", "excuse_last_trick": "trick_winner"}),
    (5, {}),
    (5, {"poignee_trumps": "choose", "jack_call": "all_queens", "excuse_opening_lead": "lapses"}),
    (5, {"called_suit_only_hand": "excuse_if_held", "chelem_announcement": "before_ecart"}),
]
FRENCH_DEALS, FRENCH_BATCH = 300, 64
#: the options of the strong deals: the poignée's trumps chosen one by one, the chelem before or after the écart
STRONG_OPTIONS = [{"poignee_trumps": "choose"}, {"poignee_trumps": "choose", "chelem_announcement": "before_ecart"}]
STRONG_ROUNDS = 4


def strong_deals(rng: np.random.Generator, n: int, tables: int) -> list[dict]:
    """Deals where one seat (table t: seat t % n) holds many trumps, often the top ones, and some
    kings: the poignées, their trumps shown one by one, chelems and trump-drawing takers that
    random deals seldom give."""
    from tarot_env.cards.french import FRENCH_DECK, NUM_CARDS, PETIT

    hand_size, chien_size = {3: (24, 6), 4: (18, 6), 5: (15, 3)}[n]
    names, trumps = FRENCH_DECK.names, np.arange(PETIT, NUM_CARDS)  # the trumps and the Excuse
    kings = np.arange(4) * 14 + 13
    deals = []
    for t in range(tables):
        k = int(rng.integers(hand_size // 2, min(len(trumps), hand_size) + 1))
        among = trumps[::-1][: k + 2] if t % 2 else trumps  # half the tables: among the highest trumps
        hand = rng.choice(among, k, replace=False).tolist()
        hand += rng.permutation(kings)[: min(int(rng.integers(0, 5)), hand_size - k)].tolist()
        others = rng.permutation([c for c in range(NUM_CARDS) if c not in hand]).tolist()
        hand += [others.pop() for _ in range(hand_size - len(hand))]
        hands = [hand if s == t % n else [others.pop() for _ in range(hand_size)] for s in range(n)]
        assert len(others) == chien_size
        deals.append({"dealer": int(rng.integers(n)), "hands": [[names[c] for c in h] for h in hands], "rest": [names[c] for c in others]})
    return deals


def french_key(n: int, options: dict[str, Any], what: str = "random") -> str:
    return f"french {what} {n}p" + "".join(f" {k}={v}" for k, v in sorted(options.items()))


def french_golden(act: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> dict[str, Tape]:
    """Every French table's tape: random deals under each setting, and strong hands."""
    out: dict[str, Tape] = {}
    for n, options in FRENCH_TABLES:
        out[french_key(n, options)] = play_french(act, n, options, 1000 * n + len(options), FRENCH_BATCH, deals=FRENCH_DEALS)
    for n in (3, 4, 5):
        for r, options in enumerate(STRONG_OPTIONS * STRONG_ROUNDS):
            rng = np.random.default_rng(100 * n + r)
            fixed = strong_deals(rng, n, FRENCH_BATCH)
            out[french_key(n, options, f"strong#{r}")] = play_french(
                act, n, options, r, FRENCH_BATCH, fixed=fixed, bot_discards=True, table_offset=r
            )
    return out


# ---------------------------------------------------------------------------- Tarocchino
#: Tarocchino tables: env id, options, hands to play (the old oracle test's tables: every game,
#: Mattazza with 3 to 6 players, single deals and matches, wrong claims, the Matto given by choice)
TAROCCHINO_TABLES = [
    ("ottocento_v0", {}, 300),
    ("ottocento_v0", {"wrong_claim": "loses", "matto_exchange": "choose"}, 200),
    ("ottocento_v0", {"episode": "match", "target": 1000}, 200),
    ("quattro_scartate_v0", {"matto_exchange": "choose", "episode": "match"}, 250),
    ("terziglio_v0", {}, 250),
    ("terziglio_v0", {"matto_exchange": "choose", "episode": "match"}, 200),
    ("millone_v0", {"wrong_claim": "loses"}, 250),
    ("centocinquanta_v0", {"matto_exchange": "choose", "episode": "match"}, 250),
    ("quindici_v0", {"wrong_claim": "loses", "episode": "match"}, 250),
    ("mattazza_v0", {"num_players": 3, "matto_exchange": "choose"}, 250),
    ("mattazza_v0", {"num_players": 4, "episode": "match"}, 250),
    ("mattazza_v0", {"num_players": 5}, 200),
    ("mattazza_v0", {"num_players": 6, "matto_exchange": "choose", "episode": "match"}, 200),
]
TAROCCHINO_BATCH = 32


def tarocchino_key(env_id: str, options: dict[str, Any]) -> str:
    return f"tarocchino {env_id}" + "".join(f" {k}={v}" for k, v in sorted(options.items()))


def tarocchino_bot_seats(rows: np.ndarray, seats: np.ndarray, n: int) -> np.ndarray:
    """Which rows the bot plays at this step: every seat at a quarter of the tables, the even
    seats, the odd seats, or one seat at the others (random players in the other seats)."""
    kind = rows % 4
    return (kind == 0) | ((kind == 1) & (seats % 2 == 0)) | ((kind == 2) & (seats % 2 == 1)) | ((kind == 3) & (seats == rows % n))


def tarocchino_decision(mask: np.ndarray) -> str:
    """The kind of decision a mask asks for."""
    from tarot_env.cards.bolognese import NUM_CARDS
    from tarot_env.rules.bolognese.state import A_CLAIM, A_DECLARE, A_NO_CLAIM, A_NO_DECLARE, A_OPPOSE, A_PASS, AB_DISCARD, AB_GIVE

    if mask[A_PASS : A_OPPOSE + 1].any():
        return "auction"
    if mask[A_CLAIM] or mask[A_NO_CLAIM]:
        return "claim"
    if mask[A_DECLARE] or mask[A_NO_DECLARE]:
        return "declare"
    if mask[AB_DISCARD : AB_DISCARD + NUM_CARDS].any():
        return "discard"
    if mask[AB_GIVE : AB_GIVE + NUM_CARDS].any():
        return "give"
    return "play"


def play_tarocchino(
    act: Callable[[np.ndarray, np.ndarray], np.ndarray], env_id: str, options: dict[str, Any], hands: int, max_steps: int | None = None
) -> Tape:
    """Full hands of ``env_id`` at :data:`TAROCCHINO_BATCH` tables of the bot and random players;
    every row's bot answer at every step taped. ``max_steps``: stop there (a sample)."""
    import tarot_env.vector

    venv = tarot_env.vector.make(env_id, TAROCCHINO_BATCH, **options)
    rng = np.random.default_rng(len(options) + hands)
    out = venv.reset(seed=hands)
    rows = np.arange(TAROCCHINO_BATCH)
    tape, played = Tape(), 0
    while played < hands and len(tape.steps) != max_steps:
        masks = out.action_masks
        new = np.asarray(act(out.observations, masks), dtype=np.int64)
        tape.add(out.observations, masks, new)
        tape.kinds.update(tarocchino_decision(m) for m in masks[masks.sum(axis=1) > 1])
        mine = tarocchino_bot_seats(rows, out.players, venv.num_players)
        out = venv.step(np.where(mine, new, random_legal(rng, masks)))
        played += len(out.infos["hands"])
    tape.count("played", played)
    return tape


def tarocchino_golden(bot_for: Callable[[str, int | None], Any]) -> dict[str, Tape]:
    """Every Tarocchino table's tape; ``bot_for(env_id, target)`` makes the bot of a table."""
    out: dict[str, Tape] = {}
    for env_id, options, hands in TAROCCHINO_TABLES:
        bot = bot_for(env_id, options.get("target"))
        out[tarocchino_key(env_id, options)] = play_tarocchino(bot.act, env_id, options, hands)
    return out


def tarocchino_states(env_id: str, steps: int, seed: int, **config: Any) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of seeded random play at 16 tables (every kind of decision of the game)."""
    import tarot_env.vector

    venv = tarot_env.vector.make(env_id, 16, **config)
    rng = np.random.default_rng(seed)
    out = venv.reset(seed=seed)
    obs, masks = [], []
    for _ in range(steps):
        obs.append(out.observations)
        masks.append(out.action_masks)
        out = venv.step(random_legal(rng, out.action_masks))
    return np.concatenate(obs), np.concatenate(masks)


#: the tuned bot: the strategy's numbers set on the instance (a tuning script may set them)
TUNED_KNOBS = {
    "DI_MIO": 22.0,
    "POSSO": 12.0,
    "OPPOSE": 15.0,
    "REST": 1.5,
    "POWER": 0.3,
    "NEED_BASE": 1.0,
    "NEED_GROWTH": 10.0,
    "KEEP_WINNERS": 0.5,
}
TUNED_TABLES = [("terziglio_v0", {}), ("mattazza_v0", {"num_players": 4})]


def tuned_golden(bot_for: Callable[[str], Any]) -> dict[str, str]:
    """The tuned bot's answers on seeded random states of each tuned table, as ``a,b,c``."""
    out = {}
    for env_id, config in TUNED_TABLES:
        obs, masks = tarocchino_states(env_id, 40, seed=9, **config)
        bot = bot_for(env_id)
        for name, value in TUNED_KNOBS.items():
            setattr(bot, name, value)
        out[tarocchino_key(env_id, config)] = ",".join(map(str, bot.act(obs, masks).tolist()))
    return out


def strength_hands() -> np.ndarray:
    """300 seeded random hands of 62 card flags, of every size."""
    rng = np.random.default_rng(5)
    return np.stack([rng.random(62) < rng.uniform(0.1, 0.6) for _ in range(300)])


#: a taker's hand and chien with fewer plain cards to discard than the écart takes, by player count
FORCED_ECART = {
    3: ("T1..T19 KS KH KD KC EX", "1S 2S 3S 4S T20 T21"),
    4: ("T1..T16 KS KH", "1S 2S 3S T17 T18 T19"),
    5: ("T1..T13 KS KH", "1S T14 T15"),
}


def play_forced_ecart(act: Callable[[np.ndarray, np.ndarray], int], n: int) -> tuple[list[int], int]:
    """A taker (made to bid a petite, the others to pass) who must put trumps in the écart once his
    plain cards are gone, then the whole deal played by the bot (AEC env): the bot's answer at
    every decision, and how many trumps-only écart decisions there were."""
    from helpers_setup import make_deal

    import tarot_env
    from tarot_env.cards.french import IS_TRUMP
    from tarot_env.rules.french import actions as A

    hand, chien = FORCED_ECART[n]
    env = tarot_env.make("french_tarot_v0", num_players=n)
    env.reset(options={"deal": make_deal(n, dealer=n - 1, fixed={0: hand}, rest=chien)})
    answers, trumps_only = [], 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"].astype(bool)
        new = int(act(o, m))
        answers.append(new)
        discards = m[A.DISCARD : A.BID]
        trumps_only += bool(discards.sum() > 1 and not (discards & ~IS_TRUMP).any())
        if m[A.BID]:  # the bidding: seat 0 takes a petite, the others pass
            new = A.BID + 1 if agent == "player_0" else A.BID
        env.step(new)
    return answers, trumps_only
