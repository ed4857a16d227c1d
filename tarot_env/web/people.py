"""The people of the room: a person (:class:`User`), a seat (:class:`Seat`), the room's refusal
(:class:`RoomError`), which every part of a table raises before it changes anything, and the one check
of a person's name (:func:`check_name`), made on every path that makes or renames a person."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: chips a new user starts with (the page: chips are needed to cover a table's stake)
START_CHIPS = 1000


class RoomError(ValueError):
    """A request the room refuses (not your turn, not the owner, a bad setting ...): the reason, for the player."""


#: the most characters of a name (after normalisation)
NAME_MAX = 24
#: the word a name may not contain in any spelling: a name that reads "robot" would pass for a seat the room
#: plays ("robot 1 (rules)" is how the page shows one); "bot" alone is refused as a word (:data:`_BOT_WORD`)
RESERVED = "robot"
#: look-alikes of Latin letters, after NFKC and case folding: Cyrillic and Greek letters drawn like Latin ones
_LETTERS = {
    **dict(zip("авсегһіјкӏмнопрѕтухьԁԛԝѵ", "abcerhijklmhonpstyxbdqwv")),  # Cyrillic
    **dict(zip("αβγεηικνορτυχωςσ", "abyenikvoptuxwso")),  # Greek
}
#: digits and signs written for letters (1 stands for l: "robot" has neither l nor i, so either reading
#: refuses the same names)
_DIGITS = dict(zip("0123456789@$|!€", "olzeasbtbgaslie"))
_AS_LETTERS = str.maketrans(_LETTERS)
_AS_LATIN = str.maketrans({**_LETTERS, **_DIGITS})
_BOT_WORD = re.compile(r"bots?")


def _fold(name: str) -> str:
    """NFKC (full-width and other compatibility forms to their plain letters), case folded, and accents and
    other combining marks removed (a strike-through or an accent on a letter of "robot" hides nothing)."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    return "".join(c for c in folded if not unicodedata.combining(c))


def name_skeleton(name: str) -> str:
    """``name`` as the reserved word is looked for in it: folded (:func:`_fold`), look-alikes mapped to the
    Latin letters they pass for (Cyrillic о, Greek ο, the digit 0: o), and everything but letters and
    digits removed, so that "R о_b.0 t" reads "robot"."""
    return "".join(c for c in _fold(name).translate(_AS_LATIN) if c.isalnum())


def _words(name: str) -> set[str]:
    """The Latin words of ``name`` (folded, look-alike letters mapped), read twice: digits as separators
    ("bot1": bot) and digits as the letters they pass for ("b0t": bot)."""
    folded = _fold(name)
    return {w for text in (folded.translate(_AS_LETTERS), folded.translate(_AS_LATIN)) for w in re.split(r"[^a-z]+", text) if w}


def _symbols(name: str) -> list[str]:
    """The symbols of ``name`` (Unicode's categories S*: ★ ⭑ ✦ → ©, emoji) but the printable ASCII signs
    (+ < = > $ ^ ` | ~), which decorate nothing and are shown as the characters they are."""
    return [c for c in dict.fromkeys(name) if unicodedata.category(c).startswith("S") and not (c.isascii() and c.isprintable())]


def check_name(name: str) -> str:
    """The name as the room keeps it (NFKC, spaces trimmed and single), or :class:`RoomError` saying what was
    given, why it is refused and what is allowed. The one check of a name: the room's hello (the *Play now*
    button's included), the challenge's start and the database's :meth:`~tarot_env.web.db.Store.new_user`
    and ``rename`` all call it, so no path makes a person the others would refuse.

    Refused: not 1 to 24 characters, a control or invisible character, no letter or digit, a symbol (★
    is the page's mark of a table's owner, and a decorated name "★Alice" or "⭑Alice" passes for another's),
    and a name that reads "robot" in any spelling, or has the word "bot": "robot1 (rules)", "r0bot",
    "Rоbot" (a Cyrillic о), "Ｒobot" (full width), "rules bot". Taken names are the database's check
    (:meth:`~tarot_env.web.db.Store.check_name_free`: "ALICE" and "Ａlice" are Alice's)."""
    shown = " ".join(unicodedata.normalize("NFKC", name).split())
    given = repr(name[:40])
    if not 1 <= len(shown) <= NAME_MAX:
        raise RoomError(f"the name {given} has {len(shown)} characters: a name has 1 to {NAME_MAX}")
    if not shown.isprintable():
        raise RoomError(f"the name {given} has a control or invisible character: a name has printable characters only")
    if not any(unicodedata.category(c)[0] in "LN" for c in shown):
        raise RoomError(f"the name {given} has no letter or digit: a name has at least one")
    symbols = _symbols(shown)
    if symbols:
        which = ", ".join(f"{c} ({unicodedata.name(c, f'U+{ord(c):04X}').lower()})" for c in symbols[:3])
        raise RoomError(
            f"the name {given} has the symbol(s) {which}: symbols are reserved (★ marks a table's owner, and a decorated "
            "name passes for another's); a name has letters, digits, spaces, punctuation and ASCII signs such as + or ="
        )
    if RESERVED in name_skeleton(shown) or any(_BOT_WORD.fullmatch(w) for w in _words(shown)):
        foreign = [c for c in dict.fromkeys(shown) if c.isalpha() and not c.isascii()]
        spelled = f" (spelled with {', '.join(unicodedata.name(c, '?').lower() for c in foreign[:2])})" if foreign else ""
        raise RoomError(
            f"the name {given} reads as a robot's{spelled}: the words robot and bot are reserved in any spelling "
            "(look-alike letters, digits for letters, separators in between) so that no person passes for a robot; "
            "choose another name"
        )
    return shown


@dataclass
class User:
    """A person of the room: a name, a secret token (kept by the browser), chips and XP."""

    id: int
    name: str
    token: str
    chips: int = START_CHIPS
    xp: int = 0


@dataclass
class Seat:
    """A seat: empty, a person's (``user``), or a robot's (``robot``: an agent name of :data:`ROBOTS`)."""

    user: User | None = None
    robot: str | None = None
    address: str | None = None  # the person's network address (two equal ones void the XP)
    connected: bool = False
    away_since: float | None = None  # when the person disconnected (the reconnection window runs from it)
    abandoned: bool = False  # the window ran out: the bot plays the seat to the end of the game

    @property
    def empty(self) -> bool:
        return self.user is None and self.robot is None

    @property
    def person(self) -> bool:
        return self.user is not None

    @property
    def bot_plays(self) -> bool:
        """A robot moves for this seat now: a robot seat, or a person away (disconnected or gone)."""
        return self.robot is not None or (self.user is not None and (not self.connected or self.abandoned))
