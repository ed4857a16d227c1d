"""A search agent: Perfect-Information Monte Carlo (PIMC), the expert reference of trick-taking games.

For each card to play, the agent draws ``samples`` deals consistent with what its seat knows
(:mod:`tarot_env.belief`), tries every legal card in every sampled deal, plays each deal out to the
end of the hand with the family's compiled rule-based bot at every seat, and plays the card whose
mean result for its seat is best. This is the method of the strong Skat and Bridge programs (Ginsberg's
GIB; Buro et al., Kermit): it treats each sample as if the cards were open, which is its known
weakness (strategy fusion), and its strength is that it needs no training.

- **Where the search runs.** All ``samples x legal cards`` play-outs of a decision are one batch of
  the game's own state arrays: each step of the batch is one compiled bot call and one compiled rules
  call over every row (the vector engine's design), not a Python loop per deal.
- **What it decides by search.** Every decision by default (``search="all"``): bids, the call,
  each card of the écart or a discard, announcements, declarations, claims and the card play are
  each tried in every sample and played out. ``search="play"`` searches the card play only and
  takes the other decisions from the rule-based bot. A decision with one legal action is taken at
  once. (Searching the bidding too is what makes it strong in French Tarot: over 300 deals of
  4 players with 16 samples, +23.4 points a deal against the bot, against +5.5 searching the play
  only; docs/results.md.)
- **Time.** ``time`` seconds a decision at most (default 0.25): a first chunk of 2 samples measures
  what a sample costs in the position; each later chunk (at most ``chunk`` samples) is as many as
  still fit in 80% of the limit at the highest cost per sample seen (the rest is a margin for the
  machine's swings), and the search stops when none does. A slow machine or a hard
  position searches fewer samples instead of running late. ``searched`` counts the samples of the
  last decision.
- **Seeing only its seat.** The agent is bound to the env it plays (:meth:`PIMCAgent.bind`; the arena
  and ``tarot play`` do it) and reads the state through the belief sampler only, which reads what the
  seat sees and nothing else (``tests/test_belief.py`` swaps hidden cards and checks the samples do
  not change). This is how OpenSpiel's bots search (``resample_from_infostate``).

The arena name is ``pimc``, with parameters: ``pimc:samples=64,time=0.25`` (and ``chunk=8``,
``search=all|play``).
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable
from typing import Any

import numpy as np

from tarot_env.tables import ENVS

DEFAULT_SAMPLES = 64
DEFAULT_TIME = 0.25
#: the samples of a decision's first chunk, which measures what a sample costs
FIRST_CHUNK = 2
#: the share of the time limit the chunks are planned to fill (the rest: the machine's swings)
BUDGET = 0.8


class _French:
    """The French Tarot side of the search: sampling, play-outs and the value of a deal."""

    def __init__(self, env: Any) -> None:
        from tarot_env.agents.french_rules import FrenchRuleAgent

        from tarot_env.belief import french
        from tarot_env.rules.french.state import FrenchTarotState, Phase

        self.env, self.game, self.encoder = env, env.game, env.encoder
        self.bot, self.belief, self.state_cls, self.phase = FrenchRuleAgent(), french, FrenchTarotState, Phase

    def is_play(self, s: Any) -> bool:
        return int(s.phase[0]) == self.phase.PLAY

    def step(self, st: Any, actions: np.ndarray, rows: np.ndarray) -> None:
        self.game.step(st, actions, rows, check=False)

    def repeat(self, st: Any, times: int) -> Any:
        return self.state_cls._from_blocks({k: np.repeat(b, times, axis=0) for k, b in st.blocks.items()})

    def active(self, st: Any, rows: np.ndarray) -> np.ndarray:
        return rows[st.phase[rows] != self.phase.DONE]

    def values(self, st: Any, seat: int) -> np.ndarray:
        return st.scores[:, seat].astype(np.float64)


class _Tarocchino:
    """The Tarocchino side: the hand in progress is played out; its value is the arena's score."""

    def __init__(self, env: Any, env_id: str) -> None:
        from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

        from tarot_env.belief import tarocchino
        from tarot_env.rules.bolognese.state import TarocchinoState

        self.env, self.game, self.encoder = env, env.game, env.encoder
        self.bot, self.belief, self.state_cls = TarocchinoRuleAgent(env_id), tarocchino, TarocchinoState

    def is_play(self, s: Any) -> bool:
        return self.belief.is_play_decision(s, 0)

    def step(self, st: Any, actions: np.ndarray, rows: np.ndarray) -> None:
        # a match's hand ends the play-out: no next hand is dealt (belief.tarocchino.hand_end_deals)
        deals = self.belief.hand_end_deals(rows) if self.game.config.match else None
        self.game.step(st, rows, actions, deals=deals)

    def repeat(self, st: Any, times: int) -> Any:
        return self.state_cls(*(np.repeat(b, times, axis=0) for b in st.blocks))

    def active(self, st: Any, rows: np.ndarray) -> np.ndarray:
        return rows[~self.belief.hand_over(st)[rows]]

    def values(self, st: Any, seat: int) -> np.ndarray:
        return np.asarray(self.belief.hand_value(self.game, st, seat), dtype=np.float64)


