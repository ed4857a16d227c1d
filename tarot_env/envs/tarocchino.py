"""The seven Tarocchino games as PettingZoo AEC environments (one class, one module per env id).

See ``docs/tarocchino.md`` for the user documentation: actions, observation layout, rewards,
options, match episodes. The rules live in :mod:`tarot_env.rules.bolognese` (the action
strings and why an action is refused in :mod:`~tarot_env.rules.bolognese.actions`); this
module only turns them into the AEC protocol, on the shared :class:`~tarot_env.envs.base.TarotAECEnv`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK, NUM_CARDS
from tarot_env.encoding.bolognese import TarocchinoEncoder
from tarot_env.envs.base import ROW, TarotAECEnv
from tarot_env.envs.tarocchino_rewards import hand_reward, match_reward, trick_points, trick_reward
from tarot_env.rules.bolognese.actions import action_to_string, string_to_action
from tarot_env.rules.bolognese.config import TarocchinoConfig, default, option_names
from tarot_env.rules.bolognese.game import MatchDeals, TarocchinoGame
from tarot_env.rules.bolognese.game_specs import GameSpec, game_spec
from tarot_env.rules.bolognese.scoring import SU
from tarot_env.rules.bolognese.state import (
    CONTRACT,
    CURRENT,
    DEALER,
    DECLARED,
    DISCARDS_LEFT,
    HAND_NO,
    HAND_OF,
    LEADER,
    PH_AUCTION,
    PH_DONE,
    PHASE,
    PL_EXTRA,
    PL_HAND,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    SOLOIST,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
    TRICKS,
    Phase,
)
from tarot_env.rules.game import HandEnd
from tarot_env.rules.options import check_env_options

ENV_OPTIONS = ("num_players", "render_mode", "reward", "shaping", "oracle", "dealer", "illegal_action", "illegal_reward")


class TarocchinoEnv(TarotAECEnv):
    """One Tarocchino game as an AEC env. Made by the per-game modules (``ottocento_v0`` ...).
    An episode is a hand, or a match of hands (``episode="match"``). ``game`` is a game's name
    or a :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` row of one's own (a variant)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "tarocchino", "is_parallelizable": False}
    _reset_options = ("deal", "deals", "totals")
    _reset_options_text = "the reset options are ['deal', 'deals', 'totals']"
    _episode = "episode"

    def __init__(
        self,
        game: str | GameSpec,
        num_players: int | None = None,
        render_mode: str | None = None,
        reward: str = "score",
        shaping: bool = False,
        oracle: bool = False,
        dealer: int | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **rules: Any,
    ) -> None:
        config = TarocchinoConfig.make(game, num_players, **rules)
        self.metadata = dict(self.metadata, name=f"{config.game}_v0")
        check_env_options(config.num_players, reward, dealer, shaping=shaping, oracle=oracle)
        self.game_name = config.game
        self.dealer = dealer
        self._start_totals: list[int] | None = None
        self._tricks_seen = 0
        self.deals = MatchDeals()  # this episode's deals (records need them; a match may queue fixed ones)
        super().__init__(config, render_mode, reward, shaping, oracle, illegal_action, illegal_reward)

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    # ------------------------------------------------------------------ hooks
    def _make_game(self, config: TarocchinoConfig) -> TarocchinoGame:
        return TarocchinoGame(config)

    def _make_encoder(self, game: TarocchinoGame) -> TarocchinoEncoder:
        return TarocchinoEncoder(game.num_players)

    def _parse_reset(self, options: dict[str, Any]) -> tuple[list[tuple[int, np.ndarray, tuple[int, ...] | None]], np.ndarray | None]:
        """The fixed deals (``deal``, or ``deals`` for the successive hands of a match: dealer,
        pack, seats dealt to) and the running totals (``totals``) of the reset options."""
        if "deal" in options and "deals" in options:
            raise ValueError("give either 'deal' (one fixed deal) or 'deals' (fixed deals for successive hands), not both")
        deals = []
        if options.get("deal") is not None:
            deals.append((*self.game.parse_deal(options["deal"]), None))
        elif options.get("deals") is not None:
            raw = options["deals"]
            if not isinstance(raw, (list, tuple)) or not raw:
                raise ValueError(f"'deals' must be a non-empty list of deals (docs/interface.md §4), got {raw!r:.80}")
            for i, d in enumerate(raw):
                active = self._active_of(d) if i else None
                try:
                    deals.append((*self.game.parse_deal(d, active), active))
                except (ValueError, TypeError) as err:
                    raise type(err)(f"deals[{i}]: {err}") from None
        self._check_dealers(deals)
        return deals, self.config.parse_totals(options.get("totals"))

    def _check_dealers(self, deals: list[tuple[int, np.ndarray, tuple[int, ...] | None]]) -> None:
        """The later deals of a match must be dealt by the dealers the rules name: the next seat
        to the right each hand, where that is known before play (not in Terziglio, whose
        soloist deals next, nor in Mattazza, where players drop out: there a deal that does not
        follow the match truncates the episode when its turn comes)."""
        if len(deals) > 1 and not self.config.match:
            raise ValueError(f"'deals' gives {len(deals)} deals, but an episode is one hand (episode='deal'): give one, or episode='match'")
        if len(deals) < 2 or self.config.spec.next_dealer != "right" or self.config.spec.players_drop_out:
            return
        first = deals[0][0]
        for k, (dealer, _, _) in enumerate(deals[1:], start=1):
            expected = (first + k) % self.num_players
            if dealer != expected:
                raise ValueError(
                    f"deals[{k}] has dealer {dealer}, but the deal passes to the right each hand: after deals[0] dealt by "
                    f"{first}, deals[{k}] is dealt by {expected}"
                )

    def _active_of(self, deal: Any) -> tuple[int, ...] | None:
        """The seats a later Mattazza deal is dealt to: those with cards (players drop out of a match)."""
        if not self.config.spec.players_drop_out or not isinstance(deal, dict) or not isinstance(deal.get("hands"), (list, tuple)):
            return None
        return tuple(s for s, h in enumerate(deal["hands"]) if h) or None

    def _start(self, start: tuple[list, np.ndarray | None], rng: np.random.Generator) -> None:
        deals, totals = start
        self._start_totals = None if totals is None else [int(x) for x in totals]
        self.deals = MatchDeals(queued={0: deals[1:]})  # the game deals them as the match goes on
        self.game_state = self.game.new_state(1)
        if deals:
            dealer, pack, _ = deals[0]
        else:
            dealer = int(rng.integers(self.num_players)) if self.dealer is None else self.dealer
            pack = np.argsort(rng.random(NUM_CARDS))
        self.game.start_deals(
            self.game_state, ROW, np.array([dealer]), pack[None], totals=None if totals is None else totals[None], deals=self.deals
        )
        self._tricks_seen = 0

    def _changed(self) -> None:
        self._cache.clear()
        self._over = self.game_state.ints.item(0, PHASE) == PH_DONE
        self._current = self.game_state.ints.item(0, CURRENT)

    def _deal_snapshot(self) -> tuple[int, np.ndarray, tuple[int, ...]]:
        return self.deals.dealt[0][-1]  # (dealer, pack, seats dealt to)

    def _deal_record(self, snapshot: tuple[int, np.ndarray, tuple[int, ...]]) -> dict[str, Any]:
        return self.game.format_deal(*snapshot)

    # ------------------------------------------------------------------ rewards
    def _hands_ended(self, ends: list[HandEnd]) -> None:
        for end in ends:
            self._pay(*self._hand_end(end))

    def _hand_end(self, end: HandEnd) -> tuple[np.ndarray, dict[str, Any]]:
        if "truncated" in end.info:  # a fixed deal the match could not follow: truncated, not terminated
            self._truncated = end.info["truncated"]
        """Close the hand's record entry (and open the next hand's); the reward it pays (minus
        what shaping paid) and the infos that describe it."""
        entry = self._deals[-1]
        entry["scores"] = list(end.scores)
        entry["info"] = {k: v for k, v in end.info.items() if k != "next_dealer"}
        match = self.config.match
        if match and self.config.options["match_reward"] == "result":
            reward = match_reward(self.config.spec, end) if end.match_over else np.zeros(self.num_players)
            final = end.match_over
        else:
            reward = hand_reward(self.config.spec, self.reward_mode, self.config.options.get("target", 0), end)
            final = True
        if final:
            reward = reward - self._shaped
            self._shaped[:] = 0.0
        self._tricks_seen = 0
        info = {"scores": list(end.scores), **entry["info"]}
        if match:
            info["match_over"] = end.match_over or self._over
        if not self._over:
            self._new_hand()
        return reward, info

    def _trick_rewards(self) -> np.ndarray | None:
        """Shaping after a trick (see :func:`.tarocchino_rewards.trick_reward`)."""
        t = self.game_state.ints.item(0, TRICK_NO)
        if t == self._tricks_seen:
            return None
        self._tricks_seen = t
        if t == 0:  # a new hand of a match was dealt: its last trick is paid with the hand's reward
            return None
        value = float(trick_points(self.game_state.cards[:1], [t - 1])[0])
        state = self.game_state
        return trick_reward(self.config.spec, self.reward_mode, value, int(state.hist[0, t - 1]), self.game._sides(state, ROW)[0])

    # ------------------------------------------------------------------ records
    def _record_args(self) -> tuple:
        return self._deals, self._start_totals, self.totals()

    def _make_record(self, deals: list[dict[str, Any]], start_totals: list[int] | None, totals: list[int]) -> dict[str, Any]:
        """A deal's record, or a match's: its deal records, the running totals and the result."""
        head = {"env": self.metadata["name"], "config": self.config.to_dict()}
        if start_totals is not None:  # the running totals the episode started from (reset option "totals")
            head["start_totals"] = list(start_totals)
        if not self.config.match:
            return {**head, **self._hand_record(deals[0])}
        last = deals[-1].get("info", {})
        result = last.get("game_winner", last.get("match_losers"))
        return {**head, "deals": [self._hand_record(e) for e in deals], "totals": totals, "result": result}

    def hands_played(self) -> list[list[int]]:
        """The scores of each hand finished in this episode, in order."""
        return [list(e["scores"]) for e in self._deals if "scores" in e]

    def totals(self) -> list[int]:
        """Each seat's running total (its side's; Terziglio: the sum of settlements)."""
        return [int(x) for x in self.game_state.seat_ints[0, :, TOTAL]]

    # ------------------------------------------------------------------ render
    def render_text(self) -> str:
        s = self.game_state
        names = BOLOGNESE_DECK.names
        ints, seat_ints, cards = s.ints[0], s.seat_ints[0], s.cards[0]
        phase = int(ints[PHASE])
        title = self.config.spec.title
        lines = [
            f"{title}, {self.num_players} players — hand {int(ints[HAND_NO]) + 1} — dealer player_{int(ints[DEALER])} — {Phase.name(phase)}"
        ]
        if int(ints[SOLOIST]) >= 0:
            lines.append(f"soloist player_{int(ints[SOLOIST])} ({'su' if ints[CONTRACT] == SU else 'di mio'})")
        for seat in range(self.num_players):
            marker = ">" if phase != PH_DONE and seat == int(ints[CURRENT]) else " "
            held = np.flatnonzero(
                ((cards[HAND_OF] == seat) & (cards[PLACE] == PL_HAND)) | ((cards[HAND_OF] == seat) & (cards[PLACE] == PL_EXTRA))
            )
            hand = self._format_hand(held)
            extra = f" tricks {int(seat_ints[seat, TRICKS])}"
            if seat_ints[seat, DECLARED]:
                extra += f" declared {int(seat_ints[seat, DECLARED])}"
            if self.config.match or self.config.options.get("target"):
                extra += f" total {int(seat_ints[seat, TOTAL])}"
            lines.append(f"{marker} player_{seat:<2} {hand}{extra}")
        if phase == PH_AUCTION:
            lines.append("  auction in progress")
        if int(ints[DISCARDS_LEFT]) and Phase.name(phase) == "discard":
            lines.append(f"  player_{int(ints[CURRENT])} discards {int(ints[DISCARDS_LEFT])} more")
        table = np.flatnonzero(cards[PLACE] == PL_TABLE)
        if len(table):
            lead = int(ints[LEADER])
            order = sorted(table, key=lambda c: (int(cards[PLAYED_BY, c]) - lead) % self.num_players)
            lines.append(
                f"  trick {int(ints[TRICK_NO]) + 1}: " + ", ".join(f"player_{int(cards[PLAYED_BY, c])}: {names[c]}" for c in order)
            )
        t = int(ints[TRICK_NO])
        if t and phase != PH_DONE:
            last = np.flatnonzero(cards[TRICK_OF] == t - 1)
            led = s.trick_leader(0, t - 1)
            order = sorted(last, key=lambda c: (int(cards[PLAYED_BY, c]) - led) % self.num_players)
            won = ", ".join(f"player_{int(cards[PLAYED_BY, c])}: {names[c]}" for c in order)
            lines.append(f"  trick {t} won by player_{int(s.hist[0, t - 1])} ({won})")
        if (self._deals and "scores" in self._deals[-1]) or (len(self._deals) > 1 and "scores" in self._deals[-2]):
            last = self._deals[-1] if "scores" in self._deals[-1] else self._deals[-2]
            lines.append(f"  last hand: {last['info'].get('result')} — scores {last['scores']}")
        return "\n".join(lines)

    @staticmethod
    def _format_hand(ids: np.ndarray) -> str:
        names = BOLOGNESE_DECK.names
        suit = BOLOGNESE_DECK.suit
        groups = []
        for s in (4, 0, 1, 2, 3, 5):
            held = sorted((c for c in ids if suit[c] == s), key=lambda c: -int(BOLOGNESE_DECK.strength[c]))
            if held:
                groups.append(" ".join(names[c] for c in held))
        return " | ".join(groups) if groups else "(no cards)"


def make_env_functions(game: str, doc: str) -> tuple[Any, Any]:
    """``env`` and ``raw_env`` for a game module (PettingZoo classic convention)."""

    def raw_env(**kwargs: Any) -> TarocchinoEnv:
        return TarocchinoEnv(game, **kwargs)

    def env(**kwargs: Any) -> TarocchinoEnv:
        """The environment, without PettingZoo's wrapper stack: it enforces turn order and
        legality itself, with clear errors (the stack halves the speed)."""
        return TarocchinoEnv(game, **kwargs)

    raw_env.__doc__ = f"The {game_spec(game).title} AEC env. Options: {', '.join(ENV_OPTIONS)}, " + ", ".join(option_names(game))
    env.__doc__ = raw_env.__doc__ + ("\n\n" + doc if doc else "")  # doc is None under python -OO
    return env, raw_env


__all__ = ["TarocchinoEnv", "action_to_string", "default", "make_env_functions", "string_to_action"]
