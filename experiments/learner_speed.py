"""The learner's speed, settings side by side: PPO steps per second of training (not a test).

    python -m tarot_env.experiments.benchmark --api learner                      # French Tarot, 4 players
    python -m tarot_env.experiments.benchmark --api learner --env ottocento_v0 --repeats 5 --learner-steps 131072

Each setting of :data:`SETTINGS` trains MaskablePPO from scratch (no warm start, no evaluation
during the run) for ``--learner-steps`` steps in a fresh child process
(``python -m tarot_env.experiments.train``) against the training's own opponents (``--learner-pool
default``: the rule-based bot and, from 50,000 steps on, the learner's snapshots, as a run plays them;
``rules``: the bot alone), the settings alternating ``before, now, before, now...``
so that a swing of the machine's speed falls on both. A child's figure is its learner steps per
second as ``train`` counts them (rollouts and updates, not the final evaluation), with where the
time went (env, opponents, the learner's forward passes, the update). Reported: each setting's
median over the repeats and its range, and the ratio of the medians with the range of the ratios
of the pairs run one after the other. Written to ``--out`` (default ``runs/learner_speed.json``; the
committed figures quoted by docs/performance.md are ``results/learner_speed.json``).
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

#: the settings compared: TrainConfig fields over its defaults ("now": the defaults themselves)
SETTINGS: dict[str, dict[str, Any]] = {
    # TrainConfig's defaults until 2026-11-28: two separate 256-256 networks (policy and value) under
    # sb3-contrib's MlpPolicy, 64 tables x 128 steps a rollout, minibatches of 1,024, one torch thread throughout
    "before": {"network": "separate", "num_envs": 64, "n_steps": 128, "batch_size": 1024, "update_threads": 1},
    # the defaults: one shared trunk with the masked softmax computed directly, 1,024 tables x 16 steps,
    # minibatches of 4,096, 1 epoch, the update on every core (how they came to be: CHANGELOG.md)
    "now": {},
}


def flags(fields: dict[str, Any]) -> list[str]:
    """``train``'s command-line flags for TrainConfig ``fields``."""
    out: list[str] = []
    for name, value in fields.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            out.append(flag if value else "--no-" + flag[2:])
        else:
            out += [flag, str(value)]
    return out


#: the opponents of the runs: "default", the training's own pool (the bot 3 : the learner's snapshots 1,
#: a snapshot every 50,000 steps, as a real run plays them); "rules", the bot alone (no snapshot)
POOLS = ("default", "rules")


def run_one(env_id: str, num_players: int | None, setting: str, steps: int, seed: int = 0, pool: str = "default") -> dict[str, Any]:
    """One child: ``setting`` trained for ``steps`` steps against ``pool``; its learner steps per second and breakdown."""
    with tempfile.TemporaryDirectory(prefix="learner-") as tmp:
        command = [sys.executable, "-m", "tarot_env.experiments.train", "--env", env_id, "--timesteps", str(steps),
                   "--bc-deals", "0", "--eval-every", "0", "--checkpoint-every", "0",
                   "--eval-episodes", "8", "--torch-threads", "1", "--env-threads", "1", "--seed", str(seed),
                   "--no-progress-bar", "--out", tmp, *flags(SETTINGS[setting])]  # fmt: skip
        if num_players is not None:
            command += ["--players", str(num_players)]
        if pool == "rules":
            command += ["--snapshot-every", "0"]
        elif pool != "default":
            raise ValueError(f"pool {pool!r} refused: the pools are {', '.join(POOLS)}")
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"the {setting} child failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        with open(Path(tmp) / "log.csv", newline="") as f:
            row = list(csv.DictReader(f))[-1]
    seconds = {k: float(row[f"seconds_{k}"]) for k in ("env", "opponents", "learner", "update")}
    total = sum(seconds.values())
    return {
        "setting": setting,
        "steps": int(row["steps"]),
        "steps_per_second": float(row["steps_per_second"]),
        "seconds": seconds,
        "shares": {k: round(v / total, 3) for k, v in seconds.items()},
    }


