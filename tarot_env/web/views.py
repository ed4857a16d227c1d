"""What one seat, or a spectator, may see of a deal: JSON-able dicts built from the env's state.

The env keeps every hand in one array (it is the omniscient state a replay needs); a browser
must receive only what its seat could see at a real table. These functions read the public
fields one by one (bids, contract, the trick on the table, the last trick, shown poignées and
declarations, the chien when the rules turn it face up, card counts) and add the viewer's own
hand, his own écart or discards, and his legal moves when it is his turn, all from his seat view
(:mod:`tarot_env.rules.seat_view`, the one statement of what a seat may see, as the terminal's
table reads it too). Nothing else is read, so another seat's hidden cards cannot leak into a
message: ``seat=None`` (a spectator) adds no private part at all.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.deck import Deck
from tarot_env.cards.display import sort_cards
from tarot_env.env_facts import facts
from tarot_env.moves import CARD_VERBS, legal_moves
from tarot_env.rules.bolognese import seat_view as tarocchino_seat_view
from tarot_env.rules.french import seat_view as french_seat_view
from tarot_env.rules.seat_view import Trick, of_env


def card(deck: Deck, c: int) -> dict[str, Any]:
    """A card for the page: its id, its name (docs/cards.md) and its suit code (for the colour)."""
    return {"id": int(c), "name": deck.names[int(c)], "suit": int(deck.suit[int(c)])}


def cards(deck: Deck, ids: Any) -> list[dict[str, Any]]:
    """Cards in display order (the terminal's order: suits, then trumps strongest first, then the excuse)."""
    return [card(deck, c) for c in sort_cards(deck, ids)]


def moves(env_id: str, raw: Any) -> list[dict[str, Any]]:
    """The legal moves of the seat to play: action id, action string, and the card it uses (if any)."""
    out = []
    for action, text in legal_moves(env_id, raw):
        verb, _, rest = text.partition(" ")
        out.append({"action": int(action), "text": text, "verb": verb, "card": rest if verb in CARD_VERBS else None})
    return out


def current_seat(raw: Any) -> int | None:
    """The seat whose turn it is, or None when the deal is over."""
    if raw.game_over:
        return None
    return raw.possible_agents.index(raw.agent_selection)


def dealer_seat(raw: Any) -> int:
    """The deal's dealer (a fixed deal names its own)."""
    return int(of_env(raw, None).dealer)


def deal_view(env_id: str, env: Any, seat: int | None) -> dict[str, Any]:
    """The deal as ``seat`` sees it (``None``: a spectator)."""
    raw = env.unwrapped
    view = french_view(raw, seat) if facts(env_id).french else tarocchino_view(raw, seat)
    turn = current_seat(raw)
    view["turn"] = turn
    view["moves"] = moves(env_id, raw) if seat is not None and turn == seat else []
    for m in view["moves"]:
        m["label"], m["help"] = move_words(env_id, m["text"])
    if view["moves"]:
        view["prompt"] = prompt(env_id, raw, seat, view["moves"])  # type: ignore[arg-type]
        if any(m["verb"] == "discard" for m in view["moves"]):
            view["aside"] = aside_count(env_id, raw, seat)  # type: ignore[arg-type]
    if raw.game_over:
        view["score"] = score_view(env_id, raw)
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

    sv: french_seat_view.FrenchSeatView = of_env(raw, seat)
    phase = sv.phase
    taker = sv.taker
    players = []
    for p in range(sv.num_players):
        bid = int(sv.bids[p])
        entry: dict[str, Any] = {
            "seat": p,
            "bid": None if bid < 0 else "pass" if bid == 0 else A.CONTRACTS[bid - 1],
            "cards": int(sv.counts[p]),
        }
        if sv.poignee[p]:  # a declared poignée is shown to everybody
            entry["poignee"] = A.POIGNEE_NAMES[int(sv.poignee[p]) - 1]
            entry["shown"] = cards(D, np.flatnonzero(sv.poignee_cards[p]))
        players.append(entry)
    view: dict[str, Any] = {
        "game": "french",
        "phase": Phase.name(phase),
        "dealer": sv.dealer,
        "players": players,
        "contract": None,
        "trick": [],
        "last_trick": None,
        "trick_no": sv.trick_no,
        "num_tricks": sv.num_tricks,
    }
    if phase != Phase.BID and taker >= 0:
        contract = {"taker": taker, "name": A.CONTRACTS[sv.contract - 1], "chelem": sv.chelem}
        if sv.called >= 0:
            contract["called"] = D.names[sv.called]
            if sv.partner_public and sv.partner is not None and sv.partner >= 0:
                contract["partner"] = sv.partner
        view["contract"] = contract
    if sv.chien_seen:  # petite and garde: the chien is turned face up for all
        view["chien"] = cards(D, np.flatnonzero(sv.chien))
    # the écart is face down, but a trump the taker had to put in it is shown to the defence
    # (docs/rules/french_tarot.md §4): those trumps, and only those, are public
    if sv.ecart_shown.any():
        view["ecart_trumps"] = cards(D, np.flatnonzero(sv.ecart_shown))
    t = sv.trick_no
    if t:
        view["last_trick"] = _trick(D, t - 1, sv.tricks[t - 1])
    if phase in (Phase.PLAY, Phase.POIGNEE, Phase.SHOW):
        view["trick"] = _played(D, sv.table)
        view["leader"] = sv.leader
    if seat is not None:
        view["hand"] = cards(D, np.flatnonzero(sv.hand))
        if sv.own_ecart.any():  # the taker's own écart, never anyone else's
            view["ecart"] = cards(D, np.flatnonzero(sv.own_ecart))
    return view


def _played(deck: Deck, seat_cards: tuple[tuple[int, int], ...]) -> list[dict[str, Any]]:
    """Cards on the table or in a trick, ``(seat, card)`` in play order, for the page."""
    return [{"seat": p, "card": card(deck, c)} for p, c in seat_cards]


def _trick(deck: Deck, t: int, trick: Trick) -> dict[str, Any]:
    """Completed trick ``t`` (counted from 0) for the page: its cards in play order and its winner."""
    return {"no": t + 1, "cards": _played(deck, trick.cards), "winner": trick.winner}


# ---------------------------------------------------------------------------------- Tarocchino
def tarocchino_view(raw: Any, seat: int | None) -> dict[str, Any]:
    from tarot_env.rules.bolognese import state as S

    D = BOLOGNESE_DECK
    sv: tarocchino_seat_view.TarocchinoSeatView = of_env(raw, seat)
    phase = sv.phase
    players = []
    for p in range(sv.num_players):
        entry: dict[str, Any] = {"seat": p, "cards": int(sv.counts[p]), "tricks": int(sv.tricks_won[p])}
        if sv.declared[p]:  # declared combinations are shown to everybody
            entry["declared"] = int(sv.declared[p])
            entry["shown"] = cards(D, np.flatnonzero(sv.shown[p]))
        players.append(entry)
    view: dict[str, Any] = {
        "game": "tarocchino",
        "phase": S.Phase.name(phase),
        "dealer": sv.dealer,
        "players": players,
        "contract": None,
        "trick": [],
        "last_trick": None,
        "trick_no": sv.trick_no,
        "num_tricks": int(raw.config.num_tricks),
    }
    if sv.soloist >= 0:
        from tarot_env.rules.bolognese.scoring import SU

        view["contract"] = {"taker": sv.soloist, "name": "su" if sv.contract == SU else "di mio"}
    if raw.config.spec.sides == "partners":  # the partnerships, as the rules pair the seats
        view["sides"] = [[int(p) for p in np.flatnonzero(sv.sides == k)] for k in (0, 1)]
    if phase == S.PH_DISCARD:
        view["discarding"] = {"seat": sv.to_act, "left": sv.discards_left}
    t = sv.trick_no
    if t:
        view["last_trick"] = _trick(D, t - 1, sv.tricks[t - 1])
    if sv.table:
        view["trick"] = _played(D, sv.table)
        view["leader"] = sv.leader
    if seat is not None:
        view["hand"] = cards(D, np.flatnonzero(sv.hand))
        view["extra"] = sv.extra  # a count: not yet his to see
        if sv.discards.any():
            view["discards"] = cards(D, np.flatnonzero(sv.discards))
    return view


def result_view(env_id: str, info: dict[str, Any]) -> dict[str, Any]:
    """How a deal ended, for everybody: the scores and the terminal's one-line summary (public at the end)."""
    return {"scores": [float(x) for x in info.get("scores", [])], "summary": _family(env_id).result_line(info)}


def _family(env_id: str) -> Any:
    """The seat view module of ``env_id``'s family (its row of :mod:`tarot_env.env_facts`)."""
    return french_seat_view if facts(env_id).french else tarocchino_seat_view


def discard_text(env_id: str, card: str) -> str:
    """How another player's discard is announced (face down, or a French écart's trump shown)."""
    return _family(env_id).discard_words(card)


# ------------------------------------------------------------------------------ a player's words
# What the page writes for the env's action strings (docs/interface.md §3): a button's label and a
# one-line help, the prompt of the decision a seat faces, a refused move's reason, and the end of a
# deal term by term. Cards keep the project's one notation (KH, T21, EX; KS, ANG, MAT) everywhere.

FRENCH_SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
BOLOGNESE_SUITS = {"S": "spade (swords)", "B": "bastoni (batons)", "C": "coppe (cups)", "D": "denari (coins)"}
#: labels and one-line helps of the moves that are not a card (the Terziglio auction's words: docs/rules/tarocchino.md §10.3)
MOVE_WORDS: dict[str, tuple[str, str]] = {
    "pass": ("Pass", "do not take the contract"),
    "bid petite": ("Petite", "take: you need your points (x1)"),
    "bid garde": ("Garde", "take: worth twice a petite (x2)"),
    "bid garde_sans": ("Garde sans", "take without the chien, which still counts for you (x4)"),
    "bid garde_contre": ("Garde contre", "take: the chien counts for the defence (x6)"),
    "chelem": ("Announce a chelem", "you promise to win every trick (+400, or -200 if you fail)"),
    "no_chelem": ("No chelem", "play the deal without announcing a chelem"),
    "poignee simple": ("Show a simple poignée", "show your trumps for a bonus of 20 to the winning side"),
    "poignee double": ("Show a double poignée", "show your trumps for a bonus of 30 to the winning side"),
    "poignee triple": ("Show a triple poignée", "show your trumps for a bonus of 40 to the winning side"),
    "no_poignee": ("No poignée", "keep your trumps hidden"),
    "declare": ("Declare my combinations", "show them to the table: they count for your side"),
    "no_declare": ("Do not declare", "keep your combinations hidden (they do not count)"),
    "claim": ("Claim the game", "your side has reached the target: a wrong claim loses"),
    "no_claim": ("Play on", "do not claim now"),
    "posso": ("Posso?", "ask to play alone with the pozzo: both others must agree"),
    "di_mio": ("Faccio di mio", "play alone with your own 18 cards, without the pozzo: worth twice as much"),
    "va_bene": ("Va bene", "let him play alone with the pozzo"),
    "oppose": ("No, faccio di mio", "refuse: you play alone instead, without the pozzo"),
}
#: the help of ``pass`` in the Terziglio auction (not a contract's pass)
TERZIGLIO_PASS = ("Passo", "let the next player speak; if all three pass, the cards are dealt again")


def move_words(env_id: str, text: str) -> tuple[str, str]:
    """A move's button label and one-line help, from its action string (``bid garde_sans`` -> ``Garde sans``).

    ``pass`` is the auction's *passo* in a game with Terziglio's auction (its rules row's ``auction``)."""
    spec = facts(env_id).spec
    if text == "pass" and spec is not None and spec.auction:
        return TERZIGLIO_PASS
    if text in MOVE_WORDS:
        return MOVE_WORDS[text]
    verb, _, card_name = text.partition(" ")
    labels = {
        "play": ("Play {c}", "play this card to the trick"),
        "discard": ("Put {c} aside", "a card of your discard"),
        "call": ("Call {c}", "its holder becomes your secret partner"),
        "show": ("Show {c}", "a trump of your poignée"),
        "give": ("Give {c}", "the card you give for your Matto"),
    }
    label, help_text = labels.get(verb, (text.replace("_", " "), ""))
    return label.format(c=card_name), help_text


#: the moves that are not a card, as the object of "You cannot ... now"
PHRASES = {
    "chelem": "announce a chelem",
    "no_chelem": "decline the chelem",
    "no_poignee": "decline the poignée",
    "declare": "declare your combinations",
    "no_declare": "keep your combinations hidden",
    "claim": "claim the game",
    "no_claim": "play on without claiming",
    "posso": "ask to play alone (posso)",
    "di_mio": "play alone without the pozzo (faccio di mio)",
    "va_bene": "agree (va bene)",
    "oppose": "oppose (faccio di mio)",
}


def words_of(env_id: str, text: str) -> str:
    """An action string as a phrase for a sentence (``bid garde_sans`` -> ``bid garde sans``)."""
    verb, _, rest = text.partition(" ")
    if verb == "discard":
        return f"put {rest} aside"
    if text in PHRASES:
        return PHRASES[text]
    if verb == "poignee":
        return f"show a {rest} poignée"
    return text.replace("_", " ")


def _phase_words(env_id: str, raw: Any) -> str:
    """The decision a deal waits for, as a player says it."""
    code = of_env(raw, current_seat(raw)).phase  # the decision of the seat to play, as he sees it
    if facts(env_id).french:
        from tarot_env.rules.french.state import Phase

        phase = Phase.name(code)
    else:
        from tarot_env.rules.bolognese import state as S

        phase = S.Phase.name(code)
    return {
        "bid": "the bidding",
        "call": "the call of a king",
        "ecart": "the écart",
        "chelem": "the chelem announcement",
        "poignee": "the poignée",
        "show": "showing the poignée's trumps",
        "play": "a card to play",
        "auction": "the auction",
        "claim": "the claim",
        "discard": "the discard",
        "declare": "the declaration of combinations",
        "give": "the card given for the Matto",
    }.get(phase, phase)


def aside_count(env_id: str, raw: Any, seat: int) -> int:
    """How many cards ``seat`` still has to put aside now (the French écart, a Tarocchino discard)."""
    sv = of_env(raw, seat)
    if facts(env_id).french:
        return int(sv.counts[seat]) - sv.num_tricks
    return sv.discards_left


def prompt(env_id: str, raw: Any, seat: int, moves_now: list[dict[str, Any]]) -> str:
    """What the seat to play is asked, in a player's words (the écart says how many cards go aside)."""
    verbs = {m["verb"] for m in moves_now}
    if "discard" in verbs:
        n = aside_count(env_id, raw, seat)
        where = "your écart" if facts(env_id).french else "your discard"
        return f"Put {n} card{'s' if n != 1 else ''} aside ({where}): choose them, then confirm"
    if "play" in verbs:
        return "Your turn: play a card"
    if "call" in verbs:
        return "Call a king (or another card): its holder is your partner, secretly until it is played"
    if "show" in verbs:
        return "Choose the trumps you show in your poignée"
    if "give" in verbs:
        return "Choose the card you give for your Matto"
    if verbs & {"posso", "di_mio", "va_bene", "oppose"}:
        if verbs & {"va_bene"}:
            return "A player asked to play alone with the pozzo (Posso?): let him, or play alone yourself"
        return "The auction: play alone (with or without the pozzo), or pass"
    if verbs & {"declare", "no_declare"}:
        return "Declare your combinations? " + declaration_words(raw, seat)
    if verbs & {"claim", "no_claim"}:
        return "Claim the game now (chiamarsi fuori)? Your side must have reached the target"
    if verbs & {"chelem", "no_chelem"}:
        return "Announce a chelem (every trick)?"
    if verbs & {"poignee", "no_poignee"}:
        return "Show a poignée (your trumps) before your first card?"
    if "bid" in verbs or "pass" in verbs:
        return "Your bid: pass or take the contract"
    return "Your turn"


def declaration_words(raw: Any, seat: int) -> str:
    """What declaring shows and is worth (his seat view's combination cards and value, as the terminal shows them)."""
    sv = of_env(raw, seat)
    shown = " ".join(BOLOGNESE_DECK.names[c] for c in sort_cards(BOLOGNESE_DECK, np.flatnonzero(sv.my_combinations)))
    return f"{shown}, worth {sv.my_declaration} points; declaring shows these cards to the table"


# ------------------------------------------------------------------------------ refusals
_PREFIXES = (
    re.compile(r"^'[^']*' \(action \d+\) is not legal for seat \d+ in the \w+ phase:\s*"),
    re.compile(r"^action '[^']*' \(\d+\) refused for player_\d+:\s*"),
)
_REFERENCES = re.compile(
    r"\s*\((?:see |the rules of )?(?:docs/[\w./-]+ )?§[\d.]+[^)]*\)"  # (docs/rules/tarocchino.md §4.2), (§4.2)
    r"|\s*(?:the rules of )?docs/[\w./-]+(?: §[\d.]+)?|\s*§[\d.]+(?:'s)?"  # the rules of docs/... §6.2, §10's
)


def refusal_words(env_id: str, raw: Any, action: int, reason: str) -> str:
    """A refused move in a player's words: what he tried and the rule, without action ids, seats
    numbers or file paths (the env's reason, ``reason``, names them for developers).

    The French play refusal says which rule (follow the suit led, trump, overtrump, the opening
    lead), worked out from the trick on the table and the hand; other reasons are the env's own
    sentence with its developer parts taken out."""
    text = raw.action_to_string(action)
    verb, _, card_name = text.partition(" ")
    tried = words_of(env_id, text)
    why = reason
    for prefix in _PREFIXES:
        why = prefix.sub("", why)
    if "not this phase's kind of action" in why or why.startswith("the decision now is"):
        why = f"now is the time for {_phase_words(env_id, raw)}"
    elif why.endswith("is not in the hand"):
        why = f"you do not hold {card_name}"
    elif facts(env_id).french and verb == "play":
        why = _french_play_reason(raw, card_name) or why
    elif facts(env_id).french and verb == "discard" and "never be discarded" in why:
        why = _french_ecart_reason(card_name)
    why = _REFERENCES.sub("", why)
    why = re.sub(r"\bplayer_(\d+)\b", r"seat \1", why)
    why = re.sub(r"\b(no_\w+|di_mio|va_bene|garde_\w+)\b", lambda m: m.group(1).replace("_", " "), why)
    why = why.replace("(or 's opening lead)", "").strip().rstrip(".")
    return f"You cannot {tried} now: {why}."


def _french_ecart_reason(name: str) -> str:
    """Why a card may not go in the French écart (docs/rules/french_tarot.md §4), for that card."""
    if name in ("T1", "T21", "EX"):
        return f"{name} is a bout, and bouts never go in the écart"
    if name.startswith("K"):
        return "kings never go in the écart"
    return "a trump goes in the écart only when you have no other card to put there (and it is then shown)"


def _french_play_reason(raw: Any, name: str) -> str | None:
    """Why the French rules refuse ``name`` now (docs/rules/french_tarot.md §6.2, §10), from the
    trick on the table and the hand of the seat to play; None when none of these rules is the reason."""
    from tarot_env.cards.french import EXCUSE
    from tarot_env.cards.french import FRENCH_DECK as D

    seat = current_seat(raw)
    if seat is None:
        return None
    sv = of_env(raw, seat)
    hand = np.flatnonzero(sv.hand)
    c = D.index[name]
    table = [card for _, card in sv.table]
    led = next((x for x in table if x != EXCUSE), None)
    trumps = [x for x in hand if D.suit[x] == 4]
    if led is None:  # leading the trick: only the five-player opening lead restricts it
        called = sv.called
        if called >= 0 and sv.trick_no == 0:
            suit_name = FRENCH_SUITS[D.names[called][-1]]
            return f"on the first trick nobody may lead the called suit ({suit_name}) except with {D.names[called]} itself"
        return None
    suit = int(D.suit[led])
    best = max((int(D.rank[x]) for x in table if D.suit[x] == 4), default=0)
    higher = [x for x in trumps if D.rank[x] > best]
    if suit < 4 and any(D.suit[x] == suit for x in hand) and D.suit[c] != suit:
        return f"{D.names[led]} was led and you hold {FRENCH_SUITS[D.names[led][-1]]}: you must follow suit"
    if suit < 4 and D.suit[c] != 4 and trumps and not any(D.suit[x] == suit for x in hand):
        return f"you have no {FRENCH_SUITS[D.names[led][-1]]}: you must play a trump"
    if suit == 4 and D.suit[c] != 4 and trumps:
        return "a trump was led and you hold trumps: you must play one"
    if D.suit[c] == 4 and higher and D.rank[c] <= best:
        return f"T{best} is the highest trump on the table and you hold a higher one: you must overtrump"
    return None


# ------------------------------------------------------------------------------ the end of a deal
def score_view(env_id: str, raw: Any) -> dict[str, Any]:
    """A finished deal's score broken down as the rules page computes it, for everybody (a deal over is public).

    French Tarot: the contract, the attack's points and bouts against the threshold, the terms of
    the unit S (docs/rules/french_tarot.md §9.1: contract base and points over or under times the
    multiplier, petit au bout, poignées, chelem), the scoring's own terms
    (:func:`tarot_env.rules.french.scoring.score_terms`), not computed again. Tarocchino: each
    side's points by kind (cards, last trick, combinations, declarations, bonus) from the env's
    info, and how the hand was settled (Terziglio's poste, a claim, Mattazza's losers)."""
    info = dict(raw.infos[raw.possible_agents[0]])
    out: dict[str, Any] = {"result": str(info.get("result", "?")), "scores": [float(x) for x in info.get("scores", [])]}
    if facts(env_id).french:
        out["game"] = "french"
        if info.get("result") != "played":
            return out
        from tarot_env.rules.french import actions as A
        from tarot_env.rules.french.scoring import score_terms

        t = score_terms(raw.game, raw.game_state, 0)
        m, d = int(t["multiplier"]), int(t["difference"])
        partner = int(info.get("partner", -1))
        pab = int(info["petit_au_bout"])
        shown = [(p, int(k)) for p, k in enumerate(raw.game_state.poignee[0]) if k]
        sign = "" if t["made"] else "-"
        terms: list[dict[str, Any]] = [
            {"what": f"contract {'made' if t['made'] else 'lost'} by {d}", "how": f"{sign}(25 + {d}) × {m}", "points": int(t["contract"])},
        ]
        if pab:
            terms.append(
                {
                    "what": f"petit au bout, to the {'attack' if pab > 0 else 'defence'}",
                    "how": f"{'-' if pab < 0 else ''}10 × {m}",
                    "points": int(t["petit_au_bout"]),
                }
            )
        for p, k in shown:
            bonus = int(A.POIGNEE_BONUS[k])
            terms.append(
                {
                    "what": f"{A.POIGNEE_NAMES[k - 1]} poignée",
                    "seat": p,
                    "how": f"{bonus}, to the {'attack' if t['made'] else 'defence'}",
                    "points": None,
                }
            )
        if shown:
            terms.append({"what": "poignées in all", "how": "not multiplied", "points": int(t["poignees"])})
        if str(info["chelem"]) != "none":  # not multiplied by the contract either: a line of its own
            terms.append({"what": f"chelem ({str(info['chelem']).replace('_', ' ')})", "how": "not multiplied", "points": int(t["chelem"])})
        out.update(
            taker=int(info["taker"]),
            partner=partner if partner >= 0 and partner != int(info["taker"]) else None,
            contract=str(info["contract"]).replace("_", " "),
            attack_points=float(info["attack_points"]),
            bouts=int(info["attack_bouts"]),
            threshold=int(t["threshold"]),
            made=bool(t["made"]),
            multiplier=m,
            terms=terms,
            unit=int(t["unit"]),
        )
        return out
    out["game"] = "tarocchino"
    points = info.get("points", {})
    if "total" in points:
        n = raw.num_players
        k = len(points["total"])
        side = raw.game.sides(raw.game_state, 0) if k < n else np.arange(n)
        out["sides"] = [[int(p) for p in np.flatnonzero(side == j)] for j in range(k)]
        kinds = [
            ("cards", "cards"),
            ("last_trick", "last trick"),
            ("combinations", "combinations"),
            ("declarations", "declarations"),
            ("bonus", "bonus"),
        ]
        out["rows"] = [
            {"what": label, "points": [float(v) for v in points[key]]} for key, label in kinds if key in points and any(points[key])
        ]
        out["total"] = [float(v) for v in points["total"]]
    for key in ("soloist", "soloist_won", "poste", "winner_points", "losers", "claimer", "claim_value"):
        if key in info:
            value = info[key]
            out[key] = [int(v) for v in value] if isinstance(value, list) else value if isinstance(value, bool) else int(value)
    if "contract" in info:
        out["contract"] = str(info["contract"]).replace("_", " ")
    return out
