"""Write ``tests/data/bot_golden.json``: the rule-based bots' decisions over a fixed deal set (tests/golden_bots.py).

Run from the repository root, on the bots whose decisions are the reference:

    .venv/bin/python tests/data/make_bot_golden.py

The first file was written with ``--check``: every decision of the compiled bots was then also
asked of the verbatim copies of the Python bots they were compiled from (the oracles
``french_rules_bot.py`` and ``tarocchino_rules_bot.py``, then in tests/oracles, deleted in the
commit after the one that added this script: ``--check`` runs at that commit only) and had to be
equal. Rewrite the file only for a change of a bot's strategy that is meant, and say so in the commit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: golden_bots, helpers_setup, oracles

import golden_bots as G  # noqa: E402
import numpy as np  # noqa: E402
from tarot_env.agents.french_rules import FrenchRuleAgent  # noqa: E402
from tarot_env.agents.tarocchino_rules import TarocchinoRuleAgent  # noqa: E402

OUT = HERE / "bot_golden.json"


def _checked(new, old, what: str):
    """An ``act`` that answers with ``new`` and fails at once where ``old`` answers otherwise."""
    asked = [0]

    def act(observations, masks):
        a, b = np.asarray(new(observations, masks)), np.asarray(old(observations, masks))
        if not np.array_equal(a, b):
            raise SystemExit(f"{what}: the compiled bot and the oracle differ after {asked[0]} equal decisions")
        asked[0] += a.size
        return a

    return act


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="also ask the oracle copies of the bots (tests/oracles) at every decision")
    args = parser.parse_args()
    french = FrenchRuleAgent()
    french_act = french.act
    if args.check:
        try:
            from oracles.french_rules_bot import decide
            from oracles.tarocchino_rules_bot import TarocchinoRuleAgent as OracleBot
        except ImportError:
            raise SystemExit("--check: the oracle copies of the bots are gone; run it at the commit that added this script") from None

        def oracle_french(observations, masks):
            if np.ndim(masks) == 1:
                return decide(observations, masks)
            return np.array([decide(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

        french_act = _checked(french.act, oracle_french, "French")

    def tarocchino_bot(env_id: str, target: int | None):
        bot = TarocchinoRuleAgent(env_id, target=target)
        if not args.check:
            return bot
        oracle = OracleBot(env_id, target=target)

        class Both:
            act = staticmethod(_checked(bot.act, oracle.act, env_id))

        return Both

    tables = {k: t.golden() for k, t in G.french_golden(french_act).items()}
    tables.update({k: t.golden() for k, t in G.tarocchino_golden(tarocchino_bot).items()})
    forced = {str(n): G.play_forced_ecart(french_act, n)[0] for n in (3, 4, 5)}
    tuned = G.tuned_golden(lambda env_id: TarocchinoRuleAgent(env_id))
    strength = [TarocchinoRuleAgent.hand_strength(h) for h in G.strength_hands()]
    if args.check:
        tuned_oracle = G.tuned_golden(lambda env_id: OracleBot(env_id))
        assert tuned == tuned_oracle, "the tuned bots differ"
        assert strength == [OracleBot.hand_strength(h) for h in G.strength_hands()], "the hand strengths differ"
    data = {"step_hex": G.STEP_HEX, "tables": tables, "forced_ecart": forced, "tuned": tuned, "hand_strength": strength}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(tables)} tables, {sum(t['decisions'] for t in tables.values()):,} decisions, {OUT.stat().st_size:,} bytes"
          + (" (every decision equal to the oracles')" if args.check else ""))  # fmt: skip


if __name__ == "__main__":
    main()
