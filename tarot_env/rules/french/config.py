"""Rule options of French Tarot: one frozen dataclass, every field with the spec's default.

Each field that is not the player count answers a point the spec (docs/rules/french_tarot.md)
marks **[interpretation]**; the docstring of each field cites it. ``docs/french_tarot.md``
lists them as a table.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

#: Packets after which the dealer puts one card to the chien, per player count (§2: one
#: legal pattern; never the first or last card of the pack).
DEFAULT_CHIEN_AFTER_PACKETS = {
    3: (2, 5, 8, 11, 14, 17),
    4: (2, 6, 10, 14, 18, 22),
    5: (5, 12, 19),
}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "num_players": (3, 4, 5),
    "petit_sec": ("annul", "redeal"),
    "chelem_announcement": ("after_ecart", "before_ecart", "never"),
    "excuse_last_trick": ("changes_camp", "trick_winner"),
    "unpaid_excuse_debt": ("four_points", "excuse_keeps_value"),
    "jack_call": ("all_knights", "all_queens"),
    "excuse_opening_lead": ("next_player", "lapses"),
    "called_suit_only_hand": ("lead_anything", "excuse_if_held"),
    "poignee_trumps": ("lowest", "highest", "choose"),
}


@dataclass(frozen=True)
class FrenchTarotConfig:
    """Rules of one French Tarot table (FFT rules, with the spec's interpretations).

    Attributes:
        num_players: 3, 4 or 5 (5 = called king).
        petit_sec: §2 / §15.14. ``"annul"``: a deal with a petit sec ends at once, every
            score 0, no decision asked. ``"redeal"``: a random deal with a petit sec is
            replaced at once by the next dealer's deal (fixed deals are always annulled).
        chelem_announcement: §5.1 / §15.6, 15.13. When the taker may announce a chelem:
            ``"after_ecart"`` (after the écart, or after bidding for garde sans/contre, before
            the opening lead), ``"before_ecart"`` (right after bidding and the call, before
            the chien is taken up, as Pagat and the seed allow) or ``"never"``.
        excuse_last_trick: §6.3 / §15.2. The Excuse played to the last trick outside a
            chelem ``"changes_camp"`` (FFT) or goes to the ``"trick_winner"`` (variant).
        excuse_chelem_needs_announcement: §6.3 / §15.3. Whether the Excuse wins the last
            trick for a side that won every earlier trick only when a chelem was announced.
        excuse_chelem_defence: §6.3 / §15.3. Whether that rule applies to the defence too.
        unpaid_excuse_debt: §6.3 / §15.4. When the Excuse's side wins no trick, the
            exchange is still booked, the Excuse worth 4 points (``"four_points"``, FFT,
            applied to both sides) or it keeps its 4.5 (``"excuse_keeps_value"``).
        double_chelem_penalty: §9.1 / §15.5. A failed announced chelem and a defence chelem
            in the same deal cost 200 + 200 (True) or 200 (False, as TarotClub).
        jack_call: §10 / §15.7. A Jack may be called by a taker holding all Kings, Queens and
            Knights (``"all_knights"``) or all Kings and Queens (``"all_queens"``, literal).
        excuse_opening_lead: §10 / §15.8. When the Excuse opens trick 1 in the 5-player game,
            the called-suit restriction passes to the ``"next_player"`` or ``"lapses"``.
        called_suit_only_hand: §15.11. A 5-player opening leader with nothing but cards of
            the called suit (and perhaps the Excuse) may ``"lead_anything"``, or must lead the
            Excuse if he holds it (``"excuse_if_held"``). With 15-card hands this cannot
            arise in a dealt game (13 other cards of the suit and the Excuse make 14); the
            option is kept as the spec asks and tested on edited states.
        poignee_forced_discards: §5.2 / §15.9. Trumps the taker was forced to discard (and so
            showed) may be shown again in his poignée.
        petit_au_bout_defence_chelem_shift: §7 / §15.12. In a defence chelem with the
            Excuse played to the last trick, the Petit in the penultimate trick is au bout.
        poignee_trumps: §5.2 and docs/interface.md §3. Which trumps a poignée shows when the
            player holds more than the size: the ``"lowest"`` (trumps already shown in the
            écart first), the ``"highest"``, or ``"choose"`` them one by one (``show`` actions).
        chien_after_packets: §2 / §15.10. The packets after which one card goes to the chien
            when a random deal is dealt; ``None`` for the default pattern of the player count.
    """

    num_players: int = 4
    petit_sec: str = "annul"
    chelem_announcement: str = "after_ecart"
    excuse_last_trick: str = "changes_camp"
    excuse_chelem_needs_announcement: bool = False
    excuse_chelem_defence: bool = True
    unpaid_excuse_debt: str = "four_points"
    double_chelem_penalty: bool = True
    jack_call: str = "all_knights"
    excuse_opening_lead: str = "next_player"
    called_suit_only_hand: str = "lead_anything"
    poignee_forced_discards: bool = True
    petit_au_bout_defence_chelem_shift: bool = True
    poignee_trumps: str = "lowest"
    chien_after_packets: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            # 4.0 == 4 and True == 1: only values of the same type as the allowed ones count
            if value not in allowed or not any(type(value) is type(a) for a in allowed):
                raise ValueError(
                    f"French Tarot option {name}={value!r} is not allowed; choose one of "
                    f"{', '.join(repr(a) for a in allowed)}"
                )
        for f in fields(self):
            if f.type in ("bool",) and not isinstance(getattr(self, f.name), bool):
                raise TypeError(f"French Tarot option {f.name} must be True or False, got {getattr(self, f.name)!r}")
        if self.chien_after_packets is not None:
            packets = self.chien_after_packets
            if not isinstance(packets, (list, tuple)) or not all(
                isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in packets
            ):
                raise TypeError(
                    f"French Tarot option chien_after_packets must be None or a list of {self.chien_size} packet "
                    f"numbers (ints), got {packets!r}"
                )
            object.__setattr__(self, "chien_after_packets", tuple(int(p) for p in packets))
            self._check_chien_pattern(self.chien_after_packets)

    @property
    def hand_size(self) -> int:
        return {3: 24, 4: 18, 5: 15}[self.num_players]

    @property
    def chien_size(self) -> int:
        return 3 if self.num_players == 5 else 6

    @property
    def packet_size(self) -> int:
        return 4 if self.num_players == 3 else 3

    @property
    def num_tricks(self) -> int:
        return self.hand_size

    @property
    def poignee_sizes(self) -> tuple[int, int, int]:
        """Exact trump counts of a simple, double and triple poignée (§5.2)."""
        return {3: (13, 15, 18), 4: (10, 13, 15), 5: (8, 10, 13)}[self.num_players]

    @property
    def chien_pattern(self) -> tuple[int, ...]:
        return self.chien_after_packets or DEFAULT_CHIEN_AFTER_PACKETS[self.num_players]

    def _check_chien_pattern(self, packets: tuple[int, ...]) -> None:
        n_packets = self.num_players * self.hand_size // self.packet_size
        ok = (
            len(packets) == self.chien_size
            and len(set(packets)) == len(packets)
            and all(1 <= p < n_packets for p in packets)
        )
        if not ok:
            raise ValueError(
                f"chien_after_packets={packets!r} is not a legal dealing pattern for "
                f"{self.num_players} players: give {self.chien_size} distinct packet numbers in "
                f"1..{n_packets - 1} (a chien card after packet 0 would be the first card, after "
                f"the last packet the last card of the pack, which docs/rules/french_tarot.md §2 forbids)"
            )

    def to_dict(self) -> dict[str, Any]:
        """The options that differ from the defaults (for game records)."""
        default = FrenchTarotConfig()
        out: dict[str, Any] = {"num_players": self.num_players}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name != "num_players" and v != getattr(default, f.name):
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def make_config(num_players: int = 4, **rules: Any) -> FrenchTarotConfig:
    """The rules configuration from env keywords (the AEC and vector envs alike), refusing
    unknown ones by name. The env options besides the rules are checked by
    :func:`tarot_env.rules.options.check_env_options`."""
    names = FrenchTarotConfig.option_names()
    unknown = set(rules) - set(names)
    if unknown:
        allowed = ["num_players", "render_mode", "reward", "shaping", "oracle", "dealer", *names[1:]]
        raise TypeError(f"unknown french_tarot_v0 option(s) {sorted(unknown)}; the options are: {', '.join(allowed)}")
    return FrenchTarotConfig(num_players=num_players, **rules)
