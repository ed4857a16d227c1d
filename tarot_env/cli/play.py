"""``tarot play``: a deal, a session of deals or a match at the terminal, against agents.

One seat is the human's; the others are agents (``rules``, ``random``, ``sb3:<model.zip>``).
Every decision goes through the env: the human's typed move is turned into an action and
stepped, and an illegal one is refused by the env with its reason (the state is unchanged, so
the prompt simply comes again). The record of every finished deal is saved at the end.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tarot_env
from tarot_env import arguments
from tarot_env.agents import rule_agent
from tarot_env.agents.factory import agent_move, make_agents
from tarot_env.cli import views
from tarot_env.cli.lines import LineReader
from tarot_env.env_facts import facts
from tarot_env.errors import IllegalActionError
from tarot_env.moves import CARD_VERBS, legal_moves, refusal


class QuitGameError(Exception):
    """The human typed ``quit``."""


class MoveError(ValueError):
    """A typed move that is not understood (a typo): the reason, for the player."""


def parse_value(text: str) -> Any:
    """An option value typed on the command line: JSON where it parses (800, true, null), else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_options(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"tarot play: error: --option takes KEY=VALUE (e.g. --option must_overtrump=true), got {item!r}")
        key, value = item.split("=", 1)
        out[key.strip()] = parse_value(value.strip())
    check_options(out)
    return out


def check_options(options: dict[str, Any]) -> None:
    """Refuse the env options that ``tarot play`` sets itself or that would spoil the game at the terminal.

    The dealer and the player count have their own flags (and ``dealer`` given twice to ``make``
    would be a ``TypeError`` at the first deal); ``render_mode`` would print every player's hand after
    each move, the human's opponents' included; ``illegal_action='terminate'`` would end the
    deal at a mistyped card instead of asking again.
    """
    for key, value in options.items():
        given = f"--option {key}={value!r}"
        if key == "dealer":
            raise SystemExit(
                f"tarot play: error: {given} refused: tarot play sets the dealer itself (the first one drawn from --seed, "
                "then one seat on at each deal)"
            )
        if key == "num_players":
            raise SystemExit(f"tarot play: error: {given} refused: give the player count with --players")
        if key == "render_mode":
            raise SystemExit(
                f"tarot play: error: {given} refused: it prints every player's hand after each move; tarot play shows the table "
                "from your seat (its seat view) at each of your moves; to see every hand afterwards, step through the record: "
                "tarot replay RECORD"
            )
        if key == "illegal_action" and value != "raise":
            raise SystemExit(
                f"tarot play: error: {given} refused: tarot play refuses an illegal move and asks again; 'raise' (the default) "
                "is the one value allowed"
            )


# ------------------------------------------------------------------------------------- input
def format_moves(moves: list[tuple[int, str]], width: int = 100) -> str:
    """``1) KS  2) 7S …`` under ``play a card:`` when every move plays (discards, calls …) a card, else full strings."""
    verbs = {s.split()[0] for _, s in moves}
    one_verb = len(verbs) == 1 and next(iter(verbs)) in CARD_VERBS
    items = [f"{i}) {s.split()[1] if one_verb else s}" for i, (_, s) in enumerate(moves, 1)]
    head = f"legal moves ({next(iter(verbs))} a card):" if one_verb else "legal moves:"
    lines, line = [head], ""
    for item in items:
        if len(line) + len(item) + 2 > width:
            lines.append(line)
            line = ""
        line += "  " + item
    lines.append(line)
    return "\n".join(lines)


def parse_move(text: str, env_id: str, raw: Any, moves: list[tuple[int, str]]) -> int:
    """The action of a typed move: a move's number, a full action string (any case), the last
    word of a legal move (``garde``), or a card alone (the verb of the decision is added).

    Raises :class:`MoveError` with the reason for a typo.
    """
    t = text.strip()
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(moves):
            return moves[k - 1][0]
        raise MoveError(f"there is no move {k}: type a number from 1 to {len(moves)}")
    try:
        return raw.string_to_action(t)
    except ValueError:
        pass
    word = "_".join(t.lower().split())
    by_word = [a for a, s in moves if s.split()[-1].lower() == word]
    if len(by_word) == 1:
        return by_word[0]
    deck = facts(env_id).deck
    try:
        card = deck.parse(t)
    except (ValueError, TypeError):
        examples = facts(env_id).card_examples
        raise MoveError(
            f"{t!r} is not a card or a move: cards are written like {examples} (docs/cards.md), moves like "
            f"{', '.join(repr(s) for _, s in moves[:2])}, or type a move's number (1-{len(moves)})"
        ) from None
    verbs = sorted({s.split()[0] for _, s in moves if s.split()[0] in CARD_VERBS})
    verb = verbs[0] if len(verbs) == 1 else "play"
    try:
        return raw.string_to_action(f"{verb} {deck.names[card]}")
    except ValueError as err:
        raise MoveError(f"{deck.names[card]} cannot be used now ({err})") from None


