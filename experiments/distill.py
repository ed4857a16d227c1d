"""DAgger distillation of the PIMC search agent into a policy network.

    python -m tarot_env.experiments.distill --players 4 --iterations 4 --deals-per-iteration 200 --out runs/distill_french4  # French Tarot
    python -m tarot_env.experiments.distill --env ottocento_v0 --init runs/ottocento/model_final.zip --out runs/distill_ottocento
    python -m tarot_env.experiments.distill --resume runs/distill_french4 --iterations 8   # go on, up to 8 iterations in all

Why: the search agent (:mod:`tarot_env.agents.pimc`) is the strongest player of the project but
spends 70-90 ms a decision; a network decides in well under a millisecond. Behaviour cloning of
the searcher's own games would teach the network the positions the searcher reaches, and the
network, once it errs, would stand in positions it never saw labelled. DAgger (Ross, Gordon and
Bagnell, 2011) labels the positions the *student* reaches: the student plays whole deals (every
seat), the teacher, bound to the same AEC env, names its action at each decision with a choice,
and the student is trained on every label gathered so far. The student's own action is played.

- **The student** starts from ``--init`` (a MaskablePPO zip), or is built as experiments/train.py
  builds its model (same network, same PPO settings: PPO can go on from it) and cloned from the
  rule-based bot's decisions in ``--bc-deals`` deals (experiments/imitation.py).
- **Its play** is drawn from its policy (``--student-play sample``, the default), not greedy: the
  draws spread the labels over the positions near the student's, where a greedy student would
  replay much the same line in similar deals. ``--beta`` plays the teacher's action instead with that
  probability in iteration 0 only (DAgger's mixing; default 0: the starting student is already a
  fair player, and its own mistakes are what is worth labelling).
- **Labels in parallel**: ``--workers`` processes (``spawn``: safe with torch and numba's threads;
  one torch thread each) play the deals, each loading the student's saved zip. A deal's cards, its
  teacher's samples and the student's draws are seeded by the run's seed and the deal's number, so
  the labels do not depend on the number of workers. They are exactly reproducible when the
  teacher's sample cap ends its search (``pimc:samples=2,time=...``); with a time limit that ends
  it (the defaults), how many samples fit depends on the machine's speed at that moment, and a
  label may differ, but the positions do not: the student's moves never depend on the teacher's
  (with ``--beta 0``).
- **Training** is :func:`~tarot_env.experiments.imitation.clone` on the union of all labels so far
  (cross-entropy to the teacher's action over the legal ones, and the value head to the deal's
  reward of the deciding seat), continuing from the current weights.

Written to ``--out`` (default ``runs/distill``): ``config.json`` (every setting), ``model_init.zip``
(the starting student), per iteration ``data.npz`` (every label so far), ``model_iter<k>.zip``
and ``model_final.zip`` (MaskablePPO zips that ``SB3PolicyAgent`` and the arena's ``sb3:`` play), and
a row of ``log.csv``: labels and deals, the teacher's and the training's seconds, the student's
agreement with the teacher on the new labels *before* training on them, and its score per deal
against the rule-based bot with a 95% interval (row ``-1``: the starting student).
``--resume DIR`` goes on after the last completed iteration. docs/distillation.md has the costs.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import multiprocessing
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tarot_env.agents import rule_agent
from tarot_env.experiments.imitation import Demonstrations, clone, collect
from tarot_env.experiments.train import TrainConfig, env_options, read_csv, rules_options, write_csv


@dataclass
class DistillConfig:
    """Every setting of a run (``config.json``); each field is a command-line flag."""

    env_id: str = "french_tarot_v0"
    num_players: int | None = None  # None: the game's default
    options: dict[str, Any] = field(default_factory=dict)  # other env options (rules options...)
    reward: str = "normalised"  # the reward the value head learns, as PPO's training reward
    teacher: str = "pimc"  # pimc[:samples=..,time=..,chunk=..,search=..] or rules
    iterations: int = 4
    deals_per_iteration: int = 200
    workers: int = 2  # labelling processes (the project's machine has 2 cores)
    student_play: str = "sample"  # sample: draws from the student's policy; greedy: its most probable action
    beta: float = 0.0  # iteration 0: the chance of playing the teacher's action instead of the student's
    # which decisions the teacher labels: "all", or "auction" (every decision but the card play: bids, the
    # call, the écart or discards, announcements, declarations, claims; the card play is labelled with the
    # student's own most probable action, an anchor that keeps its play where it is). In French Tarot the
    # search's lead over the bot comes mostly from its bidding (agents/pimc.py: +23.4 searching every
    # decision, +5.5 the card play only), and these decisions are a tenth of a deal's: labels 5-10x cheaper
    label: str = "all"
    # soft targets (``--soft-temperature``, in points of the deal's score): 0, the teacher's action (a hard label);
    # above 0, at every decision the search evaluated, a softmax of its per-action values at this temperature
    # (how much better each card is, not only which is best: a 2-sample search that ties two cards teaches
    # both). Decisions not searched keep the hard label. Only with the search teacher (pimc).
    soft_temperature: float = 0.0
    init: str | None = None  # a MaskablePPO zip to start from; None: a new model cloned from the rule-based bot
    # the new student: experiments/train.py's network and warm start
    network: str = "shared"
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    bf16_first_layer: bool = True
    bc_deals: int = 10_000
    bc_epochs: int = 4
    # training on the aggregated labels, each iteration (experiments/imitation.clone)
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    eval_deals: int = 200  # deals against the rule-based bot after each iteration
    seed: int = 0
    out: str = "runs/distill"
    torch_threads: int | None = None  # the training's threads in the main process; None: every core (the workers are idle then)
    progress_bar: bool = True


#: what ``--student-play`` may be
STUDENT_PLAY = ("sample", "greedy")
#: what ``--label`` may be: the decisions the teacher labels (the others are anchored at the student's own choice)
LABELS = ("all", "auction", "play")
#: the flags a resumed run may change: how it runs, not what it labels or learns
RESUME_FLAGS = ("iterations", "workers", "torch_threads", "progress_bar")


def train_config(config: DistillConfig) -> TrainConfig:
    """The student as experiments/train.py sees it: its network, env and warm start, and the rest of
    PPO's settings at train.py's defaults, so that the model is the one a PPO run builds."""
    return TrainConfig(
        env_id=config.env_id,
        num_players=config.num_players,
        options=dict(config.options),
        reward=config.reward,
        network=config.network,
        net_arch=list(config.net_arch),
        bf16_first_layer=config.bf16_first_layer,
        bc_deals=config.bc_deals,
        bc_epochs=config.bc_epochs,
        seed=config.seed,
        out=config.out,
        progress_bar=config.progress_bar,
    )


def make_teacher(spec: str, env_id: str) -> Any:
    """The teacher of ``spec``: the search agent (``pimc`` with its parameters) or the rule-based bot
    (``rules``: fast and deterministic, for trials). Raises ValueError for anything else."""
    if spec == "rules":
        return rule_agent(env_id)
    from tarot_env.agents.pimc import is_search_spec, parse_spec

    if is_search_spec(spec):
        return parse_spec(spec)
    raise ValueError(
        f"--teacher {spec!r} refused: the teachers are pimc, pimc:samples=<int>,time=<seconds>[,chunk=<int>,search=all|play], "
        "search[:<parameters>] and rules"
    )


def check(config: DistillConfig) -> None:
    """Refuse a config that cannot run, before anything is played or written (ValueError, one line
    that names what was given and what is allowed)."""
    from tarot_env.experiments.train import NETWORKS

    import tarot_env
    from tarot_env import arguments
    from tarot_env.registry import ENV_IDS

    if config.env_id not in ENV_IDS:
        raise ValueError(f"--env {config.env_id!r} refused: the envs are {', '.join(ENV_IDS)}")
    if config.num_players is not None and (why := arguments.players_error(config.env_id, config.num_players)):
        raise ValueError(why)
    try:
        tarot_env.make(config.env_id, **aec_options(config))  # the reward mode and every --option
    except (ValueError, TypeError) as err:
        raise ValueError(f"{config.env_id} refused its options: {err}") from None
    make_teacher(config.teacher, config.env_id)
    for name, least in (("iterations", 1), ("deals_per_iteration", 1), ("workers", 1), ("eval_deals", 2), ("bc_deals", 0),
                        ("bc_epochs", 1), ("epochs", 1), ("batch_size", 1)):  # fmt: skip
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"--{name.replace('_', '-')} {value!r} refused: a whole number, {least} or more")
    if config.student_play not in STUDENT_PLAY:
        raise ValueError(f"--student-play {config.student_play!r} refused: {' or '.join(STUDENT_PLAY)}")
    if not 0.0 <= config.beta <= 1.0:
        raise ValueError(f"--beta {config.beta!r} refused: a probability, from 0 to 1")
    if config.label not in LABELS:
        raise ValueError(f"--label {config.label!r} refused: {' or '.join(LABELS)}")
    from tarot_env.agents.pimc import is_search_spec

    search = is_search_spec(config.teacher)
    if config.label != "all" and not search:
        why = "it tells the card play apart through the search agent (pimc)"
        raise ValueError(f"--label {config.label} refused with --teacher {config.teacher!r}: {why}")
    if isinstance(config.soft_temperature, bool) or not config.soft_temperature >= 0:
        raise ValueError(f"--soft-temperature {config.soft_temperature!r} refused: 0 (hard labels) or a temperature above 0, in points")
    if config.soft_temperature > 0 and not search:
        raise ValueError(f"--soft-temperature refused with --teacher {config.teacher!r}: soft targets are the search agent's (pimc) values")
    if config.network not in NETWORKS:
        raise ValueError(f"--network {config.network!r} refused: the networks are {', '.join(NETWORKS)}")
    if not config.net_arch or min(config.net_arch) < 1:
        raise ValueError(f"--net-arch {config.net_arch!r} refused: one or more layer sizes, as 256,256")
    if not (config.learning_rate > 0 and config.value_coef >= 0):
        raise ValueError(f"--learning-rate {config.learning_rate} / --value-coef {config.value_coef} refused: above 0 / 0 or more")
    if config.init is not None:
        from tarot_env.agents.factory import make_agent

        make_agent(f"sb3:{config.init}", config.env_id, num_players=config.num_players)  # the file, and that it fits the table


# ---------------------------------------------------------------------- labelling (in the workers)


@dataclass(frozen=True)
class LabelJob:
    """One deal to play and label: what a worker needs, and nothing live (the student is a saved zip)."""

    env_id: str
    options: dict[str, Any]  # the AEC env's options (reward included)
    teacher: str
    model: str  # the student's zip
    deal: int  # the deal's number in the run: it seeds the cards, the teacher and the student's draws
    seed: int
    student_play: str
    beta: float
    label: str = "all"
    soft_temperature: float = 0.0
    # above 0 (points): the target is the student's policy improved by the search's paired gains,
    # softmax(log p + gain / paired_temperature), where the search found a significant gap; elsewhere the
    # student's own policy (experiments/expert.py). Needs a paired search teacher (pimc over a learned policy)
    paired_temperature: float = 0.0


@dataclass
class DealLabels:
    """The labelled decisions of one deal (arrays of one row each, see :data:`FIELDS`) and the teacher's seconds."""

    arrays: dict[str, np.ndarray]
    teacher_seconds: float


