"""Bad input to french_tarot_v0 (interface.md §6, §4): every refused action, deal or option
raises an exception whose message names what was given and what is allowed; a refused action or
reset leaves the state (every field of ``raw.game_state``), the observations and the env's bookkeeping
unchanged, and the deal can then be played correctly to its end."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers_setup import act, assert_same, legal, make_deal, new_env, phase, play_out, seat, snapshot, start

import tarot_env
from tarot_env import IllegalActionError
from tarot_env.cards.french import FRENCH_DECK

# A 4-player deal (dealer 0): seat 1 holds 12 trumps and the Excuse (a poignée), seat 2 four Kings
# and few free cards (forced trump discards if he takes), the rest as make_deal fills it.
DEAL = make_deal(4, 0, {1: "T10..T21 EX 1S 2S 3S 4S 5S", 2: "KS KH KD KC T2..T9 6S 7S 8S 9S 10S JS"}, "T1 1H 2H 3H 4H 5H")


# Where each kind of decision is reached: (players, options, the actions before it).
SITUATIONS = {
    "bid": (4, {}, ["pass", "bid garde"]),
    "ecart": (4, {}, ["pass", "bid garde", "pass", "pass", "discard 6S"]),
    "chelem": (4, {}, ["pass", "bid garde_sans", "pass", "pass"]),
    "poignee": (4, {"poignee_trumps": "choose"}, ["pass", "bid garde_sans", "pass", "pass", "no_chelem"]),
    "show": (4, {"poignee_trumps": "choose"}, ["pass", "bid garde_sans", "pass", "pass", "no_chelem", "poignee simple", "show T21"]),
    "play": (4, {}, ["pass", "bid garde_sans", "pass", "pass", "no_chelem", "no_poignee", "play 1S"]),
    "call": (5, {}, ["bid garde", "pass", "pass", "pass", "pass"]),
}


def at(situation: str):
    """An env waiting for a decision of the named kind, with some history behind it."""
    n, options, actions = SITUATIONS[situation]
    env = start(n, DEAL if n == 4 else make_deal(5, 0, {}), **options)
    act(env, *actions)
    assert phase(env) == situation
    return env


def finish_correctly(env, accepted: list[str]) -> None:
    """The deal goes on from where it was: the record holds exactly the accepted actions then the
    rest of the deal, it replays to the same scores, and the scores sum to zero."""
    rest = [a for _, a in play_out(env)]
    raw = env.unwrapped
    assert raw.game_over and all(env.terminations.values())
    record = raw.record()
    assert record["actions"] == accepted + rest
    scores = env.infos["player_0"]["scores"]
    assert sum(scores) == 0
    assert tarot_env.replay(record) == scores == record["scores"]


def refuse(env, bad, error: type[Exception], *fragments: str) -> str:
    """``env.step(bad)`` raises ``error`` naming every fragment; nothing changes."""
    before = snapshot(env)
    with pytest.raises(error) as info:
        env.step(bad)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert_same(before, snapshot(env))
    return message


# ====================================================================== illegal actions

ILLEGAL = [
    ("bid", "bid petite", "a bid must be higher"),
    ("bid", "bid garde", "a bid must be higher"),
    ("bid", 157, "a bid must be higher"),  # the id of "bid petite"
    ("bid", "play KS", "not this phase's kind of action"),
    ("ecart", "discard KS", "kings and bouts may never be discarded"),
    ("ecart", "discard T2", "trumps only when forced"),  # enough free cards: 7S..JS and the chien's hearts
    ("ecart", "discard 1S", "not in the hand"),
    ("ecart", "play 7S", "not this phase's kind of action"),
    ("chelem", "no_poignee", "not this phase's kind of action"),
    ("chelem", "pass", "not this phase's kind of action"),
    ("poignee", "poignee triple", ""),  # 12 trumps + Excuse: simple or double only
    ("poignee", "play T21", "not this phase's kind of action"),
    ("show", "show T21", ""),  # already shown
    ("show", "show EX", ""),  # 12 trumps: the Excuse may not be shown
    ("show", "show T1", ""),  # not his
    ("play", "play QS", "not in the hand"),
    ("play", "play T3", "§6.2"),  # seat 2 must follow spades (he holds 7S..JS)
    ("play", "discard 7S", "not this phase's kind of action"),
    ("call", "call QS", ""),  # a Queen without the four Kings
]


@pytest.mark.parametrize(("situation", "bad", "why"), ILLEGAL)
def test_illegal_action_is_refused_and_play_goes_on(situation, bad, why):
    """interface.md §6: an illegal action raises IllegalActionError naming the action, why it is
    refused and every legal action; the state is unchanged and the deal is then played out."""
    env = at(situation)
    raw = env.unwrapped
    accepted = SITUATIONS[situation][2]
    text = bad if isinstance(bad, str) else raw.action_to_string(bad)
    allowed = [raw.action_to_string(a) for a in raw.legal_actions()]
    message = refuse(env, bad, IllegalActionError, repr(text), why, f"seat {seat(env)}", "legal actions: " + ", ".join(allowed))
    assert isinstance(IllegalActionError(message), ValueError)
    finish_correctly(env, accepted)


# ====================================================================== malformed actions

MALFORMED = [
    (205, IllegalActionError, ["205", "0..204"]),
    (-1, IllegalActionError, ["-1", "0..204"]),
    (10**12, IllegalActionError, [str(10**12), "0..204"]),
    (np.int64(300), IllegalActionError, ["300", "0..204"]),
    ("play ZZ", ValueError, ["'ZZ'", "not a card", "T21", "EX"]),
    ("discard T22", ValueError, ["'T22'", "not a card"]),
    ("bid", ValueError, ["'bid'", "bid petite|garde|garde_sans|garde_contre"]),
    ("bid garde sans", ValueError, ["'bid garde sans'", "bid petite|garde|garde_sans|garde_contre"]),
    ("jump", ValueError, ["'jump'", "'play <card>'", "'pass'"]),
    ("", ValueError, ["''", "'play <card>'"]),
    ("play KS KH", ValueError, ["'play KS KH'", "'play <card>'"]),
    (1.5, TypeError, ["1.5", "float", "0..204", "action string"]),
    (np.float64(156.0), TypeError, ["156.0", "0..204"]),
    (None, TypeError, ["None", "0..204"]),
    (True, TypeError, ["True", "bool", "0..204"]),
    (False, TypeError, ["False", "bool", "0..204"]),
    (np.bool_(True), TypeError, ["True", "0..204"]),
    ([156], TypeError, ["[156]", "list", "0..204"]),
    (b"pass", TypeError, ["b'pass'", "0..204"]),
]


@pytest.mark.parametrize("situation", ["bid", "play"])
@pytest.mark.parametrize(("bad", "error", "fragments"), MALFORMED, ids=[repr(m[0]) for m in MALFORMED])
def test_malformed_action_is_refused_and_play_goes_on(situation, bad, error, fragments):
    """interface.md §6: an out-of-range id, a malformed string or a value of the wrong type (a
    float, None while the agent is alive, a bool, a list, bytes) raises, naming what was given
    and what is allowed; the state is unchanged and the deal is then played out."""
    env = at(situation)
    accepted = SITUATIONS[situation][2]
    refuse(env, bad, error, *fragments)
    finish_correctly(env, accepted)


@pytest.mark.parametrize("action", ["  BID  Garde_Sans ", "bid GARDE_SANS", np.int64(159), np.array(159), 159])
def test_accepted_spellings_of_one_action(action):
    """interface.md §2, §3: action strings are case-insensitive and may carry extra spaces; ids may
    be numpy integers. Seat 3 overcalls seat 2's garde with a garde sans."""
    env = at("bid")
    env.step(action)
    s = env.unwrapped.game_state
    assert int(s.taker[0]) == 3 and int(s.contract[0]) == 3 and s.bids[0].tolist() == [-1, 0, 2, 3]
    finish_correctly(env, [*SITUATIONS["bid"][2], "bid garde_sans"])


