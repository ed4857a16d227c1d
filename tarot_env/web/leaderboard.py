"""Experience points (XP) of the points leaderboard, as the rules page counts them.

* Only official games count: a practice game, a game without a second person playing it (practice
  too: :data:`SOLO_REASON`), a cancelled game, and a game where two people at the table share an address
  give nobody anything. The second person is one who plays: present at the game's start, and at its end
  not gone (abandoned) and with at least one of its deals played himself (game_end.players). A person
  seated but away, or whose every deal the clock or the robot played, is not one: otherwise two people
  from two addresses, one of whom left at the start, would make an official game.
* The deals the clock (a time-out) or the robot (while he was away) played for a person earn him
  nothing: his XP is scaled by the deals he played himself over the game's deals (game_end.own_shares).
* The winner gets 10 XP per player at the table (3 players: 30, 4 players: 40; robots are players
  at the table, they fill a seat), each loser 5.
* The winner gets 10 XP more per deal beyond the first in the table's settings (a 3-deal game: +20).
  The page says "you win 10 extra XP", so the bonus goes to the winners only.

Robots take no XP: :func:`game_xp` gives XP per seat; the room credits only the seats of people.
"""

from __future__ import annotations

from collections.abc import Sequence

XP_PER_PLAYER = 10
#: why a game without a second person playing it counts for nothing (stored with the game: at most 80 characters)
SOLO_REASON = "practice: no second person played it"
#: the same, in the words the room says at the start and to a cancellation proposed alone
SOLO_WORDS = "alone with robots it is practice: it counts for nothing; a person away or gone is not there"
XP_LOSER = 5
XP_PER_EXTRA_DEAL = 10


def counts_for_leaderboard(practice: bool, cancelled: bool, addresses: Sequence[str | None], solo: bool = False) -> tuple[bool, str]:
    """Whether a finished game gives XP, and why not. ``addresses``: the network addresses of the
    people seated (robots excluded); two equal ones void the game's points. ``solo``: fewer than two people
    played the game (a person alone with robots plays for practice: the robots are not opponents anyone
    could lose to, and their stakes are the bank's)."""
    if practice:
        return False, "practice game"
    if cancelled:
        return False, "game cancelled"
    if solo:
        return False, SOLO_REASON
    known = [a for a in addresses if a]
    if len(known) != len(set(known)):
        return False, "two people at the table share an address"
    return True, "official game"


def game_xp(num_players: int, deals_per_game: int, winners: Sequence[int]) -> list[int]:
    """XP of each seat for an official game.

    >>> game_xp(4, 1, [2])
    [5, 5, 40, 5]
    >>> game_xp(3, 3, [0])          # 30 for the win, +20 for the two extra deals
    [50, 5, 5]
    """
    if num_players < 2:
        raise ValueError(f"a game has at least 2 players, got {num_players}")
    if deals_per_game < 1:
        raise ValueError(f"a game has at least one deal, got {deals_per_game}")
    win = XP_PER_PLAYER * num_players + XP_PER_EXTRA_DEAL * (deals_per_game - 1)
    return [win if p in set(winners) else XP_LOSER for p in range(num_players)]
