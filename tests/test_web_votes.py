"""A cancellation vote stalls nothing: the clock runs through a vote, a refusal gives nobody his time
back, and a person proposes again only after a cooldown (votes.CANCEL_COOLDOWN), which the refusal names.
Else a player short of time could propose a cancellation on his own turn, be refused, and have his time
back, as often as he liked, while the table froze."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_web import app_for, hello, open_table, people, receive_until, table_with
from starlette.testclient import TestClient

from tarot_env.web.people import RoomError
from tarot_env.web.room import Room, Table
from tarot_env.web.votes import CANCEL_COOLDOWN


def ann_to_play(t: Table, now: float) -> float:
    """Advance the clock until it is seat 0's (Ann's) turn; the time it is."""
    while t.turn != 0:
        now += 0.01
        t.advance(now)
    return now


def test_the_proposers_clock_runs_through_votes_and_refusals() -> None:
    """Three proposals on his own turn, each refused: his time still runs out when it would have."""
    r = Room(robot_delay=0.0, pause=0.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.change_settings(ann, {"time_per_turn": 100.0})
    t.start(ann, 0.0)
    now = ann_to_play(t, 0.0)
    deadline = t.deadline()
    assert deadline is not None
    for _ in range(3):
        t.propose_cancel(ann, now + 1.0)
        assert t.deadline() == deadline  # the clock did not stop
        t.answer_cancel(ben, False, now + 2.0)
        assert t.deadline() == deadline  # and the refusal gave him no time back
        now += CANCEL_COOLDOWN + 1.0  # the cooldown: 31 s later he may propose again
    assert not t.timeouts and now < deadline
    t.advance(deadline)
    assert len(t.timeouts) == 1 and t.timeouts[0][0] == 0  # his time ran out at the deadline of his turn's start


def test_the_robots_play_and_the_time_runs_out_while_a_vote_is_open() -> None:
    r = Room(robot_delay=0.0, pause=0.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.change_settings(ann, {"time_per_turn": 5.0})
    t.start(ann, 0.0)
    now = ann_to_play(t, 0.0)
    t.propose_cancel(ann, now)
    t.advance(now + 5.0)  # Ann's time ran out during the vote: the robot played her move
    assert len(t.timeouts) == 1 and t.cancel_votes is not None
    steps = t.steps
    for k in range(1, 20):  # the robots play on, the vote still open
        t.advance(now + 5.0 + k)
    assert t.steps > steps and t.state in ("playing", "between", "over")


def test_a_person_waits_the_cooldown_between_two_proposals_and_is_told_how_long() -> None:
    r = Room(robot_delay=1000.0, pause=0.0)
    ann, ben = people(2)
    t = table_with(r, [ann, ben])
    t.start(ann, 0.0)
    t.propose_cancel(ann, 10.0)
    t.answer_cancel(ben, False, 20.0)  # the cooldown runs from the refusal
    with pytest.raises(RoomError, match=rf"one proposal per person every {CANCEL_COOLDOWN:g} s; propose again in 25 s"):
        t.propose_cancel(ann, 25.0)
    t.propose_cancel(ben, 25.0)  # Ben's own proposal is not Ann's: he may
    t.answer_cancel(ann, False, 26.0)
    with pytest.raises(RoomError, match="propose again in 1 s"):
        t.propose_cancel(ann, 20.0 + CANCEL_COOLDOWN - 0.5)
    t.propose_cancel(ann, 20.0 + CANCEL_COOLDOWN)
    assert t.cancel_votes == {ann.id: True}


def test_on_the_wire_the_table_keeps_moving_during_a_vote_and_a_second_proposal_is_refused(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    with TestClient(app) as client, client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as ben:
        hello(ann, "Ann")
        hello(ben, "Ben")
        open_table(ann, "french_tarot_v0", 4, "rules")
        ann.send_text(json.dumps({"type": "robot", "seat": 1, "robot": None}))
        receive_until(ann, lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "empty")
        ben.send_text(json.dumps({"type": "join", "table": 1, "seat": 1}))
        receive_until(ben, lambda m: m["type"] == "table")
        ann.send_text(json.dumps({"type": "start"}))
        receive_until(ann, lambda m: m["type"] == "table" and m["table"]["state"] == "playing")
        ann.send_text(json.dumps({"type": "cancel"}))
        m = receive_until(ann, lambda m: m["type"] == "table" and m["table"]["cancel"] is not None)
        assert m["table"]["time_left"] is not None or m["table"]["turn"] not in (0, 1)  # no clock stops
        ben.send_text(json.dumps({"type": "cancel_answer", "accept": False}))
        receive_until(ann, lambda m: m["type"] == "table" and m["table"]["cancel"] is None)
        ann.send_text(json.dumps({"type": "cancel"}))
        err = receive_until(ann, lambda m: m["type"] == "error")
        assert err["about"] == "cancel" and "propose again in" in err["message"]