#: the arrays of data.npz: the label (``actions``) and its position, the deciding seat and its reward for the deal
#: (``returns``), the deal, the iteration, the student's most probable action (``student``), the action
#: played and the teacher's samples (``samples``: 0 for the rule-based bot and for decisions it took unsearched), and
#: whether the teacher gave the label (``taught``; False: an anchor, the student's own action, with ``--label auction``
#: or ``play``), and the target distribution over the actions (``targets``, float16: one-hot at the label, or
#: with ``--soft-temperature`` the softmax of the search's values where it searched)
FIELDS = ("observations", "masks", "actions", "returns", "players", "episodes", "iteration", "student", "played", "samples", "taught",
          "targets")  # fmt: skip

_WORKER: dict[str, Any] = {}  # what a worker keeps between deals: the env, the teacher, the student
#: seconds the run waits for its labelling processes to start (imports, numba's kernels from their cache)
READY_TIMEOUT = 600.0


def _worker_init(env_id: str, options: dict[str, Any], teacher: str, model: str, ready: Any = None) -> None:
    """Ready a labelling process: one torch thread (the workers are the parallelism), the env and the
    bound teacher made and one decision taken (numba's kernels loaded), the first student loaded (the
    first zip costs seconds of imports); then wait at ``ready`` with the others, so that the run times
    the labelling apart from the processes' start."""
    import threading

    import torch

    torch.set_num_threads(1)
    try:
        _warm_up(*_table(env_id, options, teacher))
        _student(model)
    finally:
        if ready is not None:
            with contextlib.suppress(threading.BrokenBarrierError):  # a worker that failed: its first job says why
                ready.wait(timeout=READY_TIMEOUT)


