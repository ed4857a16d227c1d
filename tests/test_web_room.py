"""The room's rules on a table, with a clock the test holds: owner and settings, time per turn,
disconnection and return, amicable cancellation, chips and XP at the end of a game."""

from __future__ import annotations

import pytest
from helpers_web import first_legal, people, play_out, table_with

from tarot_env.records import replay
from tarot_env.web.people import RoomError
from tarot_env.web.room import Room


def room(**kw: float) -> Room:
    return Room(robot_delay=kw.get("robot_delay", 0.0), pause=kw.get("pause", 0.0), reconnect_window=kw.get("reconnect_window", 60.0))


# ------------------------------------------------------------------------------------- owner, seats, settings
def test_first_person_seated_owns_the_table_and_only_he_changes_settings() -> None:
    r = room()
    a, b = people(2)
    t = r.create(a, "french_tarot_v0", 4)
    t.sit(b, 2)
    assert t.view(0, 0.0)["seats"][0]["owner"] is True
    assert t.view(2, 0.0)["seats"][2]["owner"] is False
    with pytest.raises(RoomError, match="owner"):
        t.change_settings(b, {"deals": 3})
    with pytest.raises(RoomError, match="owner"):
        t.set_robot(b, 1, "rules")
    assert t.settings.deals == 1
    t.change_settings(a, {"deals": 3, "time_per_turn": 12})
    assert (t.settings.deals, t.settings.time_per_turn) == (3, 12.0)
    # the changed mark: the settings away from their defaults
    assert t.view(2, 0.0)["changed"] == ["time_per_turn", "deals"]
    # a leaving owner passes the star to the next person seated
    t.leave(a)
    assert t.owner is b


def test_seats_are_checked() -> None:
    r = room()
    a, b = people(2)
    t = r.create(a, "ottocento_v0", 4)
    with pytest.raises(RoomError, match="taken"):
        t.sit(b, 0)
    with pytest.raises(RoomError, match="no seat"):
        t.sit(b, 4)
    with pytest.raises(RoomError, match="unknown robot"):
        t.set_robot(a, 1, "skynet")
    with pytest.raises(RoomError, match="empty"):
        t.start(a, 0.0)
    with pytest.raises(RoomError, match="played by"):
        r.create(a, "ottocento_v0", 5)
    with pytest.raises(RoomError, match="unknown game"):
        r.create(a, "chess_v0", 2)


def test_settings_change_before_a_game_and_between_deals_only_who_may_watch() -> None:
    r = room(pause=100.0)
    (a,) = people(1)
    t = table_with(r, [a])
    t.change_settings(a, {"deals": 2})
    t.start(a, 0.0)
    with pytest.raises(RoomError, match="not during a deal"):
        t.change_settings(a, {"time_per_turn": 5})
    now = 0.0
    while t.state == "playing":
        now += 1
        if t.turn == 0:
            t.move(a, first_legal(t, 0), now)
        else:
            t.advance(now)
    assert t.state == "between"
    t.change_settings(a, {"spectators": False})
    assert not t.settings.spectators
    for change in ({"stake": 50}, {"time_per_turn": 5}, {"deals": 3}):
        with pytest.raises(RoomError, match="fixed once a game starts"):
            t.change_settings(a, change)
    assert (t.settings.stake, t.settings.time_per_turn, t.settings.deals) == (10, 30.0, 2)
    t.next_deal(a, now)
    assert t.state == "playing"


def test_private_table_needs_the_invitation() -> None:
    r = room()
    a, b, c = people(3)
    t = r.create(a, "french_tarot_v0", 3)
    t.change_settings(a, {"private": True})
    with pytest.raises(RoomError, match="private"):
        t.sit(b, 1)
    with pytest.raises(RoomError, match="private"):
        t.sit(b, 1, invite="wrong")
    t.sit(c, 1, invite=t.invite)
    assert t.seat_of(c) == 1
    assert "invite" not in t.summary()  # the lobby never lists the token
    assert "invite" not in t.view(1, 0.0, c)
    assert t.view(0, 0.0, a)["invite"] == t.invite


# ------------------------------------------------------------------------------------- a whole game
def test_a_person_against_robots_plays_a_deal_and_its_record_replays() -> None:
    r = room()
    records = []
    r.on_deal_end = lambda table, record, info: records.append(record)
    (a,) = people(1)
    t = table_with(r, [a])
    t.start(a, 0.0)
    play_out(t, [a])
    assert t.game_result is not None and not t.game_result.official  # alone with robots: practice
    assert records and all(replay(rec) == rec["scores"] for rec in records)
    assert a.xp == 0


def test_chips_game_with_two_people_stakes_and_pot() -> None:
    r = room()
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 100, "deals": 2})
    t.start(a, 0.0)
    assert (a.chips, b.chips) == (900, 900)  # the stakes are in the pot
    play_out(t, [a, b])
    g = t.game_result
    assert g is not None and not g.cancelled
    # four seats staked 100: a pot of 400; the winners share 300; the bank keeps the rest
    assert sum(g.chips_paid) + g.bank == 400
    assert sum(g.chips_paid[p] for p in g.winners) == 300 or len(g.winners) == 3
    assert a.chips == 900 + g.chips_paid[0] and b.chips == 900 + g.chips_paid[1]
    # XP: a two-deal game: the winner 40 + 10, a loser 5
    for p, u in ((0, a), (1, b)):
        assert u.xp == (50 if p in g.winners else 5)


