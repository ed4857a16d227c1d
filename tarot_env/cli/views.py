"""What one player sees at the table, as text: the ``tarot play`` screen.

``env.render()`` shows every hand (it is the omniscient view a replay wants); a player at the
table must see only his own hand and what is public. These views read the env's state (one
row) and print the same information the observation vector encodes for that seat: his hand
sorted by suit, the bids and contract, the trick in progress and who leads it, the last trick,
the cards each player holds, declarations, running totals and whose turn it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.bolognese import SUIT_NAMES as BOLOGNESE_SUITS
from tarot_env.cards.deck import EXCUSE_SUIT, TRUMP_SUIT, Deck
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.cards.french import SUIT_NAMES as FRENCH_SUITS

#: the action verbs that take a card: a card typed alone gets the verb of the decision
CARD_VERBS = ("play", "discard", "call", "show", "give")


def is_french(env_id: str) -> bool:
    return env_id.startswith("french")


def deck_of(env_id: str) -> Deck:
    return FRENCH_DECK if is_french(env_id) else BOLOGNESE_DECK


def sort_cards(deck: Deck, cards: Any) -> list[int]:
    """Display order: the plain suits in their order, then the trumps, then the Excuse / Matto;
    strongest first within each group (so the trumps read T21 … T1, ANG MON SOL …)."""
    return sorted((int(c) for c in cards), key=lambda c: (int(deck.suit[c]), -int(deck.strength[c])))


def format_hand(deck: Deck, cards: Any) -> str:
    """``pique: KS 7S | cœur: … | atouts: T21 T6 | EX``, groups by suit in :func:`sort_cards` order."""
    suit_names = FRENCH_SUITS if deck is FRENCH_DECK else BOLOGNESE_SUITS
    trump_word = "atouts" if deck is FRENCH_DECK else "trumps"
    groups: dict[int, list[str]] = {}
    for c in sort_cards(deck, cards):
        groups.setdefault(int(deck.suit[c]), []).append(deck.names[c])
    parts = []
    for suit, names in groups.items():
        label = suit_names[suit] if suit < TRUMP_SUIT else trump_word if suit == TRUMP_SUIT else ""
        parts.append(f"{label}: {' '.join(names)}" if suit != EXCUSE_SUIT else " ".join(names))
    return " | ".join(parts) if parts else "(no cards)"


def action_sort_key(deck: Deck, text: str, action: int) -> tuple:
    """Legal moves in the order of the hand: card actions by :func:`sort_cards`, others by id."""
    words = text.split()
    if len(words) == 2 and words[0] in CARD_VERBS:
        c = deck.index[words[1]]
        return (0, CARD_VERBS.index(words[0]), int(deck.suit[c]), -int(deck.strength[c]))
    return (1, action)


def seat_label(seat: int, human: int | None, kinds: list[str]) -> str:
    """``player_2 (you)`` / ``player_1 (rules)``: every line names the seat and who plays it."""
    who = "you" if seat == human else kinds[seat]
    return f"player_{seat} ({who})"


# --------------------------------------------------------------------------------- French Tarot
def french_view(env: Any, human: int, kinds: list[str], totals: list[float], heading: str) -> str:
    """The table as ``human`` sees it in French Tarot."""
    from tarot_env.rules.french import actions as A
    from tarot_env.rules.french.state import Phase

    raw = env.unwrapped
    s = raw.game_state
    n = raw.game.num_players
    names = FRENCH_DECK.names
    phase = int(s.phase[0])
    lines = [f"── {heading} — dealer player_{int(s.dealer[0])} — {Phase.name(phase)} ──"]
    taker = int(s.taker[0])
    if phase != Phase.BID and taker >= 0:
        extra = f", called {names[int(s.called[0])]}" if int(s.called[0]) >= 0 else ""
        if int(s.called[0]) >= 0 and s.partner_known[0] and int(s.partner[0]) >= 0:
            extra += f" (partner player_{int(s.partner[0])})"
        if s.chelem[0]:
            extra += ", chelem announced"
        lines.append(f"taker player_{taker}: {A.CONTRACTS[int(s.contract[0]) - 1]}{extra}")
    width = max(len(seat_label(p, human, kinds)) for p in range(n))
    for p in range(n):
        bid = int(s.bids[0, p])
        bid_text = "-" if bid < 0 else "pass" if bid == 0 else A.CONTRACTS[bid - 1]
        tags = []
        if s.poignee[0, p]:
            shown = " ".join(names[c] for c in sort_cards(FRENCH_DECK, np.flatnonzero(s.poignee_cards[0, p])))
            tags.append(f"poignée {A.POIGNEE_NAMES[int(s.poignee[0, p]) - 1]}: {shown}")
        marker = ">" if phase != Phase.DONE and p == int(s.current[0]) else " "
        lines.append(
            f"{marker} {seat_label(p, human, kinds):<{width}}  bid {bid_text:<12} cards {int(s.hands[0, p].sum()):>2}"
            f"  total {totals[p]:+g}" + (f"  [{'; '.join(tags)}]" if tags else "")
        )
    if s.chien_seen[0]:
        lines.append(f"chien: {' '.join(names[c] for c in sort_cards(FRENCH_DECK, np.flatnonzero(s.chien[0])))}")
    if human == taker and s.ecart[0].any():
        lines.append(f"your écart: {' '.join(names[c] for c in sort_cards(FRENCH_DECK, np.flatnonzero(s.ecart[0])))}")
    t = int(s.trick_no[0])
    if t and phase != Phase.DONE:
        lines.append("last " + french_trick(env, t - 1))
    if phase in (Phase.PLAY, Phase.POIGNEE, Phase.SHOW):
        cards = [f"player_{p} {names[c]}" for p, c in french_table_cards(env)]
        lines.append(f"trick {t + 1}/{raw.game.num_tricks}, led by player_{int(s.leader[0])}: " + (", ".join(cards) or "(no card yet)"))
    lines.append(f"your hand: {format_hand(FRENCH_DECK, np.flatnonzero(s.hands[0, human]))}")
    return "\n".join(lines)


def discard_text(env_id: str, card: str) -> str:
    """How another player's discard is announced: face down, except a trump in the French écart,
    shown to every player (:data:`tarot_env.rules.french.ecart.SHOWN`, docs/rules/french_tarot.md §4)."""
    from tarot_env.rules.french import ecart

    if is_french(env_id) and ecart.SHOWN[FRENCH_DECK.parse(card)]:
        return f"discards {card} (a trump in the écart is shown)"
    return "discards a card (face down)"


def french_trick_cards(env: Any, t: int) -> list[tuple[int, int]]:
    """``(seat, card)`` of completed trick ``t`` (counted from 0), in play order from its leader."""
    s = env.unwrapped.game_state
    n = env.unwrapped.game.num_players
    leader = int(s.leaders[0, t])
    by_seat = {int(np.flatnonzero(s.played[0, :, c])[0]): int(c) for c in np.flatnonzero(s.trick_of[0] == t)}
    return [(p, by_seat[p]) for p in ((leader + k) % n for k in range(n)) if p in by_seat]


def french_table_cards(env: Any) -> list[tuple[int, int]]:
    """``(seat, card)`` of the trick on the table, in play order from its leader."""
    s = env.unwrapped.game_state
    n = env.unwrapped.game.num_players
    leader = int(s.leader[0])
    return [(p, int(s.trick[0, p])) for p in ((leader + k) % n for k in range(n)) if s.trick[0, p] >= 0]


def french_trick(env: Any, t: int) -> str:
    """``trick 3: player_1 7H, player_2 KH, … — won by player_2`` (trick ``t`` counted from 0)."""
    cards = [f"player_{p} {FRENCH_DECK.names[c]}" for p, c in french_trick_cards(env, t)]
    return f"trick {t + 1}: {', '.join(cards)} — won by player_{int(env.unwrapped.game_state.winners[0, t])}"


def french_tricks_done(env: Any) -> int:
    return int(env.unwrapped.game_state.trick_no[0])


def french_result(info: dict[str, Any]) -> str:
    """One line on how a French deal ended, from the env's final info."""
    if info.get("result") != "played":
        return f"deal {str(info.get('result', '?')).replace('_', ' ')}: no score"
    text = (
        f"taker player_{info['taker']} ({info['contract']}"
        + (f", partner player_{info['partner']}" if info.get("partner", -1) >= 0 and info["partner"] != info["taker"] else "")
        + f"): attack {info['attack_points']:g} points with {info['attack_bouts']} bouts — contract "
        + ("made" if info["made"] else "lost")
    )
    if info.get("petit_au_bout"):
        text += f", petit au bout ({'attack' if info['petit_au_bout'] > 0 else 'defence'})"
    if info.get("chelem") not in (None, "none"):
        text += f", chelem: {info['chelem'].replace('_', ' ')}"
    return text


