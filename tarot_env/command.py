"""The ``tarot`` console command: list the games, play at the terminal, replay a record, and run
the experiment scripts (benchmark, training, arena) behind one interface.

    tarot list [ENV_ID]
    tarot play ENV_ID [--players N] [--seat N|random] [--agents rules,random,...] [--deals K | --match --target T]
               [--time-per-move S] [--seed S] [--record PATH] [--option KEY=VALUE ...]
    tarot replay PATH [--to-end] [--move N]
    tarot serve [--port P] [--db FILE]     the online room in the browser (the web extra)
    tarot challenge export | baselines     the duplicate challenge's data set and the agents' baselines
    tarot bench | train | arena [ENV_ID] ...  (the env id first, as for play, or --env; tarot <command> --help shows examples)

The command is installed with the package (``[project.scripts]``); ``python -m tarot_env.command``
runs the same. It imports ``agents`` and ``experiments`` (packaged with ``tarot_env``) only when a
subcommand needs them, so ``import tarot_env`` never does.

Why a module of its own, above the front ends: the command dispatches to the terminal's
subcommands (:mod:`tarot_env.cli`), the room's server (:mod:`tarot_env.web`) and the experiment
scripts (:mod:`tarot_env.experiments.scripts`), so that none of those three imports another.
"""

from __future__ import annotations

import argparse
import sys

from tarot_env import arguments
from tarot_env.web.robots import ROBOT_TIMEOUT

EXAMPLES = {
    "list": """examples:
  tarot list                     every env id, its players and its options with their defaults
  tarot list ottocento_v0        one game: each option, its default, allowed values and meaning""",
    "play": """examples:
  tarot play french_tarot_v0 --players 4                      one deal, you at seat 0, rule-based bots elsewhere
  tarot play french_tarot_v0 --players 5 --seat random --agents rules,random --deals 3
  tarot play ottocento_v0 --match --target 800 --time-per-move 30
  tarot play millone_v0 --seed 7 --record runs/games/millone.json
  tarot play mattazza_v0 --players 5 --option full_count=false

at the prompt: a move's number, a card (ks: play KS, or discard KS at a discard), a move
(pass, bid garde, declare, claim ...; any case); t = the table again, hint, help, q = quit.
With --time-per-move, the rule-based bot plays for you when the time runs out.
The record of the finished deals is saved at the end (default runs/games/<env>-<time>.json).""",
    "replay": """examples:
  tarot replay runs/games/french_tarot_v0-20250101-120000.json
  tarot replay game.json --move 20          start at move 20
  tarot replay game.json --to-end           print the table after every move, no prompt

keys: Enter or n = next move, p = back one move, g N = go to move N (g 0: the deal), e = the end, q = quit.""",
    "serve": """examples:
  tarot serve                          the room at http://localhost:8000/ (database runs/tarot_web.sqlite)
  tarot serve --port 8080 --db runs/room.sqlite --records runs/web_games
  sqlite3 runs/tarot_web.sqlite "select name, xp, chips from users order by xp desc"

people play in the browser against robots (rules, random, pretrained, pimc, search) and each other; every deal's
record is saved in the database and in --records (replay it: tarot replay FILE). Needs the web extra. docs/web.md""",
    "bench": """examples:
  tarot bench french_tarot_v0 --api aec --players 4 --seconds 2
  tarot bench --api vector --env ottocento_v0 --batch 1,256,4096 --out runs/bench_ottocento.json
  tarot bench                    every env, both APIs (runs/benchmark.json, runs/vector_throughput.png)

other flags (--repeats, --batch, --min-steps, --plot) go to experiments/benchmark.py: tarot bench --script-help""",
    "arena": """examples:
  tarot arena french_tarot_v0 --players 4 --agents rules,random --deals 200
  tarot arena ottocento_v0 --agents rules,sb3:runs/ottocento/model_final.zip --time-per-move 0.5   (tarot train's model)
  tarot arena --env millone_v0 --deals 20 --out /tmp/arena --deals-dir /tmp/deals
  tarot arena --env ottocento_v0 --agents rules,random --ratings runs/league.json   extend a leaderboard

a run's ratings start fresh (stored in <out>/ratings.json); --ratings FILE extends that file instead.
other flags (--deals-dir) go to experiments/arena.py: tarot arena --script-help. Needs the train extra.""",
    "train": """examples:
  tarot train french_tarot_v0 --players 4 --steps 300000 --out runs/french4
  tarot train --env ottocento_v0 --steps 200000 --option shaping=true --out runs/ottocento
  tarot train --env millone_v0 --steps 50000 --n-steps 256 --net-arch 128,128 --no-progress-bar
  tarot train --resume runs/french4                  go on from the run's last checkpoint
  tarot train --config runs/french4/config.json --out runs/again   repeat a run

every field of TrainConfig is a flag of experiments/train.py (--n-steps, --batch-size, --ent-coef,
--pool-weights random=1,rules=1,snapshot=2, ...): tarot train --script-help. Needs the train extra.""",
}
#: the subcommands whose unknown flags are passed on to the script behind them
PASS_THROUGH = ("bench", "arena", "train")


