"""MaskablePPO self-play training for any tarot_env game.

    python -m tarot_env.experiments.train --env french_tarot_v0 --players 4 --timesteps 200000 --out runs/french4

The learner plays one seat at every table of a :class:`~tarot_env.wrappers.TarotVecEnv` (the seat
rotates deal by deal). Its opponents are drawn from a pool: the uniform random agent, the game
family's rule-based bot and frozen snapshots of the learner itself (one is added every
``snapshot_every`` steps, the latest ``max_snapshots`` kept). Each opponent place is drawn anew
at the start of every rollout, with the pool weights of :class:`TrainConfig`.

Written to ``out``: ``config.json`` (every field of the run), checkpoints ``model_<steps>.zip``
and ``model_final.zip``, TensorBoard logs (``tb/``), ``log.csv`` (steps, mean episode reward, mean
score per deal against random opponents and against the rule-based bot, and where the time went)
and ``learning_curve.png``. ``train(config)`` is the Python API; every field of ``TrainConfig`` is
a command-line flag (``--n-steps 256``, ``--net-arch 128,128``, ``--option shaping=true``,
``--pool-weights random=1,rules=1,snapshot=2``).

    python -m tarot_env.experiments.train --config runs/french4/config.json --out runs/again   # repeat a run
    python -m tarot_env.experiments.train --resume runs/french4                               # go on after an interruption
    python -m tarot_env.experiments.train --resume runs/french4 --timesteps 2000000           # ... and train longer

``--config FILE`` starts from a run's ``config.json`` (flags given beside it override its fields).
``--resume DIR`` continues the run in ``DIR`` from its last checkpoint: the model with its optimizer
state, the log rows up to that step, and the opponents' snapshots from the checkpoints at the
snapshot steps. A resumed run is reproducible from the same checkpoint, but not step for step the
run that was interrupted (the opponents' draws and the deals are re-seeded from the checkpoint's step).

``--critic-oracle`` gives the learner an asymmetric critic (PerfectDou, NeurIPS 2022; Baisero & Amato,
AAMAS 2022): the value head reads the observation followed by the hidden cards (the env's oracle,
``TarotVecEnv(critic_oracle=True)``), through a trunk of its own; the policy's trunk reads the
observation alone, so the policy never sees a hidden card, and what is saved plays any seat from the
observation as any other model (opponents, snapshots, evaluations and the arena give it no oracle). The
value only serves the training: knowing the cards, it takes their luck out of the advantages. The warm
start fits that critic on the oracle too. It needs the shared network (``--network shared``, the default).

    python -m tarot_env.experiments.train --players 4 --critic-oracle --out runs/french4_oracle

Where the time goes is measured and logged (``log.csv``, and a line at the end): the env's steps,
the opponents' decisions, the learner's own forward passes and rollout bookkeeping, the PPO update,
the evaluations and the checkpoints. Learner steps per second count the training itself (rollouts
and updates), not the evaluations.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tarot_env.agents import rule_agent


@dataclass
class TrainConfig:
    """Everything a run depends on (the command line overrides any field)."""

    env_id: str = "french_tarot_v0"
    num_players: int | None = None  # None: the game's default
    options: dict[str, Any] = field(default_factory=dict)  # other env options (shaping, rules options...)
    reward: str = "normalised"  # the env's reward mode for training
    # 1,024 tables stepped together: the env, the opponents and the learner's forward pass each pay their
    # per-call cost once for 1,024 decisions (1.2x the learner steps/s of 512 tables, which were 1.2-1.5x
    # 256; measured, docs/performance.md). A table waits at each step for the longest opponent sequence
    # among all of them (a taker's discards: ~10 opponent calls a step), which more tables share
    num_envs: int = 1024
    timesteps: int = 200_000
    # PPO
    n_steps: int = 16  # per table and rollout: a rollout is n_steps * num_envs steps (16,384)
    batch_size: int = 4096  # large minibatches: the update's cost per sample falls about 30% from 1,024
    n_epochs: int = 1  # one pass over a rollout: learns as well per minute as two (and two as four), at 1.3x the pace (docs/performance.md)
    learning_rate: float = 1e-4  # small steps: PPO refines the cloned policy rather than relearning it
    gamma: float = 1.0  # a deal is short and only its score counts
    gae_lambda: float = 0.95
    ent_coef: float = 0.001
    clip_range: float = 0.1
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    # "shared": one trunk (net_arch) under a linear policy head and a linear value head, with the masked
    # softmax computed directly (agents/sb3_policy.SharedTrunk, MaskedSoftmaxPolicy); "separate": a
    # net_arch copy for the policy and one for the value, sb3-contrib's MlpPolicy (what the learner's
    # speed is compared with, experiments/learner_speed.py). The shared one updates about 3x faster
    # and learns as well (docs/performance.md)
    network: str = "shared"
    # the first hidden layer in bfloat16 (agents/sb3_policy.BFloat16FirstLayer): a third faster updates
    # on processors with bfloat16 instructions; --no-bf16-first-layer elsewhere, or for plain float32
    bf16_first_layer: bool = True
    # an asymmetric critic (PerfectDou, NeurIPS 2022; Baisero & Amato, AAMAS 2022): the value head also reads
    # the hidden cards (the env's oracle: every hand, the chien...), the policy never does. A value that knows
    # the cards explains much of a deal's score, so the advantages keep less of the cards' luck and the policy
    # gradient is less noisy; the policy still plays from the observation alone (the value only trains it).
    # The critic has a trunk of its own over observation and oracle (agents/sb3_policy.OracleCriticPolicy):
    # needs network="shared" ("separate" is refused)
    critic_oracle: bool = False
    # warm start (experiments/imitation.py): clone the rule-based bot's decisions in bc_deals deals first
    bc_deals: int = 10_000  # 0: PPO from scratch
    bc_epochs: int = 4
    bc_learning_rate: float = 1e-3
    # opponents
    # the rule-based bot is the opponent to beat; random players teach habits that do not pay against it
    pool_weights: dict[str, float] = field(default_factory=lambda: {"random": 0.0, "rules": 3.0, "snapshot": 1.0})
    max_snapshots: int = 5
    snapshot_every: int = 50_000
    # logging and checkpoints
    eval_every: int = 50_000
    eval_episodes: int = 100  # deals per opponent kind at each evaluation
    checkpoint_every: int = 50_000
    seed: int = 0
    out: str = "runs/train"
    progress_bar: bool = True
    # threads of torch (the updates, the opponents' snapshots) and of the vector env's kernels; None:
    # torch takes the cores the env leaves (tarot_env._threads.thread_plan). Together they should not
    # exceed the cores: two torch threads beside a busy env on a 2-core machine ran 5x slower than one
    torch_threads: int | None = 1
    env_threads: int | None = 1
    # torch's threads during the PPO update, when the env waits: None, every core (the update is
    # matrix products over 4,096-sample minibatches, which two threads ran about twice as fast as one)
    update_threads: int | None = None


# ---------------------------------------------------------------------- opponents


class OpponentPool:
    """Random, rules and frozen snapshots of the learner; ``draw(k)`` gives ``k`` opponents by weight."""

    def __init__(self, env_id: str, weights: dict[str, float], max_snapshots: int, seed: int = 0) -> None:
        from tarot_env.agents.random_agent import RandomAgent

        unknown = set(weights) - {"random", "rules", "snapshot"}
        if unknown:
            raise ValueError(f"unknown pool entries {sorted(unknown)}: use random, rules, snapshot")
        self.fixed = {"random": RandomAgent(seed), "rules": rule_agent(env_id)}
        self.weights = weights
        self.max_snapshots = max_snapshots
        self.snapshots: list[Any] = []  # (steps, agent)
        self.rng = np.random.default_rng(seed)
        self.last_draw: list[str] = []

    def add_snapshot(self, model: Any, steps: int) -> None:
        from tarot_env.agents.sb3_policy import snapshot

        self.snapshots.append((steps, snapshot(model)))
        del self.snapshots[: -self.max_snapshots]

    def draw(self, k: int) -> list[Any]:
        kinds = [kind for kind, w in self.weights.items() if w > 0 and (kind != "snapshot" or self.snapshots)]
        if not kinds:
            raise ValueError("the opponent pool is empty: give random or rules a positive weight")
        p = np.array([self.weights[kind] for kind in kinds], dtype=float)
        chosen = self.rng.choice(kinds, size=k, p=p / p.sum())
        agents, names = [], []
        for kind in chosen:
            if kind == "snapshot":
                steps, agent = self.snapshots[self.rng.integers(len(self.snapshots))]
                names.append(f"snapshot@{steps}")
            else:
                agent = self.fixed[kind]
                names.append(str(kind))
            agents.append(agent)
        self.last_draw = names
        return agents


# ---------------------------------------------------------------------- evaluation


def env_options(config: TrainConfig) -> dict[str, Any]:
    options = dict(config.options)
    if config.num_players is not None:
        options["num_players"] = config.num_players
    return options


def rules_options(config: TrainConfig) -> dict[str, Any]:
    """The env options without the training reward's (evaluations and demonstrations score deals plainly)."""
    return {k: v for k, v in env_options(config).items() if k not in ("reward", "shaping")}


def evaluate(model: Any, config: TrainConfig, opponent: Any, deals: int, seed: int = 1, deterministic: bool = True) -> float:
    """The learner's mean score per deal (the env's ``score`` reward) against ``opponent`` at every other seat."""
    return evaluate_ci(model, config, opponent, deals, seed, deterministic)[0]


def evaluate_ci(
    model: Any,
    config: TrainConfig,
    opponent: Any,
    deals: int,
    seed: int = 1,
    deterministic: bool = True,
    baseline: np.ndarray | None = None,
) -> tuple[float, float]:
    """The learner's mean score per deal against ``opponent`` at every other seat, and the half-width
    of its 95% normal interval over the deals.

    ``deals`` tables each play one deal (seats rotating over the tables), so that no kind of deal is
    over-represented by finishing sooner. The same ``seed`` gives the same deals at every
    evaluation of a run, so that its points differ by the policy, not by the cards.

    ``baseline`` (:func:`baseline_scores`: what ``opponent`` itself scores in the learner's seat of
    the same deals): the mean and interval are those of the learner's score minus it, deal by deal,
    as a duplicate match counts. The mean estimates the same margin (the opponent against itself
    scores 0 on average) without the luck of the seat's cards in the evaluation's deals; the
    interval is only a little narrower (French Tarot, 4 players, 1,000 deals: about 10%), since a
    learner that bids otherwise than the bot plays another deal (the arena's full duplicate, every
    seat alternating, is the narrow one).
    """
    scores = learner_scores(model, config, opponent, deals, seed, deterministic)
    return mean_half(scores if baseline is None else scores - baseline)


def mean_half(scores: np.ndarray) -> tuple[float, float]:
    """The mean and the half-width of its 95% normal interval (one value a deal)."""
    n = len(scores)
    half = 1.959963984540054 * float(scores.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return float(scores.mean()), half


def learner_scores(model: Any, config: TrainConfig, opponent: Any, deals: int, seed: int = 1, deterministic: bool = True) -> np.ndarray:
    """The learner's score in each of :func:`evaluate_ci`'s deals.

    The model plays as an :class:`~tarot_env.agents.sb3_policy.SB3PolicyAgent`: its actor's logits on
    the observations alone, which every model takes (a model with an oracle critic trained on wider
    observations, which ``model.predict`` would refuse). The greedy actions are ``model.predict``'s."""
    from tarot_env.agents.sb3_policy import SB3PolicyAgent

    agent = SB3PolicyAgent(model, deterministic=deterministic)
    return _eval_scores(lambda obs, masks: np.asarray(agent.act(obs, masks)), config, opponent, deals, seed)


def baseline_scores(config: TrainConfig, opponent: Any, deals: int, seed: int = 1) -> np.ndarray:
    """What ``opponent`` scores in the learner's seat of :func:`evaluate_ci`'s deals (the same ``seed``)
    when it plays that seat too: the reference its duplicate margins are counted from."""
    return _eval_scores(lambda obs, masks: np.asarray(opponent.act(obs, masks)), config, opponent, deals, seed)


def _eval_scores(act: Any, config: TrainConfig, opponent: Any, deals: int, seed: int) -> np.ndarray:
    """The learner's score (``act(observations, masks) -> actions``) in the first deal of each of ``deals`` tables."""
    from tarot_env.wrappers import TarotVecEnv

    options = rules_options(config)
    venv = TarotVecEnv(deals, env_id=config.env_id, seat="rotate", opponents=opponent, reward="score", **options)
    venv.seed(seed)
    obs = venv.reset()
    scores = np.full(deals, np.nan)
    earned = np.zeros(deals)  # the learner's rewards so far in each table's deal
    while np.isnan(scores).any():
        actions = act(obs, venv.action_masks())
        obs, rewards, dones, _ = venv.step(actions)
        earned += rewards
        for t in np.flatnonzero(dones):
            if np.isnan(scores[t]):
                # the sum of the learner's rewards over the deal: his score as the arena counts it (the
                # env's reward="score": in partnership games his side's points minus the other side's).
                # infos["scores"] holds the players' points, which in Tarocchino games are not that margin
                scores[t] = earned[t]
        earned[dones] = 0.0
    return scores


# ---------------------------------------------------------------------- the callback


#: where the training time goes, in the order of the breakdown (seconds, cumulative over the run)
TIMINGS = ("env", "opponents", "learner", "update", "evaluation", "checkpoints")


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` above ``steps``: when a periodic task is next due."""
    return (steps // every + 1) * every if every > 0 else 0


class TrainingClock:
    """Where the training time goes (:data:`TIMINGS`, seconds cumulative over the run, a resumed
    run's picked up from its log). A rollout's time is split into the env's steps and the
    opponents' decisions (the vector env's own counters, ``venv.seconds``) and the learner's share,
    the rest; the update runs from the end of one rollout to the start of the next; evaluations and
    checkpoints (:meth:`timed`) are kept out of the rollout they are made in."""

    def __init__(self, venv: Any, earlier: dict[str, float]) -> None:
        self.venv = venv
        self.seconds = {k: float(earlier.get(f"seconds_{k}", 0.0)) for k in TIMINGS}
        self.start = time.perf_counter() - float(earlier.get("seconds", 0.0))
        self._rollout_start: float | None = None
        self._update_start: float | None = None
        self._inside = 0.0  # evaluation and checkpoint seconds within the current rollout
        self._venv_at = dict(venv.seconds)

    def rollout_starts(self) -> None:
        """A rollout starts: the update before it (if any) ends."""
        now = time.perf_counter()
        if self._update_start is not None:
            self.seconds["update"] += now - self._update_start
        self._rollout_start, self._inside = now, 0.0
        self._venv_at = dict(self.venv.seconds)

    def rollout_ends(self) -> None:
        """A rollout ends, and the update starts."""
        now = time.perf_counter()
        env = self.venv.seconds["env"] - self._venv_at["env"]
        opponents = self.venv.seconds["opponents"] - self._venv_at["opponents"]
        self.seconds["env"] += env
        self.seconds["opponents"] += opponents
        self.seconds["learner"] += max(0.0, now - self._rollout_start - self._inside - env - opponents)
        self._update_start = now

    def training_ends(self) -> None:
        """The last update ends."""
        if self._update_start is not None:
            self.seconds["update"] += time.perf_counter() - self._update_start
            self._update_start = None

    @contextlib.contextmanager
    def timed(self, key: str) -> Iterator[None]:
        """``with clock.timed(key):`` adds the block's seconds to ``key``, and keeps them out of the
        rollout's own time (an evaluation or a checkpoint made during a rollout is not the learner's)."""
        begin = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - begin
            self.seconds[key] += spent
            if self._rollout_start is not None:
                self._inside += spent

    def elapsed(self) -> float:
        """Seconds since the run started (a resumed run's earlier seconds included)."""
        return time.perf_counter() - self.start

    def training_seconds(self) -> float:
        """Rollouts and updates: the time the learner's steps per second count."""
        return sum(self.seconds[k] for k in ("env", "opponents", "learner", "update"))

    def breakdown(self, steps: int) -> str:
        """Where the time went, in words: the line printed at the end of a run of ``steps`` steps."""
        total = self.training_seconds()
        parts = ", ".join(f"{k} {self.seconds[k]:.0f} s ({self.seconds[k] / total:.0%})" for k in ("env", "opponents", "learner", "update"))
        rate = steps / total if total else float("nan")
        return (
            f"{rate:,.0f} learner steps/s ({steps:,} steps in {total:.0f} s of training: {parts}); "
            f"besides: evaluations {self.seconds['evaluation']:.0f} s, checkpoints and snapshots {self.seconds['checkpoints']:.0f} s"
        )


class SelfPlay:
    """The self-play callback: re-draws the opponents at each rollout; snapshots, checkpoints and
    evaluates at intervals, each evaluation a row of ``log.csv``; its :class:`TrainingClock`
    measures where the time goes.

    Its methods are stable_baselines3's callback hooks, and it reads what SB3's ``BaseCallback``
    holds (``model``, ``num_timesteps``, ``logger``): :func:`make_callback` makes it one, so that
    this module imports without SB3 (``tarot train --script-help``, :func:`read_csv`)."""

    model: Any  # the three set by SB3's BaseCallback
    num_timesteps: int
    logger: Any

    def __init__(
        self,
        config: TrainConfig,
        venv: Any,
        pool: OpponentPool,
        out: Path,
        rows: list[dict[str, float]] | None = None,
        steps: int = 0,
        threads: tuple[int, int] | None = None,
    ) -> None:
        super().__init__()
        self.config, self.venv, self.pool, self.out, self.threads = config, venv, pool, out, threads
        self.next_snapshot = next_multiple(steps, config.snapshot_every)
        self.next_eval = next_multiple(steps, config.eval_every)
        self.next_checkpoint = next_multiple(steps, config.checkpoint_every)
        self.rows: list[dict[str, float]] = list(rows or [])
        self.clock = TrainingClock(venv, self.rows[-1] if self.rows else {})
        self.baseline: np.ndarray | None = None  # the bot's scores in the learner's seat of the evaluation's deals

    def _on_training_start(self) -> None:
        if self.config.bc_deals > 0 and self.config.eval_every > 0 and not self.rows:
            self.log_row()  # step 0: the cloned policy, before PPO

    def _on_rollout_start(self) -> None:
        self.clock.rollout_starts()
        self._set_torch_threads(updating=False)  # the rollout: torch beside the env's threads
        self.venv.set_opponents(self.pool.draw(self.venv.num_players - 1))  # every table is at the learner's turn here

    def _on_rollout_end(self) -> None:
        self.clock.rollout_ends()
        self._set_torch_threads(updating=True)  # the update: the env waits, torch takes the cores

    def _on_training_end(self) -> None:
        self.clock.training_ends()

    def _on_step(self) -> bool:
        config, steps = self.config, self.num_timesteps
        if config.snapshot_every > 0 and steps >= self.next_snapshot:
            with self.clock.timed("checkpoints"):
                self.pool.add_snapshot(self.model, steps)
            self.next_snapshot = next_multiple(steps, config.snapshot_every)
        if config.checkpoint_every > 0 and steps >= self.next_checkpoint:
            with self.clock.timed("checkpoints"):
                self.model.save(self.out / f"model_{steps}.zip")
            self.next_checkpoint = next_multiple(steps, config.checkpoint_every)
        if config.eval_every > 0 and steps >= self.next_eval:
            self.log_row()
            self.next_eval = next_multiple(steps, config.eval_every)
        return True

    def _set_torch_threads(self, updating: bool) -> None:
        """torch's threads for the rollouts or the updates (``threads``), when the run sets them."""
        if self.threads is not None:
            import torch

            torch.set_num_threads(self.threads[1 if updating else 0])

    def breakdown(self) -> str:
        """Where the time went, in words: the line printed at the end of a run."""
        return self.clock.breakdown(self.num_timesteps)

    def log_row(self) -> None:
        """Evaluate the learner now, and add the row to the log (``log.csv``, TensorBoard)."""
        config, pool = self.config, self.pool
        with self.clock.timed("evaluation"):
            buffer = self.model.ep_info_buffer
            mean_reward = float(np.mean([e["r"] for e in buffer])) if buffer else float("nan")
            vs_random = evaluate_ci(self.model, config, pool.fixed["random"], config.eval_episodes)
            scores = learner_scores(self.model, config, pool.fixed["rules"], config.eval_episodes)
            if self.baseline is None:  # the bot in the learner's seat of the evaluation's deals: once a run
                self.baseline = baseline_scores(config, pool.fixed["rules"], config.eval_episodes)
            vs_rules, duplicate = mean_half(scores), mean_half(scores - self.baseline)
            row = {
                "steps": self.num_timesteps,
                "seconds": 0.0,
                "mean_episode_reward": mean_reward,
                "eval_vs_random": vs_random[0],
                "eval_vs_rules": vs_rules[0],
                "snapshots": len(pool.snapshots),
                "eval_vs_random_ci95": vs_random[1],  # half-width of the 95% interval over the evaluation's deals
                "eval_vs_rules_ci95": vs_rules[1],
                # the same deals counted in duplicate: the learner's score minus the bot's in his seat
                "eval_vs_rules_duplicate": duplicate[0],
                "eval_vs_rules_duplicate_ci95": duplicate[1],
            }
        row["seconds"] = round(self.clock.elapsed(), 1)
        training = self.clock.training_seconds()
        row["steps_per_second"] = round(self.num_timesteps / training, 1) if training else float("nan")
        row.update({f"seconds_{k}": round(v, 3) for k, v in self.clock.seconds.items()})
        self.rows.append(row)
        for key in ("eval_vs_random", "eval_vs_rules"):
            self.logger.record(f"eval/{key}", row[key])
        write_csv(self.out / "log.csv", self.rows)


def make_callback(
    config: TrainConfig,
    venv: Any,
    pool: OpponentPool,
    out: Path,
    rows: list[dict[str, float]] | None = None,
    steps: int = 0,
    threads: tuple[int, int] | None = None,
) -> Any:
    """The self-play callback (:class:`SelfPlay` as stable_baselines3's ``BaseCallback``); ``rows`` and
    ``steps``: the log and the step a resumed run starts from; ``threads``: torch's threads in the
    rollouts and in the updates (None: left as they are)."""
    from stable_baselines3.common.callbacks import BaseCallback

    callback = type("SelfPlayCallback", (SelfPlay, BaseCallback), {})
    return callback(config, venv, pool, out, rows, steps, threads)


def write_csv(path: Path, rows: list[dict[str, float]]) -> None:
    fields = list(dict.fromkeys(k for row in rows for k in row))  # a resumed log of an older run may lack some
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path: Path) -> list[dict[str, float]]:
    """The rows of a ``log.csv`` as they were written: ints as ints, other numbers as floats."""
    if not path.exists():
        return []

    def number(text: str | None) -> float:
        if text in ("", None):
            return float("nan")
        return int(text) if text.lstrip("-").isdigit() else float(text)

    with open(path, newline="") as f:
        return [{k: number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def checkpoints(out: Path) -> dict[int, Path]:
    """The run's checkpoints ``model_<steps>.zip``, by step."""
    found = {}
    for path in out.glob("model_*.zip"):
        tail = path.stem.removeprefix("model_")
        if tail.isdigit():
            found[int(tail)] = path
    return dict(sorted(found.items()))


def plot_curve(rows: list[dict[str, float]], path: Path, title: str, eval_deals: int | None = None) -> None:
    """The learning curve; the evaluations' intervals over ``eval_deals`` deals each, with the arena's
    warning beside them over fewer than 30 (:func:`~tarot_env.arena.few_deals`)."""
    import matplotlib

    from tarot_env.arena import few_deals

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["steps"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    duplicate = all(np.isfinite(r.get("eval_vs_rules_duplicate", float("nan"))) for r in rows)  # a log from before it lacks it
    panels = [
        ("mean_episode_reward", "training: mean episode reward", "reward per deal"),
        ("eval_vs_random", "evaluation against random players", "score per deal"),
        ("eval_vs_rules_duplicate", "against the rule-based bot, in duplicate", "score minus the bot's in the same seat and deal")
        if duplicate
        else ("eval_vs_rules", "evaluation against the rule-based bot", "score per deal"),
    ]
    for ax, (key, name, unit) in zip(axes, panels):  # one scale each: the score against the bot is small
        half = [r.get(f"{key}_ci95", float("nan")) for r in rows]
        if any(np.isfinite(h) for h in half):  # the evaluation points with their 95% intervals
            ax.errorbar(steps, [r[key] for r in rows], yerr=half, marker="o", capsize=3)
            ax.set_title(f"{name}\n(95% intervals over the evaluation's deals){few_deals(eval_deals)}", fontsize=9)
        else:
            ax.plot(steps, [r[key] for r in rows], marker="o")
        ax.axhline(0, color="grey", lw=0.5)
        if not ax.get_title():
            ax.set_title(name, fontsize=9)
        ax.set(xlabel="PPO steps (0: after the warm start)" if rows[0]["steps"] == 0 else "steps", ylabel=unit)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------- training


def whole_rollouts(timesteps: int, rollout: int) -> int:
    """``timesteps`` rounded up to a whole number of rollouts.

    PPO collects whole rollouts before it stops, so asking for 100,000 steps trains 106,496 when a
    rollout is 8,192 steps; asking for what will be trained keeps the progress bar's total true."""
    return -(-timesteps // rollout) * rollout


def train(config: TrainConfig, resume: bool = False) -> Path:
    """Train, write the run's files under ``config.out``, and return the path of ``model_final.zip``.

    ``resume=True`` goes on from the last checkpoint in ``config.out`` (see the module docstring);
    with no checkpoint there yet, the run starts from the beginning."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from tarot_env._threads import resolve_threads, thread_plan
    from tarot_env.wrappers import TarotVecEnv

    check_network(config)  # before anything is written
    torch_threads, env_threads, threads_line = thread_plan(config.torch_threads, config.env_threads)
    update_threads = resolve_threads(config.update_threads)
    threads_line += f"; torch {update_threads} in the PPO update (the env waits then)"
    torch.set_num_threads(torch_threads)
    print(threads_line, flush=True)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    (out / "threads.txt").write_text(threads_line + "\n")  # what the run used (config.json keeps what was asked)

    saved = checkpoints(out) if resume else {}
    pool = OpponentPool(config.env_id, config.pool_weights, config.max_snapshots, seed=config.seed)
    venv = TarotVecEnv(
        config.num_envs, env_id=config.env_id, seat="rotate", reward=config.reward, num_threads=env_threads,
        critic_oracle=config.critic_oracle, **env_options(config),
    )  # fmt: skip
    if saved:
        return _resume(config, out, saved, pool, venv, (torch_threads, update_threads))
    model = new_model(config, VecMonitor(venv), tensorboard_log=str(out / "tb"))
    if config.bc_deals > 0:
        warm_start(model, config, pool, out)
    return _learn(model, config, out, make_callback(config, venv, pool, out, threads=(torch_threads, update_threads)))


#: the networks a run may use (TrainConfig.network)
NETWORKS = ("shared", "separate")


def check_network(config: TrainConfig) -> None:
    """Refuse an unknown ``network``, and ``critic_oracle`` beside the separate networks."""
    if config.network not in NETWORKS:
        raise ValueError(f"network {config.network!r} refused: the networks are {', '.join(NETWORKS)}")
    if config.critic_oracle and config.network != "shared":
        raise ValueError(
            f"critic_oracle needs network='shared', not {config.network!r}: the oracle critic is a trunk of its own beside "
            "the shared network's policy trunk (agents/sb3_policy.OracleCriticPolicy); drop --network separate or --critic-oracle"
        )


def policy_class(config: TrainConfig) -> Any:
    """The policy class of ``config.network``: the lean masked softmax for the shared trunk (with an oracle
    critic beside it, ``critic_oracle``), sb3-contrib's ``MlpPolicy`` (its ``MaskableActorCriticPolicy``)
    for the separate networks, as before."""
    check_network(config)
    if config.network == "separate":
        return "MlpPolicy"
    from tarot_env.agents.sb3_policy import MaskedSoftmaxPolicy, OracleCriticPolicy

    return OracleCriticPolicy if config.critic_oracle else MaskedSoftmaxPolicy


def new_model(config: TrainConfig, venv: Any, tensorboard_log: str | None = None, device: str = "auto") -> Any:
    """A new MaskablePPO model of ``config`` over ``venv``: its network and every PPO setting (train()
    and experiments/distill.py build their models here, so that PPO can go on from either). With
    ``critic_oracle``, ``venv`` must be a ``TarotVecEnv(critic_oracle=True)`` (maybe wrapped, e.g. in ``VecMonitor``)."""
    from sb3_contrib import MaskablePPO

    observation_size = None
    if config.critic_oracle:
        base = getattr(venv, "unwrapped", venv)
        if not getattr(base, "critic_oracle", False):
            raise ValueError("critic_oracle: the model's env must give the oracle too, a TarotVecEnv(..., critic_oracle=True)")
        observation_size = int(base.observation_size)
    return MaskablePPO(
        policy_class(config),
        venv,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef,
        clip_range=config.clip_range,
        policy_kwargs=policy_kwargs(config, observation_size),
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=device,
        verbose=0,
    )


def policy_kwargs(config: TrainConfig, observation_size: int | None = None) -> dict[str, Any]:
    """The policy's network. ``shared``: one trunk of ``net_arch`` layers (the first in bfloat16 when
    ``bf16_first_layer``) under linear policy and value heads; with ``critic_oracle``, the policy's trunk
    over the first ``observation_size`` columns and the value's own over them and the oracle after them
    (the env's ``observation_size``). ``separate``: ``net_arch`` hidden layers for the policy and for
    the value, each its own copy, the first of each in bfloat16 when asked."""
    check_network(config)
    if config.network == "shared":
        if not config.net_arch:
            raise ValueError("the shared network needs at least one hidden layer in net_arch")
        from tarot_env.agents.sb3_policy import OracleCriticTrunks, SharedTrunk

        if config.critic_oracle:
            if observation_size is None:
                raise ValueError("critic_oracle: give the observation's width (the env's observation_size), where the oracle starts")
            return {
                "net_arch": {"pi": [], "vf": []},
                "features_extractor_class": OracleCriticTrunks,
                "features_extractor_kwargs": {
                    "observation_size": int(observation_size),
                    "net_arch": tuple(int(k) for k in config.net_arch),
                    "bf16_first_layer": config.bf16_first_layer,
                },
                "share_features_extractor": True,
            }

        return {
            "net_arch": {"pi": [], "vf": []},
            "features_extractor_class": SharedTrunk,
            "features_extractor_kwargs": {"net_arch": tuple(int(k) for k in config.net_arch), "bf16_first_layer": config.bf16_first_layer},
            "share_features_extractor": True,
        }
    if not config.bf16_first_layer:
        return {"net_arch": list(config.net_arch)}
    if not config.net_arch:
        raise ValueError("bf16_first_layer needs at least one hidden layer in net_arch")
    from tarot_env.agents.sb3_policy import BFloat16FirstLayer

    return {
        "net_arch": list(config.net_arch[1:]),
        "features_extractor_class": BFloat16FirstLayer,
        "features_extractor_kwargs": {"features_dim": int(config.net_arch[0])},
        "share_features_extractor": False,
    }


def _learn(model: Any, config: TrainConfig, out: Path, callback: Any) -> Path:
    """PPO up to ``config.timesteps`` (whole rollouts), then the final model, evaluation and curve."""
    timesteps = whole_rollouts(config.timesteps, config.n_steps * config.num_envs)
    if timesteps != config.timesteps:
        rollout = config.n_steps * config.num_envs
        print(f"PPO learns in whole rollouts of {rollout:,} steps: {config.timesteps:,} steps rounded up to {timesteps:,}")
    start, done = time.perf_counter(), model.num_timesteps
    if timesteps <= done:  # a resumed run already past its target: evaluate and save only
        from stable_baselines3.common.logger import Logger

        model.set_logger(Logger(folder=None, output_formats=[]))
        callback.init_callback(model)
    else:
        # with reset_num_timesteps=False, SB3 adds the steps already done to the total it is given
        model.learn(timesteps - done, callback=callback, progress_bar=config.progress_bar, tb_log_name="ppo", reset_num_timesteps=done == 0)
    seconds = time.perf_counter() - start
    final = out / "model_final.zip"
    model.save(final)
    if not callback.rows or callback.rows[-1]["steps"] != model.num_timesteps:
        callback.num_timesteps = model.num_timesteps
        callback.log_row()  # the final evaluation
    plot_curve(callback.rows, out / "learning_curve.png", f"{config.env_id}: MaskablePPO self-play", config.eval_episodes)
    steps = model.num_timesteps - done
    print(f"{steps} steps in {seconds:.0f} s ({steps / max(seconds, 1e-9):.0f} steps/s, evaluations included)")
    print(callback.breakdown())
    print(f"final: vs random {callback.rows[-1]['eval_vs_random']:+.2f}, vs rules {callback.rows[-1]['eval_vs_rules']:+.2f} per deal")
    return final


def _resume(config: TrainConfig, out: Path, saved: dict[int, Path], pool: OpponentPool, venv: Any, threads: tuple[int, int]) -> Path:
    """Go on from the last of the ``saved`` checkpoints (see the module docstring)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    steps, path = max(saved.items())
    model = MaskablePPO.load(path, env=VecMonitor(venv), tensorboard_log=str(out / "tb"), device="cpu")
    model.num_timesteps = steps  # the checkpoint's own count (SB3 saves it too; the name is the truth)
    # the opponents' snapshots: the checkpoints at the snapshot steps, the latest max_snapshots of them
    at = [s for s in saved if config.snapshot_every > 0 and s % config.snapshot_every == 0 and s <= steps]
    for s in at[-config.max_snapshots :]:
        pool.add_snapshot(MaskablePPO.load(saved[s], device="cpu"), s)
    pool.rng = np.random.default_rng([config.seed, steps])
    venv.seed(config.seed + steps)
    rows = [row for row in read_csv(out / "log.csv") if row["steps"] <= steps]
    print(f"resuming {out} from {path.name} ({steps:,} steps; {len(pool.snapshots)} snapshots, {len(rows)} log rows)")
    return _learn(model, config, out, make_callback(config, venv, pool, out, rows=rows, steps=steps, threads=threads))


def warm_start(model: Any, config: TrainConfig, pool: OpponentPool, out: Path) -> None:
    """Behaviour cloning of the rule-based bot before PPO (see experiments/imitation.py)."""
    from tarot_env.experiments.imitation import clone, collect

    start = time.perf_counter()
    options = rules_options(config)
    # with critic_oracle the critic is fitted on the oracle too: observations followed by it, as PPO's
    data = collect(
        config.env_id, config.bc_deals, pool.fixed["rules"], seed=config.seed + 1, progress=config.progress_bar,
        reward=config.reward, with_oracle=config.critic_oracle, **options,
    )  # fmt: skip
    history = clone(
        model.policy, data, epochs=config.bc_epochs, learning_rate=config.bc_learning_rate, seed=config.seed, progress=config.progress_bar
    )
    write_csv(out / "warm_start.csv", history)
    seconds = time.perf_counter() - start
    print(
        f"warm start: cloned the rule-based bot on {len(data):,} decisions of {config.bc_deals:,} deals in {seconds:.0f} s "
        f"(agreement with the bot {history[-1]['accuracy']:.1%})"
    )


# ---------------------------------------------------------------------- command line


def _value(text: str) -> Any:
    """An option value from the command line: JSON if it parses (numbers, true/false, null), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def _pairs(text: str) -> dict[str, float]:
    return {k.strip(): float(v) for k, v in (item.split("=", 1) for item in text.split(",") if item)}


def load_config(path: str | Path) -> TrainConfig:
    """The :class:`TrainConfig` of a run's ``config.json`` (a field it lacks takes today's default)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"cannot read the training config {str(path)!r}: {err}") from None
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - names) if isinstance(data, dict) else None
    if unknown is None or unknown:
        raise ValueError(f"{str(path)!r} is not a training config: unknown fields {unknown}; the fields are {sorted(names)}")
    # a run from before a field existed ran as it then was: the separate networks, torch's threads unchanged in the update
    data.setdefault("network", "separate")
    data.setdefault("update_threads", data.get("torch_threads", 1))
    return TrainConfig(**data)


def _parser() -> argparse.ArgumentParser:
    """Every TrainConfig field as ``--field-name``; flags not given are absent from the result
    (``argparse.SUPPRESS``), so that they leave a loaded config's fields alone."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, argument_default=argparse.SUPPRESS
    )
    parser.add_argument("--config", metavar="FILE", help="start from a run's config.json (other flags override its fields)")
    parser.add_argument("--resume", metavar="DIR", help="go on with the run in DIR from its last checkpoint (its config.json)")
    defaults = TrainConfig()
    for f in dataclasses.fields(TrainConfig):
        flags = [f"--{f.name.replace('_', '-')}"]
        flags += {"env_id": ["--env"], "num_players": ["--players"], "timesteps": ["--steps"]}.get(f.name, [])
        default = getattr(defaults, f.name)
        if f.name == "options":
            parser.add_argument("--option", dest="options", action="append", metavar="KEY=VALUE", help="an env option")
        elif f.name == "net_arch":
            parser.add_argument(*flags, dest=f.name, type=_ints, help="e.g. 256,256")
        elif f.name == "network":
            parser.add_argument(*flags, dest=f.name, choices=NETWORKS, help="shared (default) or separate (policy and value nets)")
        elif f.name == "pool_weights":
            parser.add_argument(*flags, dest=f.name, type=_pairs, help="e.g. random=1,rules=1,snapshot=2")
        elif isinstance(default, bool):
            parser.add_argument(*flags, dest=f.name, action=argparse.BooleanOptionalAction)
        elif f.name in ("num_players", "torch_threads", "env_threads", "update_threads"):
            parser.add_argument(*flags, dest=f.name, type=int)
        else:
            parser.add_argument(*flags, dest=f.name, type=type(default))
    return parser


def parse_command(argv: list[str] | None = None) -> tuple[TrainConfig, bool]:
    """The run's config and whether it resumes: the defaults, or ``--config FILE`` / ``--resume DIR``'s
    config.json, with the flags given on top."""
    args = vars(_parser().parse_args(argv))
    config_file, resume = args.pop("config", None), args.pop("resume", None)
    if config_file and resume:
        raise ValueError("give --config FILE or --resume DIR, not both (a resumed run reads DIR/config.json)")
    base = TrainConfig()
    if resume:
        base = dataclasses.replace(load_config(Path(resume) / "config.json"), out=str(resume))
        if "out" in args and Path(args["out"]) != Path(resume):
            raise ValueError(f"--resume {resume} goes on in its own folder: drop --out {args['out']}")
    elif config_file:
        base = load_config(config_file)
    if "options" in args:
        args["options"] = {**base.options, **{k: _value(v) for k, v in (item.split("=", 1) for item in args["options"])}}
    return dataclasses.replace(base, **args), bool(resume)


def parse_args(argv: list[str] | None = None) -> TrainConfig:
    """A TrainConfig from the command line: each field is ``--field-name`` (``--env``, ``--players`` and ``--steps`` too)."""
    return parse_command(argv)[0]


def main(argv: list[str] | None = None) -> None:
    config, resume = parse_command(argv)
    print(train(config, resume=resume))


if __name__ == "__main__":
    main()
