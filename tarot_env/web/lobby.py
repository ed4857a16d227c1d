"""The lobby as the people looking at it see it: the whole list once, when a person comes to it, then
only what changed.

Sending the whole list to everyone at every change would cost each person in the lobby about 1 KB a
table at each change (10 tables: 9.6 KB to every person). So a page gets it once (:meth:`Lobby.message`),
and then, at most every ``lobby_every`` seconds (changes coalesced: :meth:`Lobby.run`), a ``lobby_update``
with the tables added or changed, whole, and the ids of those gone (:meth:`Lobby.push`). A change is
sent as the table now is, so a page that got the whole list after the last push and then the change
applies the same table twice, to the same effect; a removal of a table it never had changes nothing. A
private table is sent only to the people seated at it, and its removal only to those who could see it
at the last push (nobody else learns that it exists).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tarot_env.web.connections import Client, Connections
from tarot_env.web.room import Room

log = logging.getLogger("tarot_env.web")


@dataclass(frozen=True)
class _LobbyEntry:
    """A table as the lobby was last pushed: its summary's JSON, whether it is private, and the ids of the
    people seated (a private table is in their lobby only)."""

    text: str
    private: bool
    seated: frozenset[int]

    def seen_by(self, uid: int | None) -> bool:
        return not self.private or (uid is not None and uid in self.seated)


class Lobby:
    """The lobby of ``room`` for the ``connections`` looking at it (a person said hello, at no table)."""

    def __init__(self, room: Room, connections: Connections) -> None:
        self.room = room
        self.connections = connections
        self.dirty = False  # a table changed since the last push
        # the lobby as last pushed, table id -> its entry (its summary's JSON, private, the people seated)
        self.pushed: dict[int, _LobbyEntry] = {}

    def message(self, client: Client) -> dict[str, Any]:
        """The whole lobby for ``client``: the public tables and the private ones he sits at."""
        return {"type": "lobby", "tables": self.room.lobby(client.user)}

    def send(self, client: Client) -> None:
        """The whole lobby, to a person who comes to it (his hello, his asking, his leaving a table); the
        changes after it come in ``lobby_update`` messages (:meth:`push`)."""
        self.connections.post(client, self.message(client))

    def push(self) -> None:
        """The lobby's changes since the last push, to the connections looking at it (not at a table): one
        ``lobby_update`` with the tables added or changed (whole: a table's summary) and the ids of those gone."""
        now = {t.id: _LobbyEntry(json.dumps(t.summary()), t.settings.private, t.seats.seated_ids()) for t in self.room.tables.values()}
        before, self.pushed = self.pushed, now
        changed = [i for i, entry in now.items() if i not in before or before[i].text != entry.text]
        touched = [*changed, *(i for i in before if i not in now)]
        if not touched:
            return
        # the people seated at a private table that changed or went: their lobby differs from the others'
        private = {uid for i in touched for e in (now.get(i), before.get(i)) if e is not None and e.private for uid in e.seated}
        shared: str | None = None
        for c in list(self.connections.clients):
            if c.user is None or c.table is not None or c.dropped:
                continue
            if c.user.id in private:
                text = _update(c.user.id, touched, now, before)
            else:
                if shared is None:
                    shared = _update(None, touched, now, before)
                text = shared
            if text:
                self.connections.post_text(c, text)

    async def run(self, lock: asyncio.Lock, every: Callable[[], float]) -> None:
        """Lobby changes, coalesced: at most one push every ``every()`` seconds, under the room's ``lock``."""
        while True:
            await asyncio.sleep(every())
            if self.dirty:
                self.dirty = False
                try:
                    async with lock:
                        self.push()
                except Exception:
                    log.exception("tarot serve: the lobby push failed; it goes on")


def _update(uid: int | None, touched: list[int], now: dict[int, _LobbyEntry], before: dict[int, _LobbyEntry]) -> str:
    """The ``lobby_update`` for the person ``uid`` (None: anyone seated at no private table among those
    ``touched``): the tables he sees that changed, and the ones he saw that he no longer sees (gone, or
    made private); "" when there is nothing for him. The tables' JSON is made once per push, and shared."""
    tables = [i for i in touched if i in now and now[i].seen_by(uid)]
    removed = [i for i in touched if i not in tables and i in before and before[i].seen_by(uid)]
    if not tables and not removed:
        return ""
    return '{"type": "lobby_update", "tables": [' + ", ".join(now[i].text for i in tables) + '], "removed": ' + json.dumps(removed) + "}"