def test_one_deal_chips_game_follows_the_one_deal_rule() -> None:
    r = room()
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 10})
    t.start(a, 0.0)
    play_out(t, [a, b])
    g = t.game_result
    info = t.deal_results[0]
    taker = info["taker"]
    if info["made"]:
        assert g.chips_paid[taker] == 40 and g.bank == 0
    else:
        assert g.chips_paid[taker] == 0 and g.bank == 10
        assert all(g.chips_paid[p] == 10 for p in range(4) if p != taker)


def test_no_xp_when_two_people_share_an_address_and_stakes_come_back() -> None:
    r = room()
    a, b = people(2)
    t = r.create(a, "french_tarot_v0", 3, address="192.168.1.5")
    t.sit(b, 1, address="192.168.1.5")
    t.set_robot(a, 2, "random")
    t.change_settings(a, {"chips": True, "stake": 30})
    t.start(a, 0.0)
    play_out(t, [a, b])
    g = t.game_result
    assert not g.official and "address" in g.reason
    assert (a.xp, b.xp) == (0, 0)
    assert (a.chips, b.chips) == (1000, 1000)


def test_practice_game_counts_for_nothing() -> None:
    r = room()
    (a,) = people(1)
    t = table_with(r, [a])
    t.change_settings(a, {"practice": True, "chips": True, "stake": 500})
    t.start(a, 0.0)
    assert a.chips == 1000  # nothing staked
    play_out(t, [a])
    assert t.game_result.reason == "practice game"
    assert (a.xp, a.chips) == (0, 1000)


def test_not_enough_chips_to_sit_or_start() -> None:
    r = room()
    a, b = people(2)
    b.chips = 5
    t = r.create(a, "french_tarot_v0", 3)
    t.change_settings(a, {"chips": True, "stake": 10})
    with pytest.raises(RoomError, match="chips"):
        t.sit(b, 1)


def test_illegal_move_is_refused_with_the_rules_reason_and_nothing_changes() -> None:
    r = room()
    a, b = people(2)
    t = table_with(r, [a, b])
    t.start(a, 0.0)
    p = t.turn
    while p not in (0, 1):
        t.advance(1.0)
        p = t.turn
    user = a if p == 0 else b
    other = b if p == 0 else a
    before = t.view(p, 0.0)["deal"]
    with pytest.raises(RoomError, match="not your turn"):
        t.move(other, 0, 1.0)
    play_ks = t.env.unwrapped.string_to_action("play KS")  # a bid is due: playing a card is not legal
    with pytest.raises(RoomError, match="You cannot play KS now: now is the time for the bidding"):
        t.move(user, play_ks, 1.0)
    with pytest.raises(RoomError, match="not an action id"):
        t.move(user, 10_000, 1.0)
    assert t.view(p, 0.0)["deal"] == before


# ------------------------------------------------------------------------------------- the clock
def test_time_out_the_robot_plays_that_move() -> None:
    r = room()
    (a,) = people(1)
    t = table_with(r, [a])
    t.change_settings(a, {"time_per_turn": 0.2})
    t.start(a, 0.0)
    now = 0.0
    while t.turn != 0:
        now += 0.01
        t.advance(now)
    start = now
    assert t.deadline() == pytest.approx(start + 0.2)
    t.advance(start + 0.1)  # not yet
    assert t.turn == 0 and not t.timeouts
    t.advance(start + 0.2)
    assert t.timeouts and t.timeouts[0][0] == 0
    assert "time-out" in t.events[-1] or any("time-out" in e for e in t.events[-3:])


def test_disconnection_robot_takes_the_seat_at_once_and_the_player_takes_it_back() -> None:
    r = room(reconnect_window=60.0)
    a, b = people(2)  # two people: alone with robots would be practice
    t = table_with(r, [a, b])
    t.start(a, 0.0)
    now = 0.0
    while t.turn != 0:
        if t.turn == 1:
            t.move(b, first_legal(t, 1), now)
            continue
        now += 0.01
        t.advance(now)
    t.disconnect(a, now)
    assert t.seats[0].bot_plays
    assert t.view(1, now)["seats"][0]["robot_plays"] is True
    t.advance(now)  # robot_delay 0: the robot plays his move at once, not at his time-out
    assert t.turn != 0 or t.state != "playing"
    assert t.reconnect(a, now + 10)
    assert not t.seats[0].bot_plays
    play_out(t, [a, b], now + 10)
    assert a.xp > 0  # he came back: the game counts for him


