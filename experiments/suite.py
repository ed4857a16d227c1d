"""The benchmark suite: one fixed, versioned evaluation protocol per table, and its leaderboard.

    python -m tarot_env.experiments.suite --table ottocento_v0 --agent sb3:runs/mine/model_final.zip --name mine  # your agent
    python -m tarot_env.experiments.suite --table mattazza_v0_4p  # one table's standard entries, again
    make benchmark   # every table: --out results/leaderboard --docs docs/results.md

**Protocol v1** (:data:`PROTOCOL`), the same for every table of :data:`TABLES`:

- the deals: the first 1,000 deals of the table's versioned deal set
  (``results/deals/<table>_v1.json``, made from seeds 0..999, committed);
- the opponent: the game family's rule-based bot, the reference every entry plays against;
- duplicate seatings: the entry and the bot alternate round the table (``E R E R``) and the
  seating rotates until each holds every seat, so every deal is played from both sides;
- the metrics: the entry's mean score per deal (the env's ``reward="score"``) with its 95%
  normal interval over deals (each deal, played at every seating, is one unit); the difference
  entry − bot per deal with its interval (the leaderboard's order); the win rate over the plays
  that were played, with its Wilson interval; the plays nobody played (everyone passed, a
  thrown-in hand) are counted apart. A score of 0 for the reference row is exact by symmetry.

The leaderboard of a table has a row per entry: ``random``, ``rules`` (the reference against
itself), ``trained`` (``results/models/<table>.zip``, :mod:`tarot_env.agents.trained`) and
any agent evaluated with ``--agent`` and ``--name``. Rows are kept in ``<out>/<table>.json``
with the command that made them (``--out``, default ``runs/leaderboard``; a table's file there
starts from the committed leaderboard, ``results/leaderboard/<table>.json``, so that your agent
is ranked among the standard entries), and the tables evaluated are printed. ``--docs FILE``
rewrites the file's section between the markers ``<!-- leaderboard -->`` and ``<!-- /leaderboard -->``
(``make benchmark``: ``--out results/leaderboard --docs docs/results.md``).
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import time
from pathlib import Path
from typing import Any

from tarot_env.agents.trained import SAME_MODEL, TABLES, available

#: the protocol's version and its settings; a change of any of them is a new version
PROTOCOL: dict[str, Any] = {
    "version": 1,
    "deals": 1000,
    "deal_set_version": 1,
    "seed": 0,
    "opponent": "rules",
    "seatings": "the entry and the opponent alternating, every rotation",
    "score": "reward='score', mean per deal over the seatings",
    "intervals": "95%: normal over deals for scores and differences, Wilson for win rates",
}
#: the standard entries of every table: their agent spec for the arena
ENTRIES = {"random": "random", "rules": "rules", "trained": "pretrained"}
BEGIN, END = "<!-- leaderboard -->", "<!-- /leaderboard -->"


def evaluate(
    table: str, spec: str, name: str | None = None, deals: int | None = None, deals_dir: str | Path | None = None, progress: bool = True
) -> dict:
    """One leaderboard row: the agent ``spec`` (arena syntax: ``random``, ``rules``, ``pretrained``,
    ``sb3:<path>``) against the rule-based bot on ``table`` under the protocol. ``deals`` fewer than
    the protocol's makes a row marked as not the protocol's (for tests and quick looks)."""
    from tarot_env.agents.factory import make_agent

    from tarot_env.arena import run_arena

    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; the tables are {', '.join(TABLES)}")
    env_id, num_players = TABLES[table]
    n = PROTOCOL["deals"] if deals is None else int(deals)
    entry = name or spec
    opponent = "rules (opponent)" if entry == "rules" else "rules"
    agents = {entry: make_agent(spec, env_id, seed=PROTOCOL["seed"], num_players=num_players), opponent: make_agent("rules", env_id)}
    res = run_arena(env_id, agents, n, PROTOCOL["seed"], num_players, deals_dir=deals_dir, progress=progress, strict=True)
    a = res["agents"][entry]
    diff = res["pairwise"][f"{entry} - {opponent}"]
    command = f"python -m tarot_env.experiments.suite --table {table} --agent {spec}" + (f" --name {name}" if name else "")
    command += "" if n == PROTOCOL["deals"] else f" --deals {n}"  # a row off the protocol says how to make it again
    return {
        "table": table,
        "entry": entry,
        "agent": spec,
        "protocol": PROTOCOL["version"] if n == PROTOCOL["deals"] else None,
        "deals": n,
        "score": a["score"],
        "difference": diff,
        "win_rate": a["win_rate"],
        "not_played": res["passed"],
        "fallbacks": a["fallbacks"],
        "seconds": round(res["seconds"], 1),
        "command": command,
        "hardware": f"{platform.processor() or platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
    }


def leaderboard_path(table: str, folder: str | Path = "results/leaderboard") -> Path:
    return Path(folder) / f"{table}.json"


#: the committed leaderboard, where a new leaderboard folder's tables start from
COMMITTED = Path(__file__).resolve().parent.parent / "results" / "leaderboard"


def save_row(row: dict, folder: str | Path = "runs/leaderboard") -> Path:
    """Add or replace ``row`` (by its entry name) in its table's leaderboard file (a new file starts
    from the committed leaderboard's rows of that table, where there is one)."""
    path = leaderboard_path(row["table"], folder)
    start = path if path.exists() else leaderboard_path(row["table"], COMMITTED)
    rows = json.loads(start.read_text())["rows"] if start.exists() else []
    rows = [r for r in rows if r["entry"] != row["entry"]] + [row]
    rows.sort(key=lambda r: -r["difference"]["mean"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"table": row["table"], "protocol": PROTOCOL, "rows": rows}, indent=1))
    return path