def french_deal_end(env: Any, info: dict[str, Any]) -> list[str]:
    """How a French deal ended, for the player at the terminal: who took what and how the attack
    did, then the unit S term by term as docs/rules/french_tarot.md §9.1 writes it (contract,
    points over or under, petit au bout, poignées, chelem, multiplier). The terms are the
    scoring's own (:func:`tarot_env.rules.french.scoring.score_terms`), not computed again here."""
    from tarot_env.rules.french import actions as A
    from tarot_env.rules.french.scoring import score_terms

    if info.get("result") != "played":
        return [french_result(info)]
    raw = env.unwrapped
    t = score_terms(raw.game, raw.game_state, 0)
    m, d = t["multiplier"], t["difference"]
    verdict = f"made by {d}" if t["made"] else f"lost by {d}"
    partner = f", partner player_{info['partner']}" if info.get("partner", -1) >= 0 and info["partner"] != info["taker"] else ""
    pab = info["petit_au_bout"]
    chelem = str(info["chelem"]).replace("_", " ")
    shown = [(p, int(k)) for p, k in enumerate(raw.game_state.poignee[0]) if k]
    poignees = ", ".join(f"player_{p} {A.POIGNEE_NAMES[k - 1]} ({int(A.POIGNEE_BONUS[k])})" for p, k in shown)
    winner = "the attack" if t["made"] else "the defence"
    terms = [  # (what, how, points), as French Tarot §9.1 adds them up
        (f"contract {verdict}", f"{'' if t['made'] else '-'}(25 + {d}) × {m}", t["contract"]),
        (
            f"petit au bout to the {'attack' if pab > 0 else 'defence'}" if pab else "no petit au bout",
            f"{'-' if pab < 0 else ''}10 × {m}" if pab else "",
            t["petit_au_bout"],
        ),
        (f"poignée {poignees}, to {winner}" if shown else "no poignée", "", t["poignees"]),
        (f"chelem ({chelem})" if chelem != "none" else "no chelem", "", t["chelem"]),
    ]
    unit = t["unit"]
    lines = [
        f"taker player_{info['taker']} ({info['contract']}{partner}): attack {info['attack_points']:g} points with "
        f"{info['attack_bouts']} bouts, {t['threshold']} needed — contract {verdict}",
        f"   score S from the attack's side (docs/rules/french_tarot.md §9), multiplier ×{m} for a {info['contract']}:",
    ]
    texts = [f"{what}: {how} =" if how else f"{what}:" for what, how, _ in terms]
    width = max(len(text) for text in texts)
    lines += [f"     {text:<{width}} {points:+5d}" for text, (_, _, points) in zip(texts, terms)]
    lines.append(f"     S = {unit:+d}: each defender {'pays' if unit >= 0 else 'receives'} {abs(unit)}")
    return lines


