"""The online table of the French rules page: ``tarot serve``.

People play in the browser against robots (the project's agents) and each other, with the
room's rules from the rules page: robots that take the seat of a player who drops out, a time per
turn, table settings chosen by the table's owner, amicable cancellation, chips and a points
leaderboard (docs/web.md).

* :mod:`.room`: the room and its tables. A table is made of parts that own their state:
  :mod:`.seats` (seats, robots seated, disconnection and reconnection), :mod:`.settings` (the settings
  and the invitation), :mod:`.dealing` (the game deal by deal through the AEC envs), :mod:`.robots` (the
  robots' agents, a move thought apart from the table), :mod:`.votes` (amicable cancellation);
  :mod:`.game_end` settles a game; :mod:`.people` (users, seats, the room's refusal).
* :mod:`.views`: what each seat or spectator may see, as JSON-able dicts.
* :mod:`.chips`, :mod:`.leaderboard`: the pot and the XP, pure functions.
* :mod:`.db`: users, tables, games, records and the leaderboard in SQLite (SQLAlchemy Core).
* :mod:`.app`: the Starlette app and its :class:`~.app.Server`, composed of :mod:`.connections`
  (admission, rate limits, heartbeat, sending and dropping), :mod:`.handlers` (one function a message
  type; :mod:`.messages` checks them), :mod:`.workers` (the threads beside the event loop, the
  database's among them) and :mod:`.lobby`.
* :mod:`.challenge_web`: the duplicate challenge's endpoints and results.
"""
