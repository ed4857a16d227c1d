"""The room's pure rules: the chip pot, the XP of the leaderboard, the settings and the message checks."""

from __future__ import annotations

import json

import pytest

from tarot_env.web import chips, leaderboard
from tarot_env.web.app import MAX_MESSAGE, MessageError, check_message, check_name
from tarot_env.web.people import RoomError
from tarot_env.web.settings import check_settings


# ------------------------------------------------------------------------------------- chips
def test_pot_of_a_game_of_several_deals_goes_to_the_winner_less_the_bank_share() -> None:
    # four players stake 100: a pot of 400; the bank keeps 25 % (100), the winner takes 300
    pay = chips.split_pot([100, 100, 100, 100], winners=[1])
    assert pay == chips.Payout(paid=(0, 300, 0, 0), bank=100)
    assert pay.net([100] * 4) == (-100, 200, -100, -100)


def test_pot_shared_by_tied_winners_the_bank_keeps_the_odd_chip() -> None:
    # 3 x 7 = 21; 75 % is 15.75 -> 15 shared by two: 7 each; the bank keeps 21 - 14 = 7 (at least its 25 %)
    pay = chips.split_pot([7, 7, 7], winners=[0, 2])
    assert pay.paid == (7, 0, 7)
    assert pay.bank == 7
    assert sum(pay.paid) + pay.bank == 21


def test_one_deal_game_taker_wins_takes_all_the_chips() -> None:
    pay = chips.one_deal_pot([50, 50, 50, 50], attack=[2], attack_won=True)
    assert pay.paid == (0, 0, 200, 0)
    assert pay.bank == 0


def test_one_deal_game_defenders_win_take_their_stakes_back_and_the_bank_takes_the_takers() -> None:
    pay = chips.one_deal_pot([50, 50, 50, 50], attack=[2], attack_won=False)
    assert pay.paid == (50, 50, 0, 50)
    assert pay.bank == 50
    assert pay.net([50] * 4) == (0, 0, -50, 0)


def test_one_deal_game_at_five_taker_and_partner_share() -> None:
    pay = chips.one_deal_pot([10] * 5, attack=[0, 3], attack_won=True)
    assert pay.paid == (25, 0, 0, 25, 0)
    lost = chips.one_deal_pot([10] * 5, attack=[0, 3], attack_won=False)
    assert lost.paid == (0, 10, 10, 0, 10)
    assert lost.bank == 20


def test_cancelled_game_returns_the_stakes_except_an_abandoners() -> None:
    assert chips.refund([20, 20, 20]) == chips.Payout((20, 20, 20), 0)
    assert chips.refund([20, 20, 20], forfeited=[1]) == chips.Payout((20, 0, 20), 20)


def test_pot_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        chips.split_pot([10, 10], winners=[])
    with pytest.raises(ValueError):
        chips.split_pot([10, -1], winners=[0])
    with pytest.raises(ValueError):
        chips.split_pot([10, 10], winners=[5])


# ------------------------------------------------------------------------------------- XP
@pytest.mark.parametrize(
    ("players", "deals", "winner_xp"),
    [(3, 1, 30), (4, 1, 40), (5, 1, 50), (4, 2, 50), (3, 3, 50), (4, 5, 80)],
)
def test_xp_of_the_winner_the_rules_pages_examples(players: int, deals: int, winner_xp: int) -> None:
    # 3 players: 30 XP, 4 players: 40 XP; +10 per deal beyond the first (2 deals +10, 3 deals +20)
    xp = leaderboard.game_xp(players, deals, winners=[0])
    assert xp[0] == winner_xp
    assert xp[1:] == [5] * (players - 1)  # each loser 5


def test_xp_only_for_official_games() -> None:
    assert leaderboard.counts_for_leaderboard(False, False, ["1.2.3.4", "5.6.7.8"]) == (True, "official game")
    assert leaderboard.counts_for_leaderboard(True, False, ["1.2.3.4"]) == (False, "practice game")
    assert leaderboard.counts_for_leaderboard(False, True, ["1.2.3.4"]) == (False, "game cancelled")
    official, why = leaderboard.counts_for_leaderboard(False, False, ["1.2.3.4", "1.2.3.4"])
    assert not official
    assert "share an address" in why
    assert leaderboard.counts_for_leaderboard(False, False, ["1.2.3.4"])[0]  # one person and robots


# ------------------------------------------------------------------------------------- settings
def test_settings_are_typed_and_ranged() -> None:
    assert check_settings({"time_per_turn": 15, "deals": 3, "chips": True, "stake": 25}) == {
        "time_per_turn": 15.0,
        "deals": 3,
        "chips": True,
        "stake": 25,
    }


@pytest.mark.parametrize(
    "changes",
    [
        {},
        [],
        {"deals": 0},
        {"deals": 21},
        {"deals": 2.5},
        {"deals": True},
        {"time_per_turn": 0},
        {"time_per_turn": float("nan")},
        {"time_per_turn": "10"},
        {"stake": -5},
        {"chips": 1},
        {"private": "yes"},
        {"colour": "red"},
    ],
)
def test_bad_settings_are_refused(changes: object) -> None:
    with pytest.raises(RoomError):
        check_settings(changes)


