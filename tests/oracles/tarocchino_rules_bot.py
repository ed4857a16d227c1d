"""A rule-based bot for the seven Tarocchino games: one observation and mask in, one action out.

Kept as a test oracle: this is the bot as it was before it was compiled (agents/tarocchino_rules.py
before its numba rewrite), copied verbatim, for tests/test_tarocchino_rules_compiled.py to compare
the compiled bot's every decision with. It is not part of the package, and no package code imports it.

``TarocchinoRuleAgent(game)`` reads nothing but the observation vector (decoded by field name
with :func:`tarot_env.encoding.bolognese.layout`) and the action mask: its own hand, the cards
seen on the table and in piles, the cards others showed in declarations, who leads, who is
partner. It never sees another hand. It is deterministic (ties go to the lower card id).

Strategy, decision by decision:

- **Claims**: always claim when a window opens, unless the window's ``claim_value`` is below
  the target (a window that ``wrong_claim="loses"`` may offer below it).
- **Declarations**: always declare (the points count; hiding them is not worth it here).
- **Discards**: keep what makes combinations (each candidate is scored with
  ``combination_points`` of the hand without it) and keep trumps; among the rest, throw the
  low scartini of the shortest suits, voiding a suit where possible, and prefer a lone,
  unprotected figure (it is safe in the discarder's own pile) to a low card of a long suit.
- **Terziglio auction**: a hand strength from trumps (high trumps weigh more), Kings, figures,
  voids and the hand's combinations; ``di_mio`` from a very strong hand, ``posso`` from a
  strong one, else ``pass``; a ``posso`` is opposed (``oppose``) only with a very strong hand.
- **Card play, point games** (every game but Mattazza): each legal card gets an expected value
  ``(2P - 1) x (points in the trick + the card's worth) - the card's power``, where ``P`` is
  the chance that the player's side takes the trick (the chance that no opponent still to play
  can beat the winning card, from the unseen cards: a hypergeometric estimate of holding a
  higher card, or being void and holding a trump), a card's worth is its value plus the
  combinations it makes or breaks in the side's cards (so combination cards are protected),
  and power is what a high trump or the top card of a suit is worth for later tricks. This
  takes tricks with points cheaply, smears points on a partner's safe trick, throws low
  scartini into lost tricks, cashes sure winners (high trumps, Kings in fresh suits) when
  leading, else leads low from long suits. The Matto is covered where the side loses a trick
  and every other card would cost points, and is not kept for the last trick.
- **Mattazza** (lowest score with at least one trick): while the player has no trick, taking a
  trick is worth a bonus that grows as the hand goes on, so a cheap safe trick is taken early;
  afterwards each card's cost is the chance of winning times the trick's points (with the
  combinations the player's pile would gain), and a card that cannot win is worth throwing the
  more it is worth and the more likely it is to win a later trick: high cards are dumped on
  others' tricks. The Matto is the escape from a trick that would be won with points.
- **The Matto exchange** (``give <card>``): the lowest-value card whose loss breaks no
  combination of the side's pile (Mattazza: the card that lowers the player's score most).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from tarot_env.cards.bolognese import ANGELO, BOLOGNESE_DECK, IS_TRUMP, LUNA, MATTO, MONDO, MORO_STRENGTH, NUM_CARDS, SOLE
from tarot_env.encoding.bolognese import layout
from tarot_env.rules.bolognese.combinations import combination_points
from tarot_env.rules.bolognese.games import GAMES
from tarot_env.rules.bolognese.state import (
    A_CLAIM,
    A_DECLARE,
    A_DI_MIO,
    A_NO_CLAIM,
    A_NO_DECLARE,
    A_OPPOSE,
    A_PASS,
    A_POSSO,
    A_VA_BENE,
    AB_DISCARD,
    AB_GIVE,
    AB_PLAY,
    NUM_ACTIONS,
)

VALUE = BOLOGNESE_DECK.value.astype(np.float64)
PTS = VALUE - 1.0  # what a card adds to a pile's card points, scartini 0 (Σv − N + groups)
STRENGTH = BOLOGNESE_DECK.strength.astype(np.int64)
SUIT = BOLOGNESE_DECK.suit.astype(np.int64)
RANK = BOLOGNESE_DECK.rank.astype(np.int64)
TRUMP = IS_TRUMP.copy()  # the 21 numbered trumps (not the Matto)
MORO = MORO_STRENGTH  # the four Mori are equal (cards/bolognese.py)
#: a small extra worth for cards that make cricche (figures, Tarocchi) and sequences (trumps, Aces)
EXTRA = np.where((VALUE > 1) | (np.arange(NUM_CARDS) == MATTO), 0.5, np.where(TRUMP | (RANK == 0), 0.15, 0.0))
GAME_POINTS = ("ottocento", "quattro_scartate", "terziglio", "millone", "centocinquanta", "quindici")


def _sizes() -> dict[int, int]:
    out = {}
    for n in range(2, 7):
        last = layout(n)[-1]
        out[last.offset + last.length] = n
    return out


_SIZE_TO_N = _sizes()


_WEIGHTS = 1 << np.arange(16, dtype=np.int64)


def _bits(x: np.ndarray) -> int:
    return int(x.astype(np.int64) @ _WEIGHTS[: len(x)])


def _p_none(x: int, h: int, u: int) -> float:
    """Chance that a hand of ``h`` cards drawn from ``u`` unseen cards holds none of ``x`` given ones."""
    if x <= 0 or h <= 0:
        return 1.0
    if u - x < h:
        return 0.0
    p = 1.0
    for i in range(h):
        p *= (u - x - i) / (u - i)
    return p


def _beats(c: int, best: int, lead: int) -> bool:
    """Whether card ``c`` played after ``best`` (the winning card, lead suit ``lead``) takes the lead."""
    if c == MATTO:
        return False
    if best < 0:
        return True
    if TRUMP[c]:
        if not TRUMP[best]:
            return True
        return STRENGTH[c] > STRENGTH[best] or (STRENGTH[c] == MORO and STRENGTH[best] == MORO)
    return (not TRUMP[best]) and SUIT[c] == lead and STRENGTH[c] > STRENGTH[best]


class _Row:
    """One observation decoded by field name."""

    def __init__(self, obs: np.ndarray, fields: dict[str, tuple[int, int]], n: int) -> None:
        def get(name: str) -> np.ndarray:
            o, k = fields[name]
            return obs[o : o + k]

        self.n = n
        self.hand = get("hand").astype(bool)
        self.discard = get("discard").astype(bool)
        self.played = get("played").reshape(n, NUM_CARDS).astype(bool)
        self.trick = get("trick").reshape(n, NUM_CARDS).astype(bool)
        self.won = get("won").reshape(n, NUM_CARDS).astype(bool)
        self.shown = get("shown").reshape(n, NUM_CARDS).astype(bool)
        self.leader = int(np.argmax(get("leader"))) if get("leader").any() else 0
        sol = get("soloist")
        self.soloist = int(np.argmax(sol)) if sol.any() else -1
        tn = get("trick_no")
        self.trick_no = int(np.argmax(tn)) if tn.any() else 0
        self.tricks_won = (get("tricks_won").reshape(n, 5).astype(np.int64) @ _WEIGHTS[:5]).tolist()
        self.my_declaration = _bits(get("my_declaration"))
        self.claim_value = _bits(get("claim_value"))
        act = get("active").astype(bool)
        self.active = act if act.any() else np.ones(n, dtype=bool)


class TarocchinoRuleAgent:
    """A rule-based Tarocchino player for ``game`` (a game name or env id, e.g. ``"ottocento"``
    or ``"mattazza_v0"``); see the module docstring for the strategy.

    ``act(observations (B, D), masks (B, A)) -> actions (B,)``, or one observation and mask of
    shape ``(A,)`` -> an int. ``target``: the claim target (default: the game's, from
    its :class:`~tarot_env.rules.bolognese.games.GameSpec` row); give the env's when it was made with another ``target``.
    """

    name = "tarocchino_rules"

    def __init__(self, game: str, target: int | None = None) -> None:
        g = game[: -len("_v0")] if game.endswith("_v0") else game
        if g not in GAMES:
            raise ValueError(f"unknown Tarocchino game {game!r}; the games are {', '.join(GAMES)}")
        self.game = g
        self.spec = GAMES[g]
        self.target = self.spec.target if target is None else int(target)
        self.total_tricks = self.spec.tricks
        #: the hand's loser takes a penalty point (Mattazza, §14.5): take as few points as possible
        self.avoid_points = self.spec.scoring == "penalty"
        self._fields: dict[int, dict[str, tuple[int, int]]] = {}

    # ------------------------------------------------------------------ protocol
    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray | int:
        obs = np.asarray(observations)
        mask = np.asarray(masks, dtype=bool)
        single = mask.ndim == 1
        if single:
            obs, mask = obs[None], mask[None]
        if mask.shape[1] != NUM_ACTIONS or obs.shape[0] != mask.shape[0]:
            raise ValueError(f"observations (B, D) and masks (B, {NUM_ACTIONS}) expected, got {obs.shape} and {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("an action mask with no legal action was given to TarocchinoRuleAgent.act")
        out = np.array([self._act_row(obs[i], mask[i]) for i in range(len(mask))], dtype=np.int64)
        return int(out[0]) if single else out

    def _layout(self, size: int) -> tuple[int, dict[str, tuple[int, int]]]:
        if size not in _SIZE_TO_N:
            raise ValueError(f"an observation of size {size} is no Tarocchino observation (sizes: {sorted(_SIZE_TO_N)})")
        n = _SIZE_TO_N[size]
        if n not in self._fields:
            self._fields[n] = {f.name: (f.offset, f.length) for f in layout(n)}
        return n, self._fields[n]

    def _act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        n, fields = self._layout(obs.shape[0])
        r = _Row(obs, fields, n)
        if mask[A_CLAIM] or mask[A_NO_CLAIM]:
            return self._claim(r, mask)
        if mask[A_DECLARE] or mask[A_NO_DECLARE]:
            return A_DECLARE if mask[A_DECLARE] else A_NO_DECLARE
        if mask[A_PASS] or mask[A_POSSO] or mask[A_DI_MIO] or mask[A_VA_BENE] or mask[A_OPPOSE]:
            return self._auction(r, mask)
        if mask[AB_DISCARD : AB_DISCARD + NUM_CARDS].any():
            return AB_DISCARD + self._discard(r, np.flatnonzero(mask[AB_DISCARD : AB_DISCARD + NUM_CARDS]))
        if mask[AB_GIVE : AB_GIVE + NUM_CARDS].any():
            return AB_GIVE + self._give(r, np.flatnonzero(mask[AB_GIVE : AB_GIVE + NUM_CARDS]))
        plays = np.flatnonzero(mask[AB_PLAY : AB_PLAY + NUM_CARDS])
        if len(plays):
            return AB_PLAY + self._play(r, plays)
        return int(legal[0])

    # ------------------------------------------------------------------ claims, auction
    def _claim(self, r: _Row, mask: np.ndarray) -> int:
        ok = self.target is None or r.claim_value >= self.target
        if ok and mask[A_CLAIM]:
            return A_CLAIM
        return A_NO_CLAIM if mask[A_NO_CLAIM] else A_CLAIM

    @staticmethod
    def hand_strength(hand: np.ndarray) -> float:
        """Terziglio hand strength: trumps (the high ones more), Kings, figures, voids, combinations."""
        ids = np.flatnonzero(hand)
        s = 0.0
        for c in ids:
            if TRUMP[c]:
                s += 1.0 + {ANGELO: 3.0, MONDO: 2.5, SOLE: 1.5, LUNA: 1.2}.get(int(c), 0.0) + (0.08 * (RANK[c] - 8) if RANK[c] > 8 else 0.0)
            elif c == MATTO:
                s += 1.5
            else:
                s += {5: 2.0, 4: 0.8, 3: 0.4, 2: 0.2}.get(int(VALUE[c]), 0.0)
        suits = SUIT[ids]
        for su in range(4):
            k = int(np.count_nonzero(suits == su))
            if k == 0:
                s += 1.0
            elif k == 1:
                s += 0.4
        s += float(combination_points(hand)) / 12.0
        return s

    def _auction(self, r: _Row, mask: np.ndarray) -> int:
        s = self.hand_strength(r.hand)
        if mask[A_VA_BENE] or mask[A_OPPOSE]:
            return A_OPPOSE if (s >= self.OPPOSE and mask[A_OPPOSE]) else A_VA_BENE if mask[A_VA_BENE] else A_OPPOSE
        if s >= self.DI_MIO and mask[A_DI_MIO]:
            return A_DI_MIO
        if s >= self.POSSO and mask[A_POSSO]:
            return A_POSSO
        return A_PASS if mask[A_PASS] else int(np.flatnonzero(mask)[0])

    #: point games: the points expected from each player still to play, and the weight of a card's power for later tricks
    REST = 0.0
    POWER = 1.0

    #: Mattazza: what the first trick is worth, in points, per player at the table and by the end of the hand
    NEED_BASE = 2.5
    NEED_GROWTH = 30.0
    KEEP_WINNERS = 2.0

    #: hand-strength thresholds of the Terziglio auction (measured with bots in every seat)
    DI_MIO = 29.0
    POSSO = 17.0
    OPPOSE = 25.0

    # ------------------------------------------------------------------ sides
    def _partners(self, r: _Row) -> list[int]:
        if self.spec.sides == "partners" and r.n == 4:
            return [2]
        if self.spec.sides == "soloist" and r.soloist >= 0:
            return [] if r.soloist == 0 else [s for s in (1, 2) if s != r.soloist]
        return []

    # ------------------------------------------------------------------ discards, gift
    def _discard(self, r: _Row, cands: np.ndarray) -> int:
        hand = r.hand.copy()
        rows = np.repeat(hand[None], len(cands) + 1, axis=0)
        rows[np.arange(1, len(cands) + 1), cands] = False
        cp = combination_points(rows)
        loss = cp[0] - cp[1:]
        suits = SUIT[np.flatnonzero(hand)]
        best, best_cost = int(cands[0]), np.inf
        for i, c in enumerate(cands):
            c = int(c)
            cost = 2.5 * float(loss[i])  # a cricca (12 points or more) is never broken for a trump or a long suit
            if TRUMP[c]:
                cost += 20.0 + 0.4 * RANK[c]
            else:
                k = int(np.count_nonzero(suits == SUIT[c]))
                king = hand[SUIT[c] * 10 + 9]
                cost += 1.5 * k + (-2.0 if k == 1 else 0.0)
                if VALUE[c] > 1 and not king:
                    cost -= 0.6 * PTS[c]  # an unprotected figure is safe in the own pile
                elif VALUE[c] > 1:
                    cost += 1.0 * PTS[c]
                cost += 0.05 * STRENGTH[c]
            if cost < best_cost - 1e-9:
                best, best_cost = c, cost
        return best

    def _give(self, r: _Row, cands: np.ndarray) -> int:
        pile = r.discard | r.won[0]
        for p in self._partners(r):
            pile |= r.won[p]
        rows = np.repeat(pile[None], len(cands) + 1, axis=0)
        rows[np.arange(1, len(cands) + 1), cands] = False
        cp = combination_points(rows)
        cost = VALUE[cands] + (cp[0] - cp[1:])
        if self.avoid_points:
            return int(cands[int(np.argmax(cost))])  # the card that lowers the own score most
        return int(cands[int(np.argmin(cost))])

    # ------------------------------------------------------------------ play
    def _play(self, r: _Row, plays: np.ndarray) -> int:
        n = r.n
        partners = set(self._partners(r))
        on_table = r.trick.any(axis=1)
        # the trick in play order from the leader
        order = [(r.leader + k) % n for k in range(n)]
        trick_cards = []  # (seat, card) in play order
        for s in order:
            if s != 0 and on_table[s]:
                trick_cards.append((s, int(np.flatnonzero(r.trick[s])[0])))
        after = [s for s in range(1, n) if r.active[s] and not on_table[s]]
        lead, best, best_seat = -1, -1, -1
        for s, c in trick_cards:
            if c == MATTO:
                continue
            if lead < 0:
                lead, best, best_seat = int(SUIT[c]), c, s
            elif _beats(c, best, lead):
                best, best_seat = c, s
        # unseen cards, and what each other seat is known to hold (shown in a declaration)
        seen = r.hand | r.discard | r.played.any(axis=0) | r.trick.any(axis=0)
        unseen = ~seen
        known = r.shown & unseen[None]
        known[0] = False
        pool = unseen & ~known.any(axis=0)
        u = int(np.count_nonzero(pool))
        h = int(np.count_nonzero(r.hand))
        tricks_left = h
        ctx = _Ctx(r, pool, u, h, known, after, partners, lead, best, best_seat, trick_cards, tricks_left, self.total_tricks)
        if self.avoid_points:
            return self._play_mattazza(ctx, plays)
        return self._play_points(ctx, plays)

    def _play_points(self, x: _Ctx, plays: np.ndarray) -> int:
        r = x.r
        side = r.hand | r.discard | r.won[0]
        for p in x.partners:
            side = side | r.won[p]
        ours = [c for s, c in x.trick_cards if s in x.partners and c != MATTO]
        theirs = [c for s, c in x.trick_cards if s not in x.partners and c != MATTO]
        side_t = side.copy()
        side_t[ours] = True
        # combinations: losing each own card (hand or partner's on the table), gaining each of theirs
        own_cards = [int(c) for c in plays if c != MATTO] + ours
        rows = [side_t] + [_without(side_t, c) for c in own_cards] + [_with(side_t, c) for c in theirs]
        cp = combination_points(np.array(rows))
        worth = {}
        for i, c in enumerate(own_cards):
            worth[c] = PTS[c] + EXTRA[c] + float(cp[0] - cp[1 + i])
        base = 1 + len(own_cards)
        trick_value = sum(worth[c] for c in ours)
        for i, c in enumerate(theirs):
            trick_value += PTS[c] + EXTRA[c] + float(cp[base + i] - cp[0])
        if x.tricks_left == 1:
            trick_value += 6.0
        rest = self.REST * len(x.after)
        late = self.POWER * (x.tricks_left - 1) / max(1, x.total_tricks - 1)
        best_card, best_ev = int(plays[0]), -np.inf
        for c in plays:
            c = int(c)
            if c == MATTO:
                p = x.side_win(x.best, x.best_seat)
                reserve = -8.0 if x.tricks_left <= 2 else 1.0 + 2.0 * late
                ev = (2 * p - 1) * (trick_value + rest) - (1 - p) * 1.0 - reserve
                if not x.trick_cards and x.tricks_left > 2:
                    ev -= 10.0  # no Matto lead by choice, but it is not kept for the last trick
            else:
                if x.lead < 0 or _beats(c, x.best, x.lead):
                    p = x.side_win(c, 0)
                else:
                    p = x.side_win(x.best, x.best_seat)
                ev = (2 * p - 1) * (trick_value + worth[c] + rest) - late * x.power(c)
                if not x.trick_cards and not TRUMP[c]:
                    ev += 0.05 * x.suit_count(int(SUIT[c]))  # lead from long suits
            if ev > best_ev + 1e-9:
                best_card, best_ev = c, ev
        return best_card

    def _play_mattazza(self, x: _Ctx, plays: np.ndarray) -> int:
        r = x.r
        mine = r.won[0].copy()
        tcards = [c for _, c in x.trick_cards if c != MATTO]
        base_set = mine.copy()
        base_set[tcards] = True
        cands = [int(c) for c in plays if c != MATTO]
        rows = [mine, base_set] + [_with(base_set, c) for c in cands]
        cp = combination_points(np.array(rows))
        trick_pts = float(sum(PTS[c] for c in tcards)) + float(cp[1] - cp[0])
        if x.tricks_left == 1:
            trick_pts += 6.0
        avg = float(PTS[x.pool].mean()) if x.u else 0.0
        rest = (avg + 0.3) * len(x.after)
        need = 0.0
        if r.tricks_won[0] == 0:
            need = self.NEED_BASE * r.n + self.NEED_GROWTH * (1.0 - (x.tricks_left - 1) / max(1, x.total_tricks - 1))
        late = (x.tricks_left - 1) / max(1, x.total_tricks - 1)
        sign = -1.0 if need == 0 else self.KEEP_WINNERS

        def keep(c: int) -> float:
            # a card that does not win: throw points and high cards, but keep winners while a trick is needed
            return -0.5 * PTS[c] + sign * late * x.danger(c)

        best_card, best_cost = int(plays[0]), np.inf
        for c in plays:
            c = int(c)
            if c == MATTO:
                cost = 1.5 * late if x.tricks_left > 1 else 0.0
                if not x.trick_cards:
                    cost += 5.0
                if r.tricks_won[0] == 0:
                    cost += 2.0  # without a trick the Matto itself goes
            else:
                i = cands.index(c)
                if x.lead < 0 or _beats(c, x.best, x.lead):
                    lead = x.lead if x.lead >= 0 else int(SUIT[c])
                    p = x.hold(c, lead, x.after)
                    value = trick_pts + PTS[c] + float(cp[2 + i] - cp[1]) + rest
                    cost = p * (value - need) + (1 - p) * keep(c)
                else:
                    cost = keep(c)
            if cost < best_cost - 1e-9:
                best_card, best_cost = c, cost
        return best_card


def _without(m: np.ndarray, c: int) -> np.ndarray:
    out = m.copy()
    out[c] = False
    return out


def _strengths(ids: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """The sorted strengths of the trumps among ``ids``, and of the cards of each suit."""
    suits = SUIT[ids]
    trumps = sorted(STRENGTH[ids[TRUMP[ids]]].tolist())
    return trumps, [sorted(STRENGTH[ids[suits == s]].tolist()) for s in range(4)]


def _with(m: np.ndarray, c: int) -> np.ndarray:
    out = m.copy()
    out[c] = True
    return out


class _Ctx:
    """The trick in progress and the unseen cards, seen from the player to act (relative seat 0)."""

    def __init__(self, r, pool, u, h, known, after, partners, lead, best, best_seat, trick_cards, tricks_left, total_tricks):
        self.r, self.pool, self.u, self.h = r, pool, u, h
        self.after, self.partners = after, partners
        self.lead, self.best, self.best_seat = lead, best, best_seat
        self.trick_cards, self.tricks_left, self.total_tricks = trick_cards, tricks_left, total_tricks
        self.pool_trumps, self.pool_suit = _strengths(np.flatnonzero(pool))
        #: per seat still to play: how many of his cards are known, and their strengths (trumps, each suit)
        self.known = {}
        for j in after:
            ids = np.flatnonzero(known[j])
            self.known[j] = (len(ids), *_strengths(ids))
        self._cache: dict = {}

    def suit_count(self, s: int) -> int:
        return int(np.count_nonzero(self.r.hand[s * 10 : s * 10 + 10]))

    @staticmethod
    def _stronger(strengths: list[int], c: int) -> int:
        """How many of ``strengths`` (sorted) beat card ``c`` played before them (a later Moro beats a Moro)."""
        k = int(STRENGTH[c])
        if TRUMP[c] and k == MORO:
            return len(strengths) - bisect_left(strengths, MORO)
        return len(strengths) - bisect_right(strengths, k)

    def cant_beat(self, j: int, c: int, lead: int) -> float:
        """Chance that seat ``j`` (still to play) cannot beat card ``c``, the winning card, lead suit ``lead``."""
        key = (j, c, lead)
        if key in self._cache:
            return self._cache[key]
        n_known, kn_trumps, kn_suits = self.known[j]
        h = max(0, self.h - n_known)
        u = self.u
        t = len(self.pool_trumps)
        if lead == 4:  # trumps led: a higher trump beats
            p = 0.0 if self._stronger(kn_trumps, c) else _p_none(self._stronger(self.pool_trumps, c), h, u)
        else:
            su = self.pool_suit[lead]
            kn_suit = kn_suits[lead]
            if TRUMP[c]:  # a trump on a suit: a void player with a higher trump beats it
                if kn_suit:
                    p = 1.0
                else:
                    void = _p_none(len(su), h, u)
                    if self._stronger(kn_trumps, c):
                        p = 1.0 - void
                    else:
                        p = 1.0 - (void - _p_none(len(su) + self._stronger(self.pool_trumps, c), h, u))
            else:  # a suit card: a higher card of the suit, or a void player with a trump
                if self._stronger(kn_suit, c):
                    p = 0.0
                else:
                    no_higher = _p_none(self._stronger(su, c), h, u)
                    if kn_suit:
                        p = no_higher
                    elif kn_trumps:
                        p = no_higher - _p_none(len(su), h, u)
                    else:
                        void = _p_none(len(su), h, u)
                        p = no_higher - (void - _p_none(len(su) + t, h, u))
        p = min(1.0, max(0.0, p))
        self._cache[key] = p
        return p

    def hold(self, c: int, lead: int, seats: list[int]) -> float:
        """Chance that none of ``seats`` can beat card ``c``."""
        p = 1.0
        for j in seats:
            p *= self.cant_beat(j, c, lead)
        return p

    def side_win(self, c: int, seat: int) -> float:
        """Chance that the player's side takes the trick when ``c`` (played by ``seat``) is winning."""
        if c < 0:
            return 0.0
        lead = self.lead if self.lead >= 0 else int(SUIT[c])
        opps = [j for j in self.after if j not in self.partners]
        if seat == 0 or seat in self.partners:
            return self.hold(c, lead, opps)
        mates = [j for j in self.after if j in self.partners]
        if not mates:
            return 0.0
        return 0.6 * (1.0 - self.cant_beat(mates[0], c, lead))

    def power(self, c: int) -> float:
        """What card ``c`` is worth for winning later tricks."""
        if TRUMP[c]:
            t = self.pool_trumps
            if not t:
                return 0.5
            return 0.3 + 2.5 * bisect_left(t, int(STRENGTH[c])) / len(t)
        s = int(SUIT[c])
        higher = self._stronger(self.pool_suit[s], c)
        return 1.0 if higher == 0 else 0.4 if higher == 1 else 0.0

    def danger(self, c: int) -> float:
        """Mattazza: how likely card ``c`` is to win a later trick, in points."""
        return 1.5 * self.power(c)
