"""The rules options of the Tarocchino games: every [CHOICE] of docs/rules/tarocchino.md §15 (U1–U24)
and every "some tables play to ..." as a keyword with the spec's default.

:data:`OPTIONS` is the one table of them: name, default, allowed values, the spec's
reference, the games it applies to and what it means. ``docs/tarocchino.md`` prints it
(and a test checks that the two agree). :class:`TarocchinoConfig` holds one game's choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tarot_env.rules.bolognese.combinations import MORI_CODE
from tarot_env.rules.bolognese.game_specs import GAMES, GameSpec, game_spec
from tarot_env.rules.bolognese.state import DISCARDER_CODES, OPTION_NAMES, SIDES_CODES

# Facts of the games, read from their rows (games.GAMES), under the names other modules import.
#: each game's default target, where it has one
TARGETS = {name: spec.target for name, spec in GAMES.items() if spec.target is not None}
#: tricks in a hand of each game
TRICKS = {name: spec.tricks for name, spec in GAMES.items()}


def _every(spec: GameSpec) -> bool:
    return True


#: The largest number an int option or a running total may be: far above any real game's scores
#: (targets are 3 to 1500), and small enough that every sum the rules make stays exact in int64.
MAX_POINTS = 10**9


@dataclass(frozen=True)
class Option:
    """One rules option: its default, the values allowed (a tuple, or a type for numbers),
    the spec's reference, which games have it, and what it does.

    Which games have it is a test on a game's row (``applies``), not a list of names, so that a
    variant (a new :class:`.game_specs.GameSpec` row) has the options of the rules it follows."""

    default: Any
    allowed: tuple | type
    ref: str
    applies: Callable[[GameSpec], bool]
    doc: str

    @property
    def games(self) -> frozenset[str]:
        """The names of the games of :data:`.game_specs.GAMES` that have this option."""
        return frozenset(name for name, spec in GAMES.items() if self.applies(spec))


def _declaring(spec: GameSpec) -> bool:
    return spec.declarations


def _claiming(spec: GameSpec) -> bool:
    return spec.claims


def _poste(spec: GameSpec) -> bool:
    return spec.scoring == "poste"


def _penalty(spec: GameSpec) -> bool:
    return spec.scoring == "penalty"


#: Every option, in the order the documentation lists them.
OPTIONS: dict[str, Option] = {
    "episode": Option(
        "deal", ("deal", "match"), "—", _every, "one deal per episode, or a whole game (to the target, 4 deals, the agreed end)"
    ),
    "match_reward": Option(
        "deals", ("deals", "result"), "—", _every, "match episodes: each deal's reward as it ends, or only the match result (+1/-1/0)"
    ),
    "target": Option(
        None,
        int,
        "§8.1, §11, §12.3, §13, §14.6",
        lambda s: s.target is not None,
        "the game's target: Ottocento 800 (1000, 1500), Millone 1000, Centocinquanta 150 (151, 200), "
        "Quindici 15 (20, 21), Mattazza the penalty points that put a player out (3)",
    ),
    "must_overtrump": Option(False, (False, True), "U1", _every, "a trump played must beat the trumps in the trick when it can"),
    "matto_lead": Option(
        "allowed",
        ("allowed", "never"),
        "U2",
        _every,
        "the Matto may be led (the next card sets the suit), or never while other cards are held",
    ),
    "matto_gift": Option(
        "scartino", ("scartino", "any"), "U3", _every, "the card given for the Matto must be a scartino when the side has one, or any card"
    ),
    "matto_last_trick": Option(
        "kept", ("kept", "lost"), "U4", _every, "a Matto covered in the last trick is kept as usual, or lost to that trick's winner"
    ),
    "matto_is_trump": Option(False, (False, True), "U19", _every, "the Matto counts as a trump for the duty to trump"),
    "matto_exchange": Option(
        "auto",
        ("auto", "choose"),
        "U20, U3",
        _every,
        "the card given for the Matto: chosen by the rule of U20, or by the Matto's owner (`give <card>`)",
    ),
    "mori": Option(
        "both", ("both", "grande", "mori", "best"), "U5", _every, "the Mori count in both the Grande and the Mori sequence, or in one"
    ),
    "doubling": Option(True, (True, False), "U6", _declaring, "declarations double like the end-of-hand count"),
    "declarations": Option(True, (True, False), "§7, §10.6", _declaring, "players may declare combinations in hand at their first turn"),
    "keep_capotted_declarations": Option(True, (True, False), "U7", _declaring, "a capotted side keeps its declarations"),
    "cappotto_bonus": Option(0, int, "U11", lambda s: s.two_sides, "points added to a side that takes every trick"),
    "dealer_claims_after_pickup": Option(
        True, (True, False), "U8, U21", _claiming, "the dealer may claim at his first turn with his own declaration"
    ),
    "partner_needs_own_declaration": Option(
        False,
        (False, True),
        "U23",
        lambda s: s.primo_partner_adds,
        "the Primo's partner adds the Primo's declaration only if he has one of his own",
    ),
    "wrong_claim": Option(
        "refused", ("refused", "loses"), "§8.4", _claiming, "a claim below the target is never offered, or is offered and loses the game"
    ),
    "opponent_claim": Option(
        "first_turn",
        ("first_turn", "before_discard"),
        "U21",
        lambda s: s.opponent_pickup_window == "option",
        "the opponent's claim window: at his first turn, or right after the dealer picks up",
    ),
    "claim_rounding": Option(
        "declaration",
        ("declaration", "raw_sum"),
        "U15, U24",
        lambda s: s.claims and s.rounded,
        "claim when total + q(declaration) reaches the target, or when q(raw total + declaration) does",
    ),
    "tie": Option(
        None,
        ("play_on", "draw", "extra_hand"),
        "U9, U10",
        lambda s: bool(s.tie_rules),
        "equal totals at the end: play another hand (U9 default) / draw (U10 default, Quattro Scartate) / extra hand",
    ),
    "poste_rounding": Option("floor", ("floor", "nearest"), "U14", _poste, "Poste = floor((p − 5)/10) from 15, or floor((p + 5)/10)"),
    "odd_pile": Option("exact", ("exact", "odd_alone"), "U18", _poste, "odd piles counted exactly (half points), or the odd card alone"),
    "first_lead": Option("receiver", ("receiver", "soloist"), "U13", lambda s: s.auction, "who leads the first trick"),
    "match_hands": Option(3, int, "§10.7", _poste, "hands in a Terziglio match (every hand is a game in itself; settlements add up)"),
    "second_deal_first": Option(
        "opponent", ("opponent", "dealer"), "U22", lambda s: s.second_deal, "who receives the second deal's first packet"
    ),
    "first_discarder": Option(
        "opponent", ("opponent", "dealer"), "U22", lambda s: s.first_discards > 0, "who makes the first discard of 10 first"
    ),
    "full_count": Option(True, (True, False), "U16", _penalty, "Mattazza counts combinations and the last trick, or card points only"),
    "way": Option(
        "target",
        ("target", "first_two"),
        "§14.6",
        _penalty,
        "the end of a Mattazza match: players drop out at the target until two are left, or the first two to 3 lose",
    ),
}


def option_names(game: str | GameSpec) -> tuple[str, ...]:
    """The rules options of ``game`` (a name, or a :class:`.game_specs.GameSpec`), in documentation order."""
    spec = game_spec(game)
    return tuple(name for name, opt in OPTIONS.items() if opt.applies(spec))


def default(game: str | GameSpec, name: str) -> Any:
    """The spec's default of option ``name`` in ``game``: the option's, or the game's row's
    where the games differ (``target``; ``tie``, U9 and U10; ``declarations``)."""
    spec = game_spec(game)
    if name == "target":
        return spec.target
    if name == "tie":
        return spec.tie_rules[0] if spec.tie_rules else "play_on"
    if name == "declarations":
        return spec.declarations
    return OPTIONS[name].default


def _allowed(game: str | GameSpec, name: str) -> tuple | type:
    if name == "tie":
        return game_spec(game).tie_rules or ("play_on", "draw")
    return OPTIONS[name].allowed


@dataclass(frozen=True)
class TarocchinoConfig:
    """One game's rules: the game, its player count, and every option (defaults filled in).

    ``spec`` is the game's row (:class:`.game_specs.GameSpec`), everything the code needs to know
    about the game; made from :data:`.game_specs.GAMES` when not given. Unknown options, options of
    another game and values out of range raise errors that name what was given and what is allowed.
    """

    game: str
    num_players: int
    options: dict[str, Any] = field(default_factory=dict)
    spec: GameSpec = field(default=None, repr=False)  # type: ignore[assignment]  # filled in by __post_init__

    def __post_init__(self) -> None:
        if self.spec is None:
            object.__setattr__(self, "spec", game_spec(self.game))

    @classmethod
    def make(cls, game: str | GameSpec, num_players: int | None = None, **options: Any) -> TarocchinoConfig:
        """The config of ``game``: a name of :data:`.game_specs.GAMES`, or a :class:`.game_specs.GameSpec`
        row of one's own (a variant; it has the options its fields call for)."""
        spec = game_spec(game)
        game, n = spec.name, spec.check_players(num_players)
        names = option_names(spec)
        unknown = sorted(set(options) - set(names))
        if unknown:
            raise TypeError(
                f"unknown {game}_v0 option(s) {unknown}; the rules options of {spec.title} are: {', '.join(names)}"
                " (and the env options render_mode, reward, shaping, oracle, dealer)"
            )
        full = {}
        for name in names:
            value = options.get(name, default(spec, name))
            allowed = _allowed(spec, name)
            if isinstance(allowed, type):
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise TypeError(f"{name} must be an int, got {value!r} ({OPTIONS[name].ref}: {OPTIONS[name].doc})")
                value = int(value)
                low = 0 if name == "cappotto_bonus" else 1
                if not low <= value <= MAX_POINTS:
                    raise ValueError(f"{name}={value} must be in {low}..{MAX_POINTS:_} ({OPTIONS[name].doc})")
            elif value not in allowed or type(value) is not type(allowed[0]):
                raise ValueError(
                    f"{name}={value!r} is not allowed in {spec.title}; choose one of {', '.join(map(repr, allowed))} "
                    f"({OPTIONS[name].ref}: {OPTIONS[name].doc})"
                )
            full[name] = value
        if full.get("way") == "first_two" and n not in (3, 4):
            raise ValueError(f"way='first_two' is the rule for 3 or 4 players (docs/rules/tarocchino.md §14.6b), got num_players={n}")
        return cls(game, n, full, spec)

    def __getattr__(self, name: str) -> Any:
        options = self.__dict__.get("options", {})
        if name in options:
            return options[name]
        raise AttributeError(f"{type(self).__name__} of {self.__dict__.get('game')!r} has no option {name!r}")

    def to_dict(self) -> dict[str, Any]:
        """The keywords that rebuild this config (the player count, and options off their default)."""
        out: dict[str, Any] = {"num_players": self.num_players}
        out.update({k: v for k, v in self.options.items() if v != default(self.spec, k)})
        return out

    @property
    def match(self) -> bool:
        return self.options["episode"] == "match"

    @property
    def num_tricks(self) -> int:
        return self.spec.tricks

    def parse_totals(self, totals: Any) -> np.ndarray | None:
        """The reset option ``totals`` (each seat's running total before the hand) checked, or None."""
        if totals is None:
            return None
        n = self.num_players
        if not self.spec.claims:  # the games played to a target score
            raise ValueError(f"'totals' (running totals before this hand) applies to the games with a target, not {self.game}")
        if (
            not isinstance(totals, (list, tuple))
            or len(totals) != n
            or any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) for t in totals)
        ):
            raise ValueError(f"'totals' must list {n} ints, one per seat (partners equal), got {totals!r}")
        if any(not -MAX_POINTS <= t <= MAX_POINTS for t in totals):
            raise ValueError(f"'totals' must be ints in 0..{MAX_POINTS:_}, got {totals!r:.200}")
        t = np.array(totals, dtype=np.int64)
        if self.spec.sides == "partners" and (t[0] != t[2] or t[1] != t[3]):
            raise ValueError(f"partners share one total: seats 0 and 2, 1 and 3 must be equal, got {list(totals)}")
        if np.any(t < 0):
            raise ValueError(f"running totals are never negative, got {list(totals)}")
        return t

    def kernel_options(self) -> np.ndarray:
        """The ``opts`` array the compiled kernels read (state.OPTION_NAMES order): the game's
        row (the kernels never ask which game they play) and the rules options."""
        o = self.options
        get = o.get
        spec = self.spec
        values = {
            "O_N": self.num_players,
            "O_TRICKS": spec.tricks,
            "O_TARGET": get("target", 0) or 0,
            "O_CLAIMS": int(spec.claims),
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
            # U21's alternative: the opponent's window moves from his first turn to right after the pickup
            "O_OPP_CLAIM_EARLY": int(get("opponent_claim") == "before_discard"),
            "O_DEALER_DISCARDS_FIRST": int(get("first_discarder") == "dealer"),
            "O_CLAIM_RAW_SUM": int(get("claim_rounding") == "raw_sum"),
            "O_SIDES": SIDES_CODES[spec.sides],
            "O_AUCTION": int(spec.auction),
            "O_OPP_AFTER_PICKUP": int(spec.opponent_pickup_window == "always" or get("opponent_claim") == "before_discard"),
            "O_PRIMO_PARTNER_ADDS": int(spec.primo_partner_adds),
            "O_ROUNDED": int(spec.rounded),
            "O_FIRST_DISCARDS": spec.first_discards,
            "O_SECOND_DEAL": int(spec.second_deal),
            "O_DISCARDS": spec.discards,
            "O_DISCARDER": DISCARDER_CODES[spec.discarder],
            "O_MORI": MORI_CODE[self.mori],
            "O_DECLARED_DOUBLED": int(get("doubling", True)),
        }
        return np.array([values[name] for name in OPTION_NAMES], dtype=np.int64)
