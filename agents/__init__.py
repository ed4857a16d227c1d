"""Agents that play the tarot_env environments (baselines and wrappers)."""
