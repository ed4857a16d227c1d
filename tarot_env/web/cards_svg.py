# ruff: noqa: E501  (a shape's SVG path data is kept on one line, as it is drawn)
"""The room's card faces, drawn by code: one SVG sprite of the 78 French and the 62 Bolognese cards.

The page shows a card as ``<svg><use href="/static/cards.svg#fr-KH"/></svg>`` (``bo-`` for the
Bolognese pack), the id being the card's notation (docs/interface.md §2): the same notation the log
and the buttons write, so that the face, its label and the log never disagree. Nothing is downloaded
and no font or image is needed beyond the browser's own sans-serif: the suits, figures and trumps are
paths drawn here. The sprite is generated, not hand-edited, and committed as
``tarot_env/web/static/cards.svg`` (the page needs no build step); tests/test_web_cards_svg.py checks that
the committed file is this module's output, that every card of both packs has a face of its own and
that the file is valid SVG. Regenerate it with ``python -m tarot_env.web.cards_svg``.

A face is 60 x 90 units: a corner index (the rank and the suit's pip) at the top left and, turned,
at the bottom right, then the body: pips laid out as on printed packs for the numbered cards, a figure
for the courts (crown for the king, tiara for the queen, a horse for the knight, a feathered cap for the
jack), the trump's number on a cream face (the three French bouts with a gold frame), and an emblem
for the Bolognese trumps that carry no number (Angelo, Mondo, Sole, Luna, the Mori, the Bégato, the
Matto) with their name written under it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.french import FRENCH_DECK

W, H = 60, 90
#: where the page finds the sprite (served by the app's /static mount)
SPRITE = Path(__file__).parent / "static" / "cards.svg"

FRENCH_COLOURS = {"S": "#111", "H": "#c62828", "D": "#c62828", "C": "#111"}
BOLOGNESE_COLOURS = {"S": "#25598a", "B": "#2e7d32", "C": "#b3261e", "D": "#a87408"}
#: the Bolognese numbered trumps' names (docs/rules/tarocchino.md §2.2), written under the number
TROCCHI_NAMES = {
    5: "Amore", 6: "Carro", 7: "Temperanza", 8: "Giustizia", 9: "Forza", 10: "Ruota",
    11: "Vecchio", 12: "Traditore", 13: "Morte", 14: "Diavolo", 15: "Saetta", 16: "Stella",
}  # fmt: skip

# ------------------------------------------------------------------------------------- pips
# each pip is drawn in a 20 x 20 box centred on 0,0; a symbol per suit, used at any size
PIPS = {
    "fr-S": '<path d="M0,-10C3,-5 10,-2 10,3C10,8 3,9 1,5L3,10L-3,10L-1,5C-3,9 -10,8 -10,3C-10,-2 -3,-5 0,-10Z"/>',
    "fr-H": '<path d="M0,9C-3,5 -10,2 -10,-3C-10,-8 -3,-10 0,-5C3,-10 10,-8 10,-3C10,2 3,5 0,9Z"/>',
    "fr-D": '<path d="M0,-10L7.5,0L0,10L-7.5,0Z"/>',
    "fr-C": '<circle cx="0" cy="-4.5" r="4.6"/><circle cx="-5" cy="2.5" r="4.6"/><circle cx="5" cy="2.5" r="4.6"/>'
    '<path d="M-1,2L-3,10L3,10L1,2Z"/>',
    # spade (swords): a blade, its guard, grip and pommel
    "bo-S": '<path d="M0,-11L2,-7.5L2,4L-2,4L-2,-7.5Z" fill="#dfe6ee" stroke="currentColor" stroke-width="1"/>'
    '<rect x="-6.5" y="3.5" width="13" height="2.6" rx="1.2"/><rect x="-1.2" y="6" width="2.4" height="3.4"/>'
    '<circle cx="0" cy="10" r="1.7"/>',
    # bastoni (batons): a knotted stick
    "bo-B": '<rect x="-2.6" y="-10.5" width="5.2" height="21" rx="2.6"/>'
    '<circle cx="-2.6" cy="-4" r="1.6"/><circle cx="2.6" cy="1" r="1.6"/><circle cx="-2.6" cy="6" r="1.6"/>',
    # coppe (cups): a bowl on a stem and foot
    "bo-C": '<path d="M-7.5,-9L7.5,-9C7.5,-1 3.5,1.5 1.2,2.5L1.2,6L5.5,9.5L-5.5,9.5L-1.2,6L-1.2,2.5C-3.5,1.5 -7.5,-1 -7.5,-9Z"/>'
    '<path d="M-6,-6.5L6,-6.5" stroke="#fff" stroke-width="1"/>',
    # denari (coins): a gold coin with a rim and a rose
    "bo-D": '<circle r="9.5"/><circle r="7" fill="#f3d36b"/><circle r="3.2"/><circle r="1.3" fill="#f3d36b"/>',
}

#: pip positions of the numbered cards (x, y) on the 60 x 90 face, as printed packs lay them out
L, C, R = 19, 30, 41
LAYOUTS = {
    1: [(C, 45)],
    2: [(C, 24), (C, 66)],
    3: [(C, 22), (C, 45), (C, 68)],
    4: [(L, 24), (R, 24), (L, 66), (R, 66)],
    5: [(L, 24), (R, 24), (C, 45), (L, 66), (R, 66)],
    6: [(L, 22), (R, 22), (L, 45), (R, 45), (L, 68), (R, 68)],
    7: [(L, 22), (R, 22), (C, 33), (L, 45), (R, 45), (L, 68), (R, 68)],
    8: [(L, 22), (R, 22), (C, 33), (L, 45), (R, 45), (C, 57), (L, 68), (R, 68)],
    9: [(L, 20), (R, 20), (L, 37), (R, 37), (C, 45), (L, 53), (R, 53), (L, 70), (R, 70)],
    10: [(L, 20), (R, 20), (C, 28), (L, 37), (R, 37), (L, 53), (R, 53), (C, 62), (L, 70), (R, 70)],
}


def _pip(deck: str, suit: str, x: float, y: float, size: float, colour: str, turned: bool = False) -> str:
    """One suit sign: the pip symbol scaled to ``size`` units and placed at ``x, y``."""
    k = size / 20
    turn = " rotate(180)" if turned else ""
    return f'<g transform="translate({x:g} {y:g}){turn} scale({k:g})" fill="{colour}" color="{colour}"><use href="#{deck}-{suit}"/></g>'


def _frame(fill: str = "#fffdf7", border: str = "#555", width: float = 1.0) -> str:
    """The card's outline: a rounded white (or tinted) rectangle."""
    return f'<rect x="0.5" y="0.5" width="{W - 1}" height="{H - 1}" rx="5" fill="{fill}" stroke="{border}" stroke-width="{width:g}"/>'


