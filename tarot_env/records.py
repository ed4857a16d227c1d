"""Game records (docs/interface.md §5): replaying a record through the rules."""

from __future__ import annotations

from typing import Any

from tarot_env.registry import make

#: what a malformed record can make the env raise while it is checked (turned into ReplayError)
_INPUT_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, RuntimeError)


class ReplayError(ValueError):
    """A record that the rules do not reproduce, or that is not a record (malformed)."""


def replay(record: dict[str, Any], check_scores: bool = True) -> list[int]:
    """Replay a deal record through the rules and return its scores.

    Raises :class:`ReplayError` (and nothing else) when the record is malformed (not a
    dict, a key missing, an unknown env, a config or deal the env refuses, actions that are
    not a list of action strings), one of its actions is illegal, the actions stop before
    the deal ends (or go on after it), or the scores differ from the record's.
    """
    if not isinstance(record, dict):
        raise ReplayError(f"a record is a dict with keys env, config, deal, actions, scores; got {type(record).__name__}")
    if "deals" in record:
        return _replay_match(record, check_scores)
    missing = {"env", "config", "deal", "actions"} - set(record)
    if missing:
        raise ReplayError(f"the record lacks {sorted(missing)}; a record has keys env, config, deal, actions, scores")
    actions = _action_list(record["actions"], "the record's 'actions'")
    if not isinstance(record["deal"], dict):
        raise ReplayError(f"the record's deal is refused: a deal is a dict with dealer, hands and the rest, got {record['deal']!r:.100}")
    env = _make(record)
    options = {"deal": record["deal"]}
    if "start_totals" in record:  # a hand played from given running totals (Tarocchino claims)
        options["totals"] = record["start_totals"]
    try:
        env.reset(options=options)
    except _INPUT_ERRORS as err:
        raise ReplayError(f"the record's deal is refused: {err}") from err
    raw = env.unwrapped
    for i, text in enumerate(actions):
        if raw.game_over:
            extra = len(actions) - i
            raise ReplayError(f"action #{i} {text!r}: the deal is already over; the record has {extra} actions too many")
        _step(env, text, f"action #{i} {text!r}")
    if not raw.game_over:
        raise ReplayError(f"the record's {len(actions)} actions stop before the end of the deal")
    scores = [int(x) for x in raw.game_state.scores[0]]
    if check_scores and "scores" in record and not _same(record["scores"], scores):
        raise ReplayError(f"the record says scores {record['scores']!r:.200}, the rules give {scores}")
    return scores


def _make(record: dict[str, Any]) -> Any:
    """The env the record names, made with its config, or a ReplayError saying why not."""
    env_id, config = record["env"], record["config"]
    if not isinstance(env_id, str):
        raise ReplayError(f"the record's 'env' must be an env id string such as 'french_tarot_v0', got {env_id!r:.100}")
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise ReplayError(f"the record's 'config' must be a dict of options (name: value), got {config!r:.100}")
    try:
        return make(env_id, **config)
    except _INPUT_ERRORS as err:
        raise ReplayError(f"the record's env {env_id!r:.60} with config {config!r:.200} is refused: {err}") from err


def _action_list(actions: Any, what: str) -> list[str]:
    """``actions`` checked to be a list of action strings (docs/interface.md §5: records write actions as strings)."""
    if not isinstance(actions, (list, tuple)):
        raise ReplayError(f"{what} must be a list of action strings such as 'play 21', got {type(actions).__name__}: {actions!r:.100}")
    for i, a in enumerate(actions):
        if not isinstance(a, str):
            raise ReplayError(f"{what}: action #{i} is {a!r:.60} ({type(a).__name__}); records write actions as strings such as 'play 21'")
    return list(actions)


def _step(env: Any, text: str, where: str) -> None:
    """One recorded action, or a ReplayError naming it."""
    raw = env.unwrapped
    try:
        env.step(raw.string_to_action(text))
    except _INPUT_ERRORS as err:
        raise ReplayError(f"{where} by {env.agent_selection} is refused: {err}") from err


def _is_entry(entry: Any) -> bool:
    """Whether ``entry`` looks like one hand of a match record: a dict with a deal (a dict) and actions."""
    return isinstance(entry, dict) and isinstance(entry.get("deal"), dict) and "actions" in entry


def _same(recorded: Any, scores: list[int]) -> bool:
    """Whether the record's scores are ``scores`` (a malformed value is simply not the same)."""
    try:
        return list(recorded) == scores
    except TypeError:
        return False


def _replay_match(record: dict[str, Any], check_scores: bool) -> list[int]:
    """A match record (a list of deal records plus the running totals): replayed hand by
    hand; returns the final running totals."""
    missing = {"env", "config", "deals"} - set(record)
    if missing:
        raise ReplayError(f"the match record lacks {sorted(missing)}; a match record has keys env, config, deals, totals")
    deals = record["deals"]
    if not isinstance(deals, list) or not deals or not all(_is_entry(d) for d in deals):
        raise ReplayError("a match record's 'deals' is a non-empty list of {'deal', 'actions', 'scores'} records")
    hands = [_action_list(entry["actions"], f"hand {k}'s 'actions'") for k, entry in enumerate(deals)]
    env = _make(record)
    if not hasattr(env.unwrapped, "hands_played"):
        raise ReplayError(f"{record['env']!r} plays one deal per episode: its records have 'deal', not 'deals'")
    options = {"deals": [d["deal"] for d in deals]}
    if "start_totals" in record:
        options["totals"] = record["start_totals"]
    try:
        env.reset(options=options)
    except _INPUT_ERRORS as err:
        raise ReplayError(f"the record's deals are refused: {err}") from err
    raw = env.unwrapped
    for k, (entry, actions) in enumerate(zip(deals, hands)):
        for i, text in enumerate(actions):
            if raw.game_over:
                raise ReplayError(f"hand {k}, action #{i} {text!r}: the match is already over")
            _step(env, text, f"hand {k}, action #{i} {text!r}")
        played = raw.hands_played()
        if len(played) <= k or (k < len(deals) - 1 and len(played) != k + 1):
            raise ReplayError(f"hand {k}: its {len(actions)} actions do not finish the hand")
        if check_scores and "scores" in entry and not _same(entry["scores"], played[k]):
            raise ReplayError(f"hand {k}: the record says scores {entry['scores']!r:.200}, the rules give {played[k]}")
    if not raw.game_over:
        raise ReplayError(f"the record's {len(deals)} hands do not finish the match")
    totals = [int(x) for x in raw.totals()]
    if check_scores and "totals" in record and not _same(record["totals"], totals):
        raise ReplayError(f"the record says totals {record['totals']!r:.200}, the rules give {totals}")
    return totals