def _warm_up(env: Any, teacher: Any) -> None:
    """One decision of the teacher, for the kernels it calls to be loaded before the clock runs (numba
    loads a cached kernel at its first call). Every deal re-seeds the env and the teacher: no label changes."""
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        mask = np.asarray(obs["action_mask"], dtype=bool)
        if term or trunc or mask.sum() > 1:
            if not (term or trunc):
                teacher.act(np.asarray(obs["observation"]), mask)
            return
        env.step(int(np.flatnonzero(mask)[0]))


def _cached(key: str, ident: Any, make: Callable[[], Any]) -> Any:
    if _WORKER.get(key, (None,))[0] != ident:
        _WORKER[key] = (ident, make())
    return _WORKER[key][1]


def _table(env_id: str, options: dict[str, Any], teacher: str) -> tuple[Any, Any]:
    """The worker's env and its teacher bound to it, made once for the run."""
    import tarot_env

    ident = (env_id, json.dumps(options, sort_keys=True))
    env = _cached("env", ident, lambda: tarot_env.make(env_id, **options))
    return env, _cached("teacher", (ident, teacher), lambda: _bound(make_teacher(teacher, env_id), env))


def _student(path: str) -> Any:
    """The student's policy from its zip, loaded again only when the job names another (once an iteration)."""
    stat = Path(path).stat()
    return _cached("student", (path, stat.st_mtime_ns, stat.st_size), lambda: _load_policy(path))


def _bound(agent: Any, env: Any) -> Any:
    return agent.bind(env) if hasattr(agent, "bind") else agent


def _load_policy(path: str) -> Any:
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(path, device="cpu").policy
    policy.set_training_mode(False)
    return policy


def deal_seed(seed: int, deal: int) -> int:
    """The env's reset seed of deal number ``deal`` of a run."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def student_logits(policy: Any, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The student's log-probabilities over the actions (illegal ones at ``-inf``)."""
    import torch as th

    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(observation[None]), action_masks=mask[None])
        logits = dist.distribution.logits[0].double().numpy()
    return np.where(mask, logits, -np.inf)


def label_deal(job: LabelJob) -> DealLabels:
    """Play one deal with the student at every seat; at each decision with a choice, ask the teacher
    (bound to the env, which stands at that position) for its action: the label.

    The student's action is played: drawn from its policy or its most probable one
    (``job.student_play``), or, with probability ``job.beta``, the teacher's. A decision with one
    legal action is played at once and not labelled."""
    env, teacher = _table(job.env_id, job.options, job.teacher)
    policy = _student(job.model)
    if hasattr(teacher, "reseed"):  # the search's samples (and a plain PIMC base's): drawn from the deal's own stream
        teacher.reseed([job.seed, job.deal, 1])
    rng = np.random.default_rng([job.seed, job.deal, 2])  # the student's draws and the beta mixing
    env.reset(seed=deal_seed(job.seed, job.deal))
    seats = {a: i for i, a in enumerate(env.possible_agents)}
    totals = np.zeros(len(seats))
    rows: dict[str, list[Any]] = {k: [] for k in ("observations", "masks", "actions", "players", "student", "played", "samples", "taught",
                                                  "targets")}  # fmt: skip
    seconds = 0.0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seat = seats[agent]
        totals[seat] += float(reward)
        if term or trunc:
            env.step(None)
            continue
        mask = np.asarray(obs["action_mask"], dtype=bool).copy()
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            env.step(int(legal[0]))
            continue
        observation = np.asarray(obs["observation"], dtype=np.int8).copy()
        logits = student_logits(policy, observation, mask)
        greedy = int(np.argmax(logits))
        # --label auction / play: the search tells the card play apart (check() refuses them with another teacher)
        taught = job.label == "all" or (job.label == "play") == teacher.is_play(env.game_state)
        asked, target = taught, None
        if taught and job.paired_temperature > 0:  # expert iteration: the search's gains over the student's policy
            start = time.perf_counter()
            label, _ = teacher.decide(observation, mask)
            seconds += time.perf_counter() - start
            target, taught = paired_target(logits, legal, getattr(teacher, "last", None), job.paired_temperature)
        elif taught:
            start = time.perf_counter()
            if job.soft_temperature > 0:  # the search's values, where it searched (None elsewhere)
                label, values = teacher.decide(observation, mask)
                if values is not None:
                    target = soft_target(values, legal, len(mask), job.soft_temperature)
            else:
                label = int(teacher.act(observation, mask))
            seconds += time.perf_counter() - start
        else:
            label = greedy
            if job.paired_temperature > 0:  # a decision not searched: the student's own policy
                target, _ = paired_target(logits, legal, None, job.paired_temperature)
        if target is None:
            target = np.zeros(len(mask), dtype=np.float32)
            target[label] = 1.0
        drawn = int(np.argmax(logits + rng.gumbel(size=len(logits)))) if job.student_play == "sample" else greedy
        played = label if job.beta > 0 and rng.random() < job.beta else drawn
        for key, value in (("observations", observation), ("masks", mask), ("actions", label), ("players", seat),
                           ("student", greedy), ("played", played), ("samples", getattr(teacher, "searched", 0) if asked else 0),
                           ("taught", taught), ("targets", target)):  # fmt: skip
            rows[key].append(value)
        env.step(played)
    n = len(rows["actions"])
    first = env.possible_agents[0]
    size, actions = env.observation_space(first)["observation"].shape[0], int(env.action_space(first).n)
    arrays = {
        "observations": np.array(rows["observations"], dtype=np.int8).reshape(n, size),
        "masks": np.array(rows["masks"], dtype=bool).reshape(n, actions),
        "actions": np.array(rows["actions"], dtype=np.int64),
        "returns": totals[np.array(rows["players"], dtype=np.int64)].astype(np.float32),
        "players": np.array(rows["players"], dtype=np.int64),
        "episodes": np.full(n, job.deal, dtype=np.int64),
        "student": np.array(rows["student"], dtype=np.int64),
        "played": np.array(rows["played"], dtype=np.int64),
        "samples": np.array(rows["samples"], dtype=np.int32),
        "taught": np.array(rows["taught"], dtype=bool),
        "targets": np.array(rows["targets"], dtype=np.float16).reshape(n, actions),
    }
    return DealLabels(arrays, seconds)


def soft_target(values: np.ndarray, legal: np.ndarray, actions: int, temperature: float) -> np.ndarray:
    """The search's values of the ``legal`` actions as a distribution over all ``actions``: a softmax at
    ``temperature`` (points), zero on the illegal ones. A card worth ``temperature`` points less than the
    best gets e^-1 of its weight."""
    z = (np.asarray(values, dtype=np.float64) - np.max(values)) / temperature
    p = np.exp(z)
    out = np.zeros(actions, dtype=np.float32)
    out[legal] = p / p.sum()
    return out