def _ci(c: dict, digits: int) -> str:
    """A mean per deal with its interval (:func:`~tarot_env.arena.mean_ci`, ``n`` deals), warned of beside it over few deals."""
    from tarot_env.arena import few_deals

    return f"{c['mean']:+.{digits}f} [{c['lo']:+.{digits}f}, {c['hi']:+.{digits}f}]" + few_deals(c.get("n"))


def _rate(c: dict) -> str:
    from tarot_env.arena import few_deals

    return "—" if c.get("n", 0) == 0 else f"{c['mean']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}]" + few_deals(c.get("deals"))


def training_budget(table: str, folder: str | Path = "results/training") -> str | None:
    """One line on how the table's trained agent was made, from its run's ``config.json`` and
    ``log.csv`` (kept in ``results/training/<table>``); None where there is none."""
    run = Path(folder) / table
    if not (run / "config.json").exists() or not (run / "log.csv").exists():
        return None
    config = json.loads((run / "config.json").read_text())
    with open(run / "log.csv", newline="") as f:
        last = list(csv.DictReader(f))[-1]
    options = ", ".join(f"{k}={v}" for k, v in config.get("options", {}).items()) or "default options"
    pace = f", {float(last['steps_per_second']):,.0f} learner steps/s" if last.get("steps_per_second") else ""
    line = (
        f"trained: {config['bc_deals']:,} cloned deals, then {int(last['steps']):,} PPO steps ({options}, learning rate "
        f"{config['learning_rate']:g}, {'bfloat16 first layer' if config.get('bf16_first_layer') else 'float32'}), "
        f"{float(last['seconds']) / 60:.0f} min of PPO on one core{pace}"
    )
    return line + (expert_budget(run) or "") + f"; `results/training/{table}/`"


def expert_budget(run: Path) -> str | None:
    """The model's expert iteration after its PPO run (experiments/expert.py; its ``expert_log.csv`` and
    ``expert_config.json`` kept beside the run's), in words; None where it had none."""
    if not (run / "expert_log.csv").exists() or not (run / "expert_config.json").exists():
        return None
    config = json.loads((run / "expert_config.json").read_text())
    with open(run / "expert_log.csv", newline="") as f:
        log = list(csv.DictReader(f))
    rows = [r for r in log if int(r["iteration"]) >= 0]
    if not rows or int(log[0]["iteration"]) != -1:  # its first row is the starting student's
        return None
    steps = int(rows[-1]["ppo_steps_total"]) - int(log[0]["ppo_steps_total"])
    minutes = sum(float(r["wall_seconds"]) for r in rows) / 60
    labels = int(rows[-1]["labels_total"])
    rounds = f"{len(rows)} round{'s' if len(rows) > 1 else ''}"
    if labels == 0:  # its control mode (``--deals-per-round 0``): PPO alone, in rounds
        return f", then {steps:,} more PPO steps in {rounds} of expert.py's control (no labels), {minutes:.0f} min on one core"
    return (
        f", then expert iteration: {rounds} of the search's labels ({labels:,} labels, "
        f"search={config['search']}, others={config['others']}) and {steps:,} more PPO steps, {minutes:.0f} min on one core"
    )


