"""The rules options of the Tarocchino games: every [CHOICE] of docs/rules/tarocchino.md §15 (U1–U24)
and every "some tables play to ..." as a keyword with the spec's default.

:data:`OPTIONS` is the one table of them: name, default, allowed values, the spec's
reference, the games it applies to and what it means. ``docs/tarocchino.md`` prints it
(and a test checks that the two agree). :class:`TarocchinoConfig` holds one game's choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tarot_env.rules.bolognese.deal import GAME_TITLES, GAMES, check_game
from tarot_env.rules.bolognese.scoring import (
    CENTOCINQUANTA_TARGET,
    MILLONE_TARGET,
    OTTOCENTO_TARGET,
    QUINDICI_TARGET,
)
from tarot_env.rules.bolognese.state import (
    GM_CENTOCINQUANTA,
    GM_MATTAZZA,
    GM_MILLONE,
    GM_OTTOCENTO,
    GM_QUATTRO_SCARTATE,
    GM_QUINDICI,
    GM_TERZIGLIO,
    OPTION_NAMES,
)

GAME_CODES = {
    "ottocento": GM_OTTOCENTO,
    "quattro_scartate": GM_QUATTRO_SCARTATE,
    "terziglio": GM_TERZIGLIO,
    "millone": GM_MILLONE,
    "centocinquanta": GM_CENTOCINQUANTA,
    "quindici": GM_QUINDICI,
    "mattazza": GM_MATTAZZA,
}
ALL = frozenset(GAMES)
CLAIMING = frozenset({"ottocento", "millone", "centocinquanta", "quindici"})
DECLARING = ALL - {"mattazza"}
TWO_SIDES = ALL - {"mattazza"}
TARGETS = {
    "ottocento": OTTOCENTO_TARGET,
    "millone": MILLONE_TARGET,
    "centocinquanta": CENTOCINQUANTA_TARGET,
    "quindici": QUINDICI_TARGET,
    "mattazza": 3,
}
TRICKS = {"ottocento": 15, "quattro_scartate": 15, "terziglio": 18, "millone": 20, "centocinquanta": 15, "quindici": 15, "mattazza": 10}


@dataclass(frozen=True)
class Option:
    """One rules option: its default, the values allowed (a tuple, or a type for numbers),
    the spec's reference, the games it applies to, and what it does."""

    default: Any
    allowed: tuple | type
    ref: str
    games: frozenset
    doc: str


