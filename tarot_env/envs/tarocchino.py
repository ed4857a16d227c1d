"""The seven Tarocchino games as PettingZoo AEC environments (one class, one module per env id).

See ``docs/tarocchino.md`` for the user documentation: actions, observation layout, rewards,
options, match episodes. The rules live in :mod:`tarot_env.rules.bolognese`; this module
only turns them into the AEC protocol.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tarot_env.cards.bolognese import BOLOGNESE_DECK, IS_CARTA_DA_5, IS_SCARTINO, MATTO, NUM_CARDS, SUIT_NAMES
from tarot_env.cards.deck import TRUMP_SUIT
from tarot_env.encoding.bolognese import TarocchinoEncoder
from tarot_env.envs.base import TextRenderMixin, check_illegal_action
from tarot_env.envs.tarocchino_rewards import REWARD_MODES, hand_reward, match_reward, trick_points, trick_reward
from tarot_env.errors import IllegalActionError
from tarot_env.rules.bolognese.config import TWO_SIDES, TarocchinoConfig, default, option_names
from tarot_env.rules.bolognese.deal import GAME_TITLES
from tarot_env.rules.bolognese.game import HandEnd, TarocchinoGame
from tarot_env.rules.bolognese.state import (
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    BIDDER,
    CARD_VERBS,
    CONTRACT,
    CURRENT,
    DEALER,
    DECLARED,
    DISCARDS_LEFT,
    HAND_NO,
    HAND_OF,
    LEAD_SUIT,
    LEADER,
    NUM_ACTIONS,
    PH_AUCTION,
    PH_DONE,
    PHASE,
    PILE_OF,
    PL_EXTRA,
    PL_HAND,
    PL_TABLE,
    PLACE,
    PLAYED_BY,
    SOLOIST,
    TOTAL,
    TRICK_NO,
    TRICK_OF,
    TRICK_SIZE,
    TRICKS,
    WORDS,
    Phase,
)

_WORD_ACTIONS = {w: a for a, w in WORDS.items()}
_ROW = np.zeros(1, dtype=np.int64)
ENV_OPTIONS = ("num_players", "render_mode", "reward", "shaping", "oracle", "dealer", "illegal_action", "illegal_reward")


def action_to_string(action: int) -> str:
    """Canonical string of an action id (interface.md §3)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} is out of range: action ids are 0..{NUM_ACTIONS - 1}")
    if a in WORDS:
        return WORDS[a]
    for verb, base in reversed(CARD_VERBS):
        if a >= base:
            return f"{verb} {BOLOGNESE_DECK.names[a - base]}"
    raise AssertionError(a)


def string_to_action(text: str) -> int:
    """Action id of a canonical string, case-insensitive (``"play ks"``, ``"Claim"``)."""
    if not isinstance(text, str):
        raise TypeError(f"an action string is a str such as 'play KS', got {text!r}")
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in _WORD_ACTIONS:
        return _WORD_ACTIONS[words[0]]
    if len(words) == 2:
        for verb, base in CARD_VERBS:
            if words[0] == verb:
                return base + BOLOGNESE_DECK.parse(words[1])
    verbs = ", ".join(f"'{v} <card>'" for v, _ in CARD_VERBS)
    raise ValueError(f"{text!r} is not a Tarocchino action; actions are {verbs}, or one of {', '.join(WORDS.values())}")