def _index(label: str, colour: str, pip: tuple[str, str] | None) -> str:
    """The corner index: ``label`` and the suit's pip, top left and (turned) bottom right."""
    size = 9 if len(label) < 3 else 7
    one = f'<text x="6.5" y="11" font-size="{size}" font-weight="bold" text-anchor="middle" fill="{colour}">{label}</text>'
    if pip:
        one += _pip(pip[0], pip[1], 6.5, 18, 7, colour)
    return f'<g font-family="sans-serif">{one}<g transform="rotate(180 30 45)">{one}</g></g>'


# ------------------------------------------------------------------------------------- figures
def _figure(rank: str, colour: str, deck: str, suit: str) -> str:
    """A court card's figure in a framed panel: king, queen, knight (a horse) or jack, holding the suit's pip."""
    out = [f'<rect x="12" y="13" width="36" height="64" rx="3" fill="#fff" stroke="{colour}" stroke-width="1.4"/>']
    robe = colour
    if rank == "N":  # the knight (cavalier, cavallo): a horse's head and a rider's lance
        out.append(
            f'<path d="M20,70L22,50C22,40 26,32 34,28L37,22L39,28C43,30 45,35 44,40L40,42L36,38L32,46L34,70Z" fill="{robe}"/>'
            '<circle cx="37" cy="32" r="1.3" fill="#fff"/>'
            f'<path d="M24,60L30,30L40,22" fill="none" stroke="{colour}" stroke-width="0.6"/>'
        )
    else:
        out.append(f'<path d="M18,76L22,50C24,44 36,44 38,50L42,76Z" fill="{robe}"/>')  # the robe
        out.append('<circle cx="30" cy="38" r="6.5" fill="#f6d7b0" stroke="#7a5a3a" stroke-width="0.6"/>')  # the face
        out.append('<circle cx="27.8" cy="37.5" r="0.7" fill="#333"/><circle cx="32.2" cy="37.5" r="0.7" fill="#333"/>')
        if rank == "K":  # a crown
            out.append('<path d="M22.5,32L23,24L26.5,28L30,22L33.5,28L37,24L37.5,32Z" fill="#e0a800" stroke="#7a5a00" stroke-width="0.5"/>')
            out.append('<path d="M25,45L30,50L35,45" fill="none" stroke="#e0a800" stroke-width="1.2"/>')
        elif rank == "Q":  # a tiara and long hair
            out.append('<path d="M23,37C22,46 24,50 26,52L34,52C36,50 38,46 37,37C36,30 24,30 23,37Z" fill="#7a4a1a" opacity="0.85"/>')
            out.append('<circle cx="30" cy="38" r="6" fill="#f6d7b0"/>')
            out.append('<circle cx="27.8" cy="37.5" r="0.7" fill="#333"/><circle cx="32.2" cy="37.5" r="0.7" fill="#333"/>')
            out.append('<path d="M24,32.5L26,28L28,31L30,27L32,31L34,28L36,32.5Z" fill="#e0a800" stroke="#7a5a00" stroke-width="0.5"/>')
            out.append('<circle cx="30" cy="28.5" r="1" fill="#c62828"/>')
        else:  # the jack (valet, fante): a cap with a feather
            out.append(f'<path d="M23,34C23,27 37,27 37,34Z" fill="{colour}"/>')
            out.append('<path d="M35,30C40,24 44,22 46,20C43,25 40,28 36,32Z" fill="#e0a800"/>')
    out.append(_pip(deck, suit, 41 if rank != "N" else 19, 20, 9, colour))
    return "".join(out)