@pytest.mark.parametrize("bad", ["pass", 156, "play KS"])
def test_action_after_the_deal_ended_is_refused(bad):
    """interface.md §6: once the deal is over (here: all passed) every action is refused with a
    message naming it and saying the deal is over; nothing changes; None (PettingZoo's dead step)
    is accepted and a new deal can be played."""
    env = start(4, DEAL)
    act(env, "pass", "pass", "pass", "pass")
    assert env.unwrapped.game_over
    before = snapshot(env)
    with pytest.raises(ValueError) as info:
        env.step(bad)
    assert_same(before, snapshot(env))
    message = str(info.value)
    assert "None" in message  # what is allowed
    assert repr(bad) in message, f"the message {message!r} does not name the action {bad!r}"


def test_dead_step_with_none_then_a_new_deal():
    """PettingZoo convention: after the end each agent steps None; then reset starts a new deal."""
    env = start(4, DEAL)
    act(env, "pass", "pass", "pass", "pass")
    for _ in range(4):
        env.step(None)
    assert env.agents == []
    env.reset(options={"deal": DEAL})
    assert phase(env) == "bid" and seat(env) == 1
    act(env, "pass", "bid garde_sans", "pass", "pass")
    finish_correctly(env, ["pass", "bid garde_sans", "pass", "pass"])


