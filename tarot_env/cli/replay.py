"""``tarot replay``: step through a game record, forwards and back.

A position is "after k moves" of one episode (a deal, or a whole match). Going to a position
replays the record's actions up to it in a fresh env, so the rules (not the file) say what
the table looks like; stepping forwards by one move just steps the env already there. The
table is the env's own ``render()``: every hand shown, as a replay wants.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tarot_env
from tarot_env.cli.lines import LineReader


@dataclass
class Episode:
    """One env episode of a record: how to reset the env for it, and its actions in order."""

    record: dict[str, Any]
    options: dict[str, Any]
    actions: list[str]
    label: str


def episodes_of(data: Any) -> list[Episode]:
    """The episodes of a record file: a deal record, a match record (``deals``), or a session
    saved by ``tarot play`` (``records``: one record per episode)."""
    if isinstance(data, dict) and isinstance(data.get("records"), list):
        out = []
        for i, rec in enumerate(data["records"]):
            for ep in episodes_of(rec):
                ep.label = f"episode {i + 1}/{len(data['records'])}" + (f", {ep.label}" if ep.label else "")
                out.append(ep)
        return out
    if not isinstance(data, dict) or "env" not in data:
        raise ValueError("not a game record: a record is a JSON object with keys env, config, deal, actions, scores (or deals, or records)")
    extra = {"totals": data["start_totals"]} if "start_totals" in data else {}
    if "deals" in data:
        actions = [a for d in data["deals"] for a in d["actions"]]
        return [Episode(data, {"deals": [d["deal"] for d in data["deals"]], **extra}, actions, "")]
    return [Episode(data, {"deal": data["deal"], **extra}, list(data["actions"]), "")]


class Replayer:
    """The table of an episode after any number of its moves."""

    def __init__(self, episodes: list[Episode]) -> None:
        self.episodes = episodes
        #: every position, flattened: (episode, moves applied)
        self.positions = [(e, k) for e, ep in enumerate(episodes) for k in range(len(ep.actions) + 1)]
        self.index = 0
        self.env: Any = None
        self.at: tuple[int, int] | None = None
        self.last_actor = ""  # who made the move that led to the position shown

    def _env_at(self, e: int, k: int) -> Any:
        """The env of episode ``e`` after ``k`` moves: stepped on from the current env when it is
        at an earlier move of the same episode, else replayed from the deal in a fresh env."""
        ep = self.episodes[e]
        if self.at is None or self.at[0] != e or self.at[1] > k:
            config = dict(ep.record.get("config", {}))
            self.env = tarot_env.make(ep.record["env"], render_mode="ansi", **config)
            self.env.reset(options=ep.options)
            self.at = (e, 0)
        raw = self.env.unwrapped
        for i in range(self.at[1], k):
            self.last_actor = self.env.agent_selection
            self.env.step(raw.string_to_action(ep.actions[i]))
        self.at = (e, k)
        return self.env

    def show(self, index: int) -> str:
        """The screen at flattened position ``index``: where we are, the last move and who made it, the table."""
        self.index = max(0, min(index, len(self.positions) - 1))
        e, k = self.positions[self.index]
        ep = self.episodes[e]
        if k == 0:
            env = self._env_at(e, 0)
            last = "the deal, before any move"
        else:
            self._env_at(e, k - 1)  # a step forward costs one step; a step back replays from the deal
            env = self._env_at(e, k)  # its last step notes who made move k
            last = f"last move: {self.last_actor} {ep.actions[k - 1]}"
        where = f"move {k}/{len(ep.actions)}" + (f" of {ep.label}" if ep.label else "")
        return f"── {ep.record['env']} — {where} — {last} ──\n" + env.render()


def run(args: argparse.Namespace) -> int:
    """``tarot replay``: returns the exit status."""
    path = Path(args.path)
    if path.is_dir():
        raise SystemExit(f"tarot replay: error: {str(path)!r} is a folder: give a game record file (the .json that tarot play saves)")
    try:
        data = json.loads(path.read_text())
        episodes = episodes_of(data)
    except FileNotFoundError:
        raise SystemExit(f"tarot replay: error: no such file: {path}") from None
    except OSError as err:
        raise SystemExit(f"tarot replay: error: cannot read {str(path)!r}: {err.strerror or err}") from None
    except (json.JSONDecodeError, ValueError, KeyError, TypeError) as err:
        raise SystemExit(f"tarot replay: error: {path} is not a game record: {err}") from None
    for ep in episodes:  # the rules must reproduce the record before we show it
        try:
            tarot_env.replay(ep.record)
        except (tarot_env.ReplayError, ValueError, TypeError) as err:
            raise SystemExit(f"tarot replay: error: {path}: the rules do not reproduce the record: {err}") from None
    rep = Replayer(episodes)
    last = len(rep.positions) - 1
    if args.move is not None and args.move > last:
        raise SystemExit(f"tarot replay: error: --move {args.move} refused: this record's positions are 0 (the deal) to {last}")
    start = args.move if args.move is not None else 0
    print(f"{path}: {len(episodes)} episode(s), {sum(len(e.actions) for e in episodes)} moves; the record replays exactly.")
    if args.to_end:
        for i in range(start, last + 1):
            print(rep.show(i))
            print()
        print(final_line(episodes))
        return 0
    print("keys: Enter or n = next move, p = back one move, g N = go to move N, e = the end, q = quit")
    print(rep.show(start))
    reader = LineReader()
    while True:
        print("replay> ", end="", flush=True)
        try:
            line = reader.readline()
        except EOFError:
            return 0
        cmd = (line or "").strip().lower()
        if cmd in ("q", "quit", "exit"):
            return 0
        if cmd in ("", "n", "next"):
            if rep.index == last:
                print("(the end of the record: p to go back, q to quit)")
                print(final_line(episodes))
                continue
            print(rep.show(rep.index + 1))
        elif cmd in ("p", "prev", "back", "b"):
            if rep.index == 0:
                print("(the start of the record)")
                continue
            print(rep.show(rep.index - 1))
        elif cmd in ("e", "end"):
            print(rep.show(last))
        elif cmd.startswith("g"):
            target = cmd[1:].strip()
            if not target.isdigit():
                print(f"g takes a move number: g 0 is the deal, g {len(rep.positions) - 1} the end")
                continue
            print(rep.show(int(target)))
        else:
            print(f"unknown key {cmd!r}: Enter or n = next, p = back, g N = go to move N, e = end, q = quit")


def final_line(episodes: list[Episode]) -> str:
    """The record's result: each deal's scores, a match's totals."""
    parts = []
    for ep in episodes:
        rec = ep.record
        if "totals" in rec and "deals" in rec:
            parts.append(f"totals {rec['totals']}")
        elif "scores" in rec:
            parts.append(f"scores {rec['scores']}")
    return "result: " + "; ".join(parts)