# ---------------------------------------------------------------------------------- Tarocchino
def tarocchino_view(env: Any, human: int, kinds: list[str], totals: list[float], heading: str) -> str:
    """The table as ``human`` sees it in a Tarocchino game."""
    from tarot_env.rules.bolognese import state as S
    from tarot_env.rules.bolognese.scoring import SU

    raw = env.unwrapped
    s = raw.game_state
    n = raw.num_players
    names = BOLOGNESE_DECK.names
    ints, seat_ints, cards = s.ints[0], s.seat_ints[0], s.cards[0]
    phase = int(ints[S.PHASE])
    place, hand_of = cards[S.PLACE], cards[S.HAND_OF]
    hand = f" — hand {int(ints[S.HAND_NO]) + 1}" if raw.config.match else ""
    lines = [f"── {heading}{hand} — dealer player_{int(ints[S.DEALER])} — {S.Phase.name(phase)} ──"]
    if int(ints[S.SOLOIST]) >= 0:
        lines.append(f"soloist player_{int(ints[S.SOLOIST])} ({'su' if ints[S.CONTRACT] == SU else 'di mio'})")
    if raw.config.spec.sides == "partners":  # the partnerships, as the rules pair the seats
        side = raw.game.sides(s, 0)
        after = [(human + k) % n for k in range(1, n)]  # the others in play order from ``human``
        mates = [f"player_{p}" for p in after if side[p] == side[human]]
        others = [f"player_{p}" for p in after if side[p] != side[human]]
        lines.append(f"sides: you (player_{human}) with {' and '.join(mates)}, against {' and '.join(others)}")
    show_match_total = raw.config.match
    width = max(len(seat_label(p, human, kinds)) for p in range(n))
    for p in range(n):
        held = int(np.sum((hand_of == p) & ((place == S.PL_HAND) | (place == S.PL_EXTRA))))
        parts = [f"cards {held:>2}", f"tricks {int(seat_ints[p, S.TRICKS]):>2}"]
        if show_match_total:
            parts.append(f"game total {int(seat_ints[p, S.TOTAL])}")
        if raw.config.spec.players_drop_out and raw.config.match:
            parts.append(f"penalties {int(seat_ints[p, S.PENALTY])}" + ("" if seat_ints[p, S.ACTIVE] else " (out)"))
        parts.append(f"session {totals[p]:+g}")
        if seat_ints[p, S.DECLARED]:
            shown = [c for c in np.flatnonzero(cards[S.SHOWN] == 1) if _holder(cards, c, S) == p]
            parts.append(f"declared {int(seat_ints[p, S.DECLARED])}: {' '.join(names[c] for c in sort_cards(BOLOGNESE_DECK, shown))}")
        marker = ">" if phase != S.PH_DONE and p == int(ints[S.CURRENT]) else " "
        lines.append(f"{marker} {seat_label(p, human, kinds):<{width}}  " + "  ".join(parts))
    if phase == S.PH_DISCARD:
        lines.append(f"player_{int(ints[S.CURRENT])} discards {int(ints[S.DISCARDS_LEFT])} more")
    mine = np.flatnonzero((place == S.PL_DISCARD) & (cards[S.PILE_OF] == human))
    if len(mine):
        lines.append(f"your discards: {' '.join(names[c] for c in sort_cards(BOLOGNESE_DECK, mine))}")
    t = int(ints[S.TRICK_NO])
    if t and phase != S.PH_DONE:
        lines.append("last " + tarocchino_trick(env, t - 1))
    table = tarocchino_table_cards(env)
    if phase == S.PH_PLAY or table:
        played = ", ".join(f"player_{p} {names[c]}" for p, c in table) or "(no card yet)"
        lines.append(f"trick {t + 1}/{raw.config.num_tricks}, led by player_{int(ints[S.LEADER])}: {played}")
    lines.append(f"your hand: {format_hand(BOLOGNESE_DECK, np.flatnonzero((hand_of == human) & (place == S.PL_HAND)))}")
    extra = int(np.sum((hand_of == human) & (place == S.PL_EXTRA)))
    if extra:
        lines.append(f"  (+{extra} cards dealt to you, picked up after the claim window)")
    if phase == S.PH_DECLARE and int(ints[S.CURRENT]) == human:
        lines.append(declaration_offer(env, human))
    return "\n".join(lines)


