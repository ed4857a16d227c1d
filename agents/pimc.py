"""A search agent: Perfect-Information Monte Carlo (PIMC), and the same search over a learned policy.

For each decision it searches, the agent draws ``samples`` deals consistent with what its seat knows
(:mod:`tarot_env.belief`), tries every legal action in every sampled deal, plays each deal out to the
end of the hand, and compares the results for its seat. This is the method of the strong Skat and
Bridge programs (Ginsberg's GIB; Buro et al., Kermit): it treats each sample as if the cards were
open, which is its known weakness (strategy fusion), and its strength is that it needs no training.

Four choices make an agent of it, each an arena parameter (``pimc:search=...,base=...,rollout=...,others=...``):

- **Who plays the worlds out** (``rollout``). ``rules``, the default: the family's compiled rule-based
  bot at every seat (plain PIMC, its values answer "what if the bot played this deal on"). Any agent
  the arena names that acts on a batch of observations, the table's trained network first
  (``rollout=pretrained``, or ``sb3:<zip>``): the search then improves *that* policy, as Tesauro and
  Galperin's rollouts (NIPS 1996) and Lerer et al.'s SPARTA (AAAI 2020) improve theirs: a search over a
  strong policy improves it, a search over a weak one (the bot) improves the bot.
- **Who plays the other seats in the play-outs** (``others``): by default the rollout policy too.
  ``others=rules`` has the bot play every seat but the searching one: the search then asks "what if I
  played on like the network and the others like the bot". One policy at every seat predicts its
  opponents exactly only when they are that policy, so a search over the network is strongest
  against the network; this models other opponents by the bot, as plain PIMC does.
- **Which decisions it searches** (``search``): ``all`` (the default), or classes joined by ``+``:
  French Tarot ``auction``, ``call``, ``ecart``, ``announce`` (chelem and poignées) and ``play``;
  Tarocchino ``auction``, ``claim``, ``discard``, ``declare``, ``give`` (the Matto exchange) and
  ``play`` (:data:`CLASSES`). ``search=play`` is the card play only.
- **Who takes the decisions it does not search** (``base``): by default the rollout policy
  (``rules`` for plain PIMC); ``pimc:search=auction+ecart,base=pretrained`` is the trained network
  with the search on two classes of decisions (docs/results.md, "where the search's lead is").
  ``base=pimc`` is plain PIMC: ``pimc:rollout=pretrained,search=play,base=pimc`` bids and discards as
  plain PIMC does (bot play-outs) and searches the card play over the network. A searched decision
  then starts from the rollout policy's choice, not from a second search's.

**How a searched decision is decided.**

- Plain PIMC (``rollout=rules``, ``margin=0,z=0``): the action whose mean result over the samples is
  best (ties: the first legal one), as the project's ``pimc`` always did.
- Over a learned policy (any other ``rollout``, or ``margin``/``z`` given): **paired** and **careful**.
  Every candidate is played on the same sampled worlds (and the play-outs are greedy, so the same
  world gives the same line), and is scored by its difference to the base policy's own choice on each
  world, with the standard error of that difference over the worlds. The base's choice is replaced
  only by a candidate whose mean gain exceeds both ``margin`` points and ``z`` standard errors
  (defaults 1 point, 2 s.e.): near-equal cards keep the policy's choice instead of a noisy argmax.
  Candidates clearly worse (mean gain + ``z`` s.e. below 0, after :data:`MIN_PAIRED` worlds) are
  dropped, so later samples are spent on the close ones (successive elimination).
- **Batched.** All ``samples x candidates`` play-outs of a decision are one batch of the game's own
  state arrays: each step of the batch is one rules call and one call of the rollout policy over every
  row still playing (one network forward pass for all of them), never a Python loop per world.
- **Time.** ``time`` seconds a decision at most (default 0.25 for plain PIMC, 1 s over a learned
  policy): a first chunk of 2 samples measures what a sample costs in the position; each later chunk
  (at most ``chunk`` samples) is as many as still fit in 80% of the limit at the highest cost per
  sample seen (the rest is a margin for the machine's swings), and the search stops when none does.
  ``searched`` counts the samples of the last decision; ``last`` holds its paired statistics.
- **Seeing only its seat.** The agent is bound to the env it plays (:meth:`PIMCAgent.bind`; the arena
  and ``tarot play`` do it) and reads the state through the belief sampler only, which reads what the
  seat sees and nothing else; the base's choice is made from the seat's own observation
  (``tests/test_pimc.py`` swaps hidden cards and checks the decisions do not change). This is how
  OpenSpiel's bots search (``resample_from_infostate``).

The arena name is ``pimc``, with parameters: ``pimc:samples=64,time=0.25`` (and ``chunk=8``,
``search=all|play|<class>+<class>``, ``base=<agent>``, ``rollout=<agent>``, ``others=<agent>``, ``margin=<points>``,
``z=<standard errors>``).
"""

