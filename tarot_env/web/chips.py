"""The chip pot of a game played for chips (the rules page's "fiches").

Every seat (person or robot) stakes the table's stake when the game starts; the pot is the sum.
The rules page gives two ways to share it:

* a game of several deals: the winner takes the pot and the bank keeps 25 % of it;
* a one-deal French Tarot game: if the taker wins he takes *all* the chips (no bank share);
  if the defenders win, each defender takes his stake back and the taker's stake goes to the bank.

Pure functions over plain integers, so that the room, the database and the tests agree on one
arithmetic. Chips are whole numbers: where a share does not divide evenly, the bank keeps the
remainder (the page only says the bank keeps 25 %, never less).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: the bank's share of the pot in a game of several deals (the rules page: "la banca percepisce un 25%")
BANK_PERCENT = 25


@dataclass(frozen=True)
class Payout:
    """What each seat receives back from the pot (stakes already paid in) and what the bank keeps."""

    paid: tuple[int, ...]
    bank: int

    def net(self, stakes: Sequence[int]) -> tuple[int, ...]:
        """Each seat's gain (+) or loss (-) over the game: received minus staked."""
        return tuple(p - s for p, s in zip(self.paid, stakes))


def _check(stakes: Sequence[int], seats: Sequence[int]) -> None:
    if any(s < 0 for s in stakes):
        raise ValueError(f"stakes are whole numbers of chips >= 0, got {list(stakes)}")
    if not seats:
        raise ValueError("a pot needs at least one winner")
    if any(not 0 <= p < len(stakes) for p in seats):
        raise ValueError(f"winners {list(seats)} are not seats 0..{len(stakes) - 1}")


def split_pot(stakes: Sequence[int], winners: Sequence[int]) -> Payout:
    """The general rule: the winners share 75 % of the pot evenly; the bank keeps the rest.

    >>> split_pot([10, 10, 10, 10], [2])
    Payout(paid=(0, 0, 30, 0), bank=10)
    >>> split_pot([10, 10, 10], [0, 1])      # 22 of 30 shared: 11 each, the bank keeps 8
    Payout(paid=(11, 11, 0), bank=8)
    """
    _check(stakes, winners)
    pot = sum(stakes)
    share = (pot * (100 - BANK_PERCENT) // 100) // len(set(winners))
    paid = tuple(share if p in set(winners) else 0 for p in range(len(stakes)))
    return Payout(paid, pot - sum(paid))


def one_deal_pot(stakes: Sequence[int], attack: Sequence[int], attack_won: bool) -> Payout:
    """The one-deal French Tarot rule. ``attack``: the taker (and his called partner at five).

    The taker's side wins: it takes all the chips (shared evenly between taker and partner; the bank
    keeps a remainder of one chip, if any). The defenders win: each takes his own stake back and the
    attack's stakes go to the bank.

    >>> one_deal_pot([10, 10, 10, 10], [1], attack_won=True)
    Payout(paid=(0, 40, 0, 0), bank=0)
    >>> one_deal_pot([10, 10, 10, 10], [1], attack_won=False)
    Payout(paid=(10, 0, 10, 10), bank=10)
    """
    _check(stakes, attack)
    side = set(attack)
    pot = sum(stakes)
    if attack_won:
        share = pot // len(side)
        paid = tuple(share if p in side else 0 for p in range(len(stakes)))
    else:
        paid = tuple(0 if p in side else s for p, s in enumerate(stakes))
    return Payout(paid, pot - sum(paid))


def refund(stakes: Sequence[int], forfeited: Sequence[int] = ()) -> Payout:
    """An annulled game (amicable cancellation): every stake goes back, except the stake of a
    player penalised for abandoning (his reconnection window ran out), which the bank keeps.

    >>> refund([10, 10, 10], forfeited=[2])
    Payout(paid=(10, 10, 0), bank=10)
    """
    return forfeit(Payout(tuple(stakes), 0), forfeited)


def forfeit(payout: Payout, seats: Sequence[int]) -> Payout:
    """The penalty for abandoning (the reconnection window ran out): what ``seats`` would receive from
    the pot goes to the bank instead, even when the robot that finished the game for them won it.

    >>> forfeit(Payout((0, 30, 0, 0), 10), [1])
    Payout(paid=(0, 0, 0, 0), bank=40)
    """
    lost = set(seats)
    paid = tuple(0 if p in lost else x for p, x in enumerate(payout.paid))
    return Payout(paid, payout.bank + sum(payout.paid) - sum(paid))


def cap_gains(payout: Payout, stakes: Sequence[int], shares: Sequence[tuple[int, int]]) -> Payout:
    """Deals the clock played for a person earn him nothing: a seat's gain (what it receives beyond its
    stake) is kept only in proportion ``shares[p] = (deals he played himself, deals of the game)``; the
    rest goes to the bank. A loss is never reduced (idling must not pay), and a whole share changes nothing.

    >>> cap_gains(Payout((0, 60, 0), 30), [30, 30, 30], [(1, 1), (0, 2), (1, 1)])
    Payout(paid=(0, 30, 0), bank=60)
    >>> cap_gains(Payout((0, 60, 0), 30), [30, 30, 30], [(1, 1), (1, 2), (1, 1)])
    Payout(paid=(0, 45, 0), bank=45)
    """
    paid = []
    for p, (x, s) in enumerate(zip(payout.paid, stakes)):
        own, of = shares[p]
        gain = x - s
        paid.append(s + gain * own // of if gain > 0 else x)
    return Payout(tuple(paid), payout.bank + sum(payout.paid) - sum(paid))
