"""Expert iteration: the search over the student's own policy labels the student's positions, and PPO goes on.

    python -m tarot_env.experiments.expert --players 4 --minutes 30 --out runs/expert_french4           # French Tarot, 4 players
    python -m tarot_env.experiments.expert --players 4 --minutes 30 --deals-per-round 0 --out runs/ppo_french4   # the control: PPO alone
    python -m tarot_env.experiments.expert --resume runs/expert_french4 --minutes 60                    # go on, up to 60 minutes in all
    python -m tarot_env.experiments.distill_curves expert=runs/expert_french4 ppo=runs/ppo_french4 --out runs/expert.png

Why: five distillations of plain PIMC failed (docs/distillation.md) because PIMC's values say what
happens if the rule-based bot plays on, and its argmax is noise where cards are near-equal. Here the
teacher is the search over the *student's own* policy (``pimc:rollout=sb3:<the student>``; Lerer et
al.'s SPARTA, Tesauro and Galperin's rollouts), and what the student learns is that search's *paired
gains*, not its argmax: at each round,

1. **Label.** The student plays ``--deals-per-round`` whole deals at every seat (its moves drawn from its
   policy, as DAgger's, :func:`tarot_env.experiments.distill.label_deal`); at each of its decisions the
   search (``--search`` classes, the card play by default: where the search's lead over the network is,
   docs/results.md) plays every candidate on the same sampled worlds, the student's policy playing them
   out, and measures each candidate's mean gain over the student's own choice with its standard error.
   The target is :func:`tarot_env.experiments.distill.paired_target`: where a gain is significant (over
   1 point and 2 standard errors), ``softmax(log p + gain / --temperature)``, the student's policy tilted
   toward what the search measured (Gumbel AlphaZero's improved policy, Danihelka et al., ICLR 2022);
   elsewhere the student's own policy, an anchor.
2. **Distil.** A few epochs of cross-entropy to those targets over every label so far
   (:func:`tarot_env.experiments.imitation.clone`, value loss off: the critic stays PPO's).
3. **PPO.** ``--ppo-steps`` more steps of the same MaskablePPO model (its own optimizer, the learner and
   opponent pool of experiments/train.py: the rule-based bot and the student's snapshots), so the
   distillation is an extra loss between PPO's updates rather than a fresh start.

The next round's play-outs are the improved student's. ``--deals-per-round 0`` is the control: the same
rounds of PPO alone, for a comparison at equal wall time (``--minutes``).

After every round the student is evaluated as experiments/train.py evaluates (greedy, against the bot
at the other seats, ``--eval-deals`` deals of a fixed seed, in duplicate: minus the bot's own score in
the student's seat), after the distillation and after PPO. Written to ``--out``: ``config.json``,
``model_init.zip``, ``model_round<k>.zip`` and ``model_final.zip``, ``data.npz`` (every label), and a
row of ``log.csv`` per round, in the columns experiments/distill_curves.py plots (margin against labels
and hours). ``--resume DIR`` goes on after the last completed round (the opponents' snapshots start
again from the resumed model).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tarot_env.agents import rule_agent
from tarot_env.experiments.distill import FIELDS, LabelJob, labeller, save_data
from tarot_env.experiments.imitation import Demonstrations, clone
from tarot_env.experiments.train import TrainConfig, baseline_scores, learner_scores, make_callback, mean_half, read_csv, write_csv


@dataclass
class ExpertConfig:
    """Every setting of a run (``config.json``); each field is a command-line flag."""

    env_id: str = "french_tarot_v0"
    num_players: int | None = None  # None: the game's default
    options: dict[str, Any] = field(default_factory=dict)  # other env options (rules options...)
    reward: str = "normalised"  # PPO's training reward (the evaluation counts plain scores)
    init: str = "pretrained"  # the starting student: the table's committed model, or a MaskablePPO zip
    minutes: float = 30.0  # the run's wall-clock budget: no round starts after it
    rounds: int = 1000  # at most this many rounds
    deals_per_round: int = 20  # deals the student plays and the search labels each round; 0: PPO alone (the control)
    search: str = "play"  # the classes of decisions the search labels (pimc's search=...): the card play holds the lead
    # who plays the other seats of the search's play-outs: the student (the first runs: labels that teach it to beat
    # itself) or the bot (pimc's others=rules, as the project's search reference plays them out: labels against the bot)
    others: str = "student"
    time: float = 1.0  # the search's seconds a decision (pimc's time=...)
    samples: int = 64  # the search's worlds a decision at most
    temperature: float = 5.0  # points: a gain of this many points multiplies an action's odds by e
    # distillation over every label so far, each round. A round's PPO takes about 120 updates (30 rollouts of 4
    # minibatches); 4 epochs of batches of 256 give the labels 12 updates in the first round and more as they
    # grow (2 epochs of 512 at 1e-4 gave them 4: +21.1 before, +20.9 after the first round's, 1,000 deals)
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 3e-4
    ppo_steps: int = 500_000  # PPO steps each round
    eval_deals: int = 1000  # deals of the fixed evaluation set (seed 1, train.py's) after each phase
    workers: int = 1  # labelling processes
    seed: int = 0
    out: str = "runs/expert"
    progress_bar: bool = True


#: the flags a resumed run may change: its budget and how it runs, not what it learns
RESUME_FLAGS = ("minutes", "rounds", "workers", "progress_bar")


def train_config(config: ExpertConfig, out: Path) -> TrainConfig:
    """The PPO side as experiments/train.py sees it: its env, reward and opponents; no evaluation or
    checkpoint inside PPO (the round does both)."""
    return TrainConfig(
        env_id=config.env_id, num_players=config.num_players, options=dict(config.options), reward=config.reward,
        eval_every=0, checkpoint_every=0, seed=config.seed, out=str(out), progress_bar=False,
    )  # fmt: skip


def aec_options(config: ExpertConfig) -> dict[str, Any]:
    options = dict(config.options, reward=config.reward)
    if config.num_players is not None:
        options["num_players"] = config.num_players
    return options


#: who may play the other seats of the teacher's play-outs (``--others``)
OTHERS = ("student", "rules")


def teacher_spec(config: ExpertConfig, student: Path) -> str:
    """The search over the student saved at ``student``: its base choice and its own seat's play-outs are the
    student's, the other seats' the student's too or the bot's (``others``)."""
    others = "" if config.others == "student" else f",others={config.others}"
    return f"pimc:rollout=sb3:{student}{others},search={config.search},time={config.time},samples={config.samples}"


def check(config: ExpertConfig) -> None:
    """Refuse a config that cannot run, before anything is played or written (one line: what, why, what is allowed)."""
    from tarot_env.agents.pimc import parse_spec

    from tarot_env import arguments
    from tarot_env.registry import ENV_IDS

    if config.env_id not in ENV_IDS:
        raise ValueError(f"--env {config.env_id!r} refused: the envs are {', '.join(ENV_IDS)}")
    if config.num_players is not None and (why := arguments.players_error(config.env_id, config.num_players)):
        raise ValueError(why)
    for name, least in (("rounds", 1), ("deals_per_round", 0), ("samples", 1), ("epochs", 1), ("batch_size", 1), ("ppo_steps", 0),
                        ("eval_deals", 2), ("workers", 1)):  # fmt: skip
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"--{name.replace('_', '-')} {value!r} refused: a whole number, {least} or more")
    for name in ("minutes", "time", "temperature", "learning_rate"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ValueError(f"--{name.replace('_', '-')} {value!r} refused: a number above 0")
    parse_spec(f"pimc:search={config.search}")  # the search's classes (refused with the names there are)
    if config.others not in OTHERS:
        raise ValueError(f"--others {config.others!r} refused: {' or '.join(OTHERS)} (who plays the other seats of the play-outs)")
    init_model(config)  # the file exists and fits the table


def init_model(config: ExpertConfig) -> Path:
    """The starting student's zip: ``pretrained`` is the table's committed model."""
    from tarot_env.agents.factory import make_agent
    from tarot_env.agents.policies import model_path

    spec = config.init if config.init == "pretrained" else f"sb3:{config.init}"
    make_agent(spec, config.env_id, num_players=config.num_players)  # refuses a missing file or a model of another table
    if config.init == "pretrained":
        from tarot_env.agents.trained import model_file, table_of

        return Path(model_file(table_of(config.env_id, config.num_players)))
    return model_path(spec)


def evaluate(model: Any, tc: TrainConfig, deals: int, baseline: np.ndarray) -> tuple[float, float]:
    """The student's margin over the bot per deal in duplicate on the fixed evaluation deals, with its 95% half-width."""
    scores = learner_scores(model, tc, rule_agent(tc.env_id), deals)
    return mean_half(scores - baseline)