from __future__ import annotations

import time as _time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tarot_env.rules.bolognese.state import Phase as TarocchinoPhase
from tarot_env.rules.french.state import Phase as FrenchPhase
from tarot_env.rules.game import take_rows

DEFAULT_SAMPLES = 64
#: seconds a decision: plain PIMC, and a search over a learned policy (its play-outs cost a forward pass a step)
DEFAULT_TIME = 0.25
DEFAULT_TIME_LEARNED = 1.0
#: the samples of a decision's first chunk, which measures what a sample costs
FIRST_CHUNK = 2
#: the share of the time limit the chunks are planned to fill (the rest: the machine's swings)
BUDGET = 0.8
#: over a learned policy: the gain in points and in standard errors a candidate needs to replace the base's choice
DEFAULT_MARGIN = 1.0
DEFAULT_Z = 2.0
#: worlds played before a candidate can be dropped as clearly worse
MIN_PAIRED = 8

#: the classes of decisions the search can be asked to search, by the phase that asks them
FRENCH_CLASSES = {
    FrenchPhase.BID: "auction", FrenchPhase.CALL: "call", FrenchPhase.ECART: "ecart",
    FrenchPhase.CHELEM: "announce", FrenchPhase.POIGNEE: "announce", FrenchPhase.SHOW: "announce", FrenchPhase.PLAY: "play",
}  # fmt: skip
TAROCCHINO_CLASSES = {
    TarocchinoPhase.AUCTION: "auction", TarocchinoPhase.CLAIM: "claim", TarocchinoPhase.DISCARD: "discard",
    TarocchinoPhase.DECLARE: "declare", TarocchinoPhase.PLAY: "play", TarocchinoPhase.GIVE: "give",
}  # fmt: skip
#: the class of each phase that asks a decision, by family (``game.family``)
PHASE_CLASSES = {"french": FRENCH_CLASSES, "tarocchino": TAROCCHINO_CLASSES}
#: the class names of each family, in the order a reader meets them in a deal
CLASSES = {
    "french": ("auction", "call", "ecart", "announce", "play"),
    "tarocchino": ("auction", "discard", "declare", "claim", "give", "play"),
}
#: agents that cannot play out a batch of worlds (they need the env, or fail on a batch)
NOT_ROLLOUTS = ("pimc", "search", "rllib", "random")
#: bases made again at every deal rather than once (a random stream restarts from the seed at each deal)
UNCACHED = ("rules", "random")
#: ``search``, the project's strongest player and its expert reference (docs/search.md): plain PIMC's bids,
#: calls, discards and announcements, and its card play searched over the table's trained network at its
#: own seat and the bot at the others. It beat plain PIMC in duplicate on seeds never used before
#: (docs/results.md §5); ``search:<parameters>`` changes its parameters (``search:time=2``).
SEARCH_SPEC = "pimc:rollout=pretrained,others=rules,search=play,base=pimc"


@dataclass(frozen=True)
class Paired:
    """The paired statistics of a decision searched over a learned policy, per legal action (the order
    of ``np.flatnonzero(mask)``): ``gain`` the mean of (action's result - the base choice's result)
    over the worlds both were played on, ``se`` its standard error, ``worlds`` how many (every action
    is played on the first chunk; one dropped as clearly worse has fewer worlds than the base's).
    ``default`` is the base policy's choice and ``chosen`` the action played (indices into the legal
    actions). These are the labels a network learns from in expert iteration: the gains where they
    are significant, not the argmax."""

    default: int
    chosen: int
    gain: np.ndarray
    se: np.ndarray
    worlds: np.ndarray


