"""Game records (docs/interface.md §5): replaying a record through the rules."""

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
    if "deals" in record:
        return _replay_match(record, check_scores)
    missing = {"env", "config", "deal", "actions"} - set(record)
    if missing:
        raise ReplayError(f"the record lacks {sorted(missing)}; a record has keys env, config, deal, actions, scores")
    env = make(record["env"], **record["config"])
    options = {"deal": record["deal"]}
    if "start_totals" in record:  # a hand played from given running totals (Tarocchino claims)
        options["totals"] = record["start_totals"]
    env.reset(options=options)
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
    scores = [int(x) for x in raw.game_state.scores[0]]
    if check_scores and "scores" in record and list(record["scores"]) != scores:
        raise ReplayError(f"the record says scores {record['scores']}, the rules give {scores}")
    return scores


def _replay_match(record: dict[str, Any], check_scores: bool) -> list[int]:
    """A match record (a list of deal records plus the running totals): replayed hand by
    hand; returns the final running totals."""
    missing = {"env", "config", "deals"} - set(record)
    if missing:
        raise ReplayError(f"the match record lacks {sorted(missing)}; a match record has keys env, config, deals, totals")
    deals = record["deals"]
    if not isinstance(deals, list) or not deals or not all(isinstance(d, dict) and "deal" in d and "actions" in d for d in deals):
        raise ReplayError("a match record's 'deals' is a non-empty list of {'deal', 'actions', 'scores'} records")
    env = make(record["env"], **record["config"])
    options = {"deals": [d["deal"] for d in deals]}
    if "start_totals" in record:
        options["totals"] = record["start_totals"]
    try:
        env.reset(options=options)
    except (ValueError, TypeError) as err:
        raise ReplayError(f"the record's deals are refused: {err}") from err
    raw = env.unwrapped
    for k, entry in enumerate(deals):
        for i, text in enumerate(entry["actions"]):
            if raw.game_over:
                raise ReplayError(f"hand {k}, action #{i} {text!r}: the match is already over")
            try:
                env.step(raw.string_to_action(text))
            except ValueError as err:
                raise ReplayError(f"hand {k}, action #{i} {text!r} by {env.agent_selection} is refused: {err}") from err
        played = raw.hands_played()
        if len(played) <= k or (k < len(deals) - 1 and len(played) != k + 1):
            raise ReplayError(f"hand {k}: its {len(entry['actions'])} actions do not finish the hand")
        if check_scores and "scores" in entry and list(entry["scores"]) != played[k]:
            raise ReplayError(f"hand {k}: the record says scores {entry['scores']}, the rules give {played[k]}")
    if not raw.game_over:
        raise ReplayError(f"the record's {len(deals)} hands do not finish the match")
    totals = [int(x) for x in raw.totals()]
    if check_scores and "totals" in record and list(record["totals"]) != totals:
        raise ReplayError(f"the record says totals {record['totals']}, the rules give {totals}")
    return totals
