"""Game records (interface.md §5): replaying a record through the rules."""

from __future__ import annotations

from typing import Any

from tarot_env.registry import make


class ReplayError(ValueError):
    """A record that the rules do not reproduce."""


def replay(record: dict[str, Any], check_scores: bool = True) -> list[int]:
    """Replay a deal record through the rules and return its scores.

    Raises :class:`ReplayError` when the record is malformed, one of its actions is illegal,
    the actions stop before the deal ends (or go on after it), or the scores differ from the
    record's.
    """
    if not isinstance(record, dict):
        raise ReplayError(f"a record is a dict with keys env, config, deal, actions, scores; got {type(record).__name__}")
    missing = {"env", "config", "deal", "actions"} - set(record)
    if missing:
        raise ReplayError(f"the record lacks {sorted(missing)}; a record has keys env, config, deal, actions, scores")
    env = make(record["env"], **record["config"])
    env.reset(options={"deal": record["deal"]})
    raw = env.unwrapped
    for i, text in enumerate(record["actions"]):
        if raw.game_over:
            extra = len(record["actions"]) - i
            raise ReplayError(f"action #{i} {text!r}: the deal is already over; the record has {extra} actions too many")
        try:
            env.step(raw.string_to_action(text))
        except ValueError as err:
            raise ReplayError(f"action #{i} {text!r} by {env.agent_selection} is refused: {err}") from err
    if not raw.game_over:
        raise ReplayError(f"the record's {len(record['actions'])} actions stop before the end of the deal")
    scores = [int(x) for x in raw.state.scores[0]]
    if check_scores and "scores" in record and list(record["scores"]) != scores:
        raise ReplayError(f"the record says scores {record['scores']}, the rules give {scores}")
    return scores
