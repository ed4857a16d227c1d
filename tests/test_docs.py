"""The documentation tables are printed from the code, and must stay so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tarot_env.encoding.french import layout, layout_table
from tarot_env.rules.french.config import FrenchTarotConfig

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_observation_tables_in_docs_match_layout(num_players):
    text = (DOCS / "french_tarot.md").read_text()
    assert layout_table(num_players) in text
    assert layout_table(num_players, oracle=True) in text
    assert f"### {num_players} players: {sum(f.length for f in layout(num_players))} values" in text


def test_every_rules_option_is_documented():
    text = (DOCS / "french_tarot.md").read_text()
    for name in FrenchTarotConfig.option_names():
        assert f"| `{name}` |" in text, name


def test_layout_is_contiguous():
    for n in (3, 4, 5):
        offset = 0
        for field in layout(n):
            assert field.offset == offset
            offset += field.length


def test_tarocchino_observation_tables_in_docs_match_layout():
    from tarot_env.encoding import bolognese

    text = (DOCS / "tarocchino.md").read_text()
    assert bolognese.layout_table(4) in text
    assert bolognese.layout_table(4, oracle=True) in text
    sizes = ", ".join(f"{n} players: {sum(f.length for f in bolognese.layout(n))}" for n in (2, 3, 4, 5, 6))
    assert f"Sizes: {sizes}." in text
