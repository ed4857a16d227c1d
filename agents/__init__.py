"""Agents that play the tarot_env environments (baselines and wrappers).

``pretrained(table)`` loads the trained agent of a table (see :mod:`.trained`)."""

from tarot_env.agents.trained import TABLES, available, pretrained

__all__ = ["TABLES", "available", "pretrained"]