def build_parser() -> argparse.ArgumentParser:
    parser = arguments.OneLineParser(
        prog="tarot",
        description="Tarot card games at the terminal, and the experiments of tarot_env.",
        epilog="tarot <command> --help shows the command's options and examples.",
    )
    sub = parser.add_subparsers(dest="command", metavar="command", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXAMPLES[name],
            formatter_class=argparse.RawDescriptionHelpFormatter,
            allow_abbrev=False,
        )

    p = add("list", "list the env ids, their players and options")
    p.add_argument("env_id", nargs="?", help="one env id, described in detail")

    p = add("play", "play a deal, several deals or a match at the terminal against agents")
    p.add_argument("env_id", help="the game: french_tarot_v0, ottocento_v0, ... (tarot list)")
    p.add_argument("--players", type=int, help="player count (French Tarot 3-5, Mattazza 3-6; default 4, or the game's)")
    p.add_argument("--seat", help="your seat: 0..N-1, or random (default 0)")
    p.add_argument(
        "--agents",
        default="rules",
        help="agents at the other seats, in seat order, cycled: rules, random, pretrained, pimc, search, sb3:<model.zip> (default rules)",
    )
    p.add_argument("--deals", type=arguments.deals, help="deals (hands) in the session; scores add up (default 1)")
    p.add_argument("--match", action="store_true", help="Tarocchino: a whole game (episode='match') to its end")
    p.add_argument(
        "--target", type=arguments.target, help="Tarocchino: a match to this target; French Tarot: deals until a total reaches it"
    )
    p.add_argument(
        "--time-per-move",
        type=arguments.seconds,
        metavar="SECONDS",
        help="after this, the rule-based bot plays your move (default: no limit)",
    )
    p.add_argument("--seed", type=arguments.seed, help="seed of the deals and of random agents (default: fresh, printed)")
    p.add_argument("--record", metavar="PATH", help="where to save the game record (default runs/games/<env>-<time>.json)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option (tarot list ENV_ID), repeatable")

    p = add("replay", "step through a saved game record, forwards and back")
    p.add_argument("path", help="a JSON game record (from tarot play, env.unwrapped.record(), or a session of them)")
    p.add_argument("--to-end", action="store_true", help="print the table after every move to the end, without prompting")
    p.add_argument("--move", type=arguments.move_number, metavar="N", help="start at move N (0: the deal)")

    p = add("serve", "the online room: play in the browser against robots and people (docs/web.md)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--db", default="runs/tarot_web.sqlite",
        help="SQLite file of users, games, records, leaderboard (default runs/tarot_web.sqlite: under runs/, which git ignores)",
    )  # fmt: skip
    p.add_argument("--records", default="runs/web_games", metavar="DIR", help="folder for the deal records (default runs/web_games)")
    p.add_argument("--robot-delay", type=arguments.seconds, default=0.8, metavar="SECONDS", help="a robot's pause (default 0.8)")
    p.add_argument(
        "--robot-timeout", type=arguments.seconds, default=ROBOT_TIMEOUT, metavar="SECONDS",
        help=f"a robot that has not answered in this time is replaced by the rule-based robot for that move (default {ROBOT_TIMEOUT:g})",
    )  # fmt: skip
    p.add_argument(
        "--reconnect-window",
        type=arguments.seconds,
        default=180.0,
        metavar="SECONDS",
        help="how long a disconnected player may take to come back before he has abandoned (default 180)",
    )
    p.add_argument(
        "--trusted-proxy", action="append", metavar="ADDRESS",
        help="a reverse proxy whose X-Forwarded-For / X-Forwarded-Proto the room believes (repeatable; default: none, "
        "the address of the connection is the person's)",
    )  # fmt: skip
    p.add_argument(
        "--allowed-origin", action="append", metavar="ORIGIN",
        help="a web origin besides the room's own host whose pages may open /ws, e.g. https://tarot.example (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--max-connections", type=arguments.whole_number(1, "--max-connections"), default=1000, metavar="N",
        help="open connections at most (default 1000)",
    )  # fmt: skip
    p.add_argument(
        "--max-connections-per-address", type=arguments.whole_number(1, "--max-connections-per-address"), default=50, metavar="N",
        help="open connections from one address at most (default 50)",
    )  # fmt: skip
    p.add_argument(
        "--max-tables", type=arguments.whole_number(1, "--max-tables"), default=200, metavar="N",
        help="tables in the room at most (default 200)",
    )  # fmt: skip
    p.add_argument(
        "--table-idle", type=arguments.seconds, default=300.0, metavar="SECONDS",
        help="a table out of a game (empty, or its game over) unchanged this long is closed (default 300)",
    )  # fmt: skip

    p = add("bench", "measure decisions per second (experiments/benchmark.py)")
    p.add_argument("--env", action="append", help="env id (repeatable; or first: tarot bench ENV_ID; default: every env)")
    p.add_argument("--players", type=int, action="append", help="player count (repeatable)")
    p.add_argument("--api", choices=("aec", "vector", "all"), help="which API to measure (default all)")
    p.add_argument("--seconds", type=arguments.seconds, help="seconds per configuration (default 10)")
    p.add_argument("--out", help="JSON results file (default runs/benchmark.json)")
    p.add_argument("--script-help", action="store_true", help="the benchmark script's own flags")
    env_first(p)

    p = add("arena", "agents against each other on a fixed deal set in duplicate (experiments/arena.py)")
    p.add_argument("--env", help="env id (required; or first: tarot arena ENV_ID)")
    p.add_argument("--players", type=int, help="player count (French Tarot 3-5, Mattazza 3-6)")
    p.add_argument(
        "--agents", help="comma-separated: random, rules, pretrained, pimc[:samples=N], search, sb3:<model.zip> (default random,rules)"
    )
    p.add_argument("--deals", type=arguments.deals, help="deals per match (default 200)")
    p.add_argument("--seed", type=arguments.seed, help="seed of the deal set and of random agents (default 0)")
    p.add_argument(
        "--time-per-move",
        type=arguments.seconds,
        metavar="SECONDS",
        help="an agent past it is replaced by the rule-based bot for that move",
    )
    p.add_argument("--out", help="output folder (default runs/arena)")
    p.add_argument("--ratings", metavar="FILE", help="a ratings file to extend (made if missing); default: the run's ratings start fresh")
    p.add_argument("--script-help", action="store_true", help="the arena script's own flags")
    env_first(p)

    p = add("train", "MaskablePPO self-play training (experiments/train.py)")
    p.add_argument("--env", help="env id (or first: tarot train ENV_ID; default french_tarot_v0)")
    p.add_argument("--players", type=int, help="player count (default: the game's)")
    p.add_argument("--steps", type=arguments.steps, help="training steps (default: the training script's, tarot train --script-help)")
    p.add_argument(
        "--num-envs", type=arguments.tables, help="tables stepped together (default: the training script's, tarot train --script-help)"
    )
    p.add_argument("--seed", type=arguments.seed, help="seed (default 0)")
    p.add_argument("--out", help="output folder for checkpoints, logs and plots (default runs/train)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="an env option, repeatable")
    p.add_argument("--script-help", action="store_true", help="the training script's own flags")
    env_first(p)

    from tarot_env.cli import challenge  # tarot challenge export | baselines

    challenge.add_parser(sub)
    return parser


def env_first(p: argparse.ArgumentParser) -> None:
    """Show ``[ENV_ID]`` first in the usage of a command that takes the env id first (:func:`take_env_first`).

    It is not an argparse positional: the command passes unknown flags to its script, and argparse
    would take a passed flag's value (``tarot train --n-steps 256``) for the env id."""
    usage = p.format_usage().removeprefix("usage: ").rstrip("\n")
    indent = " " * len(f"usage: {p.prog} ")  # argparse's indent of a wrapped usage line, moved past the new word
    p.usage = usage.replace(p.prog, f"{p.prog} [ENV_ID]", 1).replace(f"\n{indent}", f"\n{indent}{' ' * len('[ENV_ID] ')}")


def take_env_first(argv: list[str]) -> tuple[list[str], str | None]:
    """``tarot arena ENV_ID ...``: the env id given first to bench, arena or train, as ``tarot play``
    takes it, and the arguments without it; ``(argv, None)`` when the first is a flag."""
    if len(argv) >= 2 and argv[0] in PASS_THROUGH and not argv[1].startswith("-"):
        return [argv[0], *argv[2:]], argv[1]
    return argv, None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tarot`` command; returns the exit status.

    A refusal raised as ``SystemExit("tarot ...: error: ...")`` by a command is printed here (so
    that a caller of ``main`` in-process sees it on stderr as the shell does). Bad input is checked
    explicitly by each command; the last guard turns a ``ValueError`` or ``OSError`` that still
    gets through into one ``tarot: error:`` line rather than a traceback.
    """
    try:
        return _main(argv)
    except BrokenPipeError:  # ``tarot list | head``: the reader left; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit as e:
        if isinstance(e.code, str):
            print(" ".join(e.code.split()), file=sys.stderr)  # one line, whatever a quoted error held
            return 1
        raise
    except (ValueError, OSError) as err:
        print(f"tarot: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("tarot: interrupted", file=sys.stderr)
        return 130


def challenge_export(args: argparse.Namespace) -> int:
    """``tarot challenge export``: the people's finished challenge deals from the room's database
    (the web front end's store), one JSON line each (:func:`tarot_env.challenge.write_dataset`).
    Here rather than in :mod:`tarot_env.cli.challenge` because it reads the room's store, and the
    terminal front end does not import the web one."""
    from pathlib import Path

    from tarot_env.challenge import write_dataset
    from tarot_env.web.challenge_web import ChallengeStore

    db = Path(args.db)
    if not db.is_file():
        raise SystemExit(f"tarot challenge export: error: there is no database {str(db)!r} (tarot serve --db makes one)")
    if why := arguments.writable_file_error(Path(args.out), "--out"):
        raise SystemExit(f"tarot challenge export: error: {why}")
    n = write_dataset(ChallengeStore(str(db), create=False).dataset(), args.out)  # the database is only read
    print(f"{n} finished challenge deal(s) written to {args.out}")
    return 0


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    argv, env_id = take_env_first(list(sys.argv[1:] if argv is None else argv))
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in PASS_THROUGH:
        parser.error(f"unrecognized arguments: {' '.join(rest)} (tarot {args.command} --help)")
    if env_id is not None:
        if args.command == "bench":  # --env is repeatable there
            args.env = [env_id, *(args.env or [])]
        elif args.env not in (None, env_id):
            raise SystemExit(f"tarot {args.command}: error: the env is given twice, {env_id!r} and --env {args.env!r}: give one")
        else:
            args.env = env_id
    if args.command == "list":
        from tarot_env.cli import listing

        return listing.run(args)
    if args.command == "play":
        from tarot_env.cli import play

        return play.run(args)
    if args.command == "serve":
        from tarot_env.web import serve

        return serve.run(args)
    if args.command == "challenge" and args.action == "export":  # the room's database, read
        return challenge_export(args)
    if args.command == "challenge":
        from tarot_env.cli import challenge

        return challenge.run(args)
    if args.command == "replay":
        from tarot_env.cli import replay

        return replay.run(args)
    from tarot_env.experiments import scripts

    return {"bench": scripts.run_bench, "arena": scripts.run_arena, "train": scripts.run_train}[args.command](args, rest)


if __name__ == "__main__":
    sys.exit(main())