class PIMCAgent:
    """Perfect-Information Monte Carlo search, plain or over a learned policy (see the module docstring).

    ``PIMCAgent(samples=64, time=None, chunk=8, seed=0, search="all", base=None, rollout="rules",
    margin=None, z=None, others=None)``; :meth:`bind` it to the AEC env it plays, then
    ``act(observation, mask)`` as any agent. ``time``, ``margin`` and ``z`` left ``None`` take plain
    PIMC's values (0.25 s, 0, 0) when the bot plays every seat of the play-outs and the learned
    policy's (1 s, 1 point, 2 s.e.) otherwise; ``others`` left ``None`` is the rollout policy."""

    name = "pimc"

    def __init__(
        self,
        samples: int = DEFAULT_SAMPLES,
        time: float | None = None,
        chunk: int = 8,
        seed: int | None = 0,
        clock: Callable[[], float] = _time.perf_counter,
        search: str = "all",
        base: str | None = None,
        rollout: str = "rules",
        margin: float | None = None,
        z: float | None = None,
        others: str | None = None,
    ) -> None:
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
            raise ValueError(f"pimc: samples must be a positive int, got {samples!r}")
        others = rollout if others is None else others
        learned = rollout != "rules" or others != "rules"
        time = (DEFAULT_TIME_LEARNED if learned else DEFAULT_TIME) if time is None else time
        if isinstance(time, bool) or not isinstance(time, (int, float)) or not 0 < time < float("inf"):
            raise ValueError(f"pimc: time must be a positive number of seconds, got {time!r}")
        if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
            raise ValueError(f"pimc: chunk must be a positive int, got {chunk!r}")
        classes = _search_classes(search)
        for name, value in (("rollout", rollout), ("others", others), ("base", base)):
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"pimc: {name} must name an agent (rules, pretrained or sb3:<zip>), got {value!r}")
        for name, value in (("rollout", rollout), ("others", others)):
            if value.split(":", 1)[0] in NOT_ROLLOUTS:
                raise ValueError(
                    f"pimc: {name}={value!r} cannot play the sampled worlds out; the play-outs need an agent that acts on a "
                    "batch of observations: rules, pretrained or sb3:<zip>"
                )
        if base is not None and is_search_spec(base):
            _plain_pimc(base, seed)  # refuses anything but plain PIMC (search= included)
        margin = (DEFAULT_MARGIN if learned else 0.0) if margin is None else margin
        z = (DEFAULT_Z if learned else 0.0) if z is None else z
        for name, value in (("margin", margin), ("z", z)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                unit = "points" if name == "margin" else "standard errors"
                raise ValueError(f"pimc: {name} must be a number of {unit} >= 0, got {value!r}")
        self.samples, self.time, self.chunk, self.search = int(samples), float(time), int(chunk), search
        self.classes = classes  # None: every decision
        self.rollout, self.base = rollout, rollout if base is None else base
        self.others = others
        self.margin, self.z = float(margin), float(z)
        self.paired = self.margin > 0 or self.z > 0
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.clock = clock  # seconds; replaceable so that tests check the time limit without timing anything
        self.env: Any = None  # the AEC env it plays (bind), its game and the seat's belief sampler
        self.game: Any = None
        self.belief: Any = None
        self.phase_classes: dict[int, str] = {}  # the class of each phase's decisions
        self.rollout_agent: Any = None
        self.others_agent: Any = None  # who plays the seats but the searching one in the play-outs
        self.base_agent: Any = None
        self.default_agent: Any = None  # whose choice a searched decision starts from: the base, or the rollout policy if the base searches
        self.searched = 0  # samples searched at the last decision
        self.last: Paired | None = None  # the paired statistics of the last decision searched that way
        self.decisions: Counter[str] = Counter()  # decisions searched so far, by class
        self.policies: dict[tuple[str, str, int], Any] = {}  # (spec, env id, players) -> a learned policy made once

    def prepare(self, env_id: str, num_players: int | None = None) -> PIMCAgent:
        """Make the learned policies it plays out or bases on (``rollout``, ``others``, ``base``) for a table
        now: a model is loaded (or a missing one refused) when the agent is made, not at the first deal, and
        :meth:`bind` reuses it for every deal of that table. The room makes its robots in a worker thread
        and binds them at every deal, on its event loop. Returns the agent."""
        from tarot_env.env_facts import facts

        n = facts(env_id).default_players if num_players is None else int(num_players)
        for spec in (self.rollout, self.others, self.base):
            if spec not in UNCACHED and not is_search_spec(spec) and (spec, env_id, n) not in self.policies:
                self.policies[spec, env_id, n] = self._policy(spec, env_id, n)
        return self

    def _policy(self, spec: str, env_id: str, num_players: int) -> Any:
        """A learned (or random) policy the play-outs or the base use, seeded by the agent's seed."""
        from tarot_env.agents.policies import make_policy

        return make_policy(spec, env_id, seed=0 if self.seed is None else self.seed, num_players=num_players)

    def bind(self, env: Any) -> PIMCAgent:
        """Play in ``env`` (a tarot_env AEC env): the agent samples from its state through the belief
        sampler of its seat, and makes its rollout and base agents for the env's table. Returns the agent."""
        env = getattr(env, "unwrapped", env)
        if not hasattr(env, "game_state") or not hasattr(env, "encoder"):
            raise TypeError(f"PIMCAgent.bind needs a tarot_env AEC env (tarot_env.make(...)), got {type(env).__name__}")
        from tarot_env.agents import rule_agent

        from tarot_env import belief

        env_id = env.metadata["name"]
        self.env, self.game, self.belief = env, env.game, belief.family(env)
        self.bot = rule_agent(env_id)
        self.phase_classes = {int(phase): name for phase, name in PHASE_CLASSES[self.game.family].items()}
        if self.classes is not None and (unknown := self.classes - set(CLASSES[self.game.family])):
            raise ValueError(
                f"pimc: search={self.search!r} names {', '.join(sorted(unknown))}, not a decision of {env_id}; "
                f"its classes are {', '.join(CLASSES[self.game.family])} (joined by +), or all"
            )
        self.prepare(env_id, env.num_players)
        self.rollout_agent = self._agent(self.rollout, env)
        self.others_agent = self.rollout_agent if self.others == self.rollout else self._agent(self.others, env)
        self.base_agent = self.rollout_agent if self.base == self.rollout else self._agent(self.base, env)
        # a searching base (base=pimc) would search again only to give the choice the candidates are compared with
        self.default_agent = self.rollout_agent if isinstance(self.base_agent, PIMCAgent) else self.base_agent
        return self

    def _agent(self, spec: str, env: Any) -> Any:
        if spec == "rules":
            return self.bot
        if is_search_spec(spec):  # base=pimc only: plain PIMC takes the decisions not searched
            return _plain_pimc(spec, self.seed).bind(env)
        if spec in UNCACHED:  # made again at every deal, its random stream from the seed (as before the cache)
            return self._policy(spec, env.metadata["name"], env.num_players)
        return self.policies[spec, env.metadata["name"], env.num_players]  # made by prepare

    def reseed(self, seed: Any) -> PIMCAgent:
        """Draw the samples from ``seed`` (anything ``np.random.default_rng`` takes), and a plain PIMC base's
        (``base=pimc``) from a stream of its own derived from it: a labelled deal depends on its seed only,
        not on the deals searched before it. Returns the agent."""
        self.rng = np.random.default_rng(seed)
        if isinstance(self.base_agent, PIMCAgent) and self.base_agent is not self:
            self.base_agent.rng = np.random.default_rng(self.rng.integers(2**63))
        return self

    def searches(self, s: Any) -> bool:
        """Whether the decision waiting at row 0 of ``s`` is of a class the agent searches."""
        return self.classes is None or self.decision_class(s) in self.classes

    def decision_class(self, s: Any) -> str:
        """The class of the decision waiting at row 0 of ``s`` (:data:`PHASE_CLASSES`)."""
        return self.phase_classes[int(s.phase[0])]

    def is_play(self, s: Any) -> bool:
        """Whether row 0 of ``s`` waits for a card to be played."""
        return int(s.phase[0]) == self.game.Phase.PLAY

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.decide(observation, mask)[0]

    def decide(self, observation: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray | None]:
        """The action, and the search's mean value of each legal action (in the order of
        ``np.flatnonzero(mask)``), or None where it did not search (one legal action, or a decision
        of a class it leaves to the base policy). ``experiments/distill.py`` reads the values as soft
        targets; a paired search also leaves its statistics in :attr:`last`."""
        if self.game is None:
            raise RuntimeError("PIMCAgent plays a bound env: call agent.bind(env) first (the arena and `tarot play` do)")
        start = self.clock()
        mask = np.asarray(mask, dtype=bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("an action mask with no legal action was given to PIMCAgent.act")
        s = self.env.game_state.copy()  # the env is not read again: a late move cannot race the table
        self.searched, self.last = 0, None
        if len(legal) == 1:
            return int(legal[0]), None
        if not self.searches(s):
            return _one(self.base_agent.act(observation, mask)), None
        self.decisions[self.decision_class(s)] += 1
        if not self.paired:
            values = self.evaluate(s, legal, start)
            return int(legal[np.argmax(values)]), values
        default = int(np.flatnonzero(legal == _one(self.default_agent.act(observation, mask)))[0])
        values, self.last = self.evaluate_paired(s, legal, default, start)
        return int(legal[self.last.chosen]), values

    def _chunks(self, start: float) -> Any:
        """The sizes of the sample chunks that fit the time limit (see :meth:`evaluate`); the caller
        sends each chunk's seconds back (``gen.send(seconds)``)."""
        budget = self.time * BUDGET
        searched, per_sample = 0, 0.0
        while searched < self.samples:
            k = min(self.chunk, self.samples - searched)
            if searched == 0:
                k = min(k, FIRST_CHUNK)
            else:
                fit = int((budget - (self.clock() - start)) / per_sample) if per_sample > 0 else k
                if fit < 1:
                    return
                k = min(k, fit)
            seconds = yield k
            searched += k
            per_sample = max(per_sample, seconds / k)

    def _search(self, s: Any, start: float, play: Callable[[Any, int], bool]) -> None:
        """Sample chunks within the time limit; ``play(sampled, seat)`` plays each out and says
        whether to go on."""
        seat = int(s.current[0])
        chunks = self._chunks(start)
        k = next(chunks, None)
        while k is not None:
            t0 = self.clock()
            sampled = self.belief.sample(self.game, s, 0, seat, k, self.rng)
            more = play(sampled, seat)
            self.searched += k
            if not more:
                break
            k = _send(chunks, self.clock() - t0)

    def evaluate(self, s: Any, legal: np.ndarray, start: float | None = None) -> np.ndarray:
        """The mean value for the seat to act of each of ``legal`` over the samples searched
        within the time limit (plain PIMC).

        The first chunk is small (:data:`FIRST_CHUNK` samples): it measures what a sample costs
        in this position. Each later chunk is as many samples as still fit (at most ``chunk``) in
        the budget left, :data:`BUDGET` of the limit (the rest is a margin for the machine's
        swings), at the highest cost per sample seen so far; the search stops when not one more
        fits. So only the first, small chunk can run past the limit. ``start``: when the decision
        began (its clock reading), by default now."""
        start = self.clock() if start is None else start
        totals = np.zeros(len(legal))
        self.searched = 0

        def play(sampled: Any, seat: int) -> bool:
            nonlocal totals
            totals = totals + self.play_out(sampled, seat, legal).sum(axis=0)
            return True

        self._search(s, start, play)
        return totals / self.searched

    def evaluate_paired(self, s: Any, legal: np.ndarray, default: int, start: float | None = None) -> tuple[np.ndarray, Paired]:
        """The search over a learned policy: every candidate still alive is played on each chunk's
        worlds beside ``default`` (the base policy's choice, an index into ``legal``); candidates
        clearly worse are dropped after :data:`MIN_PAIRED` worlds; the chunks follow the time limit
        as :meth:`evaluate`'s. Returns the mean value of each legal action over the worlds it was
        played on, and the decision's :class:`Paired` statistics."""
        start = self.clock() if start is None else start
        A = len(legal)
        alive = np.ones(A, dtype=bool)
        sums, squares, worlds, totals = np.zeros(A), np.zeros(A), np.zeros(A, dtype=np.int64), np.zeros(A)
        self.searched = 0

        def stats() -> tuple[np.ndarray, np.ndarray]:
            n = np.maximum(worlds, 1)
            gain = sums / n
            var = np.maximum(squares / n - gain**2, 0.0) * n / np.maximum(n - 1, 1)  # the sample variance
            return gain, np.sqrt(var / n)

        def play(sampled: Any, seat: int) -> bool:
            cands = np.flatnonzero(alive)
            values = self.play_out(sampled, seat, legal[cands])  # (K, C): the same worlds for every candidate
            diff = values - values[:, [int(np.flatnonzero(cands == default)[0])]]
            sums[cands] += diff.sum(axis=0)
            squares[cands] += (diff**2).sum(axis=0)
            totals[cands] += values.sum(axis=0)
            worlds[cands] += len(values)
            gain, se = stats()
            worse = alive & (worlds >= MIN_PAIRED) & (gain + self.z * se < 0)
            worse[default] = False
            alive[worse] = False
            return alive.sum() > 1  # only the base's choice left: nothing to compare

        self._search(s, start, play)
        gain, se = stats()
        gain[default], se[default] = 0.0, 0.0
        better = alive & (gain > self.margin) & (gain > self.z * se)
        better[default] = False
        chosen = int(np.argmax(np.where(better, gain, -np.inf))) if better.any() else default
        values = totals / np.maximum(worlds, 1)
        return values, Paired(default, chosen, gain, se, worlds.copy())

    def play_out(self, sampled: Any, seat: int, legal: np.ndarray) -> np.ndarray:
        """(K, A): the seat's result of each sampled deal after each of the ``legal`` actions, the
        seat then played by the rollout policy and the other seats by ``others`` to the end of the hand
        (one call of each over every row still playing at each step)."""
        game, belief = self.game, self.belief
        K, A = sampled.current.shape[0], len(legal)
        st = take_rows(sampled, np.repeat(np.arange(K), A))  # row k * A + a: sample k, action a
        rows = np.arange(K * A)
        deals = belief.rollout_deals(game, rows)  # the hand in progress ends the play-out (a match's next hand is not dealt)
        game.step(st, np.tile(legal, K), rows, check=False, deals=deals)
        active = rows[~belief.hand_over(st)[rows]]
        while len(active):
            game.step(st, self._moves(st, active, seat), active, check=False, deals=deals)
            active = active[~belief.hand_over(st)[active]]
        return np.asarray(belief.hand_value(game, st, seat), dtype=np.float64).reshape(K, A)

    def _moves(self, st: Any, rows: np.ndarray, seat: int) -> np.ndarray:
        """The play-outs' moves at ``rows``: one call of the rollout policy over them all, or, with
        ``others`` another policy, one call of each over its seats' rows (``seat``'s, the others')."""
        if self.others == self.rollout:
            return self._policy_moves(self.rollout_agent, st, rows)
        moves = np.empty(len(rows), dtype=np.int64)
        mine = st.current[rows] == seat
        for policy, which in ((self.rollout_agent, mine), (self.others_agent, ~mine)):
            if which.any():
                moves[which] = self._policy_moves(policy, st, rows[which])
        return moves

    def _policy_moves(self, policy: Any, st: Any, rows: np.ndarray) -> np.ndarray:
        obs = self.env.encoder.encode(st, rows, st.current[rows])
        return np.asarray(policy.act(obs, st.legal[rows]), dtype=np.int64).reshape(-1)


def _one(action: Any) -> int:
    return int(np.asarray(action).reshape(-1)[0])


def _send(gen: Any, value: float) -> int | None:
    try:
        return gen.send(value)
    except StopIteration:
        return None


def _plain_pimc(spec: str, seed: int | None) -> PIMCAgent:
    """The plain PIMC agent a ``base=pimc`` names (``pimc`` or ``pimc:samples=...``): bot play-outs,
    every decision searched. A base that searched over a learned policy or left decisions to another
    base would nest searches without end or purpose, so it is refused."""
    agent = parse_spec(spec, seed=0 if seed is None else seed)
    if agent.rollout != "rules" or agent.others != "rules" or agent.classes is not None or agent.base != "rules":
        raise ValueError(
            f"pimc: base={spec!r}: a base that searches must be plain PIMC (pimc, or pimc:samples=<int> ...), "
            "without rollout=, others=, search= or base= of its own"
        )
    return agent


def _search_classes(search: Any) -> frozenset[str] | None:
    """The classes ``search`` names (None: every decision), refusing what no family has."""
    known = set(CLASSES["french"]) | set(CLASSES["tarocchino"])
    if not isinstance(search, str) or not search:
        raise ValueError(f"pimc: search must be all, play or decision classes joined by + (as auction+ecart), got {search!r}")
    if search == "all":
        return None
    names = search.split("+")
    if unknown := [n for n in names if n not in known]:
        raise ValueError(
            f"pimc: search={search!r}: {', '.join(map(repr, unknown))} is not a class of decisions; "
            f"French Tarot's are {', '.join(CLASSES['french'])}, Tarocchino's {', '.join(CLASSES['tarocchino'])} (joined by +), or all"
        )
    return frozenset(names)


#: the parameters of the arena name, and how each is read
PARAMETERS: dict[str, Callable[[str], Any]] = {
    "samples": int, "time": float, "chunk": int, "search": str, "base": str, "rollout": str, "margin": float, "z": float,
    "others": str,
}  # fmt: skip


def is_search_spec(spec: object) -> bool:
    """Whether ``spec`` names the search agent: ``pimc[:...]`` or ``search[:...]``."""
    return isinstance(spec, str) and (spec in ("pimc", "search") or spec.startswith(("pimc:", "search:")))


def parse_spec(spec: str, seed: int = 0) -> PIMCAgent:
    """``pimc`` or ``pimc:samples=64,time=0.25[,chunk=8,search=...,base=...,rollout=...,others=...,margin=...,z=...]``
    as an agent (the arena's name); ``search[:<parameters>]`` is :data:`SEARCH_SPEC` with the parameters
    given after it replacing its own."""
    if not is_search_spec(spec):
        raise ValueError(f"not a search agent (pimc or search): {spec!r}")
    name, colon, given = spec.partition(":")
    kwargs = _parameters(SEARCH_SPEC.partition(":")[2], SEARCH_SPEC) if name == "search" else {}
    if colon:
        kwargs.update(_parameters(given, spec))
    try:
        agent = PIMCAgent(seed=seed, **kwargs)
    except ValueError as err:  # "pimc: time must be ...": the name given, as the other refusals of a spec say it
        raise ValueError(f"agent {spec!r}: {str(err).removeprefix('pimc: ')}") from None
    agent.name = name
    return agent


def _parameters(text: str, spec: str) -> dict[str, Any]:
    """The parameters ``key=value,...`` of the search agent named ``spec``, read."""
    kwargs: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or key not in PARAMETERS:
            raise ValueError(
                f"agent {spec!r}: parameters are samples=<int>, time=<seconds>, chunk=<int>, search=all|play|<class>+<class>, "
                "base=<agent>, rollout=<agent>, others=<agent>, margin=<points>, z=<standard errors>, as pimc:samples=64,time=0.25, "
                "pimc:rollout=pretrained or search:time=2"
            )
        try:
            kwargs[key] = PARAMETERS[key](value)
        except ValueError:
            raise ValueError(f"agent {spec!r}: {key}={value!r} is not a number") from None
    return kwargs