# ------------------------------------------------------------------------------------- emblems
def _emblem(name: str) -> str:
    """The picture of a Bolognese trump that has no number: its emblem, drawn at the face's centre."""
    if name == "ANG":  # the Angel: wings, a halo and a trumpet
        return (
            '<path d="M30,40C20,28 12,30 10,40C14,38 18,42 22,46Z" fill="#fff" stroke="#6b5b95" stroke-width="1"/>'
            '<path d="M30,40C40,28 48,30 50,40C46,38 42,42 38,46Z" fill="#fff" stroke="#6b5b95" stroke-width="1"/>'
            '<circle cx="30" cy="34" r="5" fill="#f6d7b0"/><ellipse cx="30" cy="27.5" rx="6" ry="1.8" fill="none" stroke="#e0a800" stroke-width="1.3"/>'
            '<path d="M26,40L34,40L36,60L24,60Z" fill="#6b5b95"/><path d="M33,45L46,52L46,56L33,49Z" fill="#e0a800"/>'
        )
    if name == "MON":  # the World: a globe with its meridians and a cross
        return (
            '<circle cx="30" cy="46" r="14" fill="#7fb3d5" stroke="#1f4d7a" stroke-width="1.2"/>'
            '<ellipse cx="30" cy="46" rx="6" ry="14" fill="none" stroke="#1f4d7a"/><path d="M16,46L44,46M18,39L42,39M18,53L42,53" stroke="#1f4d7a"/>'
            '<path d="M30,32L30,24M26.5,27L33.5,27" stroke="#e0a800" stroke-width="2"/>'
        )
    if name == "SOL":  # the Sun: a disc and its rays
        rays = "".join(f'<path d="M30,46L{30 + 19 * c:g},{46 + 19 * s:g}" stroke="#e08a00" stroke-width="2.2"/>' for c, s in _compass(12))
        return rays + '<circle cx="30" cy="46" r="11" fill="#ffcc33" stroke="#e08a00" stroke-width="1.2"/>'
    if name == "LUN":  # the Moon: a crescent (a disc with the face's cream over it) among stars
        return (
            '<circle cx="27" cy="46" r="14" fill="#c9d6e8" stroke="#4a5f7a" stroke-width="1.2"/>'
            '<circle cx="34" cy="41" r="12" fill="#fff4d6"/>'
            '<circle cx="43" cy="56" r="1.4" fill="#4a5f7a"/><circle cx="46" cy="34" r="1" fill="#4a5f7a"/>'
        )
    if name == "BEG":  # the Bégato (the Magician): a hat, a wand and a cup on his table
        return (
            '<path d="M18,58L42,58L42,62L18,62Z" fill="#8d6e63"/><path d="M22,62L22,72M38,62L38,72" stroke="#8d6e63" stroke-width="2"/>'
            '<circle cx="30" cy="38" r="6" fill="#f6d7b0"/><path d="M21,33L39,33L30,18Z" fill="#5e35b1"/>'
            '<path d="M24,58L26,45L34,45L36,58Z" fill="#5e35b1"/><path d="M36,48L46,36" stroke="#333" stroke-width="1.6"/>'
            '<circle cx="46" cy="36" r="1.5" fill="#e0a800"/><path d="M20,55L24,55L23,58L21,58Z" fill="#e0a800"/>'
        )
    if name.startswith("M") and name[1:].isdigit():  # a Moro: a dark face under a turban, its number in dots
        k = int(name[1:])
        dots = "".join(f'<circle cx="{30 - 4.5 * (k - 1) + 9 * i:g}" cy="70" r="2.2" fill="#7a1f1f"/>' for i in range(k))
        return (
            '<path d="M20,64L23,52C25,48 35,48 37,52L40,64Z" fill="#7a1f1f"/>'
            '<circle cx="30" cy="42" r="7.5" fill="#4e342e"/><circle cx="27.4" cy="41.5" r="0.9" fill="#fff"/><circle cx="32.6" cy="41.5" r="0.9" fill="#fff"/>'
            '<path d="M21.5,38C21.5,27 38.5,27 38.5,38C35,34.5 25,34.5 21.5,38Z" fill="#fafafa" stroke="#7a1f1f" stroke-width="0.8"/>'
            '<circle cx="30" cy="32" r="1.6" fill="#c62828"/>' + dots
        )
    if name == "MAT":  # the Matto (the Fool): a jester's hat with bells
        return _jester("#6a1b9a")
    raise ValueError(f"no emblem for {name}")


