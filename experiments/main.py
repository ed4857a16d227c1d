"""The main job: train a MaskablePPO agent on French Tarot (4 players), then evaluate it in the arena.

    python -m tarot_env.experiments.main                      # under 10 minutes on a 2-core machine
    python -m tarot_env.experiments.main --timesteps 10000000 --bc-deals 15000 --deals 1000   # longer, and more deals

1. ``experiments/train.py`` trains a MaskablePPO agent: a warm start that clones the rule-based
   bot's decisions in ``--bc-deals`` deals (``experiments/imitation.py``), then PPO self-play
   against a pool of opponents (the rule-based bot, snapshots of itself) for ``--timesteps`` steps.
2. ``experiments/arena.py`` plays the trained agent in duplicate on the fixed deal set against
   the random agent and against the rule-based bot (``--deals`` deals each, every seat), and
   prints the tables: mean score per deal with 95% confidence intervals, win rates, roles,
   ratings. The JSON, Markdown and PNG outputs, the learning curve and the checkpoints are
   written under ``--out``.
3. It says whether the agent beats the bot (the interval of its margin above zero) and where the
   scale goes: the margins over the bot of the committed trained agent and of the search agent,
   from the leaderboard (``results/leaderboard/french_tarot_v0_4p.json``).

The learning curve (``train/learning_curve.png``) has ``--eval-points`` evaluations, each over
``--eval-deals`` deals against the bot and against random players, with their intervals. Everything
is seeded: the same command shows the same numbers on the same machine and library versions.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tarot_env.agents import rule_agent
from tarot_env.experiments.train import TrainConfig, train

from tarot_env.arena import markdown, run_arena

ENV_ID = "french_tarot_v0"
NUM_PLAYERS = 4
TABLE = "french_tarot_v0_4p"
#: the PPO budget and the arena's deals: under 10 minutes on a 2-core machine (docs/results.md, "The main job")
TIMESTEPS = 5_000_000
ARENA_DEALS = 200
#: the committed leaderboard of the table (a checkout's; an installed package has none)
LEADERBOARD = Path(__file__).resolve().parent.parent / "results" / "leaderboard" / f"{TABLE}.json"


def main(argv: list[str] | None = None) -> dict[str, dict]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--timesteps", type=int, default=TIMESTEPS, help=f"PPO training steps (default {TIMESTEPS:,}: a few minutes)")
    p.add_argument("--bc-deals", type=int, default=4_000, help="rule-based bot's deals cloned first (default 4,000; 0: none)")
    p.add_argument("--deals", type=int, default=ARENA_DEALS, help=f"arena deals per opponent, each at every seat (default {ARENA_DEALS})")
    p.add_argument("--eval-points", type=int, default=20, help="evaluations on the learning curve (default 20)")
    p.add_argument("--eval-deals", type=int, default=200, help="deals per opponent at each evaluation (default 200)")
    p.add_argument("--out", default="runs/main", help="output folder (default runs/main)")
    p.add_argument("--seed", type=int, default=0, help="training seed")
    p.add_argument("--deals-dir", default=None, help="folder of the deal sets (default: the committed ones; others made in runs/deals)")
    p.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads in the rollouts (default 1; the updates take every core)",
    )
    p.add_argument("--no-progress-bar", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    for flag in ("timesteps", "deals", "eval_points", "eval_deals"):
        if getattr(args, flag) < 1:
            p.error(f"--{flag.replace('_', '-')} {getattr(args, flag)}: needs 1 or more")
    out = Path(args.out)
    progress = not args.no_progress_bar
    deals_dir = None if args.deals_dir is None else Path(args.deals_dir)

    config = TrainConfig(
        env_id=ENV_ID,
        num_players=NUM_PLAYERS,
        timesteps=args.timesteps,
        bc_deals=args.bc_deals,
        seed=args.seed,
        out=str(out / "train"),
        eval_every=max(args.timesteps // args.eval_points, 1),
        eval_episodes=args.eval_deals,
        checkpoint_every=max(args.timesteps // 4, 1),
        snapshot_every=max(args.timesteps // 4, 1),
        progress_bar=progress,
        torch_threads=args.torch_threads,
    )
    print(
        f"training MaskablePPO on {ENV_ID} ({NUM_PLAYERS} players): cloning the rule-based bot in {args.bc_deals:,} deals, "
        f"then {args.timesteps:,} PPO steps -> {config.out}"
    )
    model_path = train(config)

    from sb3_contrib import MaskablePPO
    from tarot_env.agents.random_agent import RandomAgent
    from tarot_env.agents.sb3_policy import SB3PolicyAgent

    ppo = SB3PolicyAgent(MaskablePPO.load(model_path), deterministic=True)
    opponents = {"random": RandomAgent(seed=args.seed), "rules": rule_agent(ENV_ID)}
    results = {}
    for name, opponent in opponents.items():
        print(f"\narena: ppo against {name}, {args.deals} deals in duplicate")
        r = run_arena(
            ENV_ID, {"ppo": ppo, name: opponent}, args.deals, num_players=NUM_PLAYERS, out=out / f"arena_{name}",
            deals_dir=deals_dir, progress=progress,
        )  # fmt: skip
        print(markdown(r))
        print(f"written JSON, Markdown and PNG under {out / f'arena_{name}'}")
        results[name] = r
    print(f"\nlearning curve: {Path(config.out) / 'learning_curve.png'}")
    print()
    for line in verdict(results["rules"]["pairwise"]["ppo - rules"], args.deals):
        print(line)
    return results


def verdict(margin: dict[str, Any], deals: int, leaderboard: Path = LEADERBOARD) -> list[str]:
    """Whether the agent beats the bot, and where the scale goes: the committed trained agent's and the
    search agent's margins over the bot on the leaderboard, one line each, beside this run's."""

    def fmt(c: dict[str, Any]) -> str:
        return f"{c['mean']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}]"

    m = margin["mean"]
    if margin["lo"] > 0:
        beats = "beats the rule-based bot (the interval is above zero)"
    elif margin["hi"] < 0:
        beats = "loses to the rule-based bot (the interval is below zero)"
    else:
        beats = "is level with the rule-based bot (the interval holds zero)"
    lines = [f"this run's agent {beats}: {fmt(margin)} points a deal over {deals} duplicate deals (95% interval)"]
    try:
        rows = {r["entry"]: r for r in json.loads(leaderboard.read_text())["rows"]}
    except (OSError, KeyError, ValueError):
        return [*lines, f"(no leaderboard at {leaderboard}: the committed agents' margins are in a checkout's results/leaderboard)"]
    for entry, who in (
        ("trained", "the committed trained agent (results/models)"),
        ("pimc", "plain PIMC (no training)"),
        ("search", "the search over the trained network (search)"),
    ):
        if entry in rows:
            d = rows[entry]["difference"]
            lines.append(
                f"{who}: {fmt(d)} over the bot on the leaderboard ({rows[entry]['deals']:,} deals), "
                f"{d['mean'] - m:+.1f} a deal from this run's agent"
            )
    return lines


if __name__ == "__main__":
    main()