class PIMCAgent:
    """Perfect-Information Monte Carlo search (see the module docstring).

    ``PIMCAgent(samples=64, time=0.25, chunk=8, seed=0, search="all")``; :meth:`bind` it to the AEC env it plays,
    then ``act(observation, mask)`` as any agent."""

    name = "pimc"

    def __init__(
        self,
        samples: int = DEFAULT_SAMPLES,
        time: float = DEFAULT_TIME,
        chunk: int = 8,
        seed: int | None = 0,
        clock: Callable[[], float] = _time.perf_counter,
        search: str = "all",
    ) -> None:
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise ValueError(f"pimc: samples must be a positive int, got {samples!r}")
        if isinstance(time, bool) or not isinstance(time, (int, float)) or not time > 0:
            raise ValueError(f"pimc: time must be a positive number of seconds, got {time!r}")
        if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
            raise ValueError(f"pimc: chunk must be a positive int, got {chunk!r}")
        if search not in ("play", "all"):
            raise ValueError(f"pimc: search must be 'play' (the card play) or 'all' (every decision), got {search!r}")
        self.samples, self.time, self.chunk, self.search = int(samples), float(time), int(chunk), search
        self.rng = np.random.default_rng(seed)
        self.clock = clock  # seconds; replaceable so that tests check the time limit without timing anything
        self.family: Any = None
        self.searched = 0  # samples searched at the last decision

    def bind(self, env: Any) -> PIMCAgent:
        """Play in ``env`` (a tarot_env AEC env): the agent samples from its state through the belief
        sampler of its seat. Returns the agent."""
        env = getattr(env, "unwrapped", env)
        if not hasattr(env, "game_state") or not hasattr(env, "encoder"):
            raise TypeError(f"PIMCAgent.bind needs a tarot_env AEC env (tarot_env.make(...)), got {type(env).__name__}")
        env_id = env.metadata["name"]
        row = ENVS.get(env_id)  # a variant's own env id (a GameSpec row of its own) is a Tarocchino game
        self.family = _French(env) if row is not None and row.french else _Tarocchino(env, env_id)
        return self

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.decide(observation, mask)[0]

    def decide(self, observation: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray | None]:
        """The action, and the search's mean value of each legal action (in the order of
        ``np.flatnonzero(mask)``), or None where it did not search (one legal action, or a decision
        it leaves to the rule-based bot). ``experiments/distill.py`` reads the values as soft targets."""
        if self.family is None:
            raise RuntimeError("PIMCAgent plays a bound env: call agent.bind(env) first (the arena and `tarot play` do)")
        start = self.clock()
        mask = np.asarray(mask, dtype=bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("an action mask with no legal action was given to PIMCAgent.act")
        f = self.family
        s = f.env.game_state.copy()  # the env is not read again: a late move cannot race the table
        if len(legal) == 1 or not (self.search == "all" or f.is_play(s)):
            self.searched = 0
            return (int(legal[0]) if len(legal) == 1 else int(f.bot.act(observation, mask))), None
        values = self.evaluate(s, legal, start)
        return int(legal[np.argmax(values)]), values

    def evaluate(self, s: Any, legal: np.ndarray, start: float | None = None) -> np.ndarray:
        """The mean value for the seat to act of each of ``legal`` over the samples searched
        within the time limit.

        The first chunk is small (:data:`FIRST_CHUNK` samples): it measures what a sample costs
        in this position. Each later chunk is as many samples as still fit (at most ``chunk``) in
        the budget left, :data:`BUDGET` of the limit (the rest is a margin for the machine's
        swings), at the highest cost per sample seen so far; the search stops when not one more
        fits. So only the first, small chunk can run past the limit. ``start``: when the decision
        began (its clock reading), by default now."""
        f = self.family
        seat = int(s.current[0])
        start = self.clock() if start is None else start
        budget = self.time * BUDGET
        totals, searched, per_sample = np.zeros(len(legal)), 0, 0.0
        while searched < self.samples:
            k = min(self.chunk, self.samples - searched)
            if searched == 0:
                k = min(k, FIRST_CHUNK)
            else:
                fit = int((budget - (self.clock() - start)) / per_sample) if per_sample > 0 else k
                if fit < 1:
                    break
                k = min(k, fit)
            t0 = self.clock()
            sampled = f.belief.sample(f.game, s, 0, seat, k, self.rng)
            totals += self.play_out(sampled, seat, legal).sum(axis=0)
            searched += k
            per_sample = max(per_sample, (self.clock() - t0) / k)
        self.searched = searched
        return totals / searched

    def play_out(self, sampled: Any, seat: int, legal: np.ndarray) -> np.ndarray:
        """(K, A): the seat's result of each sampled deal after each legal action, every seat then
        played by the rule-based bot to the end of the hand."""
        f = self.family
        K, A = sampled.current.shape[0], len(legal)
        st = f.repeat(sampled, A)  # row k * A + a: sample k, action a
        rows = np.arange(K * A)
        f.step(st, np.tile(legal, K), rows)
        active = f.active(st, rows)
        while len(active):
            obs = f.encoder.encode(st, active, st.current[active])
            f.step(st, np.asarray(f.bot.act(obs, st.legal[active]), dtype=np.int64), active)
            active = f.active(st, active)
        return f.values(st, seat).reshape(K, A)


def parse_spec(spec: str, seed: int = 0) -> PIMCAgent:
    """``pimc`` or ``pimc:samples=64,time=0.25[,chunk=8]`` as an agent (the arena's name)."""
    if spec == "pimc":
        return PIMCAgent(seed=seed)
    if not spec.startswith("pimc:"):
        raise ValueError(f"not a pimc agent: {spec!r}")
    kwargs: dict[str, Any] = {}
    for item in spec[5:].split(","):
        key, sep, value = item.partition("=")
        if not sep or key not in ("samples", "time", "chunk", "search"):
            raise ValueError(
                f"agent {spec!r}: parameters are samples=<int>, time=<seconds>, chunk=<int>, search=all|play, as pimc:samples=64,time=0.25"
            )
        try:
            kwargs[key] = float(value) if key == "time" else value if key == "search" else int(value)
        except ValueError:
            raise ValueError(f"agent {spec!r}: {key}={value!r} is not a number") from None
    return PIMCAgent(seed=seed, **kwargs)