def _jester(colour: str) -> str:
    """A jester's cap with three bells (the French Excuse and the Bolognese Matto)."""
    return (
        f'<path d="M18,56L42,56L40,48C44,40 48,34 50,28C44,32 40,38 36,42L33,30C33,26 30,22 30,22C30,22 27,26 27,30L24,42'
        f'C20,38 16,32 10,28C12,34 16,40 20,48Z" fill="{colour}"/>'
        '<circle cx="10" cy="28" r="2.6" fill="#e0a800"/><circle cx="50" cy="28" r="2.6" fill="#e0a800"/><circle cx="30" cy="21" r="2.6" fill="#e0a800"/>'
        '<circle cx="30" cy="64" r="6.5" fill="#f6d7b0"/><path d="M26.5,66C28,68 32,68 33.5,66" fill="none" stroke="#333"/>'
    )


def _compass(n: int) -> list[tuple[float, float]]:
    import math

    return [(round(math.cos(2 * math.pi * i / n), 3), round(math.sin(2 * math.pi * i / n), 3)) for i in range(n)]


def _trump(number: str, caption: str, colour: str, bout: bool) -> str:
    """A numbered trump: a cream face, the number large in a cartouche, a caption under it."""
    border = "#b8860b" if bout else "#8a7a5a"
    out = [_frame("#fff4d6", border, 2.2 if bout else 1.0)]
    out.append(
        f'<rect x="9" y="16" width="42" height="58" rx="4" fill="none" stroke="{border}" stroke-width="0.8" stroke-dasharray="2 1.5"/>'
    )
    size = 24 if len(number) < 3 else 19
    out.append(
        f'<text x="30" y="{52 if caption else 55}" font-family="serif" font-size="{size}" font-weight="bold" text-anchor="middle" fill="{colour}">{number}</text>'
    )
    if caption:
        out.append(
            f'<text x="30" y="66" font-family="sans-serif" font-size="{7 if len(caption) < 9 else 6}" text-anchor="middle" fill="#5a4a2a">{caption}</text>'
        )
    if bout:
        out.append('<path d="M30,20L31.8,25L37,25L32.8,28L34.4,33L30,30L25.6,33L27.2,28L23,25L28.2,25Z" fill="#b8860b"/>')
    return "".join(out)