def declaration_offer(env: Any, seat: int) -> str:
    """What ``declare`` would declare for ``seat`` now (Tarocchino §7): the cards of his combinations, shown
    to the table, and the value it counts for his side, as the rules worked them out when the
    hands were final (the state's ``combo`` cards and ``decl`` value, :mod:`tarot_env.rules.bolognese.claims`)."""
    from tarot_env.rules.bolognese import state as S

    s = env.unwrapped.game_state
    cards = s.cards[0]
    combo = np.flatnonzero((cards[S.COMBO] == 1) & (cards[S.HAND_OF] == seat))
    shown = " ".join(BOLOGNESE_DECK.names[c] for c in sort_cards(BOLOGNESE_DECK, combo))
    value = int(s.seat_ints[0, seat, S.DECL])
    return f"declare: {shown}, worth {value} points; declaring shows these cards to the table (no_declare keeps them hidden)"


def _holder(cards: np.ndarray, c: int, S: Any) -> int:
    """Who showed card ``c``: its holder, or who played it once it left the hand."""
    h = int(cards[S.HAND_OF, c])
    return h if h >= 0 else int(cards[S.PLAYED_BY, c])


def _in_play_order(env: Any, cards: np.ndarray, leader: int) -> list[tuple[int, int]]:
    """``(seat, card)`` of Tarocchino ``cards`` played in one trick, in play order from ``leader``."""
    from tarot_env.rules.bolognese import state as S

    played_by = env.unwrapped.game_state.cards[0, S.PLAYED_BY]
    n = env.unwrapped.num_players
    return sorted(((int(played_by[c]), int(c)) for c in cards), key=lambda pc: (pc[0] - leader) % n)