class TarocchinoEnv(TextRenderMixin, AECEnv):
    """One Tarocchino game as an AEC env. Made by the per-game modules (``ottocento_v0`` ...)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "tarocchino", "is_parallelizable": False}

    def __init__(
        self,
        game: str,
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
        super().__init__()
        self.metadata = dict(self.metadata, name=f"{game}_v0")
        check_illegal_action(illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.config = TarocchinoConfig.make(game, num_players, **rules)
        n = self.config.num_players
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; choose one of {self.metadata['render_modes']} or None")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r} is not a reward mode; choose one of {', '.join(map(repr, REWARD_MODES))}")
        for name, value in (("shaping", shaping), ("oracle", oracle)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be True or False, got {value!r}")
        if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n):
            raise ValueError(f"dealer={dealer!r} must be None (random) or a seat 0..{n - 1}")
        self.game_name = game
        self.render_mode = render_mode
        self.reward_mode = reward
        self.shaping = shaping
        self.oracle = oracle
        self.dealer = dealer
        self.game = TarocchinoGame(self.config)
        self.num_players = n
        self.encoder = TarocchinoEncoder(n)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        obs = {
            "observation": spaces.Box(0, 1, (self.encoder.size,), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
        if oracle:
            obs["oracle"] = spaces.Box(0, 1, (self.encoder.oracle_size,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict(obs) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.game_state = self.game.new_state(1)
        self._rng: np.random.Generator | None = None
        self._started = False
        self._cache: dict[int, dict[str, np.ndarray]] = {}
        self._viewers = [np.array([i], dtype=np.int64) for i in range(n)]
        self._deals: list[dict[str, Any]] = []
        self._last_record: tuple | None = None
        self._start_totals: list[int] | None = None
        self._shaped = np.zeros(n)
        self._tricks_seen = 0
        self._buf = np.zeros(1, dtype=np.int64)

    action_to_string = staticmethod(action_to_string)
    string_to_action = staticmethod(string_to_action)

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict such as {{'deal': ...}}, got {options!r} ({type(options).__name__})")
        known = {"deal", "deals", "totals"}
        unknown = set(options) - known
        if unknown:  # warned, not refused: PettingZoo's api_test requires reset to accept any options
            warnings.warn(
                f"unknown reset option(s) {sorted(unknown)} ignored; the reset options are {sorted(known)}", UserWarning, stacklevel=2
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise TypeError(f"seed must be an int or None, got {seed!r}")
        deals = self._parse_deals(options)  # checked before anything changes
        totals = self._parse_totals(options.get("totals"))
        self._start_totals = None if totals is None else [int(x) for x in totals]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        g = self.game
        g.queued[0] = [(d, p, self._active_of(raw)) for (d, p), raw in zip(deals[1:], (options.get("deals") or [None])[1:])]
        self.game_state = g.new_state(1)
        if deals:
            dealer, pack = deals[0]
        else:
            dealer = int(self._rng.integers(self.num_players)) if self.dealer is None else self.dealer
            pack = np.argsort(self._rng.random(NUM_CARDS))
        self.game.start_deals(self.game_state, _ROW, np.array([dealer]), pack[None], totals=None if totals is None else totals[None])
        self._deals = [self._new_deal_entry()]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._shaped[:] = 0.0
        self._tricks_seen = 0
        self._started = True
        self.illegal_end = None
        self._changed()
        self.agent_selection = self.possible_agents[int(self.game_state.ints[0, CURRENT])]

    def _parse_deals(self, options: dict[str, Any]) -> list[tuple[int, np.ndarray]]:
        if "deal" in options and "deals" in options:
            raise ValueError("give either 'deal' (one fixed deal) or 'deals' (fixed deals for successive hands), not both")
        if options.get("deal") is not None:
            return [self.game.parse_deal(options["deal"])]
        if options.get("deals") is not None:
            deals = options["deals"]
            if not isinstance(deals, (list, tuple)) or not deals:
                raise ValueError(f"'deals' must be a non-empty list of deals (interface.md §4), got {deals!r:.80}")
            out = []
            for i, d in enumerate(deals):
                try:
                    out.append(self.game.parse_deal(d, self._active_of(d) if i else None))
                except (ValueError, TypeError) as err:
                    raise type(err)(f"deals[{i}]: {err}") from None
            return out
        return []

    def _active_of(self, deal: Any) -> tuple[int, ...] | None:
        """The seats a later Mattazza deal is dealt to: those with cards (players drop out of a match)."""
        if self.game_name != "mattazza" or not isinstance(deal, dict) or not isinstance(deal.get("hands"), (list, tuple)):
            return None
        return tuple(s for s, h in enumerate(deal["hands"]) if h) or None

    def _parse_totals(self, totals: Any) -> np.ndarray | None:
        if totals is None:
            return None
        n = self.num_players
        if self.game_name not in ("ottocento", "millone", "centocinquanta", "quindici"):
            raise ValueError(f"'totals' (running totals before this hand) applies to the games with a target, not {self.game_name}")
        if (
            not isinstance(totals, (list, tuple))
            or len(totals) != n
            or any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) for t in totals)
        ):
            raise ValueError(f"'totals' must list {n} ints, one per seat (partners equal), got {totals!r}")
        t = np.array(totals, dtype=np.int64)
        if n == 4 and (t[0] != t[2] or t[1] != t[3]):
            raise ValueError(f"partners share one total: seats 0 and 2, 1 and 3 must be equal, got {list(totals)}")
        if np.any(t < 0):
            raise ValueError(f"running totals are never negative, got {list(totals)}")
        return t

    # ------------------------------------------------------------------ observe / step
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._started:
            raise RuntimeError("call reset() before observe(): no deal has been dealt yet")
        seat = self.possible_agents.index(agent)
        obs = self._cache.get(seat)
        if obs is None:
            viewer = self._viewers[seat]
            if not self._over and seat == self._current:
                mask = self.game_state.legal[0].astype(np.int8)
            else:
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            obs = {"observation": self.encoder.encode(self.game_state, _ROW, viewer)[0], "action_mask": mask}
            if self.oracle:
                obs["oracle"] = self.encoder.encode_oracle(self.game_state, _ROW, viewer)[0]
            self._cache[seat] = obs
        return obs

    def legal_mask(self) -> np.ndarray:
        """The legal actions of the player to act (a view of the state; copy it to keep it)."""
        return self.game_state.legal[0]

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.game_state.legal[0])]

    @property
    def game_over(self) -> bool:
        return self._over

    def _changed(self) -> None:
        self._cache.clear()
        self._over = self.game_state.ints.item(0, PHASE) == PH_DONE
        self._current = self.game_state.ints.item(0, CURRENT)

    def _parse_action(self, action: Any) -> int:
        if type(action) is int:
            return action
        if isinstance(action, str):
            return string_to_action(action)
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            return int(action)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(
                f"action {action!r} ({type(action).__name__}) is not an action id: give an int in 0..{NUM_ACTIONS - 1} or an action string"
            )
        return int(action)

    def step(self, action: Any) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step(): no deal has been dealt yet")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"action {action!r} refused: the episode is over and {agent} is done; "
                    "step(None) removes each finished agent, reset() starts again"
                )
            self._was_dead_step(action)
            return
        a = self._parse_action(action)
        legal = self.game_state.legal[0]
        if not (0 <= a < NUM_ACTIONS and legal[a]):
            if self.illegal_action == "raise":
                raise IllegalActionError(self._refusal(a))
            self._end_on_illegal(agent, a, self._refusal(a))
            return
        self._buf[0] = a
        ends = self.game.step(self.game_state, _ROW, self._buf, self._rng)
        self._deals[-1]["actions"].append(a)
        self._changed()
        self._cumulative_rewards[agent] = 0.0
        rewards = np.zeros(self.num_players)
        paid = False
        if self.shaping:
            shaped = self._trick_rewards()
            if shaped is not None:
                rewards += shaped
                self._shaped += shaped
                paid = True
        for end in ends:
            rewards += self._hand_end(end)
            paid = True
        if paid or any(self.rewards.values()):
            self.rewards = {a_: float(rewards[i]) for i, a_ in enumerate(self.possible_agents)}
        if self._over:
            for a_ in self.possible_agents:
                self.terminations[a_] = True
        self.agent_selection = self.possible_agents[self._current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ rewards
    def _hand_end(self, end: HandEnd) -> np.ndarray:
        """Close the hand's record entry; the reward it pays (minus what shaping paid)."""
        entry = self._deals[-1]
        entry["scores"] = list(end.scores)
        entry["info"] = {k: v for k, v in end.info.items() if k != "next_dealer"}
        match = self.config.match
        if match and self.config.options["match_reward"] == "result":
            reward = match_reward(self.game_name, end) if end.match_over else np.zeros(self.num_players)
            final = end.match_over
        else:
            reward = hand_reward(self.game_name, self.reward_mode, self.config.options.get("target", 0), end)
            final = True
        if final:
            reward = reward - self._shaped
            self._shaped[:] = 0.0
        self._tricks_seen = 0
        info = {"scores": list(end.scores), **entry["info"]}
        if match:
            info["match_over"] = end.match_over or self._over
        for a in self.possible_agents:
            self.infos[a] = dict(info)
        if self._over:  # formatted on demand by record(): most episodes are never recorded
            self._last_record = (self._deals, [int(x) for x in self.game_state.seat_ints[0, :, TOTAL]])
        else:
            self._deals.append(self._new_deal_entry())
        return reward

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
        return trick_reward(self.game_name, self.reward_mode, value, int(state.hist[0, t - 1]), self.game._sides(state, _ROW)[0])

    # ------------------------------------------------------------------ records
    def _new_deal_entry(self) -> dict[str, Any]:
        dealer, pack, active = self.game.dealt[0][-1]
        return {"deal": (dealer, pack, active), "actions": []}

    def _entry_dict(self, entry: dict[str, Any]) -> dict[str, Any]:
        dealer, pack, active = entry["deal"]
        out = {"deal": self.game.format_deal(dealer, pack, active), "actions": [action_to_string(a) for a in entry["actions"]]}
        if "scores" in entry:
            out["scores"] = entry["scores"]
        return out

    def _make_record(self, deals: list[dict[str, Any]], totals: list[int]) -> dict[str, Any]:
        head = {"env": self.metadata["name"], "config": self.config.to_dict()}
        if self._start_totals is not None:  # the running totals the episode started from (reset option "totals")
            head["start_totals"] = list(self._start_totals)
        if not self.config.match:
            return {**head, **self._entry_dict(deals[0])}
        last = deals[-1].get("info", {})
        return {
            **head,
            "deals": [self._entry_dict(e) for e in self._deals],
            "totals": totals,
            "result": last.get("game_winner", last.get("match_losers")),
        }

    def hands_played(self) -> list[list[int]]:
        """The scores of each hand finished in this episode, in order."""
        return [list(e["scores"]) for e in self._deals if "scores" in e]

    def totals(self) -> list[int]:
        """Each seat's running total (its side's; Terziglio: the sum of settlements)."""
        return [int(x) for x in self.game_state.seat_ints[0, :, TOTAL]]

    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the last finished episode (interface.md §5): a deal, or a
        match as its list of deal records plus the running totals."""
        if self.illegal_end is not None:
            raise RuntimeError(f"the last episode was ended by an illegal action ({self.illegal_end['reason']}): it has no record")
        if self._last_record is None:
            raise RuntimeError("no episode has finished yet: record() describes the last finished deal (or match)")
        return self._make_record(*self._last_record)

    # ------------------------------------------------------------------ errors
    def _refusal(self, a: int) -> str:
        """Why action ``a`` is refused now, and what is allowed."""
        agent = self.agent_selection
        legal = self.legal_actions()
        allowed = ", ".join(action_to_string(x) for x in legal)
        if not 0 <= a < NUM_ACTIONS:
            return f"action {a} refused for {agent}: action ids are 0..{NUM_ACTIONS - 1}; legal now: {allowed}"
        text = action_to_string(a)
        phase = int(self.game_state.ints[0, PHASE])
        return f"action {text!r} ({a}) refused for {agent}: {self._why(a, phase)}; legal now: {allowed}"

    def _why(self, a: int, phase: int) -> str:
        s = self.game_state
        p = int(s.ints[0, CURRENT])
        cards = s.cards[0]
        kind = Phase.name(phase)
        verb = action_to_string(a).split()[0]
        expected = {
            "auction": "an auction call (pass, posso, di_mio; va_bene or oppose to answer a posso)",
            "claim": "claim or no_claim",
            "discard": "discard <card>",
            "declare": "declare or no_declare",
            "play": "play <card>",
            "give": "give <card> (the card given for the Matto)",
        }[kind]
        want = {"auction": ("pass", "posso", "di_mio", "va_bene", "oppose"), "claim": ("claim", "no_claim"), "discard": ("discard",),
                "declare": ("declare", "no_declare"), "play": ("play",), "give": ("give",)}[kind]  # fmt: skip
        if verb not in want:
            return f"the decision now is {kind}: {expected}"
        if kind == "auction":
            return (
                "a posso waits for its answers (va_bene or oppose)"
                if s.ints[0, BIDDER] >= 0
                else "va_bene and oppose answer a posso; now speak: pass, posso or di_mio"
            )
        c = a - {"play": AB_PLAY, "discard": AB_DISCARD, "give": AB_GIVE}[kind]
        name = BOLOGNESE_DECK.names[c]
        if kind == "discard":
            if not (cards[HAND_OF, c] == p and cards[PLACE, c] == PL_HAND):
                return f"{name} is not in the hand"
            if IS_CARTA_DA_5[c]:
                return (
                    f"{name} is a Carta da 5 (the Kings and the Tarocchi: Angelo, Mondo, Bégato, Matto), "
                    "which may never be discarded (§5.3)"
                )
        if kind == "give":
            if cards[PILE_OF, c] < 0 or self.game.side_of(s, 0, int(cards[PILE_OF, c])) != self.game.side_of(s, 0, p) or c == MATTO:
                return f"{name} is not a card of your side's pile (the Matto itself is kept)"
            if not IS_SCARTINO[c]:
                return (
                    f"{name} is not a scartino, and your side has scartini: "
                    "the card given for the Matto is a low card (U3, matto_gift='scartino')"
                )
        if kind == "play":
            if not (cards[HAND_OF, c] == p and cards[PLACE, c] == PL_HAND):
                return f"{name} is not in the hand"
            led = int(s.ints[0, LEAD_SUIT])
            if s.ints[0, TRICK_SIZE] == 0 and c == MATTO:
                return "the Matto may not be led while other cards are held (matto_lead='never', U2)"
            holds = led >= 0 and bool(np.any((cards[HAND_OF] == p) & (cards[PLACE] == PL_HAND) & (BOLOGNESE_DECK.suit == led)))
            if self.config.must_overtrump and BOLOGNESE_DECK.suit[c] == TRUMP_SUIT and (led == TRUMP_SUIT or not holds):
                return "a trump played must beat the trumps in the trick when it can (must_overtrump=True, U1)"
            if led >= 0 and led != TRUMP_SUIT and BOLOGNESE_DECK.suit[c] != led:
                if holds:
                    return f"you must follow suit: {SUIT_NAMES[led]} was led and you hold {SUIT_NAMES[led]} (§4.2)"
                return "you hold no card of the suit led, so you must play a trump (§4.2)"
            if led == TRUMP_SUIT:
                return "a trump was led and you hold trumps: you must play one (§4.2)"
            return "a trump played must beat the trumps in the trick when it can (must_overtrump=True, U1)"
        return "not allowed now"

    # ------------------------------------------------------------------ render
    def render_text(self) -> str:
        s = self.game_state
        names = BOLOGNESE_DECK.names
        ints, seat_ints, cards = s.ints[0], s.seat_ints[0], s.cards[0]
        phase = int(ints[PHASE])
        title = GAME_TITLES[self.game_name]
        lines = [
            f"{title}, {self.num_players} players — hand {int(ints[HAND_NO]) + 1} — dealer player_{int(ints[DEALER])} — {Phase.name(phase)}"
        ]
        if int(ints[SOLOIST]) >= 0:
            lines.append(f"soloist player_{int(ints[SOLOIST])} ({'su' if ints[CONTRACT] == 1 else 'di mio'})")
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

    raw_env.__doc__ = f"The {GAME_TITLES[game]} AEC env. Options: {', '.join(ENV_OPTIONS)}, " + ", ".join(option_names(game))
    env.__doc__ = raw_env.__doc__ + ("\n\n" + doc if doc else "")  # doc is None under python -OO
    return env, raw_env


__all__ = ["TWO_SIDES", "TarocchinoEnv", "action_to_string", "default", "make_env_functions", "string_to_action"]