#: Every option, in the order the documentation lists them.
OPTIONS: dict[str, Option] = {
    "episode": Option(
        "deal", ("deal", "match"), "—", ALL, "one deal per episode, or a whole game (to the target, 4 deals, the agreed end)"
    ),
    "match_reward": Option(
        "deals", ("deals", "result"), "—", ALL, "match episodes: each deal's reward as it ends, or only the match result (+1/-1/0)"
    ),
    "target": Option(
        None,
        int,
        "§8.1, §11, §12.3, §13, §14.6",
        ALL - {"quattro_scartate", "terziglio"},
        "the game's target: Ottocento 800 (1000, 1500), Millone 1000, Centocinquanta 150 (151, 200), "
        "Quindici 15 (20, 21), Mattazza the penalty points that put a player out (3)",
    ),
    "must_overtrump": Option(False, (False, True), "U1", ALL, "a trump played must beat the trumps in the trick when it can"),
    "matto_lead": Option(
        "allowed",
        ("allowed", "never"),
        "U2",
        ALL,
        "the Matto may be led (the next card sets the suit), or never while other cards are held",
    ),
    "matto_gift": Option(
        "scartino", ("scartino", "any"), "U3", ALL, "the card given for the Matto must be a scartino when the side has one, or any card"
    ),
    "matto_last_trick": Option(
        "kept", ("kept", "lost"), "U4", ALL, "a Matto covered in the last trick is kept as usual, or lost to that trick's winner"
    ),
    "matto_is_trump": Option(False, (False, True), "U19", ALL, "the Matto counts as a trump for the duty to trump"),
    "matto_exchange": Option(
        "auto",
        ("auto", "choose"),
        "U20, U3",
        ALL,
        "the card given for the Matto: chosen by the rule of U20, or by the Matto's owner (`give <card>`)",
    ),
    "mori": Option(
        "both", ("both", "grande", "mori", "best"), "U5", ALL, "the Mori count in both the Grande and the Mori sequence, or in one"
    ),
    "doubling": Option(True, (True, False), "U6", DECLARING, "declarations double like the end-of-hand count"),
    "declarations": Option(True, (True, False), "§7, §10.6", DECLARING, "players may declare combinations in hand at their first turn"),
    "keep_capotted_declarations": Option(True, (True, False), "U7", DECLARING, "a capotted side keeps its declarations"),
    "cappotto_bonus": Option(0, int, "U11", TWO_SIDES, "points added to a side that takes every trick"),
    "dealer_claims_after_pickup": Option(
        True, (True, False), "U8, U21", CLAIMING, "the dealer may claim at his first turn with his own declaration"
    ),
    "partner_needs_own_declaration": Option(
        False,
        (False, True),
        "U23",
        frozenset({"ottocento"}),
        "the Primo's partner adds the Primo's declaration only if he has one of his own",
    ),
    "wrong_claim": Option(
        "refused", ("refused", "loses"), "§8.4", CLAIMING, "a claim below the target is never offered, or is offered and loses the game"
    ),
    "opponent_claim": Option(
        "first_turn",
        ("first_turn", "before_discard"),
        "U21",
        frozenset({"centocinquanta", "quindici"}),
        "the opponent's claim window: at his first turn, or right after the dealer picks up",
    ),
    "claim_rounding": Option(
        "declaration",
        ("declaration", "raw_sum"),
        "U15, U24",
        frozenset({"quindici"}),
        "claim when total + q(declaration) reaches the target, or when q(raw total + declaration) does",
    ),
    "tie": Option(
        None,
        ("play_on", "draw", "extra_hand"),
        "U9, U10",
        CLAIMING | {"quattro_scartate"},
        "equal totals at the end: play another hand (U9 default) / draw (U10 default, Quattro Scartate) / extra hand",
    ),
    "poste_rounding": Option(
        "floor", ("floor", "nearest"), "U14", frozenset({"terziglio"}), "Poste = floor((p − 5)/10) from 15, or floor((p + 5)/10)"
    ),
    "odd_pile": Option(
        "exact", ("exact", "odd_alone"), "U18", frozenset({"terziglio"}), "odd piles counted exactly (half points), or the odd card alone"
    ),
    "first_lead": Option("receiver", ("receiver", "soloist"), "U13", frozenset({"terziglio"}), "who leads the first trick"),
    "match_hands": Option(
        3, int, "§10.7", frozenset({"terziglio"}), "hands in a Terziglio match (every hand is a game in itself; settlements add up)"
    ),
    "second_deal_first": Option(
        "opponent", ("opponent", "dealer"), "U22", frozenset({"millone"}), "who receives the second deal's first packet"
    ),
    "first_discarder": Option("opponent", ("opponent", "dealer"), "U22", frozenset({"millone"}), "who makes the first discard of 10 first"),
    "full_count": Option(
        True, (True, False), "U16", frozenset({"mattazza"}), "Mattazza counts combinations and the last trick, or card points only"
    ),
    "way": Option(
        "target",
        ("target", "first_two"),
        "§14.6",
        frozenset({"mattazza"}),
        "the end of a Mattazza match: players drop out at the target until two are left, or the first two to 3 lose",
    ),
}
_TIE_DEFAULT = {"quattro_scartate": "draw"}
_TIE_VALUES = {"quattro_scartate": ("draw", "extra_hand")}


def option_names(game: str) -> tuple[str, ...]:
    """The rules options of ``game``, in documentation order."""
    return tuple(name for name, opt in OPTIONS.items() if game in opt.games)


def default(game: str, name: str) -> Any:
    """The spec's default of option ``name`` in ``game``."""
    if name == "target":
        return TARGETS[game]
    if name == "tie":
        return _TIE_DEFAULT.get(game, "play_on")
    if name == "declarations" and game == "mattazza":
        return False
    return OPTIONS[name].default


def _allowed(game: str, name: str) -> tuple | type:
    if name == "tie":
        return _TIE_VALUES.get(game, ("play_on", "draw"))
    return OPTIONS[name].allowed