# ------------------------------------------------------------------------------------- messages
def test_good_messages_pass() -> None:
    assert check_message('{"type": "move", "action": 12}') == {"type": "move", "action": 12}
    assert check_message('{"type": "hello", "name": "  Zoé   Ğ "}')["name"] == "Zoé Ğ"
    assert check_message('{"type": "robot", "seat": 2, "robot": null}')["robot"] is None
    assert check_message('{"type": "join", "table": 1, "seat": 0, "invite": "abc"}')["invite"] == "abc"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "JSON object"),
        ("[1, 2]", "JSON object"),
        ('{"action": 3}', "unknown message type"),
        ('{"type": "teleport"}', "unknown message type"),
        ('{"type": "move"}', "missing"),
        ('{"type": "move", "action": "12"}', "wrong type"),
        ('{"type": "move", "action": true}', "wrong type"),
        ('{"type": "move", "action": 1.5}', "wrong type"),
        ('{"type": "move", "action": 99999999}', "out of range"),
        ('{"type": "move", "action": 1, "seat": 3}', "unknown field"),
        ('{"type": "cancel_answer", "accept": "yes"}', "wrong type"),
        ('{"type": "robot", "seat": 1, "robot": "skynet"}', "unknown robot"),
        ('{"type": "create", "env": "../etc", "players": 4}', "game id"),
        ('{"type": "hello", "name": ""}', "1 to 24"),
        ('{"type": "hello", "name": "a\\u0000b"}', "printable"),
        ('{"type": "hello", "name": "' + "x" * 30 + '"}', "1 to 24"),
    ],
)
def test_bad_messages_are_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        check_message(text)


def test_oversized_message_is_refused() -> None:
    with pytest.raises(MessageError, match="too long"):
        check_message(json.dumps({"type": "lobby", "x": "y" * MAX_MESSAGE}))


def test_names_keep_their_characters_html_is_not_stripped_but_never_interpreted() -> None:
    # the page puts names in with textContent; the server keeps the characters as typed
    assert check_name("<b>bob</b>") == "<b>bob</b>"


def test_partnerships_are_those_of_the_rules_on_the_page_and_in_the_terminal() -> None:
    import tarot_env
    from tarot_env.cli.views import tarocchino_view
    from tarot_env.web.views import deal_view

    env = tarot_env.make("ottocento_v0")
    env.reset(seed=0)
    assert deal_view("ottocento_v0", env, 1)["sides"] == [[0, 2], [1, 3]]
    text = tarocchino_view(env, 1, ["you", "rules", "rules", "rules"], [0.0] * 4, "Ottocento")
    assert "sides: you (player_1) with player_3, against player_2 and player_0" in text
    solo = tarot_env.make("terziglio_v0")  # no partnerships: no sides line
    solo.reset(seed=0)
    assert "sides" not in deal_view("terziglio_v0", solo, 0)


@pytest.mark.parametrize("where", ["room", "terminal"])
def test_a_discard_is_announced_face_down_but_a_trump_in_the_french_ecart_is_shown(where: str) -> None:
    from tarot_env.cli import views as cli_views
    from tarot_env.web import views as web_views

    discard_text = (web_views if where == "room" else cli_views).discard_text
    assert discard_text("french_tarot_v0", "T5") == "discards T5 (a trump in the écart is shown)"
    assert discard_text("french_tarot_v0", "7H") == "discards a card (face down)"
    assert discard_text("ottocento_v0", "M5") == "discards a card (face down)"  # Tarocchino discards stay hidden, trumps too


def test_the_leaderboard_counts_official_games_and_wins_per_person(tmp_path) -> None:
    from tarot_env.web.db import Store

    store = Store(str(tmp_path / "board.sqlite"))
    ann, bob, cid = store.new_user("Ann"), store.new_user("Bob"), store.new_user("Cid")
    ann.xp, bob.xp = 30, 5  # Cid has no XP: not on the board
    for u in (ann, bob):
        store.save_user(u)
    store.new_table(1, "french_tarot_v0", 3, ann.id)

    def game(no: int, official: bool, winner: int) -> None:
        seats = [
            {"user_id": u.id, "robot": None, "total": 0, "winner": p == winner, "xp": 0, "chips_net": 0}
            for p, u in enumerate((ann, bob, cid))
        ]
        result = {"official": official, "reason": "" if official else "practice", "cancelled": False}
        store.save_game(1, no, "french_tarot_v0", {"deals": 1}, result, seats)

    game(1, True, 0)
    game(2, True, 1)
    game(3, True, 0)
    game(4, False, 1)  # not official: counts for nobody
    assert store.leaderboard() == [
        {"name": "Ann", "xp": 30, "chips": ann.chips, "games": 3, "wins": 2},
        {"name": "Bob", "xp": 5, "chips": bob.chips, "games": 3, "wins": 1},
    ]
    assert store.next_table_id() == 2