def paired_target(logits: np.ndarray, legal: np.ndarray, paired: Any, temperature: float) -> tuple[np.ndarray, bool]:
    """Expert iteration's target at one decision, and whether the search changed it: where the search
    over the student's own policy found a significant gain (``paired``: its :class:`~tarot_env.agents.pimc.Paired`
    statistics, with ``chosen`` not the policy's ``default``), the student's policy tilted by every
    candidate's mean gain, ``softmax(log p + gain / temperature)`` over the legal actions (Gumbel
    AlphaZero's improved policy, Danihelka et al. 2022, with the gains in points): better cards gain weight
    in proportion to what the search measured, near-equal ones keep the student's odds. Elsewhere (no
    significant gain, or a decision not searched): the student's own policy, an anchor that keeps it where
    it is. ``logits``: the student's log-probabilities over all actions (illegal ones ``-inf``)."""
    z = np.asarray(logits, dtype=np.float64)[legal].copy()
    changed = paired is not None and paired.chosen != paired.default
    if changed:
        z += np.asarray(paired.gain, dtype=np.float64) / temperature
    p = np.exp(z - z.max())
    out = np.zeros(len(logits), dtype=np.float32)
    out[legal] = p / p.sum()
    return out, changed


@contextmanager
def labeller(
    workers: int, env_id: str, options: dict[str, Any], teacher: str, model: str
) -> Iterator[Callable[[list[LabelJob]], Iterator[DealLabels]]]:
    """A function from jobs to their labels, in the jobs' order, once the workers are ready. One
    worker labels in this process (no process to start); more run in a pool of ``spawn``ed processes
    (``fork`` is unsafe after torch's and numba's threads have run) kept for the whole run."""
    start = time.perf_counter()
    if workers == 1:
        _worker_init(env_id, options, teacher, model)
        print(f"labelling in this process, ready in {time.perf_counter() - start:.1f} s", flush=True)
        yield lambda jobs: map(label_deal, jobs)
        return
    context = multiprocessing.get_context("spawn")
    ready = context.Barrier(workers + 1)
    with context.Pool(workers, initializer=_worker_init, initargs=(env_id, options, teacher, model, ready)) as pool:
        ready.wait(timeout=READY_TIMEOUT)
        print(f"{workers} labelling processes ready in {time.perf_counter() - start:.1f} s", flush=True)
        yield lambda jobs: pool.imap(label_deal, jobs, chunksize=1)


# ---------------------------------------------------------------------- the run (main process)


def aec_options(config: DistillConfig) -> dict[str, Any]:
    """The AEC env's options: the game's, and the training reward (no shaping: the value head learns deal rewards)."""
    return {**rules_options(train_config(config)), "reward": config.reward}


def new_student(config: DistillConfig, out: Path) -> Any:
    """The starting student: ``config.init`` loaded, or train.py's model cloned from the rule-based bot
    in ``bc_deals`` deals (warm_start.csv: the cloning's epochs)."""
    from sb3_contrib import MaskablePPO

    if config.init is not None:
        return MaskablePPO.load(config.init, device="cpu")
    from tarot_env.experiments.train import new_model

    from tarot_env.wrappers import TarotVecEnv

    tc = train_config(config)
    model = new_model(tc, TarotVecEnv(tc.num_envs, env_id=tc.env_id, seat="rotate", reward=tc.reward, **env_options(tc)), device="cpu")
    if tc.bc_deals > 0:
        start = time.perf_counter()
        data = collect(tc.env_id, tc.bc_deals, rule_agent(tc.env_id), seed=tc.seed + 1, progress=tc.progress_bar, reward=tc.reward,
                       **rules_options(tc))  # fmt: skip
        history = clone(model.policy, data, epochs=tc.bc_epochs, learning_rate=tc.bc_learning_rate, seed=tc.seed, progress=tc.progress_bar)
        write_csv(out / "warm_start.csv", history)
        print(f"new student: cloned the rule-based bot on {len(data):,} decisions of {tc.bc_deals:,} deals in "
              f"{time.perf_counter() - start:.0f} s (agreement {history[-1]['accuracy']:.1%})", flush=True)  # fmt: skip
    return model


def evaluate_student(model: Any, config: DistillConfig, baseline: np.ndarray) -> dict[str, float]:
    """The student's score per deal (greedy) against the rule-based bot at the other seats, as train.py
    evaluates, on the same deals at every iteration: plain, and in duplicate (minus ``baseline``, the
    bot's own score in the student's seat of each deal: the benchmark's way of counting, whose
    interval is several times narrower). Each with the half-width of its 95% interval."""
    from tarot_env.experiments.train import learner_scores, mean_half

    scores = learner_scores(model, train_config(config), rule_agent(config.env_id), config.eval_deals)
    (plain, half), (duplicate, duplicate_half) = mean_half(scores), mean_half(scores - baseline)
    return {"eval_vs_rules": plain, "eval_vs_rules_ci95": half, "eval_vs_rules_duplicate": duplicate,
            "eval_vs_rules_duplicate_ci95": duplicate_half}  # fmt: skip


def bot_baseline(config: DistillConfig) -> np.ndarray:
    """The rule-based bot's score in the student's seat of each evaluation deal (once a run: the bot is deterministic)."""
    from tarot_env.experiments.train import baseline_scores

    return baseline_scores(train_config(config), rule_agent(config.env_id), config.eval_deals)


