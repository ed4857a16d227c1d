"""Every Python snippet of the documentation runs as written.

The snippets are the ```` ```python ```` blocks of README.md, of every Markdown file under docs/
and of the env modules' docstrings (``tarot_env/*_v0.py``). Each runs on its own, in a fresh
interpreter whose working directory is an empty temporary folder, so a snippet may use only what
it imports and makes itself. A failure names the file and the line of the block. Shell commands
and output listings are not tagged ``python`` (they are ``bash`` or untagged blocks).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120  # seconds per snippet: none trains for more than a few seconds
FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)\s*$")
SHORT_FENCE = re.compile(r"^\s*``(?!`)\s*\w*\s*$")  # a block opened with two backticks: not a code block in Markdown


@dataclass(frozen=True)
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    code: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return paths + sorted((ROOT / "tarot_env").glob("*_v0.py"))


def markdown_of(path: Path) -> tuple[str, int]:
    """The Markdown text of ``path`` and the line at which it starts (a module's docstring for .py files)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text, 1
    start = text.index('"""')
    end = text.index('"""', start + 3)
    return text[start + 3 : end], text.count("\n", 0, start) + 1


def snippets_of(path: Path) -> list[Snippet]:
    text, first = markdown_of(path)
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.groups()
        j = i + 1
        while j < len(lines) and not re.match(rf"^\s*{ticks}\s*$", lines[j]):
            j += 1
        if lang == "python":
            body = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in lines[i + 1 : j]]
            out.append(Snippet(path, first + i, "\n".join(body) + "\n"))
        i = j + 1
    return out


SNIPPETS = [s for p in documents() for s in snippets_of(p)]


def test_snippets_were_found():
    files = {s.path.name for s in SNIPPETS}
    assert {"README.md", "vector.md", "french_tarot.md", "tarocchino.md", "agents.md", "french_tarot_v0.py"} <= files
    assert len(SNIPPETS) >= 20


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_block_opens_with_two_backticks(path):
    text, first = markdown_of(path)
    bad = [first + i for i, line in enumerate(text.splitlines()) if SHORT_FENCE.match(line)]
    assert not bad, f"{path.relative_to(ROOT)}: lines {bad} open or close a code block with two backticks; Markdown needs three"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.where)
def test_snippet_runs(snippet: Snippet, tmp_path: Path):
    script = tmp_path / "snippet.py"
    script.write_text(snippet.code, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)  # the installed package, as a reader has it
    env.pop("TAROT_ENV_JIT", None)  # and its default, compiled path (the suite may run under TAROT_ENV_JIT=0)
    try:
        proc = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{snippet.where}: the snippet ran past {TIMEOUT} s")
    assert proc.returncode == 0, f"{snippet.where}: the snippet failed (exit {proc.returncode})\n{proc.stderr[-3000:]}"