def run(config: ExpertConfig, resume: bool = False) -> Path:
    """Expert iteration (the module docstring); returns ``model_final.zip``'s path."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from tarot_env.experiments.train import OpponentPool

    from tarot_env.wrappers import TarotVecEnv

    check(config)
    out = Path(config.out)
    if not resume and (out / "log.csv").exists():
        raise ValueError(f"--out {out} holds a run already (log.csv): --resume {out} goes on with it, or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
    tc = train_config(config, out)
    venv = TarotVecEnv(tc.num_envs, env_id=tc.env_id, seat="rotate", reward=tc.reward, num_threads=1, **_env_options(tc))
    pool = OpponentPool(tc.env_id, tc.pool_weights, tc.max_snapshots, seed=config.seed)
    baseline = baseline_scores(tc, rule_agent(tc.env_id), config.eval_deals)
    rows = read_csv(out / "log.csv") if resume and (out / "log.csv").exists() else []
    data: dict[str, np.ndarray] | None = None
    if rows:
        last = int(rows[-1]["iteration"])
        start_file = out / ("model_init.zip" if last < 0 else f"model_round{last}.zip")
        if last >= 0 and (out / "data.npz").exists():
            with np.load(out / "data.npz") as saved:
                keep = saved["iteration"] <= last
                data = {k: saved[k][keep] for k in (*FIELDS, "iteration") if k in saved}
        print(f"resuming {out} after round {last} ({len(rows)} log rows)", flush=True)
    else:
        start_file, last = init_model(config), -1
    model = MaskablePPO.load(str(start_file), env=VecMonitor(venv), device="cpu")
    if not rows:
        model.save(out / "model_init.zip")
        margin, half = evaluate(model, tc, config.eval_deals, baseline)
        rows = [_row(-1, 0, 0, margin, half, 0.0, model.num_timesteps)]
        write_csv(out / "log.csv", rows)
        print(f"starting student: {margin:+.3g} ± {half:.2g} over the bot ({config.eval_deals} deals, duplicate)", flush=True)
    spent = sum(float(r["wall_seconds"]) for r in rows)
    budget = config.minutes * 60
    callback = make_callback(tc, venv, pool, out, steps=model.num_timesteps)
    k = last + 1
    while k < config.rounds and spent < budget:
        start = time.perf_counter()
        student = out / f"student_round{k}.zip"
        model.save(student)
        labels, changed, label_seconds, distill_margin = 0, 0, 0.0, (float("nan"), float("nan"))
        if config.deals_per_round > 0:
            t0 = time.perf_counter()
            new = _label_round(config, student, k)
            label_seconds = time.perf_counter() - t0
            new["iteration"] = np.full(len(new["actions"]), k, dtype=np.int16)
            data = new if data is None else {key: np.concatenate([data[key], new[key]]) for key in data}
            save_data(out / "data.npz", data)
            labels, changed = len(new["actions"]), int(new["taught"].sum())
            fields = (data[key] for key in ("observations", "masks", "actions", "returns", "players", "episodes"))
            clone(model.policy, Demonstrations(*fields, targets=data["targets"]), epochs=config.epochs, batch_size=config.batch_size,
                  learning_rate=config.learning_rate, value_coef=0.0, seed=config.seed + k)  # fmt: skip
            distill_margin = evaluate(model, tc, config.eval_deals, baseline)
        t0 = time.perf_counter()
        if config.ppo_steps > 0:
            model.learn(config.ppo_steps, callback=callback, progress_bar=False, reset_num_timesteps=False)
        ppo_seconds = time.perf_counter() - t0
        model.save(out / f"model_round{k}.zip")
        model.save(out / "model_final.zip")
        student.unlink(missing_ok=True)
        margin, half = evaluate(model, tc, config.eval_deals, baseline)
        wall = time.perf_counter() - start
        spent += wall
        total = labels + (int(rows[-1]["labels_total"]) if rows else 0)
        row = _row(k, labels, total, margin, half, wall, model.num_timesteps)
        row.update({"changed": changed, "label_seconds": round(label_seconds, 1), "ppo_seconds": round(ppo_seconds, 1),
                    "after_distill": distill_margin[0], "after_distill_ci95": distill_margin[1]})  # fmt: skip
        rows.append(row)
        write_csv(out / "log.csv", rows)
        print(
            f"round {k}: {labels:,} labels ({changed:,} changed by the search; {total:,} in all) in {label_seconds:.0f} s, "
            f"after distillation {distill_margin[0]:+.3g}, PPO {config.ppo_steps:,} steps in {ppo_seconds:.0f} s; "
            f"{margin:+.3g} ± {half:.2g} over the bot; {spent / 60:.1f} of {config.minutes:g} minutes",
            flush=True,
        )
        k += 1
    if not (out / "model_final.zip").exists():
        model.save(out / "model_final.zip")
    return out / "model_final.zip"


def _env_options(tc: TrainConfig) -> dict[str, Any]:
    from tarot_env.experiments.train import env_options

    return env_options(tc)


def _row(k: int, labels: int, total: int, margin: float, half: float, wall: float, steps: int) -> dict[str, float]:
    return {"iteration": k, "labels": labels, "labels_total": total, "eval_vs_rules_duplicate": margin,
            "eval_vs_rules_duplicate_ci95": half, "wall_seconds": round(wall, 1), "ppo_steps_total": steps}  # fmt: skip


def _label_round(config: ExpertConfig, student: Path, k: int) -> dict[str, np.ndarray]:
    """Round ``k``'s labels: the student saved at ``student`` plays, the search over it labels (in order of the deals)."""
    teacher = teacher_spec(config, student)
    options = aec_options(config)
    jobs = [
        LabelJob(config.env_id, options, teacher, str(student), k * config.deals_per_round + d, config.seed, "sample", 0.0,
                 "all", 0.0, config.temperature)
        for d in range(config.deals_per_round)
    ]  # fmt: skip
    from tqdm import tqdm

    parts = []
    with labeller(config.workers, config.env_id, options, teacher, str(student)) as label:
        for result in tqdm(label(jobs), total=len(jobs), desc=f"round {k}: labelling", unit="deal", disable=not config.progress_bar):
            parts.append(result.arrays)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


