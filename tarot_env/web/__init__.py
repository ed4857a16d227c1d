"""The online table of the French rules page: ``tarot serve``.

People play in the browser against robots (the project's agents) and each other, with the
room's rules from the rules page: robots that take the seat of a player who drops out, a time per
turn, table settings chosen by the table's owner, amicable cancellation, chips and a points
leaderboard (docs/web.md).

* :mod:`.room`: tables, seats, settings, the game driven through the AEC envs, timers.
* :mod:`.views`: what each seat or spectator may see, as JSON-able dicts.
* :mod:`.chips`, :mod:`.leaderboard`: the pot and the XP, pure functions.
* :mod:`.db`: users, tables, games, records and the leaderboard in SQLite (SQLAlchemy Core).
* :mod:`.app`: the Starlette app, its WebSocket protocol and the message checks.
"""
