"""The learning curves of distillation runs side by side (not a test).

    python -m tarot_env.experiments.distill_curves first=results/distill/french_tarot_v0_4p_first \\
        auction=results/distill/french_tarot_v0_4p_auction --line "search agent=29.8" --out runs/distill_curves.png

Each run of ``experiments/distill.py`` writes one ``log.csv`` row per DAgger iteration (and a row
``-1`` for the student before any label): the student's margin over the rule-based bot in duplicate
(``eval_vs_rules_duplicate``, with its 95% interval over the evaluation's deals), the teacher's labels
so far and the iteration's wall time. This plots that margin against the labels (left) and against
the hours of the run (right), one line a run, so that attempts made with different budgets can be
read together; ``--line LABEL=VALUE`` draws a reference (the search agent's margin, a target).

It reads the other learning runs' logs too, so that they can stand beside the distillations:
experiments/expert.py's (one row a round, in the same columns, and its PPO steps so far) and
experiments/train.py's (one row an evaluation: its PPO steps and seconds; no labels).
``--left steps`` puts PPO's steps on the left panel instead of the labels (the runs of train.py
and expert iteration's control have none).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

#: the columns of a distillation log read here
COLUMNS = ("iteration", "labels_total", "wall_seconds", "eval_vs_rules_duplicate", "eval_vs_rules_duplicate_ci95")


#: the columns of a training log (experiments/train.py) read here
TRAIN_COLUMNS = ("steps", "seconds", "eval_vs_rules_duplicate", "eval_vs_rules_duplicate_ci95")


def read_log(folder: Path) -> dict[str, np.ndarray]:
    """A run's ``log.csv``: its iterations (rounds, evaluations), labels so far, PPO steps since its
    start, hours so far, margin and interval. A distillation's or an expert iteration's log (one row an
    iteration or round, :data:`COLUMNS`), or a training run's (:data:`TRAIN_COLUMNS`: no labels)."""
    path = Path(folder) / "log.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{folder} has no log.csv: not a learning run's folder (distill.py, expert.py or train.py write one)")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    columns = set(rows[0] if rows else {})
    if rows and not set(TRAIN_COLUMNS) - columns and "iteration" not in columns:
        steps = np.array([float(r["steps"]) for r in rows])
        return {
            "iteration": np.arange(len(rows)),
            "labels": np.zeros(len(rows)),
            "steps": steps - steps[0],
            "hours": np.array([float(r["seconds"]) for r in rows]) / 3600,
            "margin": np.array([float(r["eval_vs_rules_duplicate"]) for r in rows]),
            "half": np.array([float(r["eval_vs_rules_duplicate_ci95"]) for r in rows]),
        }
    missing = set(COLUMNS) - columns
    if not rows or missing:
        raise ValueError(f"{path} is not a distillation log: no rows, or without {sorted(missing)}")
    ppo = np.array([float(r.get("ppo_steps_total") or 0) for r in rows])  # expert iteration's; distillations run no PPO
    return {
        "iteration": np.array([int(r["iteration"]) for r in rows]),
        "labels": np.array([float(r["labels_total"]) for r in rows]),
        "steps": ppo - ppo[0],
        "hours": np.cumsum([float(r["wall_seconds"]) for r in rows]) / 3600,
        "margin": np.array([float(r["eval_vs_rules_duplicate"]) for r in rows]),
        "half": np.array([float(r["eval_vs_rules_duplicate_ci95"]) for r in rows]),
    }


def plot(
    runs: dict[str, dict[str, np.ndarray]],
    path: Path,
    lines: dict[str, float] | None = None,
    title: str = "Distillation runs side by side",
    left: str = "labels",
) -> None:
    """Each run's student margin over the bot (95% interval) against teacher labels (``left="steps"``:
    PPO's steps) and against hours; ``runs``: name -> :func:`read_log` of the run's folder."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2 + 0.3 * (len(runs) + len(lines or {}))))
    for name, log in runs.items():
        for ax, x in zip(axes, (log[left] / (1000 if left == "labels" else 1e6), log["hours"])):
            ax.errorbar(x, log["margin"], yerr=log["half"], marker="o", capsize=3, label=name)
    for k, (label, value) in enumerate((lines or {}).items()):
        for ax in axes:
            ax.axhline(value, color=f"C{len(runs) + k}", ls="--", lw=1, label=f"{label} ({value:+g})")
    first = "teacher labels so far (thousands)" if left == "labels" else "PPO steps since the start (millions)"
    for ax, xlabel in zip(axes, (first, "hours of the run (labelling, training, evaluations)")):
        ax.axhline(0, color="grey", lw=0.5)
        ax.set(xlabel=xlabel, ylabel="student's margin over the bot per deal")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=1, fontsize=9, frameon=False)
    note = "each point: an evaluation in duplicate against the bot, 95% interval; the first: the starting model"
    fig.suptitle(f"{title}\n({note})", fontsize=10)
    fig.tight_layout(rect=(0, min(0.06 * (1 + len(runs) + len(lines or {})), 0.6), 1, 1))  # room for the legend
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _pair(text: str, kind: str) -> tuple[str, str]:
    name, sep, value = text.rpartition("=")  # the last "=": a name may hold one (T=2), a folder or a number not
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: give {kind}")
    return name, value


def _line(text: str) -> tuple[str, float]:
    label, value = _pair(text, "LABEL=VALUE")
    try:
        return label, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="the learning curves of distillation runs side by side (see the module docstring)")
    p.add_argument("runs", nargs="+", type=lambda t: _pair(t, "NAME=DIR"), metavar="NAME=DIR",
                   help="a run's folder and its name on the plot")  # fmt: skip
    p.add_argument("--line", action="append", default=[], type=_line, metavar="LABEL=VALUE",
                   help="a reference line, e.g. 'search agent=29.8' (repeatable)")  # fmt: skip
    p.add_argument("--title", default="Distillation runs side by side", help="the figure's title")
    p.add_argument("--out", default="runs/distill_curves.png", help="the PNG (default runs/distill_curves.png)")
    p.add_argument("--left", choices=("labels", "steps"), default="labels", help="the left panel: teacher labels (default) or PPO steps")
    args = p.parse_args(argv)
    runs = {}
    for name, folder in args.runs:
        try:
            runs[name] = read_log(Path(folder))
        except (FileNotFoundError, ValueError) as e:
            p.error(f"{name}={folder}: {e}")
    plot(runs, Path(args.out), dict(args.line), args.title, args.left)
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