def tarocchino_trick_cards(env: Any, t: int) -> list[tuple[int, int]]:
    """``(seat, card)`` of completed trick ``t`` (counted from 0), in play order from its leader."""
    from tarot_env.rules.bolognese import state as S

    s = env.unwrapped.game_state
    return _in_play_order(env, np.flatnonzero(s.cards[0, S.TRICK_OF] == t), s.trick_leader(0, t))


def tarocchino_table_cards(env: Any) -> list[tuple[int, int]]:
    """``(seat, card)`` of the trick on the table, in play order from its leader."""
    from tarot_env.rules.bolognese import state as S

    s = env.unwrapped.game_state
    return _in_play_order(env, np.flatnonzero(s.cards[0, S.PLACE] == S.PL_TABLE), int(s.ints[0, S.LEADER]))


def tarocchino_trick(env: Any, t: int) -> str:
    """``trick 3: player_1 KS, … — won by player_2`` (trick ``t`` counted from 0, in play order)."""
    played = ", ".join(f"player_{p} {BOLOGNESE_DECK.names[c]}" for p, c in tarocchino_trick_cards(env, t))
    return f"trick {t + 1}: {played} — won by player_{int(env.unwrapped.game_state.hist[0, t])}"


def tarocchino_tricks_done(env: Any) -> int:
    from tarot_env.rules.bolognese import state as S

    return int(env.unwrapped.game_state.ints[0, S.TRICK_NO])


def side_name(members: list[int], human: int, short: bool = False) -> str:
    """A side as the player reads it: ``you``, ``player_1``, or ``your side (you and player_2)``,
    ``the other side (player_1 and player_3)`` where partners play together (``short``: without
    the players, once they have been named)."""
    names = " and ".join("you" if p == human else f"player_{p}" for p in members)
    if len(members) == 1:
        return names
    side = "your side" if human in members else "the other side"
    return side if short else f"{side} ({names})"


def tarocchino_hand_end(info: dict[str, Any], sides: np.ndarray, human: int) -> str:
    """How a Tarocchino hand ended, for the player at the terminal: each side's points labelled
    by who plays on it, and which side won the hand, as the env's ``win_loss`` reward counts it
    (:func:`tarot_env.envs.tarocchino_rewards.hand_rewards`): the higher hand score, a claim's
    side (the other side for a wrong claim), Terziglio's ``soloist_won``; Mattazza's losers.
    ``sides``: each seat's side during the hand (``game.sides`` before the step that ended it:
    after it a match's next hand may have another soloist)."""
    hand = f"hand {info.get('hand', 0) + 1}"
    result = str(info.get("result", "?"))
    if result == "thrown_in":
        return f"{hand} thrown in: no score"
    members = [[int(p) for p in np.flatnonzero(sides == k)] for k in range(int(sides.max()) + 1)]
    by_side = {k: m for k, m in enumerate(members) if m}  # by side number, as info["points"] counts them
    scores = info["scores"]
    if result in ("claimed", "wrong_claim"):
        claimer = info["claimer"]
        text = f"{hand} ended by {'you' if claimer == human else f'player_{claimer}'}'s claim of {info['claim_value']}"
        claim_side = int(sides[claimer])
        winner = claim_side if result == "claimed" else 1 - claim_side
        text += " (right)" if result == "claimed" else " (wrong: below the target)"
        text += " — " + ", ".join(f"{side_name(m, human)}: {scores[m[0]]:+g}" for m in by_side.values())
        return f"{text} — {side_name(by_side[winner], human, short=True)} won the game{_match_part(info)}"
    points = info.get("points", {}).get("total")
    if points is None:
        return tarocchino_result(info)
    rounded = "raw" in info  # Quindici: the hand scores are the points rounded (Tarocchino §13)
    parts = [
        f"{side_name(m, human)}: {points[k]:g} points" + (f" (scored {scores[m[0]]:g})" if rounded else "") for k, m in by_side.items()
    ]
    text = f"{hand} played — " + ", ".join(parts)
    if "losers" in info:  # Mattazza: each for himself, the hand's losers take a penalty point (Tarocchino §14.5)
        losers = [side_name([p], human) for p in info["losers"]]
        return text + " — " + (f"lost by {' and '.join(losers)}" if losers else "nobody lost") + _match_part(info)
    if "soloist_won" in info:  # Terziglio: the soloist's side is 0 (Tarocchino §10.6)
        winner = 0 if info["soloist_won"] else 1
        contract = str(info.get("contract", "")).replace("_", " ")
        text += f" — soloist {side_name([info['soloist']], human)} ({contract}) {'won' if info['soloist_won'] else 'lost'}"
        return f"{text}: {side_name(by_side[winner], human, short=True)} won the hand{_match_part(info)}"
    side_scores = [scores[m[0]] for m in by_side.values()]
    best = max(side_scores)
    if side_scores.count(best) > 1:
        return f"{text} — a tie: nobody won the hand{_match_part(info)}"
    return f"{text} — {side_name(by_side[side_scores.index(best)], human, short=True)} won the hand{_match_part(info)}"


