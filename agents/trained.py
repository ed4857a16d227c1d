"""The trained agents of this repository, one per table, loadable by name.

>>> from tarot_env.agents import pretrained
>>> agent = pretrained("ottocento_v0")                 # plays greedily, as in the benchmark
>>> action = agent.act(observation, action_mask)

A table is named as the arena names it (``french_tarot_v0_4p``, ``ottocento_v0``,
``mattazza_v0_5p``: :data:`TABLES`). The models are ``results/models/<table>.zip`` in the
repository (MaskablePPO files: the policy's weights, no optimizer state), found from a checkout
or through the ``TAROT_ENV_MODELS`` folder; the same files play as ``sb3:results/models/<table>.zip``
in ``tarot arena`` and ``tarot play``. Which tables have a model, with its training budget and its
benchmark numbers: docs/results.md. Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib);
without it, :func:`pretrained` says which extra to install.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tarot_env.env_facts import LEADERBOARD_TABLES, facts

#: how to install what a trained agent needs
TRAIN_EXTRA = 'pip install "tarot_env[train]"'

#: every table of the benchmark: (env id, player count or None for the game's only count), named
#: by the env's row of :mod:`tarot_env.env_facts` (``<env_id>_<n>p`` where a game has several counts)
TABLES: dict[str, tuple[str, int | None]] = LEADERBOARD_TABLES


#: tables played by another table's model: a one-hand episode of Quattro Scartate is an Ottocento
#: hand (the same deal, rules and observation; the games differ only over a match, docs/rules/tarocchino.md §9), so the
#: Ottocento agent plays both
SAME_MODEL: dict[str, str] = {"quattro_scartate_v0": "ottocento_v0"}


def table_of(env_id: str, num_players: int | None = None) -> str:
    """The table an env id and player count make (``None``: the env's default count)."""
    if num_players is None:
        num_players = facts(env_id).default_players
    for table, (e, n) in TABLES.items():
        if e == env_id and n in (None, num_players):
            return table
    raise ValueError(f"no table for {env_id!r} with {num_players} players; the tables are {', '.join(TABLES)}")


def maskable_ppo() -> Any:
    """sb3-contrib's ``MaskablePPO``, which loads the models, with torch and stable-baselines3 behind it.

    Without the train extra the import fails with a bare ``No module named 'sb3_contrib'``, which
    does not say where the module comes from: the error raised here names the extra to install."""
    try:
        import tarot_env.agents.sb3_policy  # noqa: F401  (torch and stable-baselines3, which the agent plays with)
        from sb3_contrib import MaskablePPO
    except ModuleNotFoundError as err:
        missing = (err.name or "sb3_contrib").split(".")[0]  # the package, not the submodule that imported first
        raise ModuleNotFoundError(
            f"the trained agents need {missing} (torch, stable-baselines3 and sb3-contrib), from the train extra: {TRAIN_EXTRA}",
            name=missing,
        ) from err
    return MaskablePPO


def models_dir() -> Path:
    """Where the models are: ``$TAROT_ENV_MODELS``, else ``results/models`` of the checkout."""
    env = os.environ.get("TAROT_ENV_MODELS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "results" / "models"


def model_file(table: str) -> Path:
    """The model file of ``table``; ``ValueError`` naming the tables that have one if there is none."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; the tables are {', '.join(TABLES)}")
    path = models_dir() / f"{SAME_MODEL.get(table, table)}.zip"
    if not path.is_file():
        have = available()
        raise ValueError(
            f"no trained model for {table!r} in {str(models_dir())!r}; models: {', '.join(have) if have else 'none'} "
            "(a checkout of the repository has them in results/models; elsewhere set TAROT_ENV_MODELS to that folder)"
        )
    return path


def available() -> list[str]:
    """The tables that have a model, in :data:`TABLES` order."""
    folder = models_dir()
    return [t for t in TABLES if (folder / f"{SAME_MODEL.get(t, t)}.zip").is_file()]


def pretrained(table: str, deterministic: bool = True) -> Any:
    """The trained agent of ``table`` (an :class:`~tarot_env.agents.sb3_policy.SB3PolicyAgent`).

    ``deterministic=True`` plays the most probable legal action, as the benchmark evaluates it;
    ``False`` samples from the policy. Needs the train extra (``ModuleNotFoundError`` naming it
    otherwise); outside a checkout, ``TAROT_ENV_MODELS`` names the folder of the models."""
    MaskablePPO = maskable_ppo()
    from tarot_env.agents.sb3_policy import SB3PolicyAgent

    model = MaskablePPO.load(str(model_file(table)), device="cpu")
    agent = SB3PolicyAgent(model, deterministic=deterministic)
    agent.name = f"pretrained:{table}"
    return agent


def export(source: str | Path, table: str, folder: str | Path | None = None) -> Path:
    """Save the model of a training run (``source``, e.g. ``runs/x/model_final.zip``) as
    ``<folder>/<table>.zip`` for users: the same network, its weights stored as float16 and no
    optimizer state (a fresh, empty one, which SB3 needs to load the file), so that the file is
    small. The exported model is what the benchmark evaluates."""
    MaskablePPO = maskable_ppo()

    if table not in TABLES or table in SAME_MODEL:
        own = [t for t in TABLES if t not in SAME_MODEL]
        raise ValueError(f"cannot export a model for {table!r}: the tables with a model file of their own are {', '.join(own)}")
    model = MaskablePPO.load(str(source), device="cpu")
    policy = model.policy.half()  # stored as float16; loading copies the weights into a float32 policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs)
    out = Path(folder) if folder is not None else models_dir()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{table}.zip"
    model.save(path, exclude=["tensorboard_log", "_last_obs", "_last_episode_starts", "ep_info_buffer", "ep_success_buffer"])
    return path
