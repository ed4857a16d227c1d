"""French Tarot (FFT rules) for 3, 4 and 5 players as a PettingZoo AEC environment.

See :mod:`tarot_env.french_tarot_v0` for the user-facing documentation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.french import FRENCH_DECK, IS_TRUMP
from tarot_env.encoding.french import FrenchTarotEncoder
from tarot_env.envs.base import ROW, TarotAECEnv
from tarot_env.envs.french_rewards import final_rewards, trick_rewards
from tarot_env.rules.french import actions as A
from tarot_env.rules.french.config import FrenchTarotConfig, make_config
from tarot_env.rules.french.deal import format_deal
from tarot_env.rules.french.game import FrenchTarotGame
from tarot_env.rules.french.state import Chelem, Phase, Result
from tarot_env.rules.game import HandEnds
from tarot_env.rules.options import check_env_options

_SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")


class FrenchTarotEnv(TarotAECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "french_tarot_v0", "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str = "score",
        shaping: bool = False,
        oracle: bool = False,
        dealer: int | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **rules: Any,
    ) -> None:
        config = make_config(num_players, **rules)
        check_env_options(num_players, reward, dealer, shaping=shaping, oracle=oracle)
        self.dealer = dealer
        self._tricks_seen = 0
        super().__init__(
            config,
            render_mode=render_mode,
            reward=reward,
            shaping=shaping,
            oracle=oracle,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
        )

    # ------------------------------------------------------------------ hooks
    def _make_game(self, config: FrenchTarotConfig) -> FrenchTarotGame:
        return FrenchTarotGame(config)

    def _make_encoder(self, game: FrenchTarotGame) -> FrenchTarotEncoder:
        return FrenchTarotEncoder(game)

    def _parse_reset(self, options: dict[str, Any]) -> tuple[int, np.ndarray] | None:
        return None if options.get("deal") is None else self.game.parse_deal(options["deal"])

    def _start(self, deal: tuple[int, np.ndarray] | None, rng: np.random.Generator) -> None:
        if deal is None:
            dealer = int(rng.integers(self.game.num_players)) if self.dealer is None else self.dealer
            self.game.shuffle_and_deal(self.game_state, ROW, np.array([dealer]), rng)
        else:
            dealer, pack = deal
            self.game.start_deals(self.game_state, ROW, np.array([dealer]), pack[None])
        self._tricks_seen = 0

    def _hands_ended(self, ends: HandEnds) -> None:
        """A French deal is the whole episode: it pays in :meth:`_finish`, where a deal annulled as
        it is dealt (which no step ends) pays too."""

    def _deal_snapshot(self) -> tuple[int, np.ndarray, np.ndarray]:
        s = self.game_state
        return int(s.dealer[0]), s.hands[0].copy(), s.chien[0].copy()

    def _deal_record(self, snapshot: tuple[int, np.ndarray, np.ndarray]) -> dict[str, Any]:
        return format_deal(*snapshot)

    def _trick_rewards(self) -> np.ndarray | None:
        t = int(self.game_state.trick_no[0])
        if t == self._tricks_seen:
            return None
        self._tricks_seen = t
        return trick_rewards(self.game, self.game_state, ROW, self.reward_mode)[0]

    def _finish(self) -> None:
        """The deal is over: its score pays (less what shaping paid), its infos say how it ended."""
        scores = [int(x) for x in self.game_state.scores[0]]
        self._pay(final_rewards(self.game_state.scores[:1], self.reward_mode)[0] - self._shaped, {"scores": scores, **self.result_info()})
        self._deals[-1]["scores"] = scores
        super()._finish()

    def result_info(self) -> dict[str, Any]:
        s = self.game_state
        result = int(s.result[0])
        info: dict[str, Any] = {"result": Result.name(result)}
        if result == Result.PLAYED:
            info.update(
                taker=int(s.taker[0]),
                partner=int(s.partner[0]),
                contract=A.CONTRACTS[int(s.contract[0]) - 1],
                attack_points=float(s.attack_points[0]) / 2,
                attack_bouts=int(s.attack_bouts[0]),
                made=bool(s.made[0]),
                petit_au_bout=int(s.petit_au_bout[0]),
                chelem=Chelem.name(int(s.chelem_result[0])),
                unit=int(s.unit[0]),
            )
        return info

    # ------------------------------------------------------------------ actions
    @staticmethod
    def action_to_string(action: int) -> str:
        """Canonical string of an action id (docs/interface.md §3)."""
        return A.action_to_string(action)

    @staticmethod
    def string_to_action(text: str) -> int:
        """Action id of a canonical string (case-insensitive)."""
        return A.string_to_action(text)

    # ------------------------------------------------------------------ render
    def render_text(self) -> str:
        s, n = self.game_state, self.game.num_players
        names = FRENCH_DECK.names
        phase = int(s.phase[0])
        taker = int(s.taker[0])
        lines = [f"French Tarot, {n} players — dealer player_{int(s.dealer[0])} — phase {Phase.name(phase)}"]
        if taker >= 0 and phase != Phase.BID:
            contract = A.CONTRACTS[int(s.contract[0]) - 1]
            extra = ""
            if int(s.called[0]) >= 0:
                extra = f", called {names[int(s.called[0])]}"
            if s.chelem[0]:
                extra += ", chelem announced"
            lines.append(f"taker player_{taker}: {contract}{extra}")
        bids = ["-" if b < 0 else ("pass" if b == 0 else A.CONTRACTS[b - 1]) for b in s.bids[0]]
        width = max(len(a) for a in self.possible_agents)
        for seat in range(n):
            marker = ">" if (phase != Phase.DONE and seat == int(s.current[0])) else " "
            hand = self._format_hand(s.hands[0, seat])
            poignee = int(s.poignee[0, seat])
            tag = f" [poignée {A.POIGNEE_NAMES[poignee - 1]}]" if poignee else ""
            lines.append(f"{marker} {self.possible_agents[seat]:<{width}} bid {bids[seat]:<12} {hand}{tag}")
        if s.chien_seen[0]:
            lines.append(f"  chien: {' '.join(names[c] for c in np.flatnonzero(s.chien[0]))}")
        if s.ecart[0].any():
            lines.append(f"  écart: {' '.join(names[c] for c in np.flatnonzero(s.ecart[0]))}")
        t = int(s.trick_no[0])
        if phase in (Phase.PLAY, Phase.POIGNEE, Phase.SHOW):
            order = [(int(s.leader[0]) + k) % n for k in range(n)]
            cards = [f"player_{p}: {names[int(s.trick[0, p])]}" for p in order if s.trick[0, p] >= 0]
            lines.append(f"  trick {t + 1}/{self.game.num_tricks}: " + (", ".join(cards) or "(no card yet)"))
        if t:
            leader = int(s.leaders[0, t - 1])
            last = [c for c in np.flatnonzero(s.trick_of[0] == t - 1)]
            by_seat = {int(np.flatnonzero(s.played[0, :, c])[0]): c for c in last}
            cards = [f"player_{p}: {names[by_seat[p]]}" for p in ((leader + k) % n for k in range(n))]
            lines.append(f"  trick {t} ({', '.join(cards)}) won by player_{int(s.winners[0, t - 1])}")
        if phase == Phase.DONE:
            info = self.result_info()
            if info["result"] == "played":
                lines.append(
                    f"  attack {info['attack_points']:g} points with {info['attack_bouts']} bouts: contract "
                    f"{'made' if info['made'] else 'lost'}; unit S = {info['unit']}"
                )
            else:
                lines.append(f"  deal {info['result'].replace('_', ' ')}: no score")
            lines.append("  scores: " + ", ".join(f"player_{i} {int(v):+d}" for i, v in enumerate(s.scores[0])))
        return "\n".join(lines)

    @staticmethod
    def _format_hand(mask: np.ndarray) -> str:
        names = FRENCH_DECK.names
        groups = []
        for suit in range(4):
            cards = [c for c in np.flatnonzero(mask) if FRENCH_DECK.suit[c] == suit]
            if cards:
                groups.append(_SUIT_SYMBOLS[suit] + " " + " ".join(names[c] for c in sorted(cards, key=FRENCH_DECK.sort_key)))
        trumps = [c for c in np.flatnonzero(mask & IS_TRUMP)][::-1]
        if trumps or mask[FRENCH_DECK.excuse]:
            groups.append("atouts " + " ".join([names[c] for c in trumps] + (["EX"] if mask[FRENCH_DECK.excuse] else [])))
        return " | ".join(groups) if groups else "(empty)"
