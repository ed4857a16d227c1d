"""One agent factory: every agent of the project from its name, for the CLI, the arena, the suite and the room.

    make_agent("rules", "ottocento_v0")
    make_agent("pimc:samples=32,time=0.25", "french_tarot_v0", num_players=4)
    make_agent("sb3:runs/train/model_final.zip", "french_tarot_v0", num_players=4)
    make_agent("rllib:runs/rllib/checkpoint#shared_policy", "mattazza_v0", num_players=4)

The names (:data:`AGENT_NAMES`): ``random``; ``rules`` (the family's rule-based bot); ``pretrained``
(the table's committed model, :mod:`tarot_env.agents.trained`); ``pimc[:samples=N,time=S,chunk=K,search=...,base=...,rollout=...]``
(the search agent, plain or over a learned policy such as ``pimc:rollout=pretrained``; the table that plays it
binds it to its env); ``sb3:<path>`` (a MaskablePPO zip,
``.zip`` may be left out); ``rllib:<checkpoint>[#<module>]`` (an RLlib ``algo.save()`` folder, the
shared policy's module unless another is named). Saved models play greedily, their most probable
legal action: that is how trained agents are evaluated, and sampling would add noise to every
comparison (``SB3PolicyAgent(model)`` samples, in the Python API).

Why here: the factory lived in the arena script, with a second copy in the play command, and the room
imported robots from the play command; one place in the agents package lets every front end and
experiment ask for an agent the same way, and refuse the same bad names with the same sentence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: the agent names, as a refusal lists them
AGENT_NAMES = "random, rules, pretrained, pimc[:samples=N,time=S,rollout=pretrained], sb3:<path-to-zip> or rllib:<checkpoint>[#module]"


class AgentCouldNotPlayError(ValueError):
    """An agent could not play this table at all: a model of another game or player count, or every move fell back."""


def make_agent(spec: str, env_id: str, seed: int = 0, num_players: int | None = None, target: int | None = None) -> Any:
    """The agent named ``spec`` for ``env_id`` (at ``num_players``; ``None``: the env's default).

    ``seed`` seeds the random agent and the search agent's samples; ``target`` is the match's target
    score that the Tarocchino bot is told (where it claims). A saved model whose observation or action
    sizes are not the table's is refused with :class:`AgentCouldNotPlayError` (every one of its moves
    would fail and fall back to the bot, and an evaluation would report a tie). Raises ``ValueError``
    for an unknown name or a model file that is missing or unreadable, ``ModuleNotFoundError`` (naming
    the package) when a model needs an extra that is not installed."""
    from tarot_env.agents import rule_agent

    if not isinstance(spec, str):
        raise ValueError(f"agent {spec!r} refused: an agent is named by a string, one of {AGENT_NAMES}")
    if spec == "random":
        from tarot_env.agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if spec == "rules":
        return rule_agent(env_id, target)
    if spec == "pretrained":  # the table's trained model (results/models/<table>.zip)
        from tarot_env.agents.trained import model_file, table_of

        spec = f"sb3:{model_file(table_of(env_id, num_players))}"
    if spec == "pimc" or spec.startswith("pimc:"):
        from tarot_env.agents.pimc import parse_spec

        return parse_spec(spec, seed=seed)
    if spec.startswith("sb3:"):
        return _sb3_agent(spec, env_id, num_players)
    if spec.startswith("rllib:"):
        return _rllib_agent(spec)
    raise ValueError(f"unknown agent {spec!r}: use {AGENT_NAMES}")


def _sb3_agent(spec: str, env_id: str, num_players: int | None) -> Any:
    from tarot_env.agents.sb3_policy import SB3PolicyAgent
    from tarot_env.agents.trained import maskable_ppo

    path = model_path(spec)
    MaskablePPO = maskable_ppo()
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as err:  # a zip of something else, a truncated file ...: SB3 raises many kinds
        raise ValueError(f"agent {spec!r}: {str(path)!r} is not a model saved by MaskablePPO ({type(err).__name__}: {err})") from err
    check_model_fits(model, spec, env_id, num_players)
    return SB3PolicyAgent(model, deterministic=True)


def _rllib_agent(spec: str) -> Any:
    from tarot_env import rllib

    text = spec[len("rllib:") :]
    checkpoint, _, module = text.partition("#")
    if not checkpoint:
        raise ValueError(f"agent {spec!r} names no checkpoint: give rllib:<checkpoint folder>[#module], e.g. rllib:runs/rllib/checkpoint")
    if not Path(checkpoint).is_dir():
        raise ValueError(f"agent {spec!r}: there is no checkpoint folder {checkpoint!r}; give the folder algo.save() wrote")
    return rllib.RLlibPolicyAgent.from_checkpoint(checkpoint, module or rllib.SHARED_POLICY)


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


def model_path(spec: str) -> Path:
    """The model file of ``sb3:<path>``: the path as given, or with ``.zip`` added (as SB3 saves it).

    Resolved here rather than by SB3, which adds ``.zip`` to a missing path and then reports
    ``model_final.zip.zip``, a file the user never named.
    """
    text = spec[len("sb3:") :]
    if not text:
        raise ValueError(f"agent {spec!r} names no model file: give sb3:<path-to-zip>, e.g. sb3:runs/train/model_final.zip")
    path = Path(text)
    if path.is_file():
        return path
    if path.is_dir():
        raise ValueError(f"agent {spec!r}: {text!r} is a folder; give the model's file, e.g. sb3:{path / 'model_final.zip'}")
    zipped = path.with_name(path.name + ".zip")
    if path.suffix != ".zip" and zipped.is_file():
        return zipped
    tried = repr(text) if path.suffix == ".zip" else f"{text!r} (nor {str(zipped)!r})"
    raise ValueError(f"agent {spec!r}: there is no model file {tried}; give a model saved by training, e.g. sb3:runs/train/model_final.zip")


def check_model_fits(model: Any, spec: str, env_id: str, num_players: int | None = None) -> None:
    """Refuse a model whose observation or action sizes differ from the table's (:class:`AgentCouldNotPlayError`)."""
    from tarot_env.agents.trained import table_of

    import tarot_env

    env = tarot_env.make(env_id, **({} if num_players is None else {"num_players": num_players}))
    agent = env.possible_agents[0]
    want = (tuple(env.observation_space(agent)["observation"].shape), int(env.action_space(agent).n))
    n = getattr(model.action_space, "n", None)
    got = (tuple(getattr(model.observation_space, "shape", None) or ()), None if n is None else int(n))
    if got != want:

        def size(shape: tuple[int, ...]) -> str:
            return str(shape[0]) if len(shape) == 1 else "x".join(map(str, shape)) or "?"

        raise AgentCouldNotPlayError(
            f"agent {spec!r} cannot play {table_of(env_id, num_players)}: its model takes observations of {size(got[0])} values "
            f"and chooses among {got[1]} actions, the table's are {size(want[0])} and {want[1]} "
            "(a model of another game or player count)"
        )
