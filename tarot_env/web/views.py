"""What one seat, or a spectator, may see of a deal: JSON-able dicts built from the env's state.

The env keeps every hand in one array (it is the omniscient state a replay needs); a browser
must receive only what its seat could see at a real table. These functions read the public
fields one by one (bids, contract, the trick on the table, the last trick, shown poignées and
declarations, the chien when the rules turn it face up, card counts) and add the viewer's own
hand, his own écart or discards, and his legal moves when it is his turn. Nothing else is read,
so another seat's hidden cards cannot leak into a message: ``seat=None`` (a spectator) adds no
private part at all. The same reading as the terminal's seat view (:mod:`tarot_env.cli.views`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tarot_env.cards.deck import Deck
from tarot_env.cli import views as cli_views
from tarot_env.cli.play import legal_moves
from tarot_env.rules.french import ecart


def card(deck: Deck, c: int) -> dict[str, Any]:
    """A card for the page: its id, its name (docs/cards.md) and its suit code (for the colour)."""
    return {"id": int(c), "name": deck.names[int(c)], "suit": int(deck.suit[int(c)])}


def cards(deck: Deck, ids: Any) -> list[dict[str, Any]]:
    """Cards in display order (the terminal's order: suits, then trumps strongest first, then the excuse)."""
    return [card(deck, c) for c in cli_views.sort_cards(deck, ids)]


def moves(env_id: str, raw: Any) -> list[dict[str, Any]]:
    """The legal moves of the seat to play: action id, action string, and the card it uses (if any)."""
    out = []
    for action, text in legal_moves(env_id, raw):
        verb, _, rest = text.partition(" ")
        out.append({"action": int(action), "text": text, "verb": verb, "card": rest if verb in cli_views.CARD_VERBS else None})
    return out


def current_seat(raw: Any) -> int | None:
    """The seat whose turn it is, or None when the deal is over."""
    if raw.game_over:
        return None
    return raw.possible_agents.index(raw.agent_selection)


def dealer_seat(raw: Any) -> int:
    """The deal's dealer (a fixed deal names its own)."""
    s = raw.game_state
    if hasattr(s, "dealer"):  # French Tarot
        return int(s.dealer[0])
    from tarot_env.rules.bolognese.state import DEALER

    return int(s.ints[0, DEALER])


def deal_view(env_id: str, env: Any, seat: int | None) -> dict[str, Any]:
    """The deal as ``seat`` sees it (``None``: a spectator)."""
    raw = env.unwrapped
    view = french_view(raw, seat) if cli_views.is_french(env_id) else tarocchino_view(raw, seat)
    turn = current_seat(raw)
    view["turn"] = turn
    view["moves"] = moves(env_id, raw) if seat is not None and turn == seat else []
    verbs = {m["verb"] for m in view["moves"] if m["card"] is not None}
    if len(verbs) == 1 and "hand" in view:  # a card decision: each card of the hand says if it may be used now
        verb = verbs.pop()
        legal = {m["card"]: m["action"] for m in view["moves"] if m["card"] is not None}
        for c in view["hand"]:
            c["legal"] = c["name"] in legal
            # an illegal card keeps its action id: clicking it asks the rules, which say why not
            c["action"] = legal.get(c["name"], _action_of(raw, f"{verb} {c['name']}"))
    return view


def _action_of(raw: Any, text: str) -> int | None:
    try:
        return int(raw.string_to_action(text))
    except ValueError:
        return None


# --------------------------------------------------------------------------------- French Tarot
def french_view(raw: Any, seat: int | None) -> dict[str, Any]:
    from tarot_env.cards.french import FRENCH_DECK as D
    from tarot_env.rules.french import actions as A
    from tarot_env.rules.french.state import Phase

    s = raw.game_state
    n = raw.game.num_players
    phase = int(s.phase[0])
    taker = int(s.taker[0])
    players = []
    for p in range(n):
        bid = int(s.bids[0, p])
        entry: dict[str, Any] = {
            "seat": p,
            "bid": None if bid < 0 else "pass" if bid == 0 else A.CONTRACTS[bid - 1],
            "cards": int(s.hands[0, p].sum()),
        }
        if s.poignee[0, p]:  # a declared poignée is shown to everybody
            entry["poignee"] = A.POIGNEE_NAMES[int(s.poignee[0, p]) - 1]
            entry["shown"] = cards(D, np.flatnonzero(s.poignee_cards[0, p]))
        players.append(entry)
    view: dict[str, Any] = {
        "game": "french",
        "phase": Phase.name(phase),
        "dealer": dealer_seat(raw),
        "players": players,
        "contract": None,
        "trick": [],
        "last_trick": None,
        "trick_no": int(s.trick_no[0]),
        "num_tricks": int(raw.game.num_tricks),
    }
    if phase != Phase.BID and taker >= 0:
        contract = {"taker": taker, "name": A.CONTRACTS[int(s.contract[0]) - 1], "chelem": bool(s.chelem[0])}
        if int(s.called[0]) >= 0:
            contract["called"] = D.names[int(s.called[0])]
            if s.partner_known[0] and int(s.partner[0]) >= 0:
                contract["partner"] = int(s.partner[0])
        view["contract"] = contract
    if s.chien_seen[0]:  # petite and garde: the chien is turned face up for all
        view["chien"] = cards(D, np.flatnonzero(s.chien[0]))
    # the écart is face down, but a trump the taker had to put in it is shown to the defence
    # (docs/rules/french_tarot.md §4): those trumps, and only those, are public
    forced = np.flatnonzero(s.ecart[0] & ecart.SHOWN)
    if len(forced):
        view["ecart_trumps"] = cards(D, forced)
    t = int(s.trick_no[0])
    if t:
        view["last_trick"] = _trick(D, t - 1, cli_views.french_trick_cards(raw, t - 1), int(s.winners[0, t - 1]))
    if phase in (Phase.PLAY, Phase.POIGNEE, Phase.SHOW):
        view["trick"] = _played(D, cli_views.french_table_cards(raw))
        view["leader"] = int(s.leader[0])
    if seat is not None:
        view["hand"] = cards(D, np.flatnonzero(s.hands[0, seat]))
        if seat == taker and s.ecart[0].any():  # the taker's own écart, never anyone else's
            view["ecart"] = cards(D, np.flatnonzero(s.ecart[0]))
    return view


def _played(deck: Deck, seat_cards: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """Cards on the table or in a trick, ``(seat, card)`` in play order, for the page."""
    return [{"seat": p, "card": card(deck, c)} for p, c in seat_cards]


def _trick(deck: Deck, t: int, seat_cards: list[tuple[int, int]], winner: int) -> dict[str, Any]:
    """Completed trick ``t`` (counted from 0) for the page: its cards in play order and its winner."""
    return {"no": t + 1, "cards": _played(deck, seat_cards), "winner": winner}


# ---------------------------------------------------------------------------------- Tarocchino
def tarocchino_view(raw: Any, seat: int | None) -> dict[str, Any]:
    from tarot_env.cards.bolognese import BOLOGNESE_DECK as D
    from tarot_env.rules.bolognese import state as S

    s = raw.game_state
    n = raw.num_players
    ints, seat_ints, cs = s.ints[0], s.seat_ints[0], s.cards[0]
    place, hand_of = cs[S.PLACE], cs[S.HAND_OF]
    phase = int(ints[S.PHASE])
    players = []
    for p in range(n):
        entry: dict[str, Any] = {
            "seat": p,
            "cards": int(np.sum((hand_of == p) & ((place == S.PL_HAND) | (place == S.PL_EXTRA)))),
            "tricks": int(seat_ints[p, S.TRICKS]),
        }
        if seat_ints[p, S.DECLARED]:  # declared combinations are shown to everybody
            shown = [c for c in np.flatnonzero(cs[S.SHOWN] == 1) if cli_views._holder(cs, c, S) == p]
            entry["declared"] = int(seat_ints[p, S.DECLARED])
            entry["shown"] = cards(D, shown)
        players.append(entry)
    view: dict[str, Any] = {
        "game": "tarocchino",
        "phase": S.Phase.name(phase),
        "dealer": dealer_seat(raw),
        "players": players,
        "contract": None,
        "trick": [],
        "last_trick": None,
        "trick_no": int(ints[S.TRICK_NO]),
        "num_tricks": int(raw.config.num_tricks),
    }
    if int(ints[S.SOLOIST]) >= 0:
        from tarot_env.rules.bolognese.scoring import SU

        view["contract"] = {"taker": int(ints[S.SOLOIST]), "name": "su" if ints[S.CONTRACT] == SU else "di mio"}
    if raw.config.spec.sides == "partners":  # the partnerships, as the rules pair the seats
        side = raw.game.sides(s, 0)
        view["sides"] = [[int(p) for p in np.flatnonzero(side == k)] for k in (0, 1)]
    if phase == S.PH_DISCARD:
        view["discarding"] = {"seat": int(ints[S.CURRENT]), "left": int(ints[S.DISCARDS_LEFT])}
    t = int(ints[S.TRICK_NO])
    if t:
        view["last_trick"] = _trick(D, t - 1, cli_views.tarocchino_trick_cards(raw, t - 1), int(s.hist[0, t - 1]))
    table = cli_views.tarocchino_table_cards(raw)
    if table:
        view["trick"] = _played(D, table)
        view["leader"] = int(ints[S.LEADER])
    if seat is not None:
        view["hand"] = cards(D, np.flatnonzero((hand_of == seat) & (place == S.PL_HAND)))
        view["extra"] = int(np.sum((hand_of == seat) & (place == S.PL_EXTRA)))  # a count: not yet his to see
        mine = np.flatnonzero((place == S.PL_DISCARD) & (cs[S.PILE_OF] == seat))
        if len(mine):
            view["discards"] = cards(D, mine)
    return view


def result_view(env_id: str, info: dict[str, Any]) -> dict[str, Any]:
    """How a deal ended, for everybody: the scores and the terminal's one-line summary (public at the end)."""
    return {"scores": [float(x) for x in info.get("scores", [])], "summary": cli_views.result_line(env_id, info)}