def save_data(path: Path, data: dict[str, np.ndarray]) -> None:
    """Write ``data.npz`` whole or not at all (a run stopped while writing keeps the previous one)."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **data)
    tmp.replace(path)


def demonstrations(data: dict[str, np.ndarray], soft: bool = False) -> Demonstrations:
    """The labels as imitation.clone takes them (its other arrays stay in data.npz); with ``soft``, their target distributions."""
    fields = (data[k] for k in ("observations", "masks", "actions", "returns", "players", "episodes"))
    return Demonstrations(*fields, targets=data["targets"] if soft else None)


def _started(out: Path) -> list[str]:
    return [name for name in ("log.csv", "data.npz", "model_init.zip") if (out / name).exists()]


def _restore(out: Path) -> tuple[Any, dict[str, np.ndarray] | None, list[dict[str, float]], int]:
    """The student, the labels and the log rows after the last completed iteration in ``out`` (a row
    in log.csv and its model), and the iteration to go on with."""
    from sb3_contrib import MaskablePPO

    rows = read_csv(out / "log.csv")
    done = [int(r["iteration"]) for r in rows if r["iteration"] >= 0 and (out / f"model_iter{int(r['iteration'])}.zip").exists()]
    last = max(done, default=-1)
    rows = [r for r in rows if r["iteration"] <= last]
    model_file = out / (f"model_iter{last}.zip" if last >= 0 else "model_init.zip")
    if not model_file.exists():
        raise ValueError(f"--resume {out}: nothing to go on from (no model_init.zip): start the run again")
    data = None
    if last >= 0:
        with np.load(out / "data.npz") as saved:
            keep = saved["iteration"] <= last  # labels of an iteration stopped before its model are dropped
            # a run from before ``taught`` was kept: every label was the teacher's; before ``targets``: every label hard
            data = {k: saved[k][keep] for k in FIELDS if k in saved}
            data.setdefault("taught", np.ones(int(keep.sum()), dtype=bool))
            if "targets" not in data:
                data["targets"] = np.zeros(data["masks"].shape, dtype=np.float16)
                data["targets"][np.arange(len(data["actions"])), data["actions"]] = 1.0
    print(f"resuming {out} after iteration {last} ({model_file.name}; {0 if data is None else len(data['actions']):,} labels)")
    return MaskablePPO.load(model_file, device="cpu"), data, rows, last + 1


def run(config: DistillConfig, resume: bool = False) -> Path:
    """Distil ``config.teacher`` into the student (see the module docstring); returns ``model_final.zip``'s path."""
    import torch

    from tarot_env._threads import resolve_threads

    check(config)
    out = Path(config.out)
    if not resume and (found := _started(out)):
        raise ValueError(f"--out {out} holds a run already ({', '.join(found)}): --resume {out} goes on with it, or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    train_threads = resolve_threads(config.torch_threads)
    torch.set_num_threads(train_threads)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    baseline = bot_baseline(config)
    if resume and (out / "model_init.zip").exists():
        model, data, rows, first = _restore(out)
    else:
        start = time.perf_counter()
        model, data, first = new_student(config, out), None, 0
        model.save(out / "model_init.zip")
        evaluation = evaluate_student(model, config, baseline)
        rows = [{"iteration": -1, "labels": 0, "labels_total": 0, "deals": 0, "deals_total": 0, **evaluation,
                 "wall_seconds": round(time.perf_counter() - start, 2)}]  # fmt: skip
        write_csv(out / "log.csv", rows)
        print(f"starting student: {_versus(evaluation)} ({config.eval_deals} deals)")
    print(f"budget: {config.iterations} iterations x {config.deals_per_iteration} deals, teacher {config.teacher}, "
          f"{config.workers} worker(s); iterations {first} to {config.iterations - 1} to go", flush=True)  # fmt: skip
    path = out / (f"model_iter{first - 1}.zip" if first > 0 else "model_init.zip")
    if first >= config.iterations:
        shutil.copyfile(path, out / "model_final.zip")
        print(f"{out}: its {config.iterations} iterations are done; --iterations <more> goes on")
        return out / "model_final.zip"
    spent: list[float] = []
    workers = min(config.workers, config.deals_per_iteration)
    with labeller(workers, config.env_id, aec_options(config), config.teacher, str(path)) as label:
        for k in range(first, config.iterations):
            start = time.perf_counter()
            jobs = [
                LabelJob(config.env_id, aec_options(config), config.teacher, str(path), k * config.deals_per_iteration + d, config.seed,
                         config.student_play, config.beta if k == 0 else 0.0, config.label, config.soft_temperature)
                for d in range(config.deals_per_iteration)
            ]  # fmt: skip
            if workers == 1:
                torch.set_num_threads(1)  # the student's forward passes, one position at a time
            new, teacher_seconds = _label(label, jobs, k, config.progress_bar)
            new["iteration"] = np.full(len(new["actions"]), k, dtype=np.int16)
            label_seconds = time.perf_counter() - start
            data = new if data is None else {key: np.concatenate([data[key], new[key]]) for key in FIELDS}
            save_data(out / "data.npz", data)

            torch.set_num_threads(train_threads)
            t0 = time.perf_counter()
            labelled = demonstrations(data, soft=config.soft_temperature > 0)
            history = clone(model.policy, labelled, epochs=config.epochs, batch_size=config.batch_size,
                            learning_rate=config.learning_rate, value_coef=config.value_coef, seed=config.seed + k,
                            progress=config.progress_bar)  # fmt: skip
            train_seconds = time.perf_counter() - t0
            path = out / f"model_iter{k}.zip"
            model.save(path)
            model.save(out / "model_final.zip")
            t0 = time.perf_counter()
            evaluation = evaluate_student(model, config, baseline)
            searched = new["samples"][new["samples"] > 0]
            row = {
                "iteration": k,
                "labels": len(new["actions"]),
                "labels_total": len(data["actions"]),
                "deals": config.deals_per_iteration,
                "deals_total": (k + 1) * config.deals_per_iteration,
                # on the teacher's labels only (an anchor agrees by construction)
                "agreement": float(np.mean(new["student"][new["taught"]] == new["actions"][new["taught"]])) if new["taught"].any() else 0.0,
                "taught": int(new["taught"].sum()),
                **evaluation,
                "teacher_seconds": round(teacher_seconds, 2),  # summed over the workers
                "label_seconds": round(label_seconds, 2),  # wall-clock
                "labels_per_second": round(len(new["actions"]) / label_seconds, 2),
                "train_seconds": round(train_seconds, 2),
                "eval_seconds": round(time.perf_counter() - t0, 2),
                "wall_seconds": round(time.perf_counter() - start, 2),
                "fit_accuracy": history[-1]["accuracy"],
                "policy_loss": history[-1]["policy_loss"],
                "value_loss": history[-1]["value_loss"],
                "mean_samples": float(searched.mean()) if len(searched) else 0.0,
            }
            rows.append(row)
            write_csv(out / "log.csv", rows)
            spent.append(row["wall_seconds"])
            print(_line(row, config, spent), flush=True)
    return out / "model_final.zip"


def _label(label: Callable[[list[LabelJob]], Iterator[DealLabels]], jobs: list[LabelJob], k: int, progress: bool) -> tuple[dict, float]:
    """Every job's labels, concatenated in the jobs' order, with a progress bar over the deals."""
    from tqdm import tqdm

    parts, seconds, labels = [], 0.0, 0
    with tqdm(total=len(jobs), desc=f"iteration {k}: labelling", unit="deal", disable=not progress, leave=False) as bar:
        for result in label(jobs):
            parts.append(result.arrays)
            seconds += result.teacher_seconds
            labels += len(result.arrays["actions"])
            bar.set_postfix(labels=labels, refresh=False)
            bar.update(1)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}, seconds


