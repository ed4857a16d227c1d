"""The registry of environment ids (interface.md §1)."""

from __future__ import annotations

import importlib
from typing import Any

#: env id -> module exposing ``env()`` / ``raw_env()``
_MODULES = {
    "french_tarot_v0": "tarot_env.french_tarot_v0",
    "ottocento_v0": "tarot_env.ottocento_v0",
    "quattro_scartate_v0": "tarot_env.quattro_scartate_v0",
    "terziglio_v0": "tarot_env.terziglio_v0",
    "millone_v0": "tarot_env.millone_v0",
    "centocinquanta_v0": "tarot_env.centocinquanta_v0",
    "quindici_v0": "tarot_env.quindici_v0",
    "mattazza_v0": "tarot_env.mattazza_v0",
}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)


def make(env_id: str, **config: Any):
    """Make the environment ``env_id`` with its options, e.g. ``make("french_tarot_v0", num_players=5)``."""
    if env_id not in _MODULES:
        raise ValueError(f"unknown env id {env_id!r}; registered ids: {', '.join(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id]).env(**config)
