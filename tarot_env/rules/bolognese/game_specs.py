"""The seven Tarocchino games as data: one frozen :class:`GameSpec` row per game, in :data:`GAMES`.

Everything that differs between the games (docs/rules/tarocchino.md §8–§14) is a field of its
row: players, tricks, the dealing pattern, the discards, the auction, the sides, the claim
windows, declarations, how a hand is scored and how a game ends, the default target and the
reward scale. The code never asks which game it plays; it reads the row's fields:

- :mod:`.deal` builds the dealing pattern from ``deal_rounds``, ``packet``, ``dealer_last``
  and ``rest``;
- :mod:`.config` decides which rules options a game has from its fields, fills in the
  defaults (``target``, ``tie_rules``) and turns the fields the compiled kernels need into
  columns of the ``opts`` array (``TarocchinoConfig.kernel_options``);
- the compiled state machine (:mod:`.engine` and its phase modules) reads those columns: the
  sides (:mod:`.seats`), the auction, the discards, the claim windows, Quindici's rounding;
- :mod:`.game` (scoring and matches) and the envs' rewards read ``scoring``, ``rounded``,
  ``game_hands``, ``next_dealer`` and ``reward_scale``.

So a variant is one row. A table that plays Ottocento to 1500 by default, say, is
``dataclasses.replace(GAMES["ottocento"], name="ottocento_1500", target=1500)``, which
``TarocchinoConfig.make`` (and so ``TarocchinoGame``) accept in place of a game's name; an env
id of its own is a module like ``tarot_env/ottocento_v0.py`` (tests/test_game_specs.py).

The model is OpenSpiel's tarok ``contracts.cc`` (one data row per contract, code reads the
fields) and the French package's options as one frozen dataclass (``rules/french/config.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from tarot_env.cards.bolognese import NUM_CARDS

Sides = Literal["partners", "soloist", "each"]
Rest = Literal["none", "pozzo", "second_deal", "out"]
Scoring = Literal["sides", "poste", "penalty"]


@dataclass(frozen=True)
class GameSpec:
    """One Tarocchino game: the facts its rules section states, as fields the code reads.

    The sections cited are those of docs/rules/tarocchino.md. Seats are in play order; the
    dealer's right (``dealer + 1``) is dealt to first and is the Primo di Mano.
    """

    #: the game's name: the env id without ``_v0`` (``tarot_env/<name>_v0.py``)
    name: str
    #: the name shown to people (messages, renders, docs)
    title: str
    #: the section of the rules that describes the game
    section: str
    #: the player counts the game is played by (§8 and §9: 4; §10: 3; §11–§13: 2; §14: 3 to 6)
    players: tuple[int, ...]
    #: the player count of an env made without ``num_players`` (Mattazza: 4 of its 3 to 6)
    default_players: int
    #: tricks in a hand: the cards each player plays once the discards are made
    #: (§8.2 15, §10.4 18, §11.5 20, §12.2 15, §14.3 10)
    tricks: int

    # ---------------------------------------------------------------- the deal (§5.2, §10.2, §11.2, §12.1, §14.2)
    #: rounds of packets dealt to every player, from the dealer's right, the dealer last
    deal_rounds: int
    #: cards in each packet of those rounds (5; Terziglio 6, §10.2)
    packet: int
    #: the dealer's last cards, dealt to him apart after the rounds: he may claim with the
    #: others before picking them up (§5.2, §8.4 step 1, §11.2, §12.1); 0 where there are none
    dealer_last: int
    #: what becomes of the cards no hand gets: ``"none"`` (every card is dealt), the
    #: ``"pozzo"`` (Terziglio, §10.2), Millone's ``"second_deal"`` (§11.5: dealt 5 at a time
    #: after the first discards) or ``"out"`` of play and of the count (§12.1, §14.2)
    rest: Rest

    # ---------------------------------------------------------------- discards (§5.3)
    #: cards each player discards after the first deal, before the second (Millone 10, §11.4;
    #: the opponent first by default, U22); 0 elsewhere
    first_discards: int
    #: cards the discarder puts down: the dealer's 2 once he has picked up his last cards
    #: (§5.3, §12.2) or after Millone's second deal (§11.5); Terziglio's soloist's 8 after
    #: taking the Pozzo (§10.3); 0 where nobody discards (Mattazza, §14.2)
    discards: int
    #: who makes the ``discards``: the ``"dealer"`` or the ``"soloist"`` who went up (§10.3)
    discarder: Literal["dealer", "soloist"]

    # ---------------------------------------------------------------- who plays with whom
    #: Terziglio's auction (passo, posso, faccio di mio, §10.3, U12) before anything else
    auction: bool
    #: the sides: ``"partners"`` (seat % 2, partners opposite, §5.1), the ``"soloist"``
    #: against the other two (§10), or ``"each"`` player for himself (§11–§14)
    sides: Sides
    #: who deals next: the player on the dealer's ``"right"`` (§5.5, §11.1, §12.1, §14.1;
    #: Mattazza: the nearest still in the game), or the ``"soloist"`` (§10.7)
    next_dealer: Literal["right", "soloist"]

    # ---------------------------------------------------------------- claims (Chiamarsi fuori, §8.4)
    #: the game has claim windows: the dealer's before his pickup and each player's at his
    #: first turn (§8.4, §11.3, U29, §12.3, U21)
    claims: bool
    #: the opponent's window right after the dealer picks up: ``"always"`` (Millone, §11.3),
    #: by the ``opponent_claim`` option, instead of his first turn (``"option"``, U21), or ``"never"``
    opponent_pickup_window: Literal["never", "always", "option"]
    #: the Primo's partner claims at his first turn with the Primo's declaration added to his
    #: own (Ottocento, §8.4 step 4, U23)
    primo_partner_adds: bool
    #: players declare combinations at their first turn (§7; not in Mattazza, §14.2)
    declarations: bool

    # ---------------------------------------------------------------- scoring and the end of a game
    #: how a hand is scored: each of two ``"sides"`` counts its pile and adds it to its total
    #: (§8.3, §11.7, §12.4); the winner's points become ``"poste"``, settled between the
    #: soloist and the others (§10.6); or the hand's loser takes a ``"penalty"`` point (§14.5)
    scoring: Scoring
    #: hand scores (and claim values) are rounded, ``q(p) = floor((p + 5) / 10)`` (Quindici, §13, U15, U24)
    rounded: bool
    #: the default target (the ``target`` option): the total that ends the game (§8.1, §11,
    #: §12.3, §13) or the penalty points that put a player out (§14.6); None: no target
    target: int | None
    #: the targets the rules mention, the default first (§8.1, §12.3, §13)
    targets: tuple[int, ...]
    #: a game is exactly this many hands (Quattro Scartate: 4, each player deals once, §9);
    #: None where it is played to the target (or by the hand, Terziglio, §10.7)
    game_hands: int | None
    #: the ``tie`` option's values, the default first: equal totals at the end (U9, U10); ()
    #: where totals are not compared between two sides
    tie_rules: tuple[str, ...]

    # ---------------------------------------------------------------- the envs
    #: the ``normalised`` reward's divisor: about one ordinary hand's margin (docs/tarocchino.md)
    reward_scale: int

    # ---------------------------------------------------------------- derived facts
    @property
    def two_sides(self) -> bool:
        """Every hand is scored between two sides: partners, the soloist and the others, or two
        players each for himself (Mattazza's 3 to 6 players are not)."""
        return self.sides != "each" or self.players == (2,)

    @property
    def second_deal(self) -> bool:
        """Cards are dealt after the first discards (Millone, §11.5); a claim may use only
        the cards of the first deal (§11.6)."""
        return self.rest == "second_deal"

    @property
    def players_drop_out(self) -> bool:
        """In a match players may drop out (Mattazza's penalty points, §14.6), and later deals
        skip them."""
        return self.scoring == "penalty"

    def dealt_in_rounds(self, num_players: int) -> int:
        """Cards the rounds of packets deal (the dealer's last cards and the rest excluded)."""
        return self.deal_rounds * self.packet * num_players

    def rest_size(self, num_players: int) -> int:
        """Cards of the rest: the Pozzo, Millone's second deal, or the cards out of play."""
        return NUM_CARDS - self.dealt_in_rounds(num_players) - self.dealer_last

    def out_of_play(self, num_players: int) -> int:
        """Cards out of play and out of the count (§12.1, §14.2)."""
        return self.rest_size(num_players) if self.rest == "out" else 0

    def check_players(self, num_players: Any = None) -> int:
        """``num_players`` checked (None: :attr:`default_players`)."""
        if num_players is None:
            return self.default_players
        counts = self.players
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or num_players not in counts:
            allowed = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
            raise ValueError(f"{self.title} is played by {allowed} players, got num_players={num_players!r}")
        return int(num_players)


# A two-player duel (Centocinquanta, §12) is the base of Quindici (§13); Millone (§11) differs
# in its deal, discards and windows. Each row states every field, so that a row reads alone.
#: Every game, by name (the env ids without ``_v0``), in the order of the rules.
GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="ottocento", title="Ottocento", section="§8", players=(4,), default_players=4, tricks=15,
            deal_rounds=3, packet=5, dealer_last=2, rest="none",
            first_discards=0, discards=2, discarder="dealer",
            auction=False, sides="partners", next_dealer="right",
            claims=True, opponent_pickup_window="never", primo_partner_adds=True, declarations=True,
            scoring="sides", rounded=False, target=800, targets=(800, 1000, 1500), game_hands=None,
            tie_rules=("play_on", "draw"), reward_scale=100,
        ),
        GameSpec(
            name="quattro_scartate", title="Quattro Scartate", section="§9", players=(4,), default_players=4, tricks=15,
            deal_rounds=3, packet=5, dealer_last=2, rest="none",
            first_discards=0, discards=2, discarder="dealer",
            auction=False, sides="partners", next_dealer="right",
            claims=False, opponent_pickup_window="never", primo_partner_adds=False, declarations=True,
            scoring="sides", rounded=False, target=None, targets=(), game_hands=4,
            tie_rules=("draw", "extra_hand"), reward_scale=100,
        ),
        GameSpec(
            name="terziglio", title="Terziglio", section="§10", players=(3,), default_players=3, tricks=18,
            deal_rounds=3, packet=6, dealer_last=0, rest="pozzo",
            first_discards=0, discards=8, discarder="soloist",
            auction=True, sides="soloist", next_dealer="soloist",
            claims=False, opponent_pickup_window="never", primo_partner_adds=False, declarations=True,
            scoring="poste", rounded=False, target=None, targets=(), game_hands=None,
            tie_rules=(), reward_scale=20,
        ),
        GameSpec(
            name="millone", title="Millone", section="§11", players=(2,), default_players=2, tricks=20,
            deal_rounds=4, packet=5, dealer_last=2, rest="second_deal",
            first_discards=10, discards=2, discarder="dealer",
            auction=False, sides="each", next_dealer="right",
            claims=True, opponent_pickup_window="always", primo_partner_adds=False, declarations=True,
            scoring="sides", rounded=False, target=1000, targets=(1000,), game_hands=None,
            tie_rules=("play_on", "draw"), reward_scale=100,
        ),
        GameSpec(
            name="centocinquanta", title="Centocinquanta", section="§12", players=(2,), default_players=2, tricks=15,
            deal_rounds=3, packet=5, dealer_last=2, rest="out",
            first_discards=0, discards=2, discarder="dealer",
            auction=False, sides="each", next_dealer="right",
            claims=True, opponent_pickup_window="option", primo_partner_adds=False, declarations=True,
            scoring="sides", rounded=False, target=150, targets=(150, 151, 200), game_hands=None,
            tie_rules=("play_on", "draw"), reward_scale=50,
        ),
        GameSpec(
            name="quindici", title="Quindici", section="§13", players=(2,), default_players=2, tricks=15,
            deal_rounds=3, packet=5, dealer_last=2, rest="out",
            first_discards=0, discards=2, discarder="dealer",
            auction=False, sides="each", next_dealer="right",
            claims=True, opponent_pickup_window="option", primo_partner_adds=False, declarations=True,
            scoring="sides", rounded=True, target=15, targets=(15, 20, 21), game_hands=None,
            tie_rules=("play_on", "draw"), reward_scale=5,
        ),
        GameSpec(
            name="mattazza", title="Mattazza", section="§14", players=(3, 4, 5, 6), default_players=4, tricks=10,
            deal_rounds=2, packet=5, dealer_last=0, rest="out",
            first_discards=0, discards=0, discarder="dealer",
            auction=False, sides="each", next_dealer="right",
            claims=False, opponent_pickup_window="never", primo_partner_adds=False, declarations=False,
            scoring="penalty", rounded=False, target=3, targets=(3,), game_hands=None,
            tie_rules=(), reward_scale=1,
        ),
    )
}  # fmt: skip


def game_spec(game: str | GameSpec) -> GameSpec:
    """The row of ``game``: a name of :data:`GAMES`, or a :class:`GameSpec` itself (a variant)."""
    if isinstance(game, GameSpec):
        return game
    spec = GAMES.get(game) if isinstance(game, str) else None
    if spec is None:
        raise ValueError(f"unknown Tarocchino game {game!r}; the games are {', '.join(GAMES)}")
    return spec