def run(
    env_id: str, num_players: int | None, steps: int, repeats: int, out: Path, progress: bool = True, pool: str = "default"
) -> dict[str, Any]:
    """Every setting ``repeats`` times, alternating; the summary is written to ``out`` and returned."""
    from tqdm import tqdm

    runs: list[dict[str, Any]] = []
    order = [s for _ in range(repeats) for s in SETTINGS]
    for k, setting in enumerate(tqdm(order, desc="learner speed (child runs)", disable=not progress)):
        r = run_one(env_id, num_players, setting, steps, seed=k // len(SETTINGS), pool=pool)
        runs.append(r)
        tqdm.write(
            f"{setting:<7} {r['steps_per_second']:>8,.0f} learner steps/s  ("
            + ", ".join(f"{name} {share:.0%}" for name, share in r["shares"].items())
            + ")"
        )
    summary: dict[str, Any] = {}
    for setting in SETTINGS:
        rates = [r["steps_per_second"] for r in runs if r["setting"] == setting]
        summary[setting] = {"median": float(np.median(rates)), "min": min(rates), "max": max(rates), "runs": rates}
    base = [r["steps_per_second"] for r in runs if r["setting"] == "before"]
    new = [r["steps_per_second"] for r in runs if r["setting"] == "now"]
    pairs = [b / a for a, b in zip(base, new)]
    document = {
        "env": env_id,
        "num_players": num_players,
        "steps_per_run": steps,
        "pool": pool,
        "repeats": repeats,
        "settings": SETTINGS,
        "summary": summary,
        "speedup": {
            "ratio_of_medians": summary["now"]["median"] / summary["before"]["median"],
            "pairs_min": min(pairs),
            "pairs_max": max(pairs),
        },
        "runs": runs,
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
            "note": "each run a fresh child process, settings alternating; torch 1 thread in rollouts, env 1 thread",
        },
        "date": datetime.date.today().isoformat(),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2) + "\n")
    s = document["speedup"]
    print(
        f"learner steps/s, medians of {repeats}: before {summary['before']['median']:,.0f} "
        f"({summary['before']['min']:,.0f}-{summary['before']['max']:,.0f}), now {summary['now']['median']:,.0f} "
        f"({summary['now']['min']:,.0f}-{summary['now']['max']:,.0f}): {s['ratio_of_medians']:.2f}x "
        f"(pairs {s['pairs_min']:.2f}-{s['pairs_max']:.2f}x); written {out}"
    )
    return document


def plot_curves(runs: dict[str, Path], path: Path, title: str = "French Tarot, 4 players: the learners side by side") -> None:
    """Learning curves against wall time: each run's evaluations against the rule-based bot (its
    ``log.csv``: ``eval_vs_rules_duplicate``, or ``eval_vs_rules`` in a log from before it, with its 95%
    interval over the evaluation's deals) against the minutes of PPO training before them (rollouts
    and updates, as the learner's steps per second count them: the evaluations, which a run may
    make more or less often, are left out), and against PPO steps beside."""
    import matplotlib
    from tarot_env.experiments.train import read_csv

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2 + 0.3 * len(runs)))
    for name, folder in runs.items():
        rows = read_csv(Path(folder) / "log.csv")
        if not rows:
            raise ValueError(f"{folder} has no log.csv rows: not a training run's folder")
        key = "eval_vs_rules_duplicate" if all(np.isfinite(r.get("eval_vs_rules_duplicate", np.nan)) for r in rows) else "eval_vs_rules"
        y = [r[key] for r in rows]
        half = [r.get(f"{key}_ci95", float("nan")) for r in rows]
        minutes = [sum(r.get(f"seconds_{k}", 0.0) for k in ("env", "opponents", "learner", "update")) / 60 for r in rows]
        axes[0].errorbar(minutes, y, yerr=half, marker="o", capsize=3, label=name)
        axes[1].errorbar([r["steps"] / 1e6 for r in rows], y, yerr=half, marker="o", capsize=3, label=name)
    for ax, xlabel in zip(axes, ("minutes of PPO training (rollouts and updates; evaluations left out)", "PPO steps (millions)")):
        ax.axhline(0, color="grey", lw=0.5)
        ax.set(xlabel=xlabel, ylabel="margin over the rule-based bot per deal")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=1, fontsize=9, frameon=False)
    fig.suptitle(f"{title}\n(each point: an evaluation, the learner's score minus the bot's in its seat, 95% interval)", fontsize=10)
    fig.tight_layout(rect=(0, 0.06 * (1 + len(runs)), 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """``curves NAME=DIR ... --out PNG``: the learning curves of training runs side by side."""
    import argparse

    p = argparse.ArgumentParser(description="the learning curves of training runs against wall time (see the module docstring)")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("curves", help="plot runs' learning curves side by side")
    c.add_argument("runs", nargs="+", metavar="NAME=DIR", help="a run's folder (its log.csv) and its name on the plot")
    c.add_argument("--out", default="runs/learner_curves.png", help="the PNG (default runs/learner_curves.png)")
    args = p.parse_args(argv)
    runs = {}
    for item in args.runs:
        name, sep, folder = item.partition("=")
        if not sep or not Path(folder, "log.csv").is_file():
            p.error(f"{item!r}: give NAME=DIR, DIR a training run's folder with its log.csv")
        runs[name] = Path(folder)
    plot_curves(runs, Path(args.out))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
