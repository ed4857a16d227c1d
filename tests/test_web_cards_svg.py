"""The card faces the room draws (tarot_env/web/cards_svg.py): every card of both packs has a face of its
own, the sprite is valid SVG whose references all resolve, and the committed static/cards.svg is the
generator's output (a face changed in code but not regenerated would leave the page showing the old one)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.web import cards_svg

NS = "{http://www.w3.org/2000/svg}"


def test_every_card_of_both_packs_has_its_own_face() -> None:
    faces = cards_svg.faces()
    assert set(faces) == {f"fr-{n}" for n in FRENCH_DECK.names} | {f"bo-{n}" for n in BOLOGNESE_DECK.names}
    assert len(faces) == 78 + 62
    # distinct: no two cards share a drawing (within a pack; the packs differ by their pips' ids too)
    assert len(set(faces.values())) == len(faces)
    for key, body in faces.items():
        name = key[3:]
        label = {"EX": "EX", "MAT": "MAT"}.get(name)
        # the corner index writes the card's rank as the notation does (T21 -> 21, KH -> K, ANG -> ANG)
        if label is None:
            label = name[1:] if re.fullmatch(r"T\d+", name) else name if not re.fullmatch(r"(10|[1-9AJNQK])[SHDCB]", name) else name[:-1]
        assert f">{label}</text>" in body, key


def test_the_sprite_is_valid_svg_and_every_reference_resolves() -> None:
    root = ET.fromstring(cards_svg.sprite())
    assert root.tag == f"{NS}svg"
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    symbols = [e for e in root.iter(f"{NS}symbol")]
    assert len(symbols) == 140 + len(cards_svg.PIPS)
    for use in root.iter(f"{NS}use"):
        href = use.get("href")
        assert href and href.startswith("#") and href[1:] in ids, href
    for sym in symbols:
        if sym.get("viewBox"):
            assert sym.get("viewBox") == "0 0 60 90"
    # nothing outside: no external reference, no script, no image
    text = cards_svg.sprite()
    assert "<script" not in text and "<image" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")


def test_the_committed_sprite_is_the_generators_output() -> None:
    assert cards_svg.SPRITE.read_text(encoding="utf-8") == cards_svg.sprite(), "run python -m tarot_env.web.cards_svg"


def test_suits_are_told_apart_by_their_pips_and_colours() -> None:
    faces = cards_svg.faces()
    assert "#fr-H" in faces["fr-7H"] and "#c62828" in faces["fr-7H"]
    assert "#fr-S" in faces["fr-7S"] and "#111" in faces["fr-7S"]
    for suit in "SBCD":
        assert f"#bo-{suit}" in faces[f"bo-7{suit}"]
    assert faces["fr-7H"].count("#fr-H") == 7 + 2  # seven pips and the two corner indexes
    assert faces["bo-10D"].count("#bo-D") == 10 + 2
    assert "Angelo" in faces["bo-ANG"] and "Moro 3" in faces["bo-M3"] and "Matto" in faces["bo-MAT"]