def test_step_and_observe_before_reset():
    """interface.md §6: using the env before the first deal is a clear error."""
    env = new_env(4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step("pass")
    with pytest.raises(RuntimeError, match="reset"):
        env.observe("player_0")


# ====================================================================== malformed deals


def _bad_deals() -> list[tuple[str, object, type[Exception], list[str]]]:
    good = DEAL
    out: list[tuple[str, object, type[Exception], list[str]]] = []

    def variant(name, error, fragments, **changes):
        d = copy.deepcopy(good)
        d.update(changes)
        out.append((name, d, error, fragments))

    variant("three hands", ValueError, ["'hands'", "4 hands"], hands=copy.deepcopy(good["hands"][:3]))
    variant("five hands", ValueError, ["'hands'", "4 hands"], hands=[*copy.deepcopy(good["hands"]), []])
    short = copy.deepcopy(good["hands"])
    moved = short[3].pop()
    variant("17 cards", ValueError, ["seat 3", "17 cards", "18"], hands=short, rest=[*good["rest"], moved])
    variant("chien of 5", ValueError, ["chien", "5 cards", "6"], rest=good["rest"][:5])
    twice = copy.deepcopy(good["hands"])
    twice[3][0] = twice[0][0]
    variant("repeated card", ValueError, [twice[0][0], "seat 0", "seat 3"], hands=twice)
    twice_chien = copy.deepcopy(good["rest"])
    twice_chien[0] = good["hands"][2][0]
    variant("card in hand and chien", ValueError, ["KS", "seat 2", "chien"], rest=twice_chien)
    unknown = copy.deepcopy(good["hands"])
    unknown[0][0] = "ZZ"
    variant("unknown card", ValueError, ["'ZZ'", "not a card", "T21"], hands=unknown)
    number = copy.deepcopy(good["hands"])
    number[0][0] = 5
    variant("card as a number", TypeError, ["5", "string"], hands=number)
    for dealer in (4, -1, True, "0", 1.0, None):
        variant(f"dealer {dealer!r}", ValueError, [f"dealer {dealer!r}", "0..3"], dealer=dealer)
    variant("hands not a list", ValueError, ["'hands'", "'abc'"], hands="abc")
    variant("rest not a list", ValueError, ["chien", "None"], rest=None)
    extra = copy.deepcopy(good)
    extra["chien"] = []
    out.append(("unknown key", extra, ValueError, ["'chien'", "'dealer', 'hands', 'rest'"]))
    missing = copy.deepcopy(good)
    del missing["rest"]
    out.append(("missing key", missing, ValueError, ["missing", "'rest'", "'dealer', 'hands', 'rest'"]))
    out.append(("not a dict", [good["hands"]], TypeError, ["dict", "list"]))
    return out


BAD_DEALS = _bad_deals()


@pytest.mark.parametrize(("name", "deal", "error", "fragments"), BAD_DEALS, ids=[b[0] for b in BAD_DEALS])
def test_malformed_deal_is_refused_and_the_current_deal_goes_on(name, deal, error, fragments):
    """interface.md §4, §6: a malformed fixed deal (wrong number of hands, wrong count, a repeated or
    unknown card, a bad dealer, unknown or missing keys) raises, naming what was given and what is
    allowed; the deal in progress is untouched and can be played out."""
    env = at("play")
    accepted = SITUATIONS["play"][2]
    before = snapshot(env)
    with pytest.raises(error) as info:
        env.reset(options={"deal": deal})
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {str(info.value)!r}"
    assert_same(before, snapshot(env))
    finish_correctly(env, accepted)


def test_malformed_deal_of_wrong_size_for_the_player_count():
    """interface.md §4: a good 4-player deal is malformed for 5 players (5 hands of 15 needed)."""
    env = new_env(5)
    with pytest.raises(ValueError, match="5 hands"):
        env.reset(options={"deal": DEAL})


# ====================================================================== options


def test_unknown_reset_option_warns_names_it_and_is_ignored():
    """An unknown reset option is named in a warning, with the allowed 'deal', and ignored.

    Warned rather than refused: PettingZoo's api_test requires reset to accept any options
    (docs/design.md). A misspelt 'deal' therefore gives a random deal, and says so."""
    env = new_env(4)
    with pytest.warns(UserWarning) as caught:
        env.reset(seed=3, options={"dael": DEAL})
    message = str(caught[0].message)
    assert "'dael'" in message and "'deal'" in message
    dealt = [FRENCH_DECK.mask(hand) for hand in DEAL["hands"]]
    hands = env.unwrapped.game_state.hands[0]
    assert not all(np.array_equal(hands[s], dealt[s]) for s in range(4))  # a random deal, not the misspelt one
    with pytest.warns(UserWarning, match="'seed'"):
        env.reset(options={"deal": DEAL, "seed": 3})
    hands = env.unwrapped.game_state.hands[0]
    assert all(np.array_equal(hands[s], dealt[s]) for s in range(4))


def test_reset_options_of_the_wrong_type():
    """interface.md §6: reset options must be a dict; anything else is refused clearly."""
    env = at("bid")
    before = snapshot(env)
    with pytest.raises((TypeError, ValueError)) as info:
        env.reset(options=5)
    assert_same(before, snapshot(env))
    assert "5" in str(info.value) and "dict" in str(info.value)


@pytest.mark.parametrize("name", ["foo", "players", "num_player", "chelem", "seed"])
def test_unknown_env_option(name):
    """interface.md §6: an unknown option of the env raises, naming it and listing the options."""
    with pytest.raises(TypeError) as info:
        tarot_env.make("french_tarot_v0", **{name: 1})
    message = str(info.value)
    assert repr(name) in message
    for option in ("num_players", "reward", "petit_sec", "chelem_announcement", "poignee_trumps", "chien_after_packets"):
        assert option in message


def test_unknown_env_id():
    with pytest.raises(ValueError, match=r"'french_tarot_v1'.*french_tarot_v0"):
        tarot_env.make("french_tarot_v1")


BAD_VALUES = [
    ({"num_players": 6}, ValueError, ["num_players=6", "3, 4, 5"]),
    ({"num_players": 2}, ValueError, ["num_players=2", "3, 4, 5"]),
    ({"num_players": "4"}, ValueError, ["num_players='4'", "3, 4, 5"]),
    ({"petit_sec": "maybe"}, ValueError, ["petit_sec='maybe'", "'annul', 'redeal'"]),
    ({"chelem_announcement": "before"}, ValueError, ["chelem_announcement='before'", "'after_ecart', 'before_ecart', 'never'"]),
    ({"excuse_last_trick": "winner"}, ValueError, ["excuse_last_trick='winner'", "'changes_camp', 'trick_winner'"]),
    ({"unpaid_excuse_debt": 4}, ValueError, ["unpaid_excuse_debt=4", "'four_points'"]),
    ({"jack_call": "all_kings"}, ValueError, ["jack_call='all_kings'", "'all_knights', 'all_queens'"]),
    ({"excuse_opening_lead": None}, ValueError, ["excuse_opening_lead=None", "'next_player', 'lapses'"]),
    ({"called_suit_only_hand": "x"}, ValueError, ["called_suit_only_hand='x'", "'lead_anything', 'excuse_if_held'"]),
    ({"poignee_trumps": "all"}, ValueError, ["poignee_trumps='all'", "'lowest', 'highest', 'choose'"]),
    ({"excuse_chelem_defence": "yes"}, TypeError, ["excuse_chelem_defence", "'yes'", "True or False"]),
    ({"double_chelem_penalty": 1}, TypeError, ["double_chelem_penalty", "1", "True or False"]),
    ({"poignee_forced_discards": None}, TypeError, ["poignee_forced_discards", "None", "True or False"]),
    ({"chien_after_packets": (0, 6, 10, 14, 18, 22)}, ValueError, ["(0, 6, 10, 14, 18, 22)", "1..23"]),
    ({"reward": "points"}, ValueError, ["reward='points'", "'score', 'normalised', 'win_loss'"]),
    ({"render_mode": "rgb_array"}, ValueError, ["render_mode='rgb_array'", "ansi", "human"]),
    ({"dealer": 4}, ValueError, ["dealer=4", "0..3"]),
    ({"dealer": True}, ValueError, ["dealer=True", "0..3"]),
    ({"shaping": "no"}, TypeError, ["shaping", "'no'", "True or False"]),
    ({"oracle": 1}, TypeError, ["oracle", "1", "True or False"]),
]


BAD_VALUE_IDS = [f"{k}={v!r}" for b in BAD_VALUES for k, v in b[0].items()]


@pytest.mark.parametrize(("options", "error", "fragments"), BAD_VALUES, ids=BAD_VALUE_IDS)
def test_bad_option_value(options, error, fragments):
    """interface.md §6: a bad option value raises, naming the option, the value and what is allowed."""
    options = {"num_players": 4, **options}
    with pytest.raises(error) as info:
        tarot_env.make("french_tarot_v0", **options)
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("value", [(1.5, 6, 10, 14, 18, 22), (True, 6, 10, 14, 18, 22), "123456", 5, ("x", 6, 10, 14, 18, 22)])
def test_chien_after_packets_of_the_wrong_type(value):
    """interface.md §6, §2: chien_after_packets is a sequence of packet numbers (ints); anything
    else is refused with a message naming the option and the value."""
    with pytest.raises((TypeError, ValueError)) as info:
        tarot_env.make("french_tarot_v0", num_players=4, chien_after_packets=value)
    assert "chien_after_packets" in str(info.value)


def test_num_players_as_a_float():
    """interface.md §6: num_players must be the int 3, 4 or 5."""
    with pytest.raises((TypeError, ValueError)) as info:
        tarot_env.make("french_tarot_v0", num_players=4.0)
    assert "num_players" in str(info.value) and "4.0" in str(info.value)


def test_options_survive_refused_input():
    """interface.md §1: the configuration survives reset(seed=...), also after refused input."""
    env = new_env(3, petit_sec="redeal", poignee_trumps="highest")
    env.reset(seed=4)
    with pytest.raises(ValueError):
        env.reset(options={"deal": DEAL})  # a 4-player deal
    env.reset(seed=5)
    assert env.unwrapped.config.num_players == 3 and env.unwrapped.config.poignee_trumps == "highest"
    assert env.unwrapped.game_state.hands[0].sum(axis=1).tolist() == [24] * 3
    assert legal(env) == {"pass", "bid petite", "bid garde", "bid garde_sans", "bid garde_contre"}
