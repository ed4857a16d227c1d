"""Every agent that is not a search, from its name: what the search agent plays its worlds out with.

    make_policy("rules", "ottocento_v0")
    make_policy("pretrained", "french_tarot_v0", num_players=4)
    make_policy("sb3:runs/train/model_final.zip", "french_tarot_v0", num_players=4)

The names: ``random``; ``rules`` (the family's rule-based bot); ``pretrained`` (the table's committed
model, :mod:`tarot_env.agents.trained`); ``sb3:<path>`` (a MaskablePPO zip, ``.zip`` may be left out);
``rllib:<checkpoint>[#<module>]``. :func:`tarot_env.agents.factory.make_agent` adds the search agent
(``pimc...``), which itself makes its play-out and base policies here: so the factory imports the
search and the search imports this module, and no module imports its own importer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: the agent names, as a refusal lists them
AGENT_NAMES = (
    "random, rules, pretrained, pimc[:samples=N,time=S,rollout=pretrained], search[:time=S], sb3:<path-to-zip> "
    "or rllib:<checkpoint>[#module]"
)


class AgentCouldNotPlayError(ValueError):
    """An agent could not play this table at all: a model of another game or player count, or every move fell back."""


def make_policy(spec: str, env_id: str, seed: int = 0, num_players: int | None = None, target: int | None = None) -> Any:
    """The agent named ``spec`` for ``env_id`` (at ``num_players``; ``None``: the env's default), a search excepted.

    ``seed`` seeds the random agent; ``target`` is the match's target
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
    # a model trained with an oracle critic saw the oracle after the observation; its policy plays from the observation
    shape = getattr(getattr(model, "policy", None), "actor_observation_shape", None) or getattr(model.observation_space, "shape", None)
    got = (tuple(shape or ()), None if n is None else int(n))
    if got != want:

        def size(shape: tuple[int, ...]) -> str:
            return str(shape[0]) if len(shape) == 1 else "x".join(map(str, shape)) or "?"

        raise AgentCouldNotPlayError(
            f"agent {spec!r} cannot play {table_of(env_id, num_players)}: its model takes observations of {size(got[0])} values "
            f"and chooses among {got[1]} actions, the table's are {size(want[0])} and {want[1]} "
            "(a model of another game or player count)"
        )
