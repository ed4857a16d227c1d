"""The main job for now: one deal of every registered environment between random agents.

Each deal is rendered as it ends, then a summary table of the results is printed.

    python -m tarot_env.experiments.play_random [--seed 0]
"""

from __future__ import annotations

import argparse

from tarot_env.agents.random_agent import RandomAgent

import tarot_env

#: configurations played for each env id (one deal each)
CONFIGS: dict[str, list[dict]] = {
    "french_tarot_v0": [{"num_players": 3}, {"num_players": 4}, {"num_players": 5}],
    "mattazza_v0": [{"num_players": 4}],
}


def play_one(env_id: str, config: dict, seed: int) -> dict:
    env = tarot_env.make(env_id, render_mode="ansi", **config)
    agent = RandomAgent(seed)
    env.reset(seed=seed)
    decisions = 0
    info: dict = {}
    for _ in env.agent_iter():
        obs, _, termination, truncation, last_info = env.last()
        if termination or truncation:
            info = info or last_info
            env.step(None)
            continue
        env.step(agent.act(obs["observation"], obs["action_mask"]))
        decisions += 1
    print(env.render())
    print()
    return {"env": env_id, "config": config, "decisions": decisions, **info}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and of the random agents")
    args = parser.parse_args()
    rows = []
    for env_id in tarot_env.ENV_IDS:
        for config in CONFIGS.get(env_id, [{}]):
            rows.append(play_one(env_id, config, args.seed))
    header = ["env", "players", "decisions", "result", "contract", "taker / soloist", "details", "scores"]
    table = [header]
    for r in rows:
        played = r["result"] == "played"
        if "taker" in r:  # French Tarot
            who, contract = f"player_{r['taker']}", r["contract"]
            details = f"attack {r['attack_points']:g} pts, {'made' if r['made'] else 'failed'}"
        elif "soloist" in r:  # Terziglio
            who, contract = f"player_{r['soloist']}", r["contract"]
            details = f"{'won' if r['soloist_won'] else 'lost'}, {r['poste']} poste"
        else:
            who, contract = "-", "-"
            if "losers" in r:  # Mattazza
                details = f"losers {r['losers']}"
            else:
                details = "points " + " ".join(f"{p:g}" for p in r["points"]["total"]) if "points" in r else "-"
        table.append([
            r["env"],
            str(r["config"].get("num_players", "")),
            str(r["decisions"]),
            r["result"],
            contract if played else "-",
            who if played else "-",
            details if played else "-",
            " ".join(f"{s:+d}" for s in r["scores"]),
        ])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for k, row in enumerate(table):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
        if k == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