def _line(row: dict[str, Any], config: DistillConfig, spent: list[float]) -> str:
    """The iteration's line: its budget and what it cost, the agreement, the evaluation, the time left at this pace."""
    left = (config.iterations - 1 - row["iteration"]) * float(np.mean(spent))
    return (
        f"iteration {row['iteration']}/{config.iterations - 1}: {row['labels']:,} labels ({row['taught']:,} the teacher's) "
        f"from {row['deals']} deals "
        f"({row['labels_total']:,} in all); teacher {row['teacher_seconds']:.0f} s over {config.workers} worker(s), labelling "
        f"{row['label_seconds']:.0f} s ({row['labels_per_second']:.1f} labels/s), training {row['train_seconds']:.0f} s; agreement "
        f"before training {row['agreement']:.1%}; {_versus(row)}; "
        f"about {left:.0f} s left"
    )


def _versus(row: dict[str, Any]) -> str:
    return (
        f"vs rules {row['eval_vs_rules']:+.2f} ± {row['eval_vs_rules_ci95']:.2f} per deal, in duplicate "
        f"{row['eval_vs_rules_duplicate']:+.2f} ± {row['eval_vs_rules_duplicate_ci95']:.2f}"
    )


# ---------------------------------------------------------------------- command line


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} refused: an env option is KEY=VALUE, as shaping=false")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _layers(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} refused: layer sizes are positive whole numbers separated by commas, as 256,256")
    return sizes


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} refused: a probability, from 0 to 1")
    return value


