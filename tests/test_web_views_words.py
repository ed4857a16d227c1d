"""The page's words (tarot_env/web/views.py): refused moves said as the rule, without action ids, seat
numbers or file paths; every move a button label in words; the prompts (the écart's count); the end of
a deal broken down as the rules page computes it."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tarot_env
from tarot_env.errors import IllegalActionError
from tarot_env.moves import refusal
from tarot_env.web import views

DEVELOPER = re.compile(r"\(action \d+\)|action \d+|player_\d|seat \d|docs/|§|\.md|_[a-z]|[a-z]_")
ENVS = ["french_tarot_v0", "ottocento_v0", "terziglio_v0", "quattro_scartate_v0", "millone_v0", "mattazza_v0"]


def random_deal(env_id: str, seed: int, n: int | None = None):  # type: ignore[no-untyped-def]
    env = tarot_env.make(env_id, num_players=n) if n else tarot_env.make(env_id)
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("env_id", ENVS)
def test_refusals_are_in_a_players_words(env_id: str) -> None:
    """Illegal moves tried at every decision of random deals: each refusal is a sentence with the rule
    and nothing of the developer's text (action ids, player_N, file paths, section signs, snake_case)."""
    seen = 0
    for seed in range(3):
        env = random_deal(env_id, seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        while not raw.game_over:
            mask = np.asarray(raw.legal_mask()).astype(bool)
            illegal = np.flatnonzero(~mask)
            for a in rng.choice(illegal, size=min(4, len(illegal)), replace=False):
                with pytest.raises(IllegalActionError) as err:
                    env.step(int(a))
                words = views.refusal_words(env_id, raw, int(a), refusal(err.value))
                assert words.startswith("You cannot ") and words.endswith("."), words
                assert not DEVELOPER.search(words), words
                seen += 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert seen > 50


def test_a_french_card_refused_says_which_rule() -> None:
    """Following suit, trumping, overtrumping: the reason names the card led and the rule."""
    found = set()
    for seed in range(20):
        env = random_deal("french_tarot_v0", seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        while not raw.game_over:
            mask = np.asarray(raw.legal_mask()).astype(bool)
            seat = views.current_seat(raw)
            if any(raw.action_to_string(int(a)).startswith("play") for a in np.flatnonzero(mask)):
                for c in np.flatnonzero(raw.game_state.hands[0, seat]):
                    a = raw.string_to_action(f"play {raw_name(c)}")
                    if not mask[a]:
                        with pytest.raises(IllegalActionError) as err:
                            env.step(a)
                        words = views.refusal_words("french_tarot_v0", raw, a, refusal(err.value))
                        for rule in ("you must follow suit", "you must play a trump", "you must overtrump", "you must play one"):
                            if rule in words:
                                found.add(rule)
                        assert "follow suit, trumping or overtrumping" not in words, words
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert {"you must follow suit", "you must play a trump", "you must overtrump"} <= found


def raw_name(c: int) -> str:
    from tarot_env.cards.french import FRENCH_DECK

    return FRENCH_DECK.names[int(c)]


def test_every_move_has_a_label_in_words() -> None:
    texts: set[str] = set()
    for env_id in ENVS:
        for seed in range(2):
            env = random_deal(env_id, seed)
            raw = env.unwrapped
            rng = np.random.default_rng(seed)
            while not raw.game_over:
                for _action, text in views.legal_moves(env_id, raw):
                    label, _ = views.move_words(env_id, text)
                    assert "_" not in label and label[0].isupper(), (text, label)
                    texts.add(text)
                env.step(int(rng.choice(np.flatnonzero(np.asarray(raw.legal_mask())))))
    assert views.move_words("french_tarot_v0", "no_chelem")[0] == "No chelem"
    assert views.move_words("terziglio_v0", "di_mio") == views.MOVE_WORDS["di_mio"]
    assert views.move_words("terziglio_v0", "va_bene")[0] == "Va bene"
    for word in ("pass", "posso", "di_mio", "va_bene", "oppose"):  # Terziglio's auction: one line of help each
        assert views.move_words("terziglio_v0", word)[1]


def test_the_ecart_prompt_counts_the_cards_to_put_aside() -> None:
    """French Tarot at 4 (6 cards) and 5 players (3 cards): the taker is asked to put that many aside."""
    for n, count in ((4, 6), (5, 3)):
        for seed in range(40):
            env = random_deal("french_tarot_v0", seed, n)
            raw = env.unwrapped
            taken = False
            while not raw.game_over:
                moves = views.legal_moves("french_tarot_v0", raw)
                texts = [t for _, t in moves]
                if any(t.startswith("discard") for t in texts):
                    view = views.deal_view("french_tarot_v0", env, views.current_seat(raw))
                    assert view["prompt"].startswith(f"Put {count} cards aside"), view["prompt"]
                    assert view["aside"] == count
                    taken = True
                    break
                # take a petite as soon as one may, everything else passes
                pick = next((a for a, t in moves if t == "bid petite"), None)
                pick = pick if pick is not None else next((a for a, t in moves if t == "pass"), moves[0][0])
                env.step(int(pick))
            if taken:
                break
        assert taken, f"no écart reached at {n} players"


def test_the_end_of_a_french_deal_is_broken_down_as_the_rules_page_computes_it() -> None:
    for seed in range(30):
        env = random_deal("french_tarot_v0", seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        while not raw.game_over:
            env.step(int(rng.choice(np.flatnonzero(np.asarray(raw.legal_mask())))))
        score = views.deal_view("french_tarot_v0", env, None)["score"]
        if score["result"] != "played":
            continue
        summed = sum(t["points"] for t in score["terms"] if t["points"] is not None)
        assert summed == score["unit"]  # the terms add up to the unit S
        taker = score["taker"]
        assert score["scores"][taker] == score["unit"] * 3  # the taker takes S from each of the three defenders
        assert score["terms"][0]["how"].startswith(("(25 + ", "-(25 + "))
        assert score["multiplier"] in (1, 2, 4, 6)
        return
    raise AssertionError("no played deal")


@pytest.mark.parametrize("env_id", ["ottocento_v0", "terziglio_v0", "mattazza_v0"])
def test_the_end_of_a_tarocchino_hand_is_broken_down_by_side(env_id: str) -> None:
    env = random_deal(env_id, 1)
    raw = env.unwrapped
    rng = np.random.default_rng(1)
    while not raw.game_over:
        env.step(int(rng.choice(np.flatnonzero(np.asarray(raw.legal_mask())))))
    score = views.deal_view(env_id, env, 0)["score"]
    if score["result"] == "thrown_in":
        return
    assert sorted(p for side in score["sides"] for p in side) == list(range(raw.num_players))
    for k, total in enumerate(score["total"]):  # the kinds add up to each side's total
        assert sum(r["points"][k] for r in score["rows"]) == total


def test_the_ecart_refusals_name_the_rule_for_the_card() -> None:
    """A bout, a king, a trump not forced: each refused from the écart with its own reason."""
    from tarot_env.cards.french import FRENCH_DECK

    mine = [f"T{n}" for n in range(11, 22)] + ["EX", "KS"] + [f"{r}S" for r in range(1, 6)]
    chien = ["7S", "8S", "9S", "10S", "1H", "2H"]
    rest = [c for c in FRENCH_DECK.names if c not in mine and c not in chien]
    env = tarot_env.make("french_tarot_v0")
    env.reset(options={"deal": {"dealer": 3, "hands": [mine, rest[0::3], rest[1::3], rest[2::3]], "rest": chien}})
    raw = env.unwrapped
    for text in ("bid garde", "pass", "pass", "pass"):
        env.step(raw.string_to_action(text))
    reasons = {}
    for name in ("T21", "EX", "KS", "T15"):
        action = raw.string_to_action(f"discard {name}")
        with pytest.raises(IllegalActionError) as err:
            env.step(action)
        reasons[name] = views.refusal_words("french_tarot_v0", raw, action, refusal(err.value))
    assert reasons["T21"] == "You cannot put T21 aside now: T21 is a bout, and bouts never go in the écart."
    assert "EX is a bout" in reasons["EX"]
    assert reasons["KS"].endswith("kings never go in the écart.")
    assert "only when you have no other card" in reasons["T15"]
