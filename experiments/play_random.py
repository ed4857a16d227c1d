"""The main job for now: one deal of every registered environment between random agents.

Each deal is rendered as it ends, then a summary table of the results is printed.

    python -m tarot_env.experiments.play_random [--seed 0]
"""

from __future__ import annotations

import argparse

from tarot_env.agents.random_agent import RandomAgent

import tarot_env
from tarot_env.env_facts import facts


def configs(env_id: str) -> list[dict]:
    """The configurations played for ``env_id`` (one deal each), read from its row of :mod:`tarot_env.env_facts`.

    A game of one player count is made without ``num_players``. Where the episode is one deal
    (French Tarot), each count is dealt: they are variants of the rules (the 3-player deal, the
    5-player call). Where the episode is a match (Tarocchino: Mattazza's 3 to 6), the match is
    played at the default count only, so that the job stays one short episode per game.
    """
    row = facts(env_id)
    if len(row.player_counts) == 1:
        return [{}]
    counts = (row.default_players,) if row.matches else row.player_counts
    return [{"num_players": n} for n in counts]


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
        for config in configs(env_id):
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
        table.append(
            [
                r["env"],
                str(r["config"].get("num_players", "")),
                str(r["decisions"]),
                r["result"],
                contract if played else "-",
                who if played else "-",
                details if played else "-",
                " ".join(f"{s:+d}" for s in r["scores"]),
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for k, row in enumerate(table):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
        if k == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
