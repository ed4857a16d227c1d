"""The end of a game: who won, the chips paid (:mod:`.chips`) and the XP earned (:mod:`.leaderboard`), or
the game annulled. Whether a game counts is said here only: at its end (:func:`settle`, from
:func:`players`) and, while it is played, as far as it is already known (:func:`practice_now`: the page
and the cancellation's refusal say it).

Functions over what they are given: the game as it was played (:class:`PlayedGame`, which the table's
:class:`~tarot_env.web.dealing.Game` is), its seats and its settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from tarot_env.env_facts import facts
from tarot_env.rules.french import teams
from tarot_env.web import chips as chip_rules
from tarot_env.web import leaderboard
from tarot_env.web.seats import Seats
from tarot_env.web.settings import Settings


@dataclass
class GameResult:
    """The end of a game, as saved and shown: totals, winners, chips and XP, or why it counts for nothing."""

    totals: list[float]
    winners: list[int]
    official: bool
    reason: str
    cancelled: bool = False
    chips_paid: list[int] = field(default_factory=list)
    chips_net: list[int] = field(default_factory=list)
    bank: int = 0
    xp: list[int] = field(default_factory=list)


class PlayedGame(Protocol):
    """What the end of a game reads of it."""

    @property
    def env_id(self) -> str: ...
    @property
    def num_players(self) -> int: ...
    @property
    def deal_results(self) -> list[dict[str, Any]]: ...  # the info of each deal that counted
    @property
    def totals(self) -> list[float]: ...
    @property
    def stakes(self) -> list[int]: ...
    @property
    def deal_no(self) -> int: ...  # the deals that counted
    @property
    def own_deals(self) -> list[int]: ...  # each person's deals played himself
    @property
    def solo(self) -> bool: ...  # started with fewer than two people present


def winners(game: PlayedGame) -> list[int]:
    """Who won the game: the side that won a one-deal French game; else the best total.

    Mattazza scores count points against: there, the players with the fewest lost hands win.
    """
    n = game.num_players
    if facts(game.env_id).penalty_scoring:  # Mattazza, docs/rules/tarocchino.md §14.6
        lost = [0] * n
        for info in game.deal_results:
            for p in info.get("losers", []):
                lost[p] += 1
        best = min(lost)
        return [p for p in range(n) if lost[p] == best]
    one = one_deal(game)
    if one is not None:
        attack, made = one
        return attack if made else [p for p in range(n) if p not in attack]
    top = max(game.totals)
    return [p for p in range(n) if game.totals[p] == top]


def one_deal(game: PlayedGame) -> tuple[list[int], bool] | None:
    """A one-deal French game's attack (:func:`tarot_env.rules.french.teams.is_attack`) and
    whether it made its contract: the page's special rule decides such a game; None otherwise."""
    if not (facts(game.env_id).french and len(game.deal_results) == 1):
        return None
    info = game.deal_results[0]
    taker, partner = info["taker"], info.get("partner", -1)
    return [p for p in range(game.num_players) if teams.is_attack(p, taker, partner)], bool(info.get("made"))


def players(game: PlayedGame, seats: Seats) -> list[int]:
    """The people who played this game, as its end counts them: not gone (abandoned), and with at least
    one of its deals played himself (``own_deals``, the measure his XP is scaled by). A person away
    the whole game, or whose every deal the clock played, is seated but did not play: he is not the
    second person that makes a game official."""
    return [p for p in seats.people() if not seats[p].abandoned and game.own_deals[p] > 0]


def practice_now(settings: Settings, in_game: bool, solo: bool, seats: Seats) -> str | None:
    """Why the game in progress (``in_game``) counts for nothing whatever happens next (None: it may still
    count), or before a game why one started now would: the page shows it, and the room says nothing else.
    Only what cannot change is said: the practice setting, a game started with fewer than two people
    present (``solo``), or fewer than two people left in it (an abandoner never comes back). Its end decides
    the rest (:func:`players`)."""
    if settings.practice:
        return "practice game"
    if in_game:
        return leaderboard.SOLO_REASON if solo or len(seats.voters()) < 2 else None
    return leaderboard.SOLO_REASON if len(seats.present()) < 2 else None


def settle(game: PlayedGame, seats: Seats, settings: Settings, cancelled: bool) -> GameResult:
    """The game's end: the winners, the pot paid out and the XP earned, credited to the people seated; or,
    ``cancelled``, the stakes given back."""
    addresses = [seats[p].address for p in seats.people()]
    solo = game.solo or len(players(game, seats)) < 2  # the game as it was played: a person absent is not the second
    official, reason = leaderboard.counts_for_leaderboard(settings.practice, cancelled, addresses, solo=solo)
    won = [] if cancelled else winners(game)
    stakes = game.stakes
    forfeited = [p for p, s in enumerate(seats) if s.abandoned]
    if not any(stakes) or cancelled or not official:  # no stakes, annulled, or voided by a shared address: stakes back
        payout = chip_rules.refund(stakes)
    elif (one := one_deal(game)) is not None:
        payout = chip_rules.one_deal_pot(stakes, *one)
    else:
        payout = chip_rules.split_pot(stakes, won)
    payout = chip_rules.forfeit(payout, forfeited)  # an abandoner's share is lost, even if his robot won
    own = own_shares(game, seats)
    payout = chip_rules.cap_gains(payout, stakes, own)  # what the clock won for a person goes to the bank
    for p, s in enumerate(seats):
        if s.user is not None:
            s.user.chips += payout.paid[p]
    n = game.num_players
    xp = leaderboard.game_xp(n, settings.deals, won) if official else [0] * n
    xp = [x if seats[p].person and not seats[p].abandoned else 0 for p, x in enumerate(xp)]
    xp = [x * own[p][0] // own[p][1] for p, x in enumerate(xp)]  # only the deals he played himself earn
    for p, s in enumerate(seats):
        if s.user is not None:
            s.user.xp += xp[p]
    return GameResult(
        totals=list(game.totals),
        winners=won,
        official=official,
        reason=reason,
        cancelled=cancelled,
        chips_paid=list(payout.paid),
        chips_net=list(payout.net(stakes)),
        bank=payout.bank,
        xp=xp,
    )


def own_shares(game: PlayedGame, seats: Seats) -> list[tuple[int, int]]:
    """Each seat's share of the game that counts for it, as (numerator, denominator): a person's
    deals played himself over the game's deals (the deals the clock played for him earn nothing);
    a robot's seat is whole (what it wins goes back to the bank anyway)."""
    deals = max(game.deal_no, 1)
    return [(game.own_deals[p], deals) if s.person else (1, 1) for p, s in enumerate(seats)]
