"""quindici_v0: see docs/tarocchino.md (rules: rules/tarocchino.md)."""

from __future__ import annotations

from tarot_env.envs.tarocchino import TarocchinoEnv, make_env_functions

__all__ = ["TarocchinoEnv", "env", "raw_env"]

env, raw_env = make_env_functions("quindici", __doc__)