HELP = (
    "type a move's number, a card (ks = play KS when you play a card, discard KS at a discard, call KS ...), or a move\n"
    "(pass, bid garde, declare, claim, ...; any case); Enter alone makes the only legal move when there is one (your\n"
    "last card is played at once). Commands: t = show the table again, hint = what the rule-based bot would play,\n"
    "help, q = quit (the finished deals, or hands, are saved)."
)


# ------------------------------------------------------------------------------------- the table
@dataclass
class Session:
    """One sitting at the table: the settings, the agents, the running totals and the records."""

    env_id: str
    num_players: int
    human: int
    agents: dict[int, tuple[str, Any]]
    fallback: Any
    time_per_move: float | None
    reader: LineReader
    out: Any = sys.stdout
    totals: list[float] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    hands: int = 0

    @property
    def kinds(self) -> list[str]:
        return ["you" if p == self.human else self.agents[p][0] for p in range(self.num_players)]

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def label(self, seat: int) -> str:
        return views.seat_label(seat, self.human, self.kinds)

    # ----------------------------------------------------------------------------- one episode
    def play_episode(self, env: Any, heading: str) -> None:
        """Play one env episode (a deal, a hand, or a whole match) to its end."""
        raw = env.unwrapped
        french = facts(self.env_id).french
        for _, agent in self.agents.values():
            if hasattr(agent, "bind"):  # a search agent samples from this table (through its seat's beliefs)
                agent.bind(raw)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = raw.possible_agents.index(agent)
            tricks = views.tricks_done(self.env_id, env)
            hands = 0 if french else len(raw.hands_played())
            sides = None if french else raw.game.sides(raw.game_state, 0)  # this hand's: a match's next may differ
            note = ""
            if seat == self.human and (last := self.last_card(env)) is not None:
                action, note = last, " (your last card)"  # nothing to choose: played at once
                env.step(action)
            elif seat == self.human:
                action = self.human_move(env, obs, heading)
            else:
                action = agent_move(self.agents[seat][1], self.fallback, obs)
                env.step(action)
            self.announce(seat, raw.action_to_string(action) + note)
            self.after_step(env, tricks, hands, sides)

    def last_card(self, env: Any) -> int | None:
        """The action that plays the human's last card when it is his only legal move, else None."""
        moves = legal_moves(self.env_id, env.unwrapped)
        if len(moves) == 1 and moves[0][1].split()[0] == "play" and views.cards_in_hand(self.env_id, env, self.human) == 1:
            return moves[0][0]
        return None

    def announce(self, seat: int, text: str) -> None:
        verb, _, rest = text.partition(" ")
        who = "you" if seat == self.human else self.label(seat)
        if verb == "discard" and seat != self.human:
            self.say(f"{who} {views.discard_text(self.env_id, rest)}")
        elif verb in ("play", "discard", "call", "show", "give") and rest:
            self.say(f"{who} {verb}{'s' if seat != self.human else ''} {rest}")
        else:
            self.say(f"{who}: {text}")

    def after_step(self, env: Any, tricks_before: int, hands_before: int, sides: np.ndarray | None = None) -> None:
        """Print a trick as it is won, and a deal's (hand's) result as it ends; add up the scores.
        ``sides``: a Tarocchino hand's sides before the step (:func:`views.tarocchino_hand_end`)."""
        raw = env.unwrapped
        french = facts(self.env_id).french
        ended = raw.game_over if french else len(raw.hands_played()) > hands_before
        tricks = views.tricks_done(self.env_id, env)
        if tricks > tricks_before:
            self.say("  " + views.trick_summary(self.env_id, env, tricks - 1))
        if ended:
            info = raw.infos[raw.possible_agents[0]]
            scores = info["scores"]
            self.totals = [t + s for t, s in zip(self.totals, scores)]
            self.hands += 1
            for k, line in enumerate(views.deal_end(self.env_id, env, info, sides, self.human)):
                self.say(f"== {line}" if k == 0 else line)
            self.say("== scores: " + ", ".join(f"{self.label(p)} {v:+g}" for p, v in enumerate(scores)))
            if not french and info.get("match_over"):
                self.say(f"== game over: {match_winner(self.env_id, info)}")

    # ----------------------------------------------------------------------------- the human
    def human_move(self, env: Any, obs: dict[str, np.ndarray], heading: str) -> int:
        """Show the table, read moves until one is legal (or the time runs out), step it; the action."""
        raw = env.unwrapped
        moves = legal_moves(self.env_id, raw)
        self.say()
        self.say(views.table_view(self.env_id, env, self.human, self.kinds, self.totals, heading))
        self.say(format_moves(moves))
        deadline = None if self.time_per_move is None else time.monotonic() + self.time_per_move
        only = moves[0] if len(moves) == 1 else None  # a single legal move: Enter makes it
        offer = "" if only is None else f" [Enter: {only[1]}]"
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            clock = "" if left is None else f" [{left:.0f}s]"
            print(f"your move{clock}{offer}> ", end="", file=self.out, flush=True)
            line = self.reader.readline(left)
            if line is None:
                self.reader.discard_pending()
                action = agent_move(self.fallback, self.fallback, obs)
                self.say()
                self.say(f"time is up ({self.time_per_move:g}s): the rule-based bot plays for you: {raw.action_to_string(action)}")
                env.step(action)
                return action
            text = line.strip()
            low = text.lower()
            if not text and only is not None:
                env.step(only[0])  # legal: the env's one legal move
                return only[0]
            if not text:
                self.say(f"type a move (a number from 1 to {len(moves)}, a card, or an action); help for help")
                continue
            if low in ("q", "quit", "exit"):
                raise QuitGameError
            if low in ("h", "help", "?"):
                self.say(HELP)
                continue
            if low in ("t", "table"):
                self.say(views.table_view(self.env_id, env, self.human, self.kinds, self.totals, heading))
                self.say(format_moves(moves))
                continue
            if low == "hint":
                hint = agent_move(self.fallback, self.fallback, obs)
                self.say(f"the rule-based bot would play: {raw.action_to_string(hint)}")
                continue
            try:
                action = parse_move(text, self.env_id, raw, moves)
            except MoveError as err:
                self.say(f"not understood: {err}")
                continue
            try:
                env.step(action)
            except IllegalActionError as err:
                self.say(f"illegal: {refusal(err)}")
                self.say(format_moves(moves))
                continue
            return action


