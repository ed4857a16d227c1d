"""The one interface of a game over array state, which both families implement.

French Tarot (:class:`.french.game.FrenchTarotGame`) and the Tarocchino games
(:class:`.bolognese.game.TarocchinoGame`) are each a set of pure-ish functions over a batch of
deals held in a few NumPy blocks, as pgx writes its games (``init``, ``step``, ``observe``,
``legal_action_mask``, ``is_terminal``, ``rewards``). :class:`Game` states that interface once,
in the games' words, so that everything above the rules (the AEC and vector envs, the belief
sampler, the search's play-outs) is written once for both families:

=========================  ===============================  =====================================
pgx                        here                             what it does
=========================  ===============================  =====================================
``init``                   ``new_state`` + ``shuffle_and_   empty rows, then random deals
                           deal`` (or ``parse_deal`` +      (or fixed ones, docs/interface.md §4)
                           ``start_deals``)
``legal_action_mask``      ``legal_action_mask`` (and the   the legal actions of the player to act
                           state's ``legal`` block)
``step``                   ``step``                         one action in each of ``rows``;
                                                            returns the hands that ended
``is_terminal``            ``is_terminal``                  the episode of each row is over
``rewards``                :class:`HandEnds` (``scores``)   each seat's score of each hand ended
``observe``                the encoders (layer 3,           what a seat sees: not a rule
                           ``tarot_env.encoding``)
=========================  ===============================  =====================================

The same for both families:

- **Arguments** in one order: the state, the actions, the rows (``step(state, actions, rows)``).
- **Legality**: ``step`` checks every action against the legal mask (``check=True``) and raises
  :class:`~tarot_env.errors.IllegalActionError` before anything changes; a caller that has
  checked already (the envs do, to word their own errors) passes ``check=False``.
- **The end of a hand** is a :class:`HandEnds`, from ``step`` and from the deal (a hand can end
  before any decision only in a Tarocchino match's first step; French Tarot's annulled deals
  end as they are dealt and are reported by ``is_terminal``).
- **One phase type**: each family's ``Phase`` is a :class:`Codes` class with ``PLAY`` and
  ``DONE`` (the episode is over), ``Phase.name(code)`` for messages; ``game.Phase`` is it.
- **Blocks**: the state's data are a few arrays, ``state.blocks``, a dict from block name to
  array in the order the compiled kernels take them; every field is a view into one. A copy,
  a pickle or a gather of rows (:func:`take_rows`) is a copy of the blocks.

What differs stays with its family and says so: a French deal is one hand (``rng`` and
``deals`` of ``step`` are not read), a Tarocchino match deals its next hand inside ``step``
(from ``deals``, :class:`.bolognese.game.MatchDeals`, or shuffled with ``rng``).
``tests/test_game_protocol.py`` drives every env id through this interface alone and compares
the scores of every hand with the envs' golden records.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np


class Codes:
    """Named integer codes, plain ints (an Enum lookup costs microseconds in the hot path):
    ``Phase.PLAY``, ``Phase.name(code)`` for messages and infos, ``Phase.count()``."""

    @classmethod
    def name(cls, code: int) -> str:
        names = cls.__dict__.get("_names")
        if names is None:
            names = {value: key.lower() for key, value in vars(cls).items() if key.isupper()}
            cls._names = names
        if code not in names:
            raise ValueError(f"{code} is not a {cls.__name__} code")
        return names[code]

    @classmethod
    def count(cls) -> int:
        return sum(1 for key in vars(cls) if key.isupper())


class HandEnd:
    """A hand that ended at a step: its row, how it ended (``result``: the family's ``Result``
    name), each seat's score, whether the episode (the match) is over, the side of each seat and
    whether each played it (``sides``, ``active``: (N,) arrays), and the details an env reports
    (``info``).

    ``info["points"]`` of a Tarocchino hand, the hand's score part by part
    (:class:`.bolognese.hand_end.HandPoints`), is built when ``info`` is first read: a vector step
    at 4,096 tables ends about 64 hands, and building every one's parts as Python numbers, read or
    not, would weigh on every step, most of it in the garbage collector."""

    __slots__ = ("_info", "_points", "active", "match_over", "result", "row", "scores", "sides")

    def __init__(
        self,
        row: int,
        result: str,
        scores: list[int],
        info: dict[str, Any] | None = None,
        match_over: bool = False,
        sides: np.ndarray | None = None,
        active: np.ndarray | None = None,
        points: Any = None,
    ) -> None:
        self.row, self.result, self.scores, self.match_over = row, result, scores, match_over
        self.sides = np.zeros(0, dtype=np.int64) if sides is None else sides
        self.active = np.zeros(0, dtype=bool) if active is None else active
        self._info = {} if info is None else info
        self._points = points

    @property
    def info(self) -> dict[str, Any]:
        """The details: Tarocchino ``hand``, ``result``, ``points`` (a played hand) and what each game adds."""
        if self._points is not None:  # the key is in place (hand_end.played_hands); its value now
            self._info["points"], self._points = self._points.of_hand(), None
        return self._info

    def __eq__(self, other: object) -> bool:
        """Equal when every field and every detail is (the copies of an env, two runs of one seed)."""
        if not isinstance(other, HandEnd):
            return NotImplemented
        mine = (self.row, self.result, list(self.scores), self.match_over, self.info)
        theirs = (other.row, other.result, list(other.scores), other.match_over, other.info)
        return mine == theirs and np.array_equal(self.sides, other.sides) and np.array_equal(self.active, other.active)

    __hash__ = None  # type: ignore[assignment]  # mutable and equal by value: not hashable

    def __repr__(self) -> str:
        return (
            f"HandEnd(row={self.row}, result={self.result!r}, scores={self.scores}, info={self.info!r}, "
            f"match_over={self.match_over}, sides={self.sides.tolist()}, active={self.active.tolist()})"
        )


class HandEnds(list):
    """The hands that ended at one step: a list of :class:`HandEnd`, in row order, with their rows,
    scores and sides also as arrays (``rows`` (E,), ``scores`` and ``sides`` (E, N)), as the step
    computed them. A vector env's rewards read the arrays, without gathering them back from the
    ~64 objects a step ends at 4,096 tables, on the calling thread."""

    def __init__(self, ends: list[HandEnd], rows: np.ndarray, scores: np.ndarray, sides: np.ndarray) -> None:
        super().__init__(ends)
        self.rows, self.scores, self.sides = rows, scores, sides

    @classmethod
    def none(cls, num_players: int) -> HandEnds:
        """No hand ended (the arrays empty, with their shapes)."""
        return cls([], np.zeros(0, dtype=np.int64), np.zeros((0, num_players), dtype=np.int64), np.zeros((0, num_players), dtype=np.int64))


S = TypeVar("S", bound="GameState")


@runtime_checkable
class GameState(Protocol):
    """A batch of deals (one row each) as a few NumPy blocks, every field a view into one."""

    blocks: dict[str, np.ndarray]  # block name -> (B, ...) array, in the order the kernels take them
    phase: np.ndarray  # (B,) the family's Phase code: which decision the row waits for
    current: np.ndarray  # (B,) the seat to act
    legal: np.ndarray  # (B, A) bool: its legal actions, kept up to date by every step
    scores: np.ndarray  # (B, N) the last finished hand's score of each seat

    @classmethod
    def _from_blocks(cls: type[S], blocks: dict[str, np.ndarray]) -> S: ...

    def copy(self: S) -> S: ...


@runtime_checkable
class Game(Protocol):
    """The rules of one configuration of a game, applied to a batch of deals (see the module docstring)."""

    #: the family: "french" or "tarocchino" (the belief sampler's module, the search's classes)
    family: ClassVar[str]
    #: the family's phase codes (:class:`Codes`; ``Phase.PLAY``, ``Phase.DONE``)
    Phase: ClassVar[type[Codes]]
    config: Any
    num_players: int
    num_actions: int
    num_tricks: int

    def new_state(self, batch: int) -> Any:
        """``batch`` empty rows (phase DONE: nothing dealt)."""
        ...

    def shuffle_and_deal(self, state: Any, rows: np.ndarray, dealers: np.ndarray, rng: np.random.Generator, deals: Any = None) -> HandEnds:
        """Random deals at ``rows`` from ``dealers``, run to the first decision."""
        ...

    def parse_deal(self, deal: Any) -> tuple[int, np.ndarray]:
        """A fixed deal (docs/interface.md §4), checked: ``(dealer, pack)``; a clear error when malformed."""
        ...

    def start_deals(self, state: Any, rows: np.ndarray, dealers: np.ndarray, packs: np.ndarray, deals: Any = None) -> HandEnds:
        """Deal the parsed ``packs`` at ``rows`` from ``dealers``, run to the first decision."""
        ...

    def legal_action_mask(self, state: Any, rows: np.ndarray | None = None) -> np.ndarray:
        """(R, A) bool, computed from the state (``state.legal`` holds the same, kept up to date)."""
        ...

    def check_actions(self, state: Any, rows: np.ndarray, actions: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Raise :class:`~tarot_env.errors.IllegalActionError` for the first illegal action: what
        was given, why it is refused and what is allowed. Nothing changes."""
        ...

    def step(
        self,
        state: Any,
        actions: np.ndarray,
        rows: np.ndarray | None = None,
        *,
        check: bool = True,
        rng: np.random.Generator | None = None,
        deals: Any = None,
        parallel: bool = False,
    ) -> HandEnds:
        """One action in each of ``rows`` (default: every row not done); the hands that ended."""
        ...

    def is_terminal(self, state: Any) -> np.ndarray:
        """(B,) bool: the episode of each row is over (phase DONE): no decision is left."""
        ...

    def action_to_string(self, action: int) -> str: ...

    def string_to_action(self, text: str) -> int: ...


def take_rows(state: S, index: np.ndarray) -> S:
    """A new state of the rows ``index`` of ``state`` (repeats allowed: ``np.repeat(rows, k)``
    gives each row ``k`` times), copied block by block: what the belief sampler and the search's
    play-outs start from."""
    return type(state)._from_blocks({name: block[index] for name, block in state.blocks.items()})
