"""The browser's messages: the fields of each type (:data:`MESSAGES`) and their check (:func:`check_message`).

Every browser message is a JSON object with a ``type``; :func:`check_message` checks it against
:data:`MESSAGES` (the fields, their types and ranges, no unknown field, a size limit) before the
room sees it, and a bad one is answered ``{"type": "error", ...}`` with nothing changed. What each
type does is its handler's (:mod:`.handlers`). The protocol is documented in docs/web.md.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from tarot_env.web.people import RoomError, check_name
from tarot_env.web.seats import ROBOTS

#: the longest message a browser may send (bytes): every legal message is far shorter
MAX_MESSAGE = 4096

# field: (accepted types, required). Ranges and strings are checked in check_message.
MESSAGES: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"name": ((str,), False), "token": ((str,), False)},
    "lobby": {},
    "leaderboard": {},
    "create": {"env": ((str,), True), "players": ((int,), True)},
    "join": {"table": ((int,), True), "seat": ((int,), True), "invite": ((str,), False)},
    "watch": {"table": ((int,), True), "invite": ((str,), False)},
    "leave": {},
    "robot": {"seat": ((int,), True), "robot": ((str, type(None)), True)},
    "settings": {"changes": ((dict,), True)},
    "invite": {},  # the owner renews a private table's invitation (the old link no longer admits)
    "start": {},
    "next": {},
    "move": {"action": ((int,), True)},
    "cancel": {},
    "cancel_answer": {"accept": ((bool,), True)},
    "pong": {},
}


class MessageError(ValueError):
    """A message that is not one of the protocol's: the reason, sent back as an error."""


#: how a refusal names what a field must be
_KIND_WORDS = {int: "a whole number", str: "a string", bool: "true or false", dict: "an object", type(None): "null"}


def _given(value: Any) -> str:
    """What the browser gave, short, for the error message (JSON spelling)."""
    with contextlib.suppress(Exception):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 40 else text[:37] + "..."
    return "?"


def _fields(spec: dict[str, Any]) -> str:
    return f"the fields {', '.join(spec)}" if spec else "no field but type"


def check_message(text: str | bytes) -> dict[str, Any]:
    """The message as a dict, or :class:`MessageError` saying what was given, why it is refused and what is allowed."""
    if len(text) > MAX_MESSAGE:
        raise MessageError(f"message too long ({len(text)} bytes; at most {MAX_MESSAGE})")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise MessageError('a message is a JSON object such as {"type": "lobby"}') from None
    except RecursionError:  # [[[[...]]]]: the parser gives up, and the connection goes on
        raise MessageError('a message is a JSON object such as {"type": "lobby"}, not nested this deep') from None
    if not isinstance(data, dict):
        raise MessageError(f"a message is a JSON object with a type, got a {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise MessageError(f"unknown message type {_given(kind)}; the types are {', '.join(MESSAGES)}")
    spec = MESSAGES[kind]
    extra = set(data) - set(spec) - {"type"}
    if extra:
        raise MessageError(
            f"{kind}: unknown field(s) {', '.join(sorted(str(k)[:20] for k in extra))}; a {kind} message has {_fields(spec)}"
        )
    for key, (types, required) in spec.items():
        if key not in data:
            if required:
                raise MessageError(f"{kind}: field {key!r} is missing; a {kind} message has {_fields(spec)}")
            continue
        value = data[key]
        wanted = " or ".join(_KIND_WORDS[t] for t in types)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):  # JSON true is not a number here
            raise MessageError(f"{kind}: {key} has the wrong type: it is {wanted}, got {_given(value)}")
        if isinstance(value, int) and not isinstance(value, bool) and not -1 <= value <= 1_000_000:
            raise MessageError(f"{kind}: {key} {value} is out of range (-1 to 1000000)")
        if isinstance(value, str) and len(value) > 100:
            raise MessageError(f"{kind}: {key} is too long ({len(value)} characters; at most 100)")
    if kind == "hello" and "name" in data:  # the one check of a name (:func:`~tarot_env.web.people.check_name`)
        try:
            data["name"] = check_name(data["name"])
        except RoomError as err:
            raise MessageError(f"hello: {err}") from None
    if kind == "robot" and data["robot"] is not None and data["robot"] not in ROBOTS:
        raise MessageError(f"robot: unknown robot {data['robot'][:30]!r}; the robots are {', '.join(ROBOTS)}")
    if kind == "create" and not re.fullmatch(r"[a-z_0-9]+", data["env"]):
        raise MessageError("create: env is a game id such as french_tarot_v0")
    return data


def about(text: str | bytes) -> str | None:
    """The type of a refused message, when it has one (the page shows a refused move next to the hand)."""
    with contextlib.suppress(Exception):
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            return str(data["type"][:30])
    return None
