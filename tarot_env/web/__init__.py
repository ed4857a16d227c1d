"""The online table of the French rules page: ``tarot serve``.

People play in the browser against robots (the project's agents) and each other, with the
room's rules from the rules page: robots that take the seat of a player who drops out, a time per
turn, table settings chosen by the table's owner, amicable cancellation, chips and a points
leaderboard (docs/web.md).

* :mod:`.room`: the room and its tables (their state, clock and views), composed of one part per
  concern: :mod:`.seats` (seats, robots seated, disconnection and reconnection), :mod:`.settings`,
  :mod:`.dealing` (the game deal by deal through the AEC envs), :mod:`.robots` (a robot's move thought
  apart from the table), :mod:`.votes` (amicable cancellation), :mod:`.game_end`; :mod:`.people`
  (users, seats, the room's refusal).
* :mod:`.views`: what each seat or spectator may see, as JSON-able dicts.
* :mod:`.chips`, :mod:`.leaderboard`: the pot and the XP, pure functions.
* :mod:`.db`: users, tables, games, records and the leaderboard in SQLite (SQLAlchemy Core).
* :mod:`.app`: the Starlette app, its WebSocket protocol and the message checks.
* :mod:`.challenge_web`: the duplicate challenge's endpoints and results.
"""
