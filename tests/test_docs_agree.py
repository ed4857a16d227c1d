"""The README and docs agree with the code and with each other, and a user who lacks an extra is
told which one to install."""

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


# ------------------------------------------------------------------------------------- the README
def extras() -> dict[str, list[str]]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_the_readme_names_every_extra_and_what_make_installs():
    for name, requirements in extras().items():
        if requirements:  # `fast` is empty, kept for old install commands only
            assert f"`[{name}]`" in README, f"README does not list the [{name}] extra"
    (installed,) = re.findall(r'pip install --quiet -e "\.\[([\w,]+)\]"', (ROOT / "Makefile").read_text())
    m = re.search(r"editable mode with its (.*?) extras", README, re.S)
    assert m, "README: the sentence on what make installs changed; update this test with it"
    assert sorted(re.findall(r"`(\w+)`", m.group(1))) == sorted(installed.split(",")), m.group(0)


#: the README's headline sentences, whose figures tests/test_benchmark_figures.py reads in results/benchmark.json
HEADLINES = (
    r"about [\d,]+ decisions per second for 4-player French Tarot and [\d,]+ for\s+Ottocento",
    r"About [\d.]+ million decisions per second at [\d,]+ tables",
)
#: a figure of speed: decisions or steps per second, a speed-up or slow-down
SPEED = re.compile(
    r"\d[\d,.]*\s*(?:million\s+)?(?:decisions|steps)(?:\s+per\s+second|/s)|\d(?:\.\d+)?\s*x\b|\d[\d.]*\s+times\b|\d+\s*%\s+(?:faster|slower)"
)


def test_every_speed_figure_of_the_readme_is_one_of_the_benchmark_json():
    """A reader is on his own machine: the README's speed figures are the benchmark's (the headline
    sentences, checked against ``results/benchmark.json``), and it speaks of no "this machine"."""
    text = README
    for headline in HEADLINES:
        assert re.search(headline, text), f"README: the headline {headline!r} changed; update this test and test_benchmark_figures"
        text = re.sub(headline, "", text)
    assert not re.findall(r"this (?:virtual )?machine", README, re.I)
    assert not SPEED.findall(text), f"README: speed figures that are not results/benchmark.json's: {SPEED.findall(text)}"


# ------------------------------------------------------------------------------------- docs/agents.md
def _number(text: str) -> float:
    """``"1.5 million"`` -> 1500000.0, ``"10,000"`` -> 10000.0."""
    return float(text.removesuffix(" million").replace(",", "")) * (1e6 if text.endswith(" million") else 1)


def test_agents_md_states_the_codes_training_defaults():
    """One set of defaults, the code's: it said 10,000 cloned deals "by default", then called 15,000
    and 1.5 million steps "these defaults"; the code trains 200,000 steps and ``make train`` 300,000."""
    from tarot_env.experiments.train import TrainConfig

    section = " ".join(DOCS["agents.md"].split("## Training", 1)[1].split("\n## ", 1)[0].split())  # one line
    config = TrainConfig()
    assert f"`--bc-deals`, {config.bc_deals:,} by default" in section
    assert f"`--timesteps` PPO steps ({config.timesteps:,} by default" in section
    (make_train,) = re.findall(r"experiments\.train .*--timesteps (\d+)", (ROOT / "Makefile").read_text())
    assert f"`make train` gives {int(make_train):,}" in section
    # a figure called a default anywhere in the section is one of the code's
    defaults = {config.bc_deals, config.timesteps, config.snapshot_every, config.eval_every, config.checkpoint_every}
    phrases = re.findall(r"(?:these|the) defaults? (?:are )?\(?(\d[^;)]*)", section)
    assert phrases, "docs/agents.md no longer names the defaults beside the longer run; update this test"
    for phrase in phrases:
        for figure in re.findall(r"\d[\d,.]*(?: million)?", phrase):
            assert _number(figure) in defaults, f"docs/agents.md calls {figure} a default: {phrase!r}"


# ------------------------------------------------------------------------------------- docs/cli.md
def test_cli_md_lists_every_agent_the_commands_take():
    """``tarot play`` and ``tarot arena`` take random, rules, pretrained, pimc, search and sb3: models; the
    page listed three of them."""
    names = ("random", "rules", "pretrained", "pimc", "search", "sb3:")  # experiments/arena.py's make_agent, which both use
    found = [b for b in blocks(DOCS["cli.md"]) if re.search(r"`--agents[` ]", b) and not b.startswith("tarot ")]
    assert len(found) >= 2, found  # the play option's row and the arena's paragraph
    for block in found:
        missing = [n for n in names if f"`{n}" not in block and f",{n}" not in block]
        assert not missing, f"docs/cli.md lists the agents without {missing}:\n{block}"
