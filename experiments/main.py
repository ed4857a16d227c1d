"""The main job: train a small MaskablePPO agent on French Tarot (4 players), then evaluate it in the arena.

    python -m tarot_env.experiments.main                      # a few minutes on one laptop core
    python -m tarot_env.experiments.main --timesteps 1500000 --bc-deals 15000 --deals 1000   # docs/results.md

1. ``experiments/train.py`` trains a MaskablePPO agent: a warm start that clones the rule-based
   bot's decisions in ``--bc-deals`` deals (``experiments/imitation.py``), then PPO self-play
   against a pool of opponents (the rule-based bot, snapshots of itself) for ``--timesteps`` steps.
2. ``experiments/arena.py`` plays the trained agent in duplicate on the fixed deal set against
   the random agent and against the rule-based bot (``--deals`` deals each, every seat), and
   prints the tables: mean score per deal with 95% confidence intervals, win rates, roles,
   ratings. The JSON, Markdown and PNG outputs, the learning curve and the checkpoints are
   written under ``--out``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tarot_env.experiments.arena import markdown, rule_agent, run_arena
from tarot_env.experiments.train import TrainConfig, train

ENV_ID = "french_tarot_v0"
NUM_PLAYERS = 4


def main(argv: list[str] | None = None) -> dict[str, dict]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--timesteps", type=int, default=100_000, help="PPO training steps (default 100,000: about two minutes on one core)")
    p.add_argument("--bc-deals", type=int, default=4_000, help="rule-based bot's deals cloned first (default 4,000; 0: none)")
    p.add_argument("--deals", type=int, default=100, help="arena deals per opponent, each played at every seat (default 100)")
    p.add_argument("--out", default="runs/main", help="output folder (default runs/main)")
    p.add_argument("--seed", type=int, default=0, help="training seed")
    p.add_argument("--deals-dir", default=None, help="folder of the deal sets (default: the committed ones; others made in runs/deals)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads (default 1: the env steps on one core anyway)")
    p.add_argument("--no-progress-bar", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
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
        eval_every=max(args.timesteps // 2, 1),
        checkpoint_every=max(args.timesteps // 2, 1),
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
    return results


if __name__ == "__main__":
    main()