# ------------------------------------------------------------------------------------- the faces
def french_face(name: str) -> str:
    """The body of the French card ``name`` (docs/interface.md §2 notation), without its <symbol> tag."""
    if name == "EX":
        return (
            _frame("#efe4f7", "#6a1b9a", 1.6)
            + _jester("#6a1b9a")
            + _index("EX", "#6a1b9a", None)
            + ('<text x="30" y="82" font-family="sans-serif" font-size="8" text-anchor="middle" fill="#6a1b9a">Excuse</text>')
        )
    if name.startswith("T"):
        n = int(name[1:])
        caption = {1: "Petit", 21: "21 · bout"}.get(n, "")
        return _trump(str(n), caption, "#1f3a5f", n in (1, 21)) + _index(str(n), "#1f3a5f", None)
    rank, suit = name[:-1], name[-1]
    colour = FRENCH_COLOURS[suit]
    return _suit_face("fr", rank, suit, colour)


def bolognese_face(name: str) -> str:
    """The body of the Bolognese card ``name`` (docs/interface.md §2 notation), without its <symbol> tag."""
    trump_colour = "#1f3a5f"
    if name == "MAT":
        return _frame("#efe4f7", "#6a1b9a", 1.6) + _emblem("MAT") + _index("MAT", "#6a1b9a", None) + _caption("Matto", "#6a1b9a")
    if name.startswith("T") and name[1:].isdigit():
        n = int(name[1:])
        return _trump(str(n), TROCCHI_NAMES[n], trump_colour, False) + _index(str(n), trump_colour, None)
    special = {"ANG": "Angelo", "MON": "Mondo", "SOL": "Sole", "LUN": "Luna", "BEG": "Bégato"}
    if name in special or (name.startswith("M") and name[1:].isdigit()):
        caption = special.get(name, f"Moro {name[1:]}")
        gold = name in ("ANG", "MON", "BEG")  # worth 5 (docs/rules/tarocchino.md §3.1): a gold frame, like the bouts
        return (
            _frame("#fff4d6", "#b8860b" if gold else "#8a7a5a", 2.2 if gold else 1.0)
            + _emblem(name)
            + _index(name, trump_colour, None)
            + _caption(caption, "#5a4a2a")
        )
    rank, suit = name[:-1], name[-1]
    return _suit_face("bo", rank, suit, BOLOGNESE_COLOURS[suit])


def _caption(text: str, colour: str) -> str:
    return f'<text x="30" y="82" font-family="sans-serif" font-size="8" text-anchor="middle" fill="{colour}">{text}</text>'


def _suit_face(deck: str, rank: str, suit: str, colour: str) -> str:
    """A suit card: numbered (its pips laid out) or a court (a figure)."""
    out = [_frame()]
    if rank in ("J", "N", "Q", "K"):
        out.append(_figure(rank, colour, deck, suit))
    else:
        number = 1 if rank in ("1", "A") else int(rank)
        size = 30 if number == 1 else 11 if number >= 9 else 12.5
        for x, y in LAYOUTS[number]:
            out.append(_pip(deck, suit, x, y, size, colour, turned=y > 46))
    out.append(_index(rank, colour, (deck, suit)))
    return "".join(out)


def faces() -> dict[str, str]:
    """Every card's face by its sprite id: ``fr-<name>`` for the 78 French cards, ``bo-<name>`` for the 62 Bolognese."""
    out = {f"fr-{n}": french_face(n) for n in FRENCH_DECK.names}
    out.update({f"bo-{n}": bolognese_face(n) for n in BOLOGNESE_DECK.names})
    return out


def sprite() -> str:
    """The whole sprite: the pips as symbols, then one <symbol> per card (what static/cards.svg holds)."""
    lines = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0">',
        "<!-- generated by tarot_env/web/cards_svg.py (python -m tarot_env.web.cards_svg): do not edit -->",
        "<defs>",
    ]
    lines += [f'<symbol id="{k}" overflow="visible">{v}</symbol>' for k, v in PIPS.items()]
    lines.append("</defs>")
    lines += [f'<symbol id="{k}" viewBox="0 0 {W} {H}">{v}</symbol>' for k, v in faces().items()]
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the sprite to tarot_env/web/static/cards.svg (or the path given)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else SPRITE
    path.write_text(sprite(), encoding="utf-8")
    print(f"wrote {path} ({len(faces())} cards)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