def markdown(folder: str | Path = "results/leaderboard", training: str | Path = "results/training", tables: list[str] | None = None) -> str:
    """Every table's leaderboard (or ``tables``') as Markdown, from the saved rows."""
    out = []
    for table in tables if tables is not None else TABLES:
        path = leaderboard_path(table, folder)
        if not path.exists():
            continue
        rows = json.loads(path.read_text())["rows"]
        scale = max(abs(r["difference"]["mean"]) for r in rows) or 1.0
        digits = 2 if scale < 5 else 1
        out.append(f"**{table}**\n")
        out.append(
            "| rank | entry | difference vs the bot per deal [95% CI] | mean score per deal [95% CI] "
            "| win rate [95% CI] | not played | time |"
        )
        out.append("|---|---|---|---|---|---|---|")
        for k, r in enumerate(rows, 1):
            np_ = r["not_played"]
            flag = "" if r["protocol"] == PROTOCOL["version"] else f" ({r['deals']} deals: not protocol v{PROTOCOL['version']})"
            out.append(
                f"| {k} | {r['entry']}{flag} | {_ci(r['difference'], digits)} | {_ci(r['score'], digits)} | {_rate(r['win_rate'])} | "
                f"{np_['plays']} of {np_['of_plays']} | {r['seconds']:.0f} s |"
            )
        out.append("")
        budget = training_budget(SAME_MODEL.get(table, table), training)
        if budget:
            out.append(budget + ("" if table not in SAME_MODEL else f" (the {SAME_MODEL[table]} model)") + "\n")
        out.append("<details><summary>commands</summary>\n")
        out.extend(f"- {r['entry']}: `{r['command']}`" for r in rows)
        out.append("\n</details>\n")
    return "\n".join(out)


def write_docs(doc: str | Path = "docs/results.md", folder: str | Path = "results/leaderboard") -> None:
    """Replace the leaderboard between the markers of ``doc`` with :func:`markdown`."""
    path = Path(doc)
    text = path.read_text()
    if BEGIN not in text or END not in text:
        raise ValueError(f"{path} has no {BEGIN} ... {END} markers to write the leaderboard between")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{markdown(folder)}\n{END}{tail}")


def run(tables: list[str], entries: dict[str, str], deals: int | None = None, folder: str | Path = "results/leaderboard",
        deals_dir: str | Path | None = None, progress: bool = True) -> list[dict]:  # fmt: skip
    """Evaluate ``entries`` (name -> spec) on ``tables``, saving each row as it comes; the rows."""
    rows = []
    have = set(available())
    for table in tables:
        for name, spec in entries.items():
            if spec == "pretrained" and table not in have:
                print(f"{table}: no trained model yet (results/models/{table}.zip): no {name} row")
                continue
            start = time.perf_counter()
            row = evaluate(table, spec, name=name, deals=deals, deals_dir=deals_dir, progress=progress)
            save_row(row, folder)
            rows.append(row)
            print(f"{table}: {name} {_ci(row['difference'], 2)} per deal against the bot ({time.perf_counter() - start:.0f} s)")
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    from tarot_env import arguments

    p = arguments.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--table", action="append", help=f"a table (repeatable; default: all): {', '.join(TABLES)}")
    p.add_argument("--agent", help="your agent: sb3:<path-to-zip>, random, rules or pretrained (default: the standard entries)")
    p.add_argument("--name", help="its name on the leaderboard (default: the --agent text)")
    p.add_argument(
        "--deals", type=arguments.deals, default=None, help=f"fewer deals than the protocol's {PROTOCOL['deals']} (a quick look, marked)"
    )
    p.add_argument(
        "--out",
        default="runs/leaderboard",
        help="folder of the leaderboard files (default runs/leaderboard; make benchmark: results/leaderboard)",
    )
    p.add_argument("--deals-dir", default=None, help="folder of the deal sets (default: the committed ones; others made in runs/deals)")
    p.add_argument("--docs", default=None, help="a document whose leaderboard section to rewrite (make benchmark: docs/results.md)")
    p.add_argument("--no-docs", action="store_true", help="rewrite no document (the default without --docs)")
    p.add_argument("--no-progress-bar", action="store_true")
    args = p.parse_args(argv)
    tables = args.table or list(TABLES)
    for t in tables:
        if t not in TABLES:
            p.error(f"argument --table: unknown table {t!r}; the tables are {', '.join(TABLES)}")
    entries = dict(ENTRIES) if args.agent is None else {args.name or args.agent: args.agent}
    start = time.perf_counter()
    try:
        rows = run(tables, entries, args.deals, args.out, args.deals_dir, progress=not args.no_progress_bar)
    except ValueError as err:
        p.exit(1, f"{p.prog}: error: {err}\n")
    if args.docs and not args.no_docs:
        write_docs(args.docs, args.out)
    shown = sorted({r["table"] for r in rows}, key=list(TABLES).index)
    print(markdown(args.out, tables=shown))
    print(f"{len(rows)} rows in {time.perf_counter() - start:.0f} s; leaderboard files in {args.out}")
    return rows


if __name__ == "__main__":
    main()