def _number(minimum: float, what: str) -> Callable[[str], float]:
    """An argparse type: a finite number above ``minimum`` (``what`` says which, in the refusal)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not minimum < value < float("inf"):
            raise argparse.ArgumentTypeError(f"{text!r} refused: {what}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    """The flags; those not given are absent from the result (``argparse.SUPPRESS``), so that a resumed
    run can tell which were given."""
    from tarot_env.experiments.train import NETWORKS

    from tarot_env import arguments
    from tarot_env.registry import ENV_IDS

    p = arguments.OneLineParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, argument_default=argparse.SUPPRESS
    )
    p.add_argument("--resume", metavar="DIR", help="go on with the run in DIR after its last completed iteration")
    p.add_argument("--env", dest="env_id", choices=ENV_IDS, help="the game (default french_tarot_v0)")
    p.add_argument("--players", dest="num_players", type=arguments.whole_number(1, "a number of players"), help="default: the game's")
    p.add_argument("--option", dest="options", action="append", type=_option, metavar="KEY=VALUE", help="an env option")
    p.add_argument("--reward", help="the reward mode the value head learns (default normalised)")
    p.add_argument("--teacher", help="pimc (default), pimc:samples=64,time=0.25 ... or rules")
    p.add_argument("--iterations", type=arguments.whole_number(1, "a number of iterations"), help="default 4")
    p.add_argument("--deals-per-iteration", type=arguments.deals, help="deals labelled per iteration (default 200)")
    p.add_argument("--workers", type=arguments.whole_number(1, "a number of worker processes"), help="labelling processes (default 2)")
    p.add_argument("--student-play", choices=STUDENT_PLAY, help="the student's moves: drawn from its policy (default) or greedy")
    p.add_argument("--beta", type=_probability, help="iteration 0: chance of playing the teacher's move instead (default 0)")
    p.add_argument(
        "--label",
        choices=LABELS,
        help="the decisions the teacher labels: all (default), auction (all but the card play) or play (the card play)",
    )
    p.add_argument(
        "--soft-temperature",
        type=_number(-1e-300, "a temperature in points, 0 (hard labels) or more"),
        help="soft targets: the search's per-action values as a softmax at this temperature (points; default 0: hard labels)",
    )
    p.add_argument("--init", help="a MaskablePPO zip to start from (default: a new model cloned from the rule-based bot)")
    p.add_argument("--network", choices=NETWORKS, help="the new student's network (default shared)")
    p.add_argument("--net-arch", type=_layers, help="the new student's layers (default 256,256)")
    p.add_argument("--bf16-first-layer", action=argparse.BooleanOptionalAction, help="the first layer in bfloat16 (default on)")
    p.add_argument(
        "--bc-deals", type=arguments.whole_number(0, "a number of deals"), help="the new student's cloning of the bot (default 10000)"
    )
    p.add_argument("--bc-epochs", type=arguments.whole_number(1, "a number of epochs"), help="default 4")
    p.add_argument(
        "--epochs", type=arguments.whole_number(1, "a number of epochs"), help="passes over the labels per iteration (default 4)"
    )
    p.add_argument("--batch-size", type=arguments.whole_number(1, "a batch size"), help="default 512")
    p.add_argument("--learning-rate", type=_number(0.0, "a number above 0"), help="default 0.001")
    p.add_argument("--value-coef", type=_number(-1e-300, "a number, 0 or more"), help="the value loss's weight (default 0.5)")
    p.add_argument(
        "--eval-deals", type=arguments.whole_number(2, "a number of deals"), help="deals against the bot per evaluation (default 200)"
    )
    p.add_argument("--seed", type=arguments.seed, help="default 0")
    p.add_argument("--out", default=argparse.SUPPRESS, help="the run's folder (default runs/distill)")
    p.add_argument(
        "--torch-threads", type=arguments.whole_number(1, "a number of threads"), help="the training's threads (default every core)"
    )
    p.add_argument("--no-progress-bar", dest="progress_bar", action="store_false")
    return p


def parse_command(argv: list[str] | None = None) -> tuple[DistillConfig, bool]:
    """The run's config and whether it resumes; a bad flag or combination exits with one line."""
    p = _parser()
    args = vars(p.parse_args(argv))
    resume = args.pop("resume", None)
    if "options" in args:
        args["options"] = dict(args["options"])
    try:
        if resume:
            config = _resumed(Path(resume), args)
        else:
            config = DistillConfig(**args)
        check(config)
    except ValueError as err:
        p.error(str(err))
    if not resume and (found := _started(Path(config.out))):
        p.error(
            f"--out {config.out} holds a run already ({', '.join(found)}): --resume {config.out} goes on with it, or give another --out"
        )
    return config, bool(resume)


def _resumed(folder: Path, args: dict[str, Any]) -> DistillConfig:
    """The config of the run in ``folder``, with the flags of :data:`RESUME_FLAGS` given on top."""
    try:
        saved = json.loads((folder / "config.json").read_text())
        config = DistillConfig(**saved)
    except (OSError, json.JSONDecodeError, TypeError) as err:
        raise ValueError(f"--resume {folder} refused: no distillation run there ({type(err).__name__}: {err})") from None
    if "out" in args and Path(args["out"]) != folder:
        raise ValueError(f"--resume {folder} goes on in its own folder: drop --out {args['out']}")
    args.pop("out", None)
    fixed = sorted(k for k in args if k not in RESUME_FLAGS)
    if fixed:
        given = ", ".join(f"--{k.replace('_', '-')}" for k in fixed)
        allowed = ", ".join(f"--{k.replace('_', '-')}" for k in RESUME_FLAGS if k != "progress_bar") + " and --no-progress-bar"
        raise ValueError(f"{given} refused with --resume: the run goes on as {folder / 'config.json'} says; only {allowed} may change")
    return dataclasses.replace(config, out=str(folder), **args)


def main(argv: list[str] | None = None) -> Path:
    config, resume = parse_command(argv)
    final = run(config, resume=resume)
    print(final)
    return final


if __name__ == "__main__":
    main()
