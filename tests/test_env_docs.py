"""The env modules' docstrings (PettingZoo's classic-env format) say what the code does.

Each env module documents its env in its docstring (it ships in the wheel). The tables that come
from the code are printed by the development tool ``tools/env_docs.py`` (not in the package: it
rewrites the package's source) and must appear verbatim; the header's numbers are checked again
here against the env made from the module, independently of that printer. After a change,
``.venv/bin/python tools/env_docs.py --write`` regenerates the blocks in place.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tarot_env.envs.tarocchino_rewards import REWARD_SCALE
from tarot_env.registry import ENV_IDS, PETTINGZOO_IDS, parallel_env

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "env_docs.py"


def load_tool() -> ModuleType:
    """``tools/env_docs.py`` read from its file: the tools folder is no package and is not installed."""
    spec = importlib.util.spec_from_file_location("env_docs", TOOL)
    assert spec is not None and spec.loader is not None, TOOL
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


env_docs = load_tool()


def doc_of(env_id: str) -> str:
    doc = importlib.import_module(f"tarot_env.{env_id}").__doc__
    assert doc, f"tarot_env.{env_id} has no docstring"
    return doc


def header(doc: str) -> dict[str, str]:
    """The header table's rows, name -> value (the first table of the docstring)."""
    rows = {}
    for line in doc.split("\n\n")[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and not set(cells[0]) <= {"-"}:
            rows[cells[0]] = cells[1]
    return rows


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_docstring_has_every_section_in_order(env_id):
    doc = doc_of(env_id)
    assert doc.splitlines()[0].endswith(f"`{env_id}`."), "the first line names the env id"
    assert tuple(header(doc)) == env_docs.HEADER_ROWS
    positions = []
    for heading in env_docs.SECTIONS:
        found = [m.start() for m in re.finditer(rf"^{re.escape(heading)}$", doc, re.M)]
        assert len(found) == 1, f"{env_id}: section {heading!r} found {len(found)} times"
        positions.append(found[0])
    assert positions == sorted(positions), f"{env_id}: sections out of order"
    assert re.search(r"^\* v0: ", doc, re.M), "Version History lists v0"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_generated_blocks_appear_verbatim(env_id):
    doc = doc_of(env_id)
    for name, block in env_docs.blocks(env_id).items():
        start, end = env_docs.locate(doc, name)  # where `--write` puts it, so that rewriting is safe
        assert doc[start:end] == block, (
            f"the {name} block of tarot_env/{env_id}.py's docstring differs from the code; "
            f"run `.venv/bin/python tools/env_docs.py --write` to regenerate it. Expected:\n{block}"
        )


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_header_numbers_match_the_env(env_id):
    rows = header(doc_of(env_id))
    module = importlib.import_module(f"tarot_env.{env_id}")
    counts = env_docs.player_counts(env_id)
    default_n = env_docs.default_players(env_id)
    assert rows["Import"] == f"`from tarot_env import {env_id}`"
    assert PETTINGZOO_IDS[env_id] in rows["Parallel API"]
    shapes = rows["Observation Shape"]
    for n in counts:
        env = module.env(num_players=n) if len(counts) > 1 else module.env()
        agent = env.possible_agents[0]
        assert len(env.possible_agents) == n
        assert rows["Action Shape"] == f"Discrete({env.action_space(agent).n})"
        assert rows["Action Values"] == f"[0, {env.action_space(agent).n - 1}]"
        size = env.observation_space(agent)["observation"].shape[0]
        if n == default_n:
            assert rows["Agents"] == f"`agents= {env.possible_agents}`"
            assert rows["Agents count"].split()[0] == str(n)
            assert shapes.startswith(f"({size},)"), (n, shapes)
        else:
            assert f"{n} players ({size},)" in shapes, (n, shapes)
    if len(counts) > 1:
        assert f"{counts[0]} to {counts[-1]}" in rows["Agents count"]
    assert rows["Observation Values"] == "[0, 1]"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_parallel_api_has_the_documented_agents_and_spaces(env_id):
    n = env_docs.default_players(env_id)
    par = parallel_env(env_id, **({"num_players": n} if len(env_docs.player_counts(env_id)) > 1 else {}))
    aec = env_docs.make_env(env_id)
    assert par.possible_agents == aec.possible_agents
    agent = aec.possible_agents[0]
    assert par.action_space(agent) == aec.action_space(agent)
    assert par.observation_space(agent)["observation"].shape == aec.observation_space(agent)["observation"].shape


@pytest.mark.parametrize("env_id", [e for e in ENV_IDS if e != "french_tarot_v0"])
def test_tarocchino_docstring_states_the_normalised_scale(env_id):
    scale = REWARD_SCALE[env_docs.game_of(env_id)]
    assert f'| `"normalised"` | the `"score"` reward / {scale}' in doc_of(env_id)


def test_action_groups_cover_every_action_once():
    for env_id in ("french_tarot_v0", "ottocento_v0"):
        env = env_docs.make_env(env_id)
        rows = env_docs.action_rows(env_id)
        ids = [a for first, last, _, _ in rows for a in range(first, last + 1)]
        assert ids == list(range(env.action_space(env.possible_agents[0]).n))
        for first, last, strings, _ in rows:  # each group's strings name its actions
            for a in (first, last):
                text = env.unwrapped.action_to_string(a)
                verb = text.split()[0]
                assert f"`{text}`" in strings or f"`{verb} <card>`" in strings, (a, text, strings)


def test_documented_env_options_are_the_env_signature():
    import inspect

    from tarot_env.env_facts import ENV_OPTIONS
    from tarot_env.envs.french_tarot import FrenchTarotEnv
    from tarot_env.envs.tarocchino import TarocchinoEnv

    for cls, skip in ((FrenchTarotEnv, {"self", "num_players", "rules"}), (TarocchinoEnv, {"self", "game", "num_players", "rules"})):
        params = inspect.signature(cls.__init__).parameters
        assert [p for p in params if p not in skip] == list(ENV_OPTIONS), cls.__name__
        for name, (default, _, _) in ENV_OPTIONS.items():
            assert params[name].default == default, (cls.__name__, name)


def test_mattazza_defaults_to_four_players():
    env = importlib.import_module("tarot_env.mattazza_v0").env()
    assert len(env.possible_agents) == env_docs.default_players("mattazza_v0") == 4


def test_the_tool_prints_an_envs_blocks_from_the_command_line():
    """The documented command runs as a script from the checkout (no ``--write``: it only prints)."""
    done = subprocess.run([sys.executable, str(TOOL), "quindici_v0"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for name, block in env_docs.blocks("quindici_v0").items():
        assert f"--- quindici_v0: {name}\n{block}\n" in done.stdout, name
