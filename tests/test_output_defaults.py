"""Commands write under runs/ unless told otherwise: the committed files in results/ are rewritten
only on purpose (``make bench`` and ``make arena`` pass ``--out results/...``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "experiments").glob("*.py"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: flags that name where a script writes (--deals-dir is read: the versioned deal sets are inputs)
OUTPUT_FLAGS = ("--out", "--plot")


def output_defaults(path: Path) -> dict[str, str]:
    """``flag -> default`` of every ``add_argument(flag, default=...)`` of an output flag in the script."""
    out = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument" and node.args:
            flag = node.args[0]
            if isinstance(flag, ast.Constant) and flag.value in OUTPUT_FLAGS:
                for kw in node.keywords:
                    if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                        out[flag.value] = kw.value.value
    return out


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_script_outputs_default_to_runs(path):
    for flag, default in output_defaults(path).items():
        assert default == "" or default.startswith("runs/"), f"{path.name}: {flag} defaults to {default!r}, not under runs/"


def test_the_scripts_with_outputs_were_found():
    found = {p.name for p in SCRIPTS if output_defaults(p)}
    assert {"arena.py", "benchmark.py", "main.py"} <= found


def test_train_config_writes_under_runs():
    from tarot_env.experiments.train import TrainConfig

    assert TrainConfig().out.startswith("runs/")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_documented_commands_write_under_runs(path):
    """A command shown in the docs writes into results/ only where it documents a make target."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if re.search(r"--(out|plot)[ =]results/", line):
            assert line.lstrip().startswith("make "), f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