def _match_part(info: dict[str, Any]) -> str:
    """A match's standing after a hand: the penalty points (Mattazza) or the game totals."""
    if "match_over" in info and "penalties" in info:
        return " — penalty points " + ", ".join(str(v) for v in info["penalties"])
    if "match_over" in info and "totals" in info:
        return " — game totals " + ", ".join(str(v) for v in info["totals"])
    return ""


def tarocchino_result(info: dict[str, Any]) -> str:
    """One line on how a Tarocchino hand ended, from the env's info (the scores are printed apart)."""
    text = f"hand {info.get('hand', 0) + 1} {str(info.get('result', '?')).replace('_', ' ')}"
    points = info.get("points", {})
    if "total" in points:
        text += ": points " + " / ".join(f"{v:g}" for v in points["total"])
    if info.get("soloist") is not None and info["soloist"] >= 0:
        text += f" (soloist player_{info['soloist']}, {'won' if info.get('soloist_won') else 'lost'})"
    if info.get("losers"):
        text += " — losers: " + ", ".join(f"player_{p}" for p in info["losers"])
    return text + _match_part(info)


# ----------------------------------------------------------------------------------- dispatch
def table_view(env_id: str, env: Any, human: int, kinds: list[str], totals: list[float], heading: str) -> str:
    view = french_view if is_french(env_id) else tarocchino_view
    return view(env, human, kinds, totals, heading)


def cards_in_hand(env_id: str, env: Any, seat: int) -> int:
    """How many cards ``seat`` holds (a Tarocchino hand's cards still to pick up included)."""
    s = env.unwrapped.game_state
    if is_french(env_id):
        return int(s.hands[0, seat].sum())
    from tarot_env.rules.bolognese import state as S

    cards = s.cards[0]
    return int(np.sum((cards[S.HAND_OF] == seat) & ((cards[S.PLACE] == S.PL_HAND) | (cards[S.PLACE] == S.PL_EXTRA))))


def tricks_done(env_id: str, env: Any) -> int:
    return french_tricks_done(env) if is_french(env_id) else tarocchino_tricks_done(env)


def trick_summary(env_id: str, env: Any, t: int) -> str:
    return french_trick(env, t) if is_french(env_id) else tarocchino_trick(env, t)


def result_line(env_id: str, info: dict[str, Any]) -> str:
    """One line on how a deal (hand) ended, from the env's info alone (the web room's summary)."""
    return french_result(info) if is_french(env_id) else tarocchino_result(info)


def deal_end(env_id: str, env: Any, info: dict[str, Any], sides: np.ndarray | None, human: int) -> list[str]:
    """How a deal (hand) ended, as ``tarot play`` prints it: French Tarot's score term by term
    (:func:`french_deal_end`), a Tarocchino hand's points by side and its winner
    (:func:`tarocchino_hand_end`, ``sides`` the seats' sides during the hand)."""
    if is_french(env_id):
        return french_deal_end(env, info)
    return [tarocchino_hand_end(info, sides, human)]