def test_reconnection_window_runs_out_abandoned_and_stake_forfeited_on_cancel() -> None:
    r = room(reconnect_window=5.0, robot_delay=1000.0)  # robots slow: the game waits while we look
    a, b, c = people(3)
    t = table_with(r, [a, b, c])
    t.change_settings(a, {"chips": True, "stake": 40})
    t.start(a, 0.0)
    t.disconnect(b, 1.0)
    t.advance(5.9)
    assert not t.seats[1].abandoned
    t.advance(6.0)
    assert t.seats[1].abandoned
    assert not t.reconnect(b, 7.0)  # too late: the robot keeps the seat to the end
    t.propose_cancel(a, 7.0)  # b no longer votes: a and c decide
    t.answer_cancel(c, True, 7.0)
    g = t.game_result
    assert g.cancelled
    assert a.chips == 1000 and c.chips == 1000 and b.chips == 960  # the abandoner's stake is lost to the bank
    assert g.bank == 40  # the abandoner's stake; the robot's stake (staked by the bank) goes back to it
    assert g.chips_paid == [40, 0, 40, 40]


# ------------------------------------------------------------------------------------- cancellation
def test_cancellation_needs_every_person_robots_do_not_vote() -> None:
    r = room(robot_delay=1000.0)
    a, b = people(2)
    t = table_with(r, [a, b])
    t.change_settings(a, {"chips": True, "stake": 20})
    t.start(a, 0.0)
    t.propose_cancel(a, 0.0)
    assert t.state == "playing"
    assert t.view(0, 0.0)["cancel"] == {"accepted": [0], "voters": [0, 1]}
    t.answer_cancel(b, False, 1.0)  # one refusal: the game goes on
    assert t.cancel_votes is None and t.state == "playing"
    t.propose_cancel(b, 2.0)
    with pytest.raises(RoomError, match="already proposed"):
        t.propose_cancel(a, 2.0)
    t.answer_cancel(a, True, 3.0)
    g = t.game_result
    assert t.state == "over" and g.cancelled and not g.official
    assert (a.xp, b.xp) == (0, 0)
    assert (a.chips, b.chips) == (1000, 1000)  # stakes returned


def test_cancellation_only_by_people_seated_and_during_a_game() -> None:
    r = room()
    a, b = people(2)
    t = table_with(r, [a])
    with pytest.raises(RoomError, match="no game"):
        t.propose_cancel(a, 0.0)
    t.start(a, 0.0)
    with pytest.raises(RoomError, match="people seated"):
        t.propose_cancel(b, 0.0)
    with pytest.raises(RoomError, match="no cancellation"):
        t.answer_cancel(a, True, 0.0)


# ------------------------------------------------------------------------------------- other games
@pytest.mark.parametrize(("env", "n"), [("ottocento_v0", 4), ("terziglio_v0", 3), ("mattazza_v0", 5), ("millone_v0", 2)])
def test_tarocchino_tables_play_to_the_end(env: str, n: int) -> None:
    r = room()
    records = []
    r.on_deal_end = lambda table, record, info: records.append(record)
    (a,) = people(1)
    t = table_with(r, [a], env=env, n=n)
    t.start(a, 0.0)
    play_out(t, [a])
    assert t.game_result is not None and t.game_result.winners
    assert all(replay(rec) == rec["scores"] for rec in records)


def test_trained_model_and_search_agent_take_seats_and_move() -> None:
    """The pretrained and search robots need the train extra (installed by make setup with the others);
    the search robot's network is loaded when it is seated (in the server, a worker thread), not at the deal."""
    r = room()
    (a,) = people(1)
    t = r.create(a, "french_tarot_v0", 4, seed=3)
    t.set_robot(a, 1, "pretrained")
    t.set_robot(a, 2, "pimc")
    t.set_robot(a, 3, "search")
    t.start(a, 0.0)
    movers = set()
    now = 0.0
    while t.state == "playing" and len(movers) < 3 and now < 200:
        now += 1
        p = t.turn
        if p == 0:
            t.move(a, first_legal(t, 0), now)
        else:
            t.advance(now)
            movers.add(p)
    assert movers == {1, 2, 3}  # each robot made a move through its own agent
    assert type(t.agents[1]).__name__ == "SB3PolicyAgent" and type(t.agents[2]).__name__ == "PIMCAgent"
    assert (t.agents[2].name, t.agents[3].name) == ("pimc", "search")
    assert list(t.agents[3].policies) == [("pretrained", "french_tarot_v0", 4)]  # the network it searches over


def test_a_deal_with_no_card_played_is_dealt_again_and_not_counted_in_every_game() -> None:
    # Terziglio: all three pass, the hand is thrown in (docs/tarocchino.md); as the French all-pass,
    # the room deals again and the deal is not one of the game's deals
    users = people(3)
    t = table_with(room(), users, env="terziglio_v0", n=3)
    t.start(users[0], 0.0)
    for _ in range(3):
        p = t.turn
        passing = next(m["action"] for m in t.view(p, 0.0)["deal"]["moves"] if m["text"] == "pass")
        t.move(users[p], passing, 0.0)
    assert t.last_result["redeal"] is True
    assert t.state == "between" and t.deal_no == 0 and t.deal_results == []
