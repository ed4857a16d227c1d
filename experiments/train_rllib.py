"""Ray RLlib PPO self-play for any tarot_env game, with action masking (RLlib's new API stack).

    python -m tarot_env.experiments.train_rllib --env ottocento_v0 --iterations 20 --out runs/rllib_ottocento
    python -m tarot_env.experiments.train_rllib --env french_tarot_v0 --players 5 --policies per_seat
    python -m tarot_env.experiments.train_rllib --env mattazza_v0 --address auto --num-env-runners 8   # an existing Ray cluster

Every seat of the table is played by the policy being trained (:mod:`tarot_env.rllib`: the AEC env
as an RLlib ``MultiAgentEnv``, observations ``{"observations", "action_mask"}``): one policy shared
by all seats (``--policies shared``, the default), or one per seat (``--policies per_seat``). Its
network is RLlib's ``ActionMaskingTorchRLModule``: RLlib's default PPO networks, whose logits of
illegal actions are masked. The env pays the ``--reward`` of the game (``normalised`` by default,
as in experiments/train.py); PPO's discount is 1: only a deal's score counts.

Sampling speed: RLlib's own work per step (connectors, a forward pass) costs far more than the
env's step, so each env runner steps ``--envs-per-env-runner`` tables (8 by default) and decides
for all of them in one forward pass (several times the env steps per second of one table);
``--num-env-runners`` adds processes (Ray actors, one CPU each) on this machine or on the cluster
of ``--address`` (tarot_env installed on its nodes).

Written to ``--out`` (default ``runs/rllib``):

- ``config.json``: the command's arguments;
- ``checkpoint_<iteration>/`` every ``--checkpoint-every`` iterations and ``checkpoint_final/``
  (``algo.save``; ``Algorithm.from_checkpoint`` resumes one, and
  ``tarot_env.rllib.RLlibPolicyAgent.from_checkpoint`` plays its policy);
- ``log.csv``, a row per iteration: env steps sampled (in the iteration and since the start), the
  episodes' mean return as RLlib counts it (the sum over the seats: 0 in zero-sum games) and each
  seat's, episode length, each policy's entropy, the seconds, and two throughputs in env steps
  per second: of the whole iteration (sampling and the PPO update) and of the sampling alone;
- ``tb/``: the same numbers as TensorBoard scalars (``tensorboard --logdir runs/rllib/tb``).
  RLlib writes TensorBoard logs only when it runs under Ray Tune; an ``Algorithm`` trained by
  hand, as here, writes none (Ray 2.60), so this script does;
- ``eval_vs_random/``, ``eval_vs_rules/``: the arena's outputs (experiments/arena.py) of the
  trained policy playing greedily against the random agent and against the rule-based bot, in
  duplicate over ``--eval-deals`` deals of the fixed deal set; ``eval.json`` sums them up;
- ``learning_curve.png``: the log's returns, entropy and throughput against env steps.

``train(args)`` is the Python API (:class:`Args` holds every flag).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

import tarot_env
from tarot_env import arguments


@dataclass
class Args:
    """Every flag of the command line."""

    env: str = "french_tarot_v0"
    players: int | None = None  # None: the game's default
    reward: str = "normalised"  # the env's reward for training (evaluations count the score)
    policies: str = "shared"  # "shared": one policy for every seat; "per_seat": one each
    address: str | None = None  # an existing Ray cluster ("auto", "ray://host:10001"); None: a local ray.init()
    num_env_runners: int = 1  # 0: sample in this process
    envs_per_env_runner: int = 8  # tables per env runner, its policy deciding for all of them in one forward pass
    iterations: int = 20
    train_batch_size: int = 4000  # env steps sampled per iteration
    minibatch_size: int = 500
    num_epochs: int = 4
    lr: float = 1e-4
    checkpoint_every: int = 10  # iterations; 0: only the final checkpoint
    eval_deals: int = 100  # deals of each evaluation match; 0: no evaluation
    seed: int = 0
    torch_threads: int = 1  # of this process, which runs the PPO update
    out: str = "runs/rllib"


# ---------------------------------------------------------------------- sampling time


class TimedEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner, which also logs the seconds of each ``sample()`` call.

    RLlib's own timers are running averages over the iterations (Ray 2.60), not the iteration's
    time; this sum is reset at each iteration, as the env step counts are."""

    def sample(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        episodes = super().sample(*args, **kwargs)
        self.metrics.log_value("sample_seconds", time.perf_counter() - start, reduce="sum")
        return episodes


# ---------------------------------------------------------------------- the algorithm


def env_options(args: Args) -> dict[str, Any]:
    options: dict[str, Any] = {"reward": args.reward}
    if args.players is not None:
        options["num_players"] = args.players
    return options


def build_algo(args: Args) -> Any:
    """PPO on the game's multi-agent env, with one ``ActionMaskingTorchRLModule`` per policy."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from tarot_env import rllib

    options = env_options(args)
    config = (
        PPOConfig()
        .environment(rllib.register(args.env, **options))
        .multi_agent(**rllib.multi_agent(args.env, args.policies, **options))
        .rl_module(rl_module_spec=rllib.rl_module_spec(args.env, args.policies, **options))
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_env_runner, env_runner_cls=TimedEnvRunner)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            gamma=1.0,  # a deal is short and only its score counts
            lambda_=0.95,
            clip_param=0.1,
            entropy_coeff=0.001,
        )
        .debugging(seed=args.seed)
    )
    return config.build_algo()


# ---------------------------------------------------------------------- the log


def log_row(result: dict[str, Any], iteration: int, seconds: float, total_seconds: float, num_env_runners: int) -> dict[str, float]:
    """The ``log.csv`` row of one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    steps = float(runners.get("num_env_steps_sampled", math.nan))
    # the sampling seconds are summed over the env runners, which sample side by side
    sampling = float(runners.get("sample_seconds", math.nan)) / max(1, num_env_runners)
    row = {
        "iteration": iteration,
        "env_steps": int(result.get("num_env_steps_sampled_lifetime", 0)),
        "env_steps_this_iteration": steps,
        "episodes": float(runners.get("num_episodes", 0)),
        "episode_return_mean": float(runners.get("episode_return_mean", math.nan)),
        "episode_len_mean": float(runners.get("episode_len_mean", math.nan)),
    }
    for agent, value in sorted(runners.get("agent_episode_returns_mean", {}).items()):
        row[f"return_{agent}"] = float(value)
    for module, stats in sorted(result.get("learners", {}).items()):
        if module != "__all_modules__" and "entropy" in stats:
            row[f"entropy_{module}"] = float(stats["entropy"])
    row["seconds"] = round(total_seconds, 3)
    row["iteration_seconds"] = round(seconds, 3)
    row["env_steps_per_second"] = round(steps / seconds, 1) if seconds > 0 else math.nan
    row["sampling_env_steps_per_second"] = round(steps / sampling, 1) if sampling > 0 else math.nan
    return row


def write_csv(path: Path, rows: list[dict[str, float]]) -> None:
    fields = list(dict.fromkeys(k for row in rows for k in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def tensorboard_writer(folder: Path) -> Any:
    """A TensorBoard ``SummaryWriter`` in ``folder``, or ``None`` without the tensorboard package."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("no TensorBoard logs: the tensorboard package is not installed (pip install tensorboard)")
        return None
    return SummaryWriter(str(folder))


def plot_curve(rows: list[dict[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["env_steps"] for r in rows]
    last = rows[-1]
    panels = [
        ("mean return per deal, by seat", "reward per deal", {k.removeprefix("return_"): k for k in last if k.startswith("return_")}),
        ("policy entropy, by policy", "nats", {k.removeprefix("entropy_"): k for k in last if k.startswith("entropy_")}),
        ("throughput", "env steps per second", {"iteration": "env_steps_per_second", "sampling": "sampling_env_steps_per_second"}),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for ax, (name, unit, lines) in zip(axes, panels):
        for label, key in lines.items():
            ax.plot(steps, [r.get(key, math.nan) for r in rows], marker="o", label=label)
        if len(lines) > 1:
            ax.legend(fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.set(xlabel="env steps", ylabel=unit)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------- evaluation


def evaluate(checkpoint: Path, args: Args, out: Path) -> dict[str, Any]:
    """The trained policy, greedy, in the arena against the random agent and against the rule-based bot.

    With one policy per seat, ``player_0``'s plays every seat (the arena seats each agent everywhere)."""
    from tarot_env.agents.factory import make_agent

    from tarot_env import rllib
    from tarot_env.arena import run_arena

    module_id = rllib.module_ids(args.env, args.policies, **env_options(args))[0]
    agent = rllib.RLlibPolicyAgent.from_checkpoint(checkpoint, module_id)
    summary: dict[str, Any] = {"checkpoint": str(checkpoint), "module": module_id, "deals": args.eval_deals}
    for opponent in ("random", "rules"):
        results = run_arena(
            args.env, {"rllib": agent, opponent: make_agent(opponent, args.env)}, args.eval_deals,
            num_players=args.players, out=out / f"eval_vs_{opponent}", progress=False, strict=True,
        )  # fmt: skip
        summary[f"vs_{opponent}"] = {
            "score": results["agents"]["rllib"]["score"],  # mean score per deal, with its 95% interval
            "difference": results["pairwise"][f"rllib - {opponent}"],
            "fallbacks": results["fallbacks"]["rllib"]["fallback"],
        }
    (out / "eval.json").write_text(json.dumps(summary, indent=2))
    return summary


# ---------------------------------------------------------------------- training


def train(args: Args) -> dict[str, Any]:
    """Train, write the run's files under ``args.out`` (see the module docstring); the final
    checkpoint, the log's last row and the evaluation."""
    import ray
    import torch

    from tarot_env._threads import thread_plan

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(args), indent=2))
    # the env runners are processes of one torch thread each (Ray gives each actor OMP_NUM_THREADS=1),
    # each stepping its env on one core; with none, this process samples too
    runners = args.num_env_runners
    torch_threads, _, threads_line = thread_plan(args.torch_threads, 0 if runners else 1, others=runners)
    torch.set_num_threads(torch_threads)
    print(threads_line + (f" ({runners} env runner process(es) of one thread each)" if runners else ""), flush=True)
    (out / "threads.txt").write_text(threads_line + "\n")
    torch.manual_seed(args.seed)

    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address=args.address)  # None: a local Ray instance
    try:
        algo = build_algo(args)
        writer = tensorboard_writer(out / "tb")
        rows: list[dict[str, float]] = []
        total = 0.0
        for iteration in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            total += seconds
            row = log_row(result, iteration, seconds, total, args.num_env_runners)
            rows.append(row)
            write_csv(out / "log.csv", rows)
            if writer is not None:
                for key, value in row.items():
                    if key not in ("iteration", "env_steps") and math.isfinite(value):
                        writer.add_scalar(key, value, row["env_steps"])
                writer.flush()
            print(
                f"iteration {iteration}: {row['env_steps']:,} env steps, {row['env_steps_per_second']:,.0f} steps/s "
                f"(sampling {row['sampling_env_steps_per_second']:,.0f}), episode return {row['episode_return_mean']:.3f}"
            )
            if args.checkpoint_every and iteration % args.checkpoint_every == 0:
                algo.save(str((out / f"checkpoint_{iteration:06d}").resolve()))
        final = (out / "checkpoint_final").resolve()
        algo.save(str(final))
        if writer is not None:
            writer.close()
        algo.stop()
        logdir = Path(algo.logdir)  # made by every Algorithm in ~/ray_results, and left empty outside Ray Tune
        if logdir.is_dir() and not any(logdir.iterdir()):
            logdir.rmdir()
    finally:
        if started_ray:
            ray.shutdown()

    steps = rows[-1]["env_steps"]
    print(f"{steps:,} env steps in {total:.0f} s ({steps / max(total, 1e-9):,.0f} env steps/s, sampling and updates)")
    title = f"{args.env}: RLlib PPO self-play, {args.policies} policy"
    evaluation = evaluate(final, args, out) if args.eval_deals > 0 else None
    if evaluation is not None:
        scores = {opponent: evaluation[f"vs_{opponent}"]["score"]["mean"] for opponent in ("random", "rules")}
        for opponent, score in scores.items():
            print(f"greedy policy vs {opponent}: {score:+.2f} per deal over {args.eval_deals} deals (in duplicate)")
        title += f"\nfinal, greedy, per deal: {scores['random']:+.2f} vs random, {scores['rules']:+.2f} vs the rule-based bot"
    plot_curve(rows, out / "learning_curve.png", title)
    return {"checkpoint": str(final), "log": rows[-1], "evaluation": evaluation}


