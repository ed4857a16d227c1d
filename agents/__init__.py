"""Agents that play the tarot_env environments (baselines and wrappers).

``pretrained(table)`` loads the trained agent of a table (see :mod:`.trained`); ``rule_agent(env_id)``
makes the rule-based bot of the env's game family."""

from typing import Any

from tarot_env.agents.trained import TABLES, available, pretrained

from tarot_env.env_facts import facts


def rule_agent(env_id: str, target: int | None = None) -> Any:
    """The rule-based bot of the env's game family: :class:`.french_rules.FrenchRuleAgent` for French
    Tarot, else :class:`.tarocchino_rules.TarocchinoRuleAgent` (told the match's ``target``, where it
    claims). The one place the CLI, the arena, training and the online room make it."""
    if facts(env_id).french:
        from tarot_env.agents.french_rules import FrenchRuleAgent

        return FrenchRuleAgent()
    from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent

    return TarocchinoRuleAgent(env_id, target=target)


__all__ = ["TABLES", "available", "pretrained", "rule_agent"]
