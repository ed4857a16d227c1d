"""The results that mean a deal was not played: no card was played, and the deal is dealt again.

French Tarot: everybody passed, or a petit sec annulled the deal as it was dealt (docs/rules/french_tarot.md
§2, §5). Tarocchino: Terziglio's hand thrown in when everybody passed; such a hand does not count toward a
match (settlement.settle_matches, U12). The room deals again, the arena and the duplicate challenge count the
deal apart: each reads this one tuple of the rules' result names (``infos["result"]``)."""

from __future__ import annotations

from tarot_env.rules.bolognese.state import Result as TarocchinoResult
from tarot_env.rules.french.state import Result as FrenchResult

NOT_PLAYED: tuple[str, ...] = (
    FrenchResult.name(FrenchResult.ALL_PASSED),
    FrenchResult.name(FrenchResult.PETIT_SEC),
    TarocchinoResult.name(TarocchinoResult.THROWN_IN),
)
