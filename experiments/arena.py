"""The evaluation arena: agents play a fixed, versioned deal set in duplicate, with confidence intervals and ratings.

    python -m tarot_env.experiments.arena --env ottocento_v0 --agents random,rules --deals 200      # outputs in runs/arena
    python -m tarot_env.experiments.arena --env french_tarot_v0 --players 4 --agents rules,sb3:model.zip --time-limit 0.5
    python -m tarot_env.experiments.arena --env ottocento_v0 --agents rules,random --ratings runs/league.json   # extend a leaderboard

- **Deal set**: ``<table>_v1.json`` (``_s<seed>`` added for a seed other than the default; the
  table named as the benchmark suite names it, ``french_tarot_v0_4p`` also when ``--players`` is
  left at the game's default), made once from the seed and reused (extended deterministically when
  more deals are asked for: deal ``i`` is the deal of ``env.reset(seed=seed + i)``). Version and
  seed are in the file. The committed sets (``results/deals``, 1,000 deals of every table) are read
  and never written unless ``--deals-dir results/deals`` says so: another seed, or more deals, is
  made in ``runs/deals``.
- **Duplicate play**: the agents are laid out round the table (``A B A B`` for two agents at four
  seats) and every deal is played at each rotation of that layout, so every agent sits at every
  seat, hence in every role, of every deal, and the luck of the cards cancels.
- **Scores**: a seat's score is its reward of the deal (``reward="score"``): French Tarot the
  deal's score; Ottocento, Quattro Scartate and the two-player games own side minus the other
  side; Terziglio the settlement; Mattazza −1 for a loser, else 0. An agent's score of a deal is
  the mean over the seats it held in all rotations. "Won": a positive score (Mattazza: not losing).
- **Deals not played**: a play (a deal at one seating) where everyone passed (French Tarot
  ``all_passed``, Tarocchino ``thrown_in``) or that was annulled (French ``petit_sec``) is counted
  apart (``results["passed"]``). It counts in the mean scores (a score of 0) and not in the win
  rates: nobody lost it.
- **Metrics**: the unit of independence is the deal played at all its seatings (the duplicate
  group): the seat-plays inside it share the cards, so they are not independent. Mean scores and
  the paired differences between agents get 95% normal-approximation intervals over deals; per role
  (French: taker, partner, defender, passed; Terziglio: soloist, opponent, passed; partnership
  games: side; others: seat) the mean is over seat-plays and its interval is clustered by deal
  (:func:`cluster_mean_ci`). Rates get Wilson score intervals, which stay inside [0, 1], with the
  deal-clustered effective sample size (:func:`rate_ci`).
- **Ratings**: OpenSkill Plackett-Luce, one rating game per deal (agents ranked by their duplicate
  score). A run starts fresh: its leaderboard is of its own deals, stored per table in
  ``<out>/ratings.json`` (that table's entry replaced), so the same command gives the same
  leaderboard every time. ``--ratings FILE`` (``ratings=``) names a ratings file to extend instead:
  the table's ratings there are the starting point, and the file is updated.
- **Table rules**: a move limit in seconds; an agent that raises (any exception, ``SystemExit`` and
  ``KeyboardInterrupt`` included), returns an illegal action or runs past the limit is replaced for
  that move by the fallback (the rule-based bot of the game family), and each such case is counted.
  Each agent's moves run in a worker thread of its own; a hung move's thread is abandoned, and at
  most :data:`MAX_STUCK_MOVES` of them per agent are left running (the agent is not asked again,
  its moves count as timeouts, until one ends). An evaluation where an agent could not play at all
  (every move fell back: a model of another game) is an error on the command line
  (``strict=True``), not a tie.
"""

# The engine is library code (tarot_env/arena.py); this script is its command line, and its
# docstring, the protocol, is what --help prints.

from __future__ import annotations

import argparse
from pathlib import Path

from tarot_env.agents.factory import AgentCouldNotPlayError, make_agent, model_path, split_agents
from tarot_env.agents.pimc import is_search_spec

import tarot_env
from tarot_env.arena import DEFAULT_SEED, humans_markdown, humans_vs_agents, markdown, read_ratings, run_arena