def match_winner(env_id: str, info: dict[str, Any]) -> str:
    """Who won a match, in words, from the last hand's info."""
    if info.get("match_losers"):
        return "lost by " + ", ".join(f"player_{p}" for p in info["match_losers"])
    w = info.get("game_winner")
    if w is None or w < 0:
        return "a draw"
    if facts(env_id).partners:
        return f"won by the side of player_{w} and player_{w + 2}"
    return f"won by player_{w}"


# ------------------------------------------------------------------------------------- the command
def record_path(path: str | None, env_id: str) -> Path:
    if path:
        return Path(path)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    p = Path("runs/games") / f"{env_id}-{stamp}.json"
    k = 1
    while p.exists():
        k += 1
        p = Path("runs/games") / f"{env_id}-{stamp}-{k}.json"
    return p


def save_records(records: list[dict[str, Any]], totals: list[float], path: Path) -> None:
    """One record as it is (``tarot_env.replay`` takes it); several as ``{"records": [...], "totals": [...]}``."""
    data: dict[str, Any] = records[0] if len(records) == 1 else {"env": records[0]["env"], "records": records, "totals": totals}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def run(args: argparse.Namespace) -> int:
    """``tarot play``: returns the exit status."""
    env_id = args.env_id
    if env_id not in tarot_env.ENV_IDS:
        raise SystemExit(f"tarot play: error: unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)} (tarot list)")
    french = facts(env_id).french
    n = args.players if args.players is not None else facts(env_id).default_players  # 0 is refused, not read as the default
    if why := arguments.players_error(env_id, n):
        raise SystemExit(f"tarot play: error: {why}")
    options = parse_options(args.option)
    match = args.match or (args.target is not None and not french) or options.get("episode") == "match"
    if match:
        if french:
            raise SystemExit("tarot play: error: French Tarot has no match episodes: play a session with --deals K (and --target T)")
        options["episode"] = "match"
    if args.target is not None and not french:
        options["target"] = args.target
    if args.deals is not None and args.deals < 1:
        raise SystemExit("tarot play: error: --deals must be at least 1")
    if match and args.deals is not None:
        raise SystemExit(
            "tarot play: error: a match (--match, --target or --option episode='match') plays to its own end: "
            f"leave out --deals {args.deals}"
        )
    try:
        tarot_env.make(env_id, num_players=n, **options)  # every option checked before the game starts
    except (TypeError, ValueError) as err:
        raise SystemExit(f"tarot play: error: {err}") from None
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 1_000_000)
    rng = np.random.default_rng(seed)
    if args.seat in (None, "random"):
        human = int(rng.integers(n)) if args.seat == "random" else 0
    else:
        try:
            human = int(args.seat)
        except ValueError:
            raise SystemExit(f"tarot play: error: --seat takes a seat number 0..{n - 1} or 'random', got {args.seat!r}") from None
        if not 0 <= human < n:
            raise SystemExit(f"tarot play: error: --seat {human} is not a seat: the seats are 0..{n - 1}")
    first_dealer = int(rng.integers(n))
    from tarot_env.agents.factory import split_agents

    specs = split_agents(args.agents)
    if not specs:
        raise SystemExit("tarot play: error: --agents needs at least one agent: rules, random, pretrained, pimc, search or sb3:<model.zip>")
    path = record_path(args.record, env_id)
    if why := arguments.writable_file_error(path, "--record"):  # now, not after the deal: the record would be lost
        raise SystemExit(f"tarot play: error: {why}")
    target = options.get("target")
    session = Session(
        env_id=env_id,
        num_players=n,
        human=human,
        agents=make_agents(specs, env_id, [p for p in range(n) if p != human], seed, target, n),
        fallback=rule_agent(env_id, target),
        time_per_move=args.time_per_move,
        reader=LineReader(),
        totals=[0.0] * n,
    )
    deals = 1 if match else (args.deals or (None if (french and args.target is not None) else 1))
    unit = "deal" if french else "hand"  # what the game counts: a Tarocchino game is played in hands
    what = "a game (match)" if match else f"{deals} {unit}(s)" if deals else f"deals until a total reaches {args.target}"
    session.say(f"{facts(env_id).title}, {n} players: {what}; you are player_{human}; seed {seed}. Type help for help.")
    lost = "game (match)" if match else unit  # a match is saved as one record, at its end
    status = 0
    k = 0
    try:
        while deals is None or k < deals:
            if french and args.target is not None and max(session.totals) >= args.target:
                break
            dealer = first_dealer if match else (first_dealer + k) % n
            env = tarot_env.make(env_id, num_players=n, dealer=dealer, **options)
            env.reset(seed=seed + k)
            if match:
                what = "game" + (f" to {target}" if target else "")
            else:
                what = f"{'deal' if french else 'hand'} {k + 1}" + (f"/{deals}" if deals else "")
            session.play_episode(env, f"{facts(env_id).title}, {n} players — {what}")
            session.records.append(env.unwrapped.record())
            k += 1
        session.say()
        scores = ", ".join(f"{session.label(p)} {v:+g}" for p, v in enumerate(session.totals))
        session.say(f"final scores after {session.hands} {unit}(s): {scores}")
    except QuitGameError:
        session.say(f"quitting: the {lost} in progress is not kept")
    except EOFError:
        session.say(f"\ninput closed before the end of the game: the {lost} in progress is not kept")
        status = 1
    except KeyboardInterrupt:
        session.say(f"\ninterrupted: the {lost} in progress is not kept")
        status = 130
    if session.records:
        try:
            save_records(session.records, session.totals, path)
        except OSError as err:  # checked before the game, but the disk can still fill up or the folder go
            print(f"tarot play: error: the game record could not be saved to {str(path)!r}: {err.strerror or err}", file=sys.stderr)
            return status or 1
        session.say(f"game record saved to {path} (step through it: tarot replay {path})")
    return status