@dataclass(frozen=True)
class TarocchinoConfig:
    """One game's rules: the game, its player count, and every option (defaults filled in).

    Unknown options, options of another game and values out of range raise errors that
    name what was given and what is allowed.
    """

    game: str
    num_players: int
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, game: str, num_players: int | None = None, **options: Any) -> TarocchinoConfig:
        game, n = check_game(game, num_players)
        names = option_names(game)
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise TypeError(
                f"unknown {game}_v0 option(s) {unknown}; the rules options of {GAME_TITLES[game]} are: {', '.join(names)}"
                " (and the env options render_mode, reward, shaping, oracle, dealer)"
            )
        full = {}
        for name in names:
            value = options.get(name, default(game, name))
            allowed = _allowed(game, name)
            if isinstance(allowed, type):
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise TypeError(f"{name} must be an int, got {value!r} ({OPTIONS[name].ref}: {OPTIONS[name].doc})")
                value = int(value)
                low = 0 if name == "cappotto_bonus" else 1
                if value < low:
                    raise ValueError(f"{name}={value} must be at least {low} ({OPTIONS[name].doc})")
            elif value not in allowed or type(value) is not type(allowed[0]):
                raise ValueError(
                    f"{name}={value!r} is not allowed in {GAME_TITLES[game]}; choose one of {', '.join(map(repr, allowed))} "
                    f"({OPTIONS[name].ref}: {OPTIONS[name].doc})"
                )
            full[name] = value
        if game == "mattazza" and full["way"] == "first_two" and n not in (3, 4):
            raise ValueError(f"way='first_two' is the rule for 3 or 4 players (docs/rules/tarocchino.md §14.6b), got num_players={n}")
        return cls(game, n, full)

    def __getattr__(self, name: str) -> Any:
        options = self.__dict__.get("options", {})
        if name in options:
            return options[name]
        raise AttributeError(f"{type(self).__name__} of {self.__dict__.get('game')!r} has no option {name!r}")

    def to_dict(self) -> dict[str, Any]:
        """The keywords that rebuild this config (the player count, and options off their default)."""
        out: dict[str, Any] = {"num_players": self.num_players}
        out.update({k: v for k, v in self.options.items() if v != default(self.game, k)})
        return out

    @property
    def match(self) -> bool:
        return self.options["episode"] == "match"

    @property
    def num_tricks(self) -> int:
        return TRICKS[self.game]

    def parse_totals(self, totals: Any) -> np.ndarray | None:
        """The reset option ``totals`` (each seat's running total before the hand) checked, or None."""
        if totals is None:
            return None
        n = self.num_players
        if self.game not in CLAIMING:  # the games played to a target score
            raise ValueError(f"'totals' (running totals before this hand) applies to the games with a target, not {self.game}")
        if (
            not isinstance(totals, (list, tuple))
            or len(totals) != n
            or any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) for t in totals)
        ):
            raise ValueError(f"'totals' must list {n} ints, one per seat (partners equal), got {totals!r}")
        t = np.array(totals, dtype=np.int64)
        if n == 4 and (t[0] != t[2] or t[1] != t[3]):
            raise ValueError(f"partners share one total: seats 0 and 2, 1 and 3 must be equal, got {list(totals)}")
        if np.any(t < 0):
            raise ValueError(f"running totals are never negative, got {list(totals)}")
        return t

    def kernel_options(self) -> np.ndarray:
        """The ``opts`` array the compiled kernels read (state.OPTION_NAMES order)."""
        o = self.options
        get = o.get
        values = {
            "O_N": self.num_players,
            "O_GAME": GAME_CODES[self.game],
            "O_TRICKS": self.num_tricks,
            "O_TARGET": get("target", 0) or 0,
            "O_CLAIMS": int(self.game in CLAIMING),
            "O_WRONG_LOSES": int(get("wrong_claim") == "loses"),
            "O_DEALER_AGAIN": int(get("dealer_claims_after_pickup", False)),
            "O_PARTNER_NEEDS_OWN": int(get("partner_needs_own_declaration", False)),
            "O_DECLARATIONS": int(get("declarations", False)),
            "O_MUST_OVERTRUMP": int(o["must_overtrump"]),
            "O_MATTO_LEAD": int(o["matto_lead"] == "allowed"),
            "O_GIFT_ANY": int(o["matto_gift"] == "any"),
            "O_MATTO_LAST_LOST": int(o["matto_last_trick"] == "lost"),
            "O_MATTO_IS_TRUMP": int(o["matto_is_trump"]),
            "O_EXCHANGE_CHOOSE": int(o["matto_exchange"] == "choose"),
            "O_FIRST_LEAD_SOLOIST": int(get("first_lead") == "soloist"),
            "O_OPP_CLAIM_EARLY": int(get("opponent_claim") == "before_discard"),
            "O_MILLONE_DEALER_FIRST": int(get("first_discarder") == "dealer"),
            "O_QUINDICI_RAW": int(get("claim_rounding") == "raw_sum"),
        }
        return np.array([values[name] for name in OPTION_NAMES], dtype=np.int64)
