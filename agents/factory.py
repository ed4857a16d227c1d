"""One agent factory: every agent of the project from its name, for the CLI, the arena, the suite and the room.

    make_agent("rules", "ottocento_v0")
    make_agent("pimc:samples=32,time=0.25", "french_tarot_v0", num_players=4)
    make_agent("sb3:runs/train/model_final.zip", "french_tarot_v0", num_players=4)
    make_agent("rllib:runs/rllib/checkpoint#shared_policy", "mattazza_v0", num_players=4)

The names (:data:`AGENT_NAMES`): ``random``; ``rules`` (the family's rule-based bot); ``pretrained``
(the table's committed model, :mod:`tarot_env.agents.trained`); ``pimc[:samples=N,time=S,chunk=K,search=...,base=...,rollout=...]``
(the search agent, plain or over a learned policy such as ``pimc:rollout=pretrained``; the table that plays it
binds it to its env); ``search[:...]`` (the project's strongest player: plain PIMC's bids and discards, its card
play searched over the table's trained network, :data:`tarot_env.agents.pimc.SEARCH_SPEC`); ``sb3:<path>`` (a MaskablePPO zip,
``.zip`` may be left out); ``rllib:<checkpoint>[#<module>]`` (an RLlib ``algo.save()`` folder, the
shared policy's module unless another is named). Saved models play greedily, their most probable
legal action: that is how trained agents are evaluated, and sampling would add noise to every
comparison (``SB3PolicyAgent(model)`` samples, in the Python API).

Why here: the factory lived in the arena script, with a second copy in the play command, and the room
imported robots from the play command; one place in the agents package lets every front end and
experiment ask for an agent the same way, and refuse the same bad names with the same sentence.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tarot_env.agents.policies import AGENT_NAMES, AgentCouldNotPlayError, check_model_fits, make_policy, model_path

__all__ = [
    "AGENT_NAMES",
    "AgentCouldNotPlayError",
    "agent_move",
    "check_model_fits",
    "make_agent",
    "make_agents",
    "model_path",
    "split_agents",
]


def make_agent(spec: str, env_id: str, seed: int = 0, num_players: int | None = None, target: int | None = None) -> Any:
    """The agent named ``spec`` for ``env_id`` (at ``num_players``; ``None``: the env's default).

    ``seed`` seeds the random agent and the search agent's samples; ``target`` is the match's target
    score that the Tarocchino bot is told (where it claims). Every name but the search's is made by
    :func:`.policies.make_policy` (its errors: an unknown name, a missing or unreadable model file, a
    model of another table, :class:`AgentCouldNotPlayError`; ``ModuleNotFoundError`` naming the
    package when a model needs an extra that is not installed)."""
    from tarot_env.agents.pimc import is_search_spec, parse_spec

    if is_search_spec(spec):  # its learned policies are made now (a model loaded, a missing one refused)
        return parse_spec(spec, seed=seed).prepare(env_id, num_players)
    return make_policy(spec, env_id, seed=seed, num_players=num_players, target=target)


def make_agents(
    specs: list[str], env_id: str, seats: list[int], seed: int, target: int | None, num_players: int | None = None
) -> dict[int, tuple[str, Any]]:
    """``{seat: (name, agent)}`` for the agents' seats, the specs given in seat order and cycled.

    Each seat's agent is seeded with ``seed + seat``; ``target`` is the match's, told to the rule-based
    bot. ``num_players``: the table's, so that a model trained for another table is refused now rather
    than replaced by the bot at every move. A bad name or model ends the command (``SystemExit``) with
    the sentence a player reads: ``tarot play`` and the room seat agents this way."""
    from tarot_env.agents import rule_agent

    out = {}
    for k, seat in enumerate(seats):
        spec = specs[k % len(specs)]
        try:
            if spec == "rules":
                agent = rule_agent(env_id, target)
            else:
                agent = make_agent(spec, env_id, seed + seat, num_players=num_players)
        except ModuleNotFoundError as err:
            raise SystemExit(f'tarot play: agent {spec!r} needs {err.name}, from the train extra: pip install "tarot_env[train]"') from err
        except ValueError as err:
            raise SystemExit(f"tarot play: error: {err}") from err
        except OSError as err:  # a model file that is not there
            raise SystemExit(f"tarot play: cannot load agent {spec!r}: {err}") from err
        out[seat] = (spec.split(":", 1)[0], agent)
    return out


def agent_move(agent: Any, fallback: Any, obs: dict[str, np.ndarray]) -> int:
    """An agent's action; the ``fallback`` agent's (the rule-based bot) where the agent fails or
    answers an illegal move: a failing model must not end a human's game."""
    mask = np.asarray(obs["action_mask"], dtype=bool)
    try:
        a = int(np.asarray(agent.act(obs["observation"], obs["action_mask"])).reshape(-1)[0])
        if 0 <= a < len(mask) and mask[a]:
            return a
    except Exception:  # an sb3 policy that fails must not end the human's game: the rule-based bot moves
        pass
    return int(np.asarray(fallback.act(obs["observation"], obs["action_mask"])).reshape(-1)[0])


def split_agents(text: str) -> list[str]:
    """The agents of a comma-separated ``--agents`` list. A ``key=value`` item continues the agent
    before it (``pimc:samples=32,time=0.25,rules`` is two agents: the search agent's parameters are
    comma-separated too; a parameter's value may name an agent with a colon, ``rollout=sb3:runs/x.zip``)."""
    specs: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        key, sep, _ = item.partition("=")
        if sep and ":" not in key and specs and ":" in specs[-1]:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs
