"""What one player sees at the table, as text: the ``tarot play`` screen.

``env.render()`` shows every hand (it is the omniscient view a replay wants); a player at the
table must see only his own hand and what is public. These views read the seat's seat view
(:mod:`tarot_env.rules.seat_view`, the one statement of what a seat may see, whose no-leak tests
tie the observation vector to it) and print it: his hand sorted by suit, the bids and contract,
the trick in progress and who leads it, the last trick, the cards each player holds,
declarations, running totals and whose turn it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.deck import Deck
from tarot_env.cards.display import card_names, format_hand
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.env_facts import facts
from tarot_env.rules.bolognese import seat_view as tarocchino_seat_view
from tarot_env.rules.bolognese.seat_view import TarocchinoSeatView
from tarot_env.rules.french import seat_view as french_seat_view
from tarot_env.rules.french.seat_view import FrenchSeatView
from tarot_env.rules.seat_view import Trick, of_env


def seat_label(seat: int, human: int | None, kinds: list[str]) -> str:
    """``player_2 (you)`` / ``player_1 (rules)``: every line names the seat and who plays it."""
    who = "you" if seat == human else kinds[seat]
    return f"player_{seat} ({who})"


# --------------------------------------------------------------------------------- French Tarot
def french_view(env: Any, human: int, kinds: list[str], totals: list[float], heading: str) -> str:
    """The table as ``human`` sees it in French Tarot (his seat view)."""
    from tarot_env.rules.french import actions as A
    from tarot_env.rules.french.state import Phase

    sv: FrenchSeatView = of_env(env, human)
    n = sv.num_players
    names = FRENCH_DECK.names
    phase = sv.phase
    lines = [f"── {heading} — dealer player_{sv.dealer} — {Phase.name(phase)} ──"]
    taker = sv.taker
    if phase != Phase.BID and taker >= 0:
        extra = f", called {names[sv.called]}" if sv.called >= 0 else ""
        if sv.called >= 0 and sv.partner_public and sv.partner is not None and sv.partner >= 0:
            extra += f" (partner player_{sv.partner})"
        if sv.chelem:
            extra += ", chelem announced"
        lines.append(f"taker player_{taker}: {A.CONTRACTS[sv.contract - 1]}{extra}")
    width = max(len(seat_label(p, human, kinds)) for p in range(n))
    for p in range(n):
        bid = int(sv.bids[p])
        bid_text = "-" if bid < 0 else "pass" if bid == 0 else A.CONTRACTS[bid - 1]
        tags = []
        if sv.poignee[p]:
            shown = card_names(FRENCH_DECK, np.flatnonzero(sv.poignee_cards[p]))
            tags.append(f"poignée {A.POIGNEE_NAMES[int(sv.poignee[p]) - 1]}: {shown}")
        marker = ">" if p == sv.to_act else " "
        lines.append(
            f"{marker} {seat_label(p, human, kinds):<{width}}  bid {bid_text:<12} cards {int(sv.counts[p]):>2}"
            f"  total {totals[p]:+g}" + (f"  [{'; '.join(tags)}]" if tags else "")
        )
    if sv.chien_seen:
        lines.append(f"chien: {card_names(FRENCH_DECK, np.flatnonzero(sv.chien))}")
    if sv.own_ecart.any():
        lines.append(f"your écart: {card_names(FRENCH_DECK, np.flatnonzero(sv.own_ecart))}")
    t = sv.trick_no
    if t and phase != Phase.DONE:
        lines.append("last " + trick_text(FRENCH_DECK, t - 1, sv.tricks[t - 1]))
    if phase in (Phase.PLAY, Phase.POIGNEE, Phase.SHOW):
        cards = [f"player_{p} {names[c]}" for p, c in sv.table]
        lines.append(f"trick {t + 1}/{sv.num_tricks}, led by player_{sv.leader}: " + (", ".join(cards) or "(no card yet)"))
    lines.append(f"your hand: {format_hand(FRENCH_DECK, np.flatnonzero(sv.hand))}")
    return "\n".join(lines)


def trick_text(deck: Deck, t: int, trick: Trick) -> str:
    """``trick 3: player_1 7H, player_2 KH, … — won by player_2`` (trick ``t`` counted from 0, in play order)."""
    return f"trick {t + 1}: {', '.join(f'player_{p} {deck.names[c]}' for p, c in trick.cards)} — won by player_{trick.winner}"


def french_deal_end(env: Any, info: dict[str, Any]) -> list[str]:
    """How a French deal ended, for the player at the terminal: who took what and how the attack
    did, then the unit S term by term as docs/rules/french_tarot.md §9.1 writes it (contract,
    points over or under, petit au bout, poignées, chelem, multiplier). The terms are the
    scoring's own (:func:`tarot_env.rules.french.scoring.score_terms`), not computed again here."""
    from tarot_env.rules.french import actions as A
    from tarot_env.rules.french.scoring import score_terms

    if info.get("result") != "played":
        return [french_seat_view.result_line(info)]
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
    """The table as ``human`` sees it in a Tarocchino game (his seat view)."""
    from tarot_env.rules.bolognese import state as S
    from tarot_env.rules.bolognese.scoring import SU

    raw = env.unwrapped
    sv: TarocchinoSeatView = of_env(env, human)
    n = sv.num_players
    names = BOLOGNESE_DECK.names
    phase = sv.phase
    hand = f" — hand {sv.hand_no + 1}" if raw.config.match else ""
    lines = [f"── {heading}{hand} — dealer player_{sv.dealer} — {S.Phase.name(phase)} ──"]
    if sv.soloist >= 0:
        lines.append(f"soloist player_{sv.soloist} ({'su' if sv.contract == SU else 'di mio'})")
    if raw.config.spec.sides == "partners":  # the partnerships, as the rules pair the seats
        side = sv.sides
        after = [(human + k) % n for k in range(1, n)]  # the others in play order from ``human``
        mates = [f"player_{p}" for p in after if side[p] == side[human]]
        others = [f"player_{p}" for p in after if side[p] != side[human]]
        lines.append(f"sides: you (player_{human}) with {' and '.join(mates)}, against {' and '.join(others)}")
    show_match_total = raw.config.match
    width = max(len(seat_label(p, human, kinds)) for p in range(n))
    for p in range(n):
        parts = [f"cards {int(sv.counts[p]):>2}", f"tricks {int(sv.tricks_won[p]):>2}"]
        if show_match_total:
            parts.append(f"game total {int(sv.totals[p])}")
        if raw.config.spec.players_drop_out and raw.config.match:
            parts.append(f"penalties {int(sv.penalties[p])}" + ("" if sv.active[p] else " (out)"))
        parts.append(f"session {totals[p]:+g}")
        if sv.declared[p]:
            parts.append(f"declared {int(sv.declared[p])}: {card_names(BOLOGNESE_DECK, np.flatnonzero(sv.shown[p]))}")
        marker = ">" if p == sv.to_act else " "
        lines.append(f"{marker} {seat_label(p, human, kinds):<{width}}  " + "  ".join(parts))
    if phase == S.PH_DISCARD:
        lines.append(f"player_{sv.to_act} discards {sv.discards_left} more")
    if sv.discards.any():
        lines.append(f"your discards: {card_names(BOLOGNESE_DECK, np.flatnonzero(sv.discards))}")
    t = sv.trick_no
    if t and phase != S.PH_DONE:
        lines.append("last " + trick_text(BOLOGNESE_DECK, t - 1, sv.tricks[t - 1]))
    if phase == S.PH_PLAY or sv.table:
        played = ", ".join(f"player_{p} {names[c]}" for p, c in sv.table) or "(no card yet)"
        lines.append(f"trick {t + 1}/{raw.config.num_tricks}, led by player_{sv.leader}: {played}")
    lines.append(f"your hand: {format_hand(BOLOGNESE_DECK, np.flatnonzero(sv.hand))}")
    if sv.extra:
        lines.append(f"  (+{sv.extra} cards dealt to you, picked up after the claim window)")
    if phase == S.PH_DECLARE and sv.to_act == human:
        lines.append(declaration_offer(env, human))
    return "\n".join(lines)


def declaration_offer(env: Any, seat: int) -> str:
    """What ``declare`` would declare for ``seat`` now (Tarocchino §7): the cards of his combinations, shown
    to the table, and the value it counts for his side, as the rules worked them out when the
    hands were final (his seat view's combinations and declaration value)."""
    sv: TarocchinoSeatView = of_env(env, seat)
    shown = card_names(BOLOGNESE_DECK, np.flatnonzero(sv.my_combinations))
    return f"declare: {shown}, worth {sv.my_declaration} points; declaring shows these cards to the table (no_declare keeps them hidden)"


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
        return f"{text} — {side_name(by_side[winner], human, short=True)} won the game{tarocchino_seat_view.match_part(info)}"
    points = info.get("points", {}).get("total")
    if points is None:
        return tarocchino_seat_view.result_line(info)
    rounded = "raw" in info  # Quindici: the hand scores are the points rounded (Tarocchino §13)
    parts = [
        f"{side_name(m, human)}: {points[k]:g} points" + (f" (scored {scores[m[0]]:g})" if rounded else "") for k, m in by_side.items()
    ]
    text = f"{hand} played — " + ", ".join(parts)
    if "losers" in info:  # Mattazza: each for himself, the hand's losers take a penalty point (Tarocchino §14.5)
        losers = [side_name([p], human) for p in info["losers"]]
        return text + " — " + (f"lost by {' and '.join(losers)}" if losers else "nobody lost") + tarocchino_seat_view.match_part(info)
    if "soloist_won" in info:  # Terziglio: the soloist's side is 0 (Tarocchino §10.6)
        winner = 0 if info["soloist_won"] else 1
        contract = str(info.get("contract", "")).replace("_", " ")
        text += f" — soloist {side_name([info['soloist']], human)} ({contract}) {'won' if info['soloist_won'] else 'lost'}"
        return f"{text}: {side_name(by_side[winner], human, short=True)} won the hand{tarocchino_seat_view.match_part(info)}"
    side_scores = [scores[m[0]] for m in by_side.values()]
    best = max(side_scores)
    if side_scores.count(best) > 1:
        return f"{text} — a tie: nobody won the hand{tarocchino_seat_view.match_part(info)}"
    return f"{text} — {side_name(by_side[side_scores.index(best)], human, short=True)} won the hand{tarocchino_seat_view.match_part(info)}"


def table_view(env_id: str, env: Any, human: int, kinds: list[str], totals: list[float], heading: str) -> str:
    view = french_view if facts(env_id).french else tarocchino_view
    return view(env, human, kinds, totals, heading)


def cards_in_hand(env_id: str, env: Any, seat: int) -> int:
    """How many cards ``seat`` holds (a Tarocchino hand's cards still to pick up included): a public count."""
    return int(of_env(env, None).counts[seat])


def tricks_done(env_id: str, env: Any) -> int:
    return of_env(env, None).trick_no


def trick_summary(env_id: str, env: Any, t: int) -> str:
    return trick_text(facts(env_id).deck, t, of_env(env, None).tricks[t])


def result_line(env_id: str, info: dict[str, Any]) -> str:
    """One line on how a deal (hand) ended, from the env's info alone (public at the end)."""
    return (french_seat_view if facts(env_id).french else tarocchino_seat_view).result_line(info)


def discard_text(env_id: str, card: str) -> str:
    """How another player's discard is announced (face down, or a French écart's trump shown)."""
    return (french_seat_view if facts(env_id).french else tarocchino_seat_view).discard_words(card)


def deal_end(env_id: str, env: Any, info: dict[str, Any], sides: np.ndarray | None, human: int) -> list[str]:
    """How a deal (hand) ended, as ``tarot play`` prints it: French Tarot's score term by term
    (:func:`french_deal_end`), a Tarocchino hand's points by side and its winner
    (:func:`tarocchino_hand_end`, ``sides`` the seats' sides during the hand)."""
    if facts(env_id).french:
        return french_deal_end(env, info)
    return [tarocchino_hand_end(info, sides, human)]
