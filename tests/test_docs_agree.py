"""The README and docs agree with the code and with each other (issue 29, section 6), and a user
who lacks an extra is told which one to install (section 3)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = {p.name: p.read_text() for p in (ROOT / "docs").glob("*.md")}


def blocks(text: str) -> list[str]:
    """The paragraphs of a Markdown text, each table row on its own."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        rows = [line for line in para.splitlines() if line.startswith("|")]
        out.extend(rows if rows else [para])
    return out


# ------------------------------------------------------------------------------------- pretrained
def test_pretrained_without_the_train_extra_names_the_extra(monkeypatch):
    from tarot_env.agents import pretrained

    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    with pytest.raises(ModuleNotFoundError, match=r'sb3_contrib .*train extra: pip install "tarot_env\[train\]"'):
        pretrained("ottocento_v0")


@pytest.mark.parametrize("name", ["README.md", "agents.md", "results.md"])
def test_where_pretrained_is_documented_so_is_tarot_env_models(name):
    """After a plain ``pip install`` the models are found only through ``TAROT_ENV_MODELS``."""
    text = README if name == "README.md" else DOCS[name]
    found = [b for b in blocks(text) if "pretrained(" in b]
    assert found, f"{name} no longer shows pretrained(...)"
    for block in found:
        assert "TAROT_ENV_MODELS" in block, f"{name}: pretrained is shown without TAROT_ENV_MODELS:\n{block}"