# ---------------------------------------------------------------------- command line


def _parser() -> argparse.ArgumentParser:
    from tarot_env import arguments
    from tarot_env.registry import ENV_IDS

    p = argparse.ArgumentParser(
        prog="python -m tarot_env.experiments.expert",
        description=__doc__.split("\n\n")[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
    )
    p.add_argument("--resume", metavar="DIR", help="go on with the run in DIR after its last completed round")
    p.add_argument("--env", dest="env_id", choices=ENV_IDS, help="the game (default french_tarot_v0)")
    p.add_argument("--players", dest="num_players", type=arguments.whole_number(1, "a number of players"), help="default: the game's")
    p.add_argument("--init", help="the starting student: pretrained (the table's committed model, default) or a MaskablePPO zip")
    p.add_argument("--minutes", type=float, help="the wall-clock budget (default 30): no round starts after it")
    p.add_argument("--rounds", type=int, help="at most this many rounds (default 1000)")
    p.add_argument("--deals-per-round", type=int, help="deals labelled each round (default 20; 0: PPO alone, the control)")
    p.add_argument("--search", help="the decisions the search labels: play (default), all, or classes joined by +")
    p.add_argument("--others", help="who plays the other seats of the search's play-outs: student (default), rules (the bot)")
    p.add_argument("--time", type=float, help="the search's seconds a decision (default 1)")
    p.add_argument("--samples", type=int, help="the search's worlds a decision at most (default 64)")
    p.add_argument("--temperature", type=float, help="points: a gain this large multiplies an action's odds by e (default 5)")
    p.add_argument("--epochs", type=int, help="distillation epochs over every label, each round (default 4)")
    p.add_argument("--batch-size", type=int, help="default 256")
    p.add_argument("--learning-rate", type=float, help="the distillation's (default 0.0003)")
    p.add_argument("--ppo-steps", type=int, help="PPO steps each round (default 500000)")
    p.add_argument("--eval-deals", type=int, help="deals of the fixed evaluation (default 1000)")
    p.add_argument("--workers", type=int, help="labelling processes (default 1)")
    p.add_argument("--seed", type=arguments.seed, help="default 0")
    p.add_argument("--out", help="the run's folder (default runs/expert)")
    p.add_argument("--no-progress-bar", dest="progress_bar", action="store_false")
    return p


def parse_command(argv: list[str] | None = None) -> tuple[ExpertConfig, bool]:
    """The run's config and whether it resumes; a bad flag exits with a one-line error."""
    parser = _parser()
    args = vars(parser.parse_args(argv))
    folder = args.pop("resume", None)
    try:
        if folder is None:
            config = ExpertConfig(**args)
            check(config)
            return config, False
        path = Path(folder) / "config.json"
        if not path.is_file():
            raise ValueError(f"--resume {folder}: no config.json there, not an expert-iteration run's folder")
        if changed := sorted(set(args) - set(RESUME_FLAGS)):
            raise ValueError(f"--resume refuses {', '.join('--' + c.replace('_', '-') for c in changed)}: a resumed run changes only "
                             f"{', '.join('--' + c.replace('_', '-') for c in RESUME_FLAGS)}")  # fmt: skip
        config = ExpertConfig(**(json.loads(path.read_text()) | args | {"out": str(folder)}))  # the folder, wherever it moved
        check(config)
        return config, True
    except ValueError as err:
        parser.error(str(err))
        raise  # pragma: no cover - parser.error exits


def main(argv: list[str] | None = None) -> Path:
    config, resume = parse_command(argv)
    return run(config, resume=resume)


if __name__ == "__main__":
    main()