def main(argv: list[str] | None = None) -> dict:
    """The command line (``tarot arena`` runs it too): every flag and file is checked before a deal is played."""
    from tarot_env import arguments

    p = arguments.OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", required=True, help="env id, e.g. french_tarot_v0, ottocento_v0")
    p.add_argument("--players", type=int, default=None, help="player count (French Tarot 3-5, Mattazza 3-6)")
    p.add_argument(
        "--agents",
        default="random,rules",
        help="comma-separated: random, rules, pretrained (the table's trained model), sb3:<path-to-zip> (.zip may be left out)",
    )
    p.add_argument("--deals", type=arguments.deals, default=200, help="deals per match")
    p.add_argument("--seed", type=arguments.seed, default=DEFAULT_SEED, help="seed of the deal set (and of random agents)")
    p.add_argument("--time-limit", type=arguments.seconds, default=None, help="seconds per move (default: none)")
    p.add_argument("--out", default="runs/arena", help="output folder (default runs/arena; make arena writes results/arena)")
    p.add_argument(
        "--deals-dir", default=None,
        help="folder of the deal sets, made or extended there (default: the committed sets of results/deals, read only; "
        "a set that is not there, or is too short, is made in runs/deals)",
    )  # fmt: skip
    p.add_argument(
        "--ratings", metavar="FILE", default=None,
        help="a ratings file to extend (made if missing); by default a run's ratings start fresh (stored in <out>/ratings.json)",
    )  # fmt: skip
    p.add_argument("--humans", metavar="FILE", default=None, help="a challenge data set (tarot challenge export): people vs the agents")
    args = p.parse_args(argv)
    if args.env not in tarot_env.ENV_IDS:
        p.error(f"argument --env: unknown env id {args.env!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    if args.players is not None and (why := arguments.players_error(args.env, args.players)):
        p.error(why)
    if args.humans is not None:  # no deal is played: the people's results against the stored baselines
        try:
            res = humans_vs_agents(args.humans, args.env, args.players)
        except (OSError, ValueError) as err:
            p.exit(1, f"{p.prog}: error: --humans: {err}\n")
        print(humans_markdown(res))
        return res
    specs = split_agents(args.agents)
    if not specs:
        p.error(
            f"argument --agents: no agent in {args.agents!r}: give two or more of random, rules, pretrained, pimc, search, "
            "sb3:<path-to-zip>, comma-separated"
        )
    for s in specs:
        if specs.count(s) > 1:
            p.error(f"argument --agents: {s!r} is given twice: the agents' names must differ")
        if s not in ("random", "rules", "pretrained") and not s.startswith("sb3:") and not is_search_spec(s):
            p.error(
                f"argument --agents: unknown agent {s!r}: use random, rules, pretrained, "
                "pimc[:samples=N,time=S,rollout=pretrained], search[:time=S] or sb3:<path-to-zip>"
            )
        if is_search_spec(s):
            from tarot_env.agents.pimc import parse_spec

            try:
                parse_spec(s)
            except ValueError as err:
                p.error(f"argument --agents: {err}")
        if s == "pretrained":
            from tarot_env.agents.trained import model_file, table_of

            try:
                model_file(table_of(args.env, args.players))
            except ValueError as err:
                p.error(f"argument --agents: {err}")
        if s.startswith("sb3:"):
            try:
                model_path(s)
            except ValueError as err:
                p.error(f"argument --agents: {err}")
    out, deals_dir = Path(args.out), None if args.deals_dir is None else Path(args.deals_dir)
    if why := arguments.writable_folder_error(out, "--out"):
        p.error(why)
    if deals_dir is not None and deals_dir.exists() and not deals_dir.is_dir():
        p.error(f"--deals-dir {args.deals_dir!r} refused: it is a file, not a folder of deal sets")
    if args.ratings is not None:
        if why := arguments.writable_file_error(Path(args.ratings), "--ratings"):
            p.error(why)
        if Path(args.ratings).exists():
            try:
                read_ratings(args.ratings)
            except ValueError as err:
                p.error(f"--ratings: {err}")
    try:
        agents = {s: make_agent(s, args.env, args.seed + i, args.players) for i, s in enumerate(specs)}
    except AgentCouldNotPlayError as err:  # a model of another table
        p.exit(1, f"{p.prog}: error: {err}\n")
    except ModuleNotFoundError as err:  # a search over the network made without the train extra
        p.error(f'argument --agents: {err.name} is missing; the trained network needs the train extra: pip install "tarot_env[train]"')
    except ValueError as err:  # a search over a model that is not there or not the table's
        p.error(f"argument --agents: {err}")
    try:
        res = run_arena(
            args.env, agents, args.deals, args.seed, args.players, args.time_limit, out=out, deals_dir=deals_dir,
            ratings=args.ratings, strict=True,
        )  # fmt: skip
    except AgentCouldNotPlayError as err:
        p.exit(1, f"{p.prog}: error: {err}\n")
    print(markdown(res))
    return res


if __name__ == "__main__":
    main()
