"""The end of a game: who won, the chips paid (:mod:`.chips`) and the XP earned (:mod:`.leaderboard`), or
the game annulled. :class:`TableGameEnd` is that part of a :class:`~tarot_env.web.room.Table` (state
there: ``deal_results``, ``stakes``, ``own_deals``, ``solo``, ``game_result``). Whether a game counts is
said here only: at its end (:meth:`TableGameEnd._end_game`, from :meth:`TableGameEnd.players`) and, while
it is played, as far as it is already known (:meth:`TableGameEnd.practice_now`: the page and the
cancellation's refusal say it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tarot_env.rules.french import teams
from tarot_env.tables import facts
from tarot_env.web import chips as chip_rules
from tarot_env.web import leaderboard


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


class TableGameEnd:
    """The end of a table's game."""

    def winners(self) -> list[int]:
        """Who won the game: the side that won a one-deal French game; else the best total.

        Mattazza scores count points against: there, the players with the fewest lost hands win.
        """
        if facts(self.env_id).penalty_scoring:  # Mattazza, docs/rules/tarocchino.md §14.6
            lost = [0] * self.num_players
            for info in self.deal_results:
                for p in info.get("losers", []):
                    lost[p] += 1
            best = min(lost)
            return [p for p in range(self.num_players) if lost[p] == best]
        one_deal = self._one_deal()
        if one_deal is not None:
            attack, made = one_deal
            return attack if made else [p for p in range(self.num_players) if p not in attack]
        best = max(self.totals)
        return [p for p in range(self.num_players) if self.totals[p] == best]

    def _one_deal(self) -> tuple[list[int], bool] | None:
        """A one-deal French game's attack (:func:`tarot_env.rules.french.teams.is_attack`) and
        whether it made its contract: the page's special rule decides such a game; None otherwise."""
        if not (facts(self.env_id).french and len(self.deal_results) == 1):
            return None
        info = self.deal_results[0]
        taker, partner = info["taker"], info.get("partner", -1)
        return [p for p in range(self.num_players) if teams.is_attack(p, taker, partner)], bool(info.get("made"))

    def players(self) -> list[int]:
        """The people who played this game, as its end counts them: not gone (abandoned), and with at least
        one of its deals played himself (:attr:`own_deals`, the measure his XP is scaled by). A person away
        the whole game, or whose every deal the clock played, is seated but did not play: he is not the
        second person that makes a game official (issue 41)."""
        return [p for p in self.people() if not self.seats[p].abandoned and self.own_deals[p] > 0]

    def practice_now(self) -> str | None:
        """Why the game in progress counts for nothing whatever happens next (None: it may still count), or
        before a game why one started now would: the page shows it, and the room says nothing else. Only what
        cannot change is said: the practice setting, a game started with fewer than two people present, or
        fewer than two people left in it (an abandoner never comes back). Its end decides the rest
        (:meth:`players`)."""
        if self.settings.practice:
            return "practice game"
        if self.state in ("playing", "between"):
            return leaderboard.SOLO_REASON if self.solo or len(self.voters()) < 2 else None
        return leaderboard.SOLO_REASON if len(self.present()) < 2 else None

    def _end_game(self, cancelled: bool) -> None:
        st = self.settings
        addresses = [self.seats[p].address for p in self.people()]
        solo = self.solo or len(self.players()) < 2  # the game as it was played: a person absent is not the second
        official, reason = leaderboard.counts_for_leaderboard(st.practice, cancelled, addresses, solo=solo)
        winners = [] if cancelled else self.winners()
        paying = any(self.stakes)
        forfeited = [p for p, s in enumerate(self.seats) if s.abandoned]
        if not paying or cancelled or not official:  # no stakes, annulled, or voided by a shared address: stakes back
            payout = chip_rules.refund(self.stakes)
        elif (one_deal := self._one_deal()) is not None:
            payout = chip_rules.one_deal_pot(self.stakes, *one_deal)
        else:
            payout = chip_rules.split_pot(self.stakes, winners)
        payout = chip_rules.forfeit(payout, forfeited)  # an abandoner's share is lost, even if his robot won
        own = self._own_shares()
        payout = chip_rules.cap_gains(payout, self.stakes, own)  # what the clock won for a person goes to the bank
        for p, s in enumerate(self.seats):
            if s.user is not None:
                s.user.chips += payout.paid[p]
        xp = leaderboard.game_xp(self.num_players, st.deals, winners) if official else [0] * self.num_players
        xp = [x if self.seats[p].person and not self.seats[p].abandoned else 0 for p, x in enumerate(xp)]
        xp = [x * own[p][0] // own[p][1] for p, x in enumerate(xp)]  # only the deals he played himself earn
        for p, s in enumerate(self.seats):
            if s.user is not None:
                s.user.xp += xp[p]
        self.game_result = GameResult(
            totals=list(self.totals),
            winners=winners,
            official=official,
            reason=reason,
            cancelled=cancelled,
            chips_paid=list(payout.paid),
            chips_net=list(payout.net(self.stakes)),
            bank=payout.bank,
            xp=xp,
        )
        self.state = "over"
        self.env = None if cancelled else self.env
        self.cancel_votes = None
        self.next_deal_at = None
        if cancelled:
            self.log(f"game {self.game_no} annulled by agreement: no points, no XP, stakes returned")
        else:
            names = ", ".join(self.name_of(p) for p in winners)
            self.log(f"game {self.game_no} over: won by {names}" + ("" if official else f" ({reason}: no XP)"))
        if self.on_game_end is not None:
            self.on_game_end(self, self.game_result)

    def _own_shares(self) -> list[tuple[int, int]]:
        """Each seat's share of the game that counts for it, as (numerator, denominator): a person's
        deals played himself over the game's deals (the deals the clock played for him earn nothing);
        a robot's seat is whole (what it wins goes back to the bank anyway)."""
        deals = max(self.deal_no, 1)
        return [(self.own_deals[p], deals) if s.person else (1, 1) for p, s in enumerate(self.seats)]
