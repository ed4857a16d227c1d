"""``tarot challenge``: the duplicate challenge's data (:mod:`tarot_env.challenge`).

    tarot challenge export --db runs/tarot_web.sqlite --out humans.jsonl     the people's finished challenge deals
    tarot challenge baselines --table french_tarot_v0_4p --deals 24           the agents' scores (results/challenge)
    tarot challenge baselines --table french_tarot_v0_4p --deals 24 --agents search   one agent's again, the others' kept

The export is the data set of human decisions on known deals: one JSON line per finished deal,
its full record included; ``python -m tarot_env.experiments.arena --humans humans.jsonl`` reports the
people against the agents on the same deals and seats.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tarot_env import arguments

EXAMPLES = """examples:
  tarot challenge export --db runs/tarot_web.sqlite --out humans.jsonl
  tarot challenge baselines --table french_tarot_v0_4p --deals 24 --agents rules,trained,search,pimc
  tarot challenge baselines --table ottocento_v0 --deals 8 --agents search      the search's scores again, the others' kept
  python -m tarot_env.experiments.arena --env french_tarot_v0 --players 4 --humans humans.jsonl

the challenge is played in the room (tarot serve, the page /challenge); docs/web.md, "The duplicate challenge"."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``challenge`` subcommand and its two actions."""
    p = sub.add_parser(
        "challenge",
        help="the duplicate challenge's data: export people's results, compute the agents' baselines",
        description="the duplicate challenge's data: export people's results, compute the agents' baselines",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    acts = p.add_subparsers(dest="action", metavar="action", required=True)
    e = acts.add_parser("export", help="the people's finished challenge deals as JSON lines", allow_abbrev=False)
    e.add_argument("--db", default="runs/tarot_web.sqlite", help="the room's database (default runs/tarot_web.sqlite)")
    e.add_argument("--out", default="humans.jsonl", help="the data set file to write (default humans.jsonl)")
    b = acts.add_parser("baselines", help="play the agents on the challenge's deals (results/challenge/<table>.json)", allow_abbrev=False)
    b.add_argument("--table", required=True, help="a table: french_tarot_v0_4p, ottocento_v0, ...")
    b.add_argument("--deals", type=arguments.deals, default=24, help="how many deals (the first the bots play; default 24)")
    b.add_argument(
        "--agents",
        default="rules,trained,search,pimc",
        help="comma-separated: rules, trained, search, pimc (default all four; the others' scores in the file, same deals, are kept)",
    )
    b.add_argument("--out", default=None, help="folder of the baselines files (default results/challenge)")


def run(args: argparse.Namespace) -> int:
    """``tarot challenge baselines`` (the export reads the room's database: :func:`tarot_env.command.challenge_export`)."""
    return baselines(args)


def baselines(args: argparse.Namespace) -> int:
    from tarot_env import challenge as C

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in agents if a not in C.AGENTS]
    if not agents or unknown:
        raise SystemExit(f"tarot challenge baselines: error: agents {args.agents!r}: give some of {', '.join(C.AGENTS)}, comma-separated")
    C.table_env(args.table)
    path = C.baselines_path(args.table, args.out)
    try:  # read first: a file that cannot be read is said now, not after minutes of play
        old = C.load_baselines(args.table, args.out)
    except (OSError, ValueError) as err:
        raise SystemExit(f"tarot challenge baselines: error: cannot read {path}: {err}") from None
    start = time.perf_counter()
    deals = C.played_deals(args.table, args.deals)
    others = [a for a in (old or {}).get("scores", {}) if a not in agents]
    if old is not None and set(agents) != set(C.AGENTS) and others and not C.same_deals(C.baselines_identity(args.table, deals), old):
        raise SystemExit(
            f"tarot challenge baselines: error: {path} holds {len(old.get('deals', []))} deals of {old.get('deal_set')}; "
            f"--deals {args.deals} would drop the scores of {', '.join(others)}: give --deals {len(old.get('deals', []))} "
            f"to keep them, or --agents {','.join(C.AGENTS)} to make the file again"
        )
    data = C.compute_baselines(args.table, deals, agents, progress=lambda line: print(line, file=sys.stderr, flush=True))
    data["command"] = f"tarot challenge baselines --table {args.table} --deals {args.deals} --agents {','.join(agents)}"
    data["seconds"]["total"] = round(time.perf_counter() - start, 1)
    kept = C.keep_baselines(data, old)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(
        f"{args.table}: {len(deals)} deals x {data['num_players']} seats, agents {', '.join(agents)}, {data['seconds']['total']} s: {path}"
        + (f" ({', '.join(kept)} kept from the file)" if kept else "")
    )
    return 0