# ---------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None = None) -> Args:
    """The :class:`Args` of a command line; errors are one line (``arguments.OneLineParser``)."""
    from tarot_env import rllib

    defaults = Args()
    p = arguments.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default=defaults.env, help=f"env id (default {defaults.env}): {', '.join(tarot_env.ENV_IDS)}")
    p.add_argument("--players", type=int, default=None, help="player count (French Tarot 3-5, Mattazza 3-6; default: the game's)")
    p.add_argument("--reward", default=defaults.reward, choices=("score", "normalised", "win_loss"), help="the env's training reward")
    p.add_argument("--policies", default=defaults.policies, choices=rllib.POLICIES, help="one policy shared by every seat, or one per seat")
    p.add_argument("--address", default=None, help="an existing Ray cluster (e.g. auto); default: a local ray.init()")
    p.add_argument("--num-env-runners", type=arguments.whole_number(0, "a number of env runners"), default=defaults.num_env_runners)
    p.add_argument(
        "--envs-per-env-runner", type=arguments.whole_number(1, "a number of envs"), default=defaults.envs_per_env_runner,
        help="tables each env runner steps together (its policy decides for all of them in one forward pass)",
    )  # fmt: skip
    p.add_argument("--iterations", type=arguments.whole_number(1, "a number of iterations"), default=defaults.iterations)
    p.add_argument("--train-batch-size", type=arguments.steps, default=defaults.train_batch_size, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=arguments.steps, default=defaults.minibatch_size)
    p.add_argument("--num-epochs", type=arguments.whole_number(1, "a number of epochs"), default=defaults.num_epochs)
    p.add_argument("--lr", type=float, default=defaults.lr, help="learning rate")
    p.add_argument(
        "--checkpoint-every", type=arguments.whole_number(0, "a number of iterations"), default=defaults.checkpoint_every,
        help="iterations between checkpoints (0: only the final one)",
    )  # fmt: skip
    p.add_argument(
        "--eval-deals", type=arguments.whole_number(0, "a number of deals"), default=defaults.eval_deals,
        help="deals of each evaluation match, against random and against the rule-based bot (0: none)",
    )  # fmt: skip
    p.add_argument("--seed", type=arguments.seed, default=defaults.seed)
    p.add_argument("--torch-threads", type=arguments.whole_number(1, "a number of threads"), default=defaults.torch_threads)
    p.add_argument("--out", default="runs/rllib", help="output folder (default runs/rllib)")
    args = Args(**vars(p.parse_args(argv)))
    if args.env not in tarot_env.ENV_IDS:
        p.error(f"argument --env: unknown env id {args.env!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if args.players is not None and (why := arguments.players_error(args.env, args.players)):
        p.error(why)
    if args.minibatch_size > args.train_batch_size:
        p.error(f"--minibatch-size {args.minibatch_size} refused: it is above --train-batch-size {args.train_batch_size}")
    if why := arguments.writable_folder_error(Path(args.out), "--out"):
        p.error(why)
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return train(parse_args(argv))


if __name__ == "__main__":
    main()
