"""agents/factory.py: every agent name of the project is made in one place, and a bad name is refused
with the names allowed; the CLI's play command and the scripts ask it (not the arena script)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from tarot_env.agents.factory import AGENT_NAMES, AgentCouldNotPlayError, make_agent, split_agents
from tarot_env.agents.french_rules import FrenchRuleAgent
from tarot_env.agents.pimc import PIMCAgent
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.agents.sb3_policy import SB3PolicyAgent
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

import tarot_env

ROOT = Path(__file__).resolve().parents[1]


def test_each_name_makes_its_agent() -> None:
    assert isinstance(make_agent("random", "ottocento_v0"), RandomAgent)
    assert isinstance(make_agent("rules", "french_tarot_v0"), FrenchRuleAgent)
    assert isinstance(make_agent("rules", "quindici_v0", target=21), TarocchinoRuleAgent)
    pimc = make_agent("pimc:samples=8,time=0.1", "french_tarot_v0", seed=3)
    assert isinstance(pimc, PIMCAgent) and (pimc.samples, pimc.time) == (8, 0.1)
    trained = make_agent("pretrained", "french_tarot_v0", num_players=4)
    assert isinstance(trained, SB3PolicyAgent) and trained.deterministic


def test_a_saved_model_plays_legal_moves_greedily() -> None:
    agent = make_agent(f"sb3:{ROOT / 'results/models/french_tarot_v0_4p'}", "french_tarot_v0", num_players=4)  # .zip left out
    env = tarot_env.make("french_tarot_v0", num_players=4)
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    mask = np.asarray(obs["action_mask"], dtype=bool)
    first = agent.act(np.asarray(obs["observation"]), mask)
    assert mask[first] and all(agent.act(np.asarray(obs["observation"]), mask) == first for _ in range(3))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense", "unknown agent 'nonsense': use random, rules, pretrained"),
        ("sb3:", "names no model file"),
        ("sb3:no/such/model.zip", "there is no model file 'no/such/model.zip'"),
        ("rllib:", "names no checkpoint"),
        ("rllib:no/such/checkpoint", "there is no checkpoint folder 'no/such/checkpoint'"),
        ("pimc:samples=0", "samples must be a positive int"),
    ],
)
def test_bad_names_are_refused_with_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        make_agent(spec, "french_tarot_v0")
    assert "rllib:<checkpoint>" in AGENT_NAMES


def test_a_model_of_another_table_is_refused() -> None:
    with pytest.raises(AgentCouldNotPlayError, match="cannot play french_tarot_v0_5p"):
        make_agent(f"sb3:{ROOT / 'results/models/french_tarot_v0_4p.zip'}", "french_tarot_v0", num_players=5)


def test_split_agents_keeps_the_search_agents_parameters() -> None:
    assert split_agents("pimc:samples=32,time=0.25,rules, random") == ["pimc:samples=32,time=0.25", "rules", "random"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    return names | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def test_the_play_command_and_the_agents_do_not_import_the_experiment_scripts() -> None:
    """The factory is library code: ``tarot play`` and the agents package reach it without the arena script.
    (``tarot arena/train/bench`` run the scripts themselves: cli/scripts.py imports them by design.)"""
    for path in [*(ROOT / "agents").glob("*.py"), ROOT / "tarot_env" / "cli" / "play.py"]:
        assert not any(m.startswith("tarot_env.experiments") for m in _imports(path)), path
