"""``tarot play`` says what a player needs: what a Tarocchino declaration
would show and count before the choice, which side won a hand with the points labelled by side,
hands counted as hands, the French score term by term as the scoring computed it, and a single
legal move made with Enter (the last card played at once).

The games are driven with scripted input (a pipe, or pexpect where the prompt matters) and what
they print is checked against the env: the record the game saves, replayed, gives the hand's info
and the scoring's own terms.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_cli import FINAL, PROMPT, legal_moves, run, saved_record, spawn

import tarot_env
from tarot_env.cli import views
from tarot_env.env_facts import facts
from tarot_env.rules.french.scoring import score_terms


def replayed(record: dict[str, Any]) -> tuple[Any, dict[str, Any], np.ndarray | None]:
    """The env of a one-hand record stepped to its end: ``(env, final info, sides during the hand)``."""
    env = tarot_env.make(record["env"], **record["config"])
    env.reset(options={"deal": record["deal"]})
    raw = env.unwrapped
    sides = None
    for text in record["actions"]:
        if not facts(record["env"]).french:
            sides = raw.game.sides(raw.game_state, 0)
        env.step(raw.string_to_action(text))
    assert raw.game_over
    return env, raw.infos[raw.possible_agents[0]], sides


def play_piped(tmp_path: Path, env_id: str, *args: str) -> tuple[str, dict[str, Any]]:
    """One deal (hand) with the human always answering move 1: (what was printed, the record)."""
    out = run("play", env_id, "--record", "r.json", *args, cwd=tmp_path, stdin="1\n" * 400)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    return out.stdout, json.loads((tmp_path / "r.json").read_text())


def first_deal(tmp_path: Path, env_id: str, args: list[str], wanted: Any) -> tuple[str, dict[str, Any]]:
    """:func:`play_piped` with seeds 1, 2, ... until ``wanted(printed, record)`` (a deal that
    shows the case under test: found by the game, so that a change of the rules or of the bots
    does not leave the test checking nothing)."""
    for seed in range(1, 16):
        out, record = play_piped(tmp_path, env_id, *args, "--seed", str(seed))
        if wanted(out, record):
            return out, record
    raise AssertionError(f"no {env_id} deal of seeds 1-15 shows the case; the last printed:\n{out[-3000:]}")


# ---------------------------------------------------------------------------- Tarocchino
@pytest.mark.parametrize("env_id", ["ottocento_v0", "centocinquanta_v0"])
def test_the_declare_prompt_shows_what_would_be_declared(tmp_path: Path, env_id: str) -> None:
    # the human answers 1 (declare): the offer names the cards and the value, and the table then
    # shows exactly that declaration for the human's seat
    out, _ = first_deal(tmp_path, env_id, [], lambda out, _: "1) declare  2) no_declare" in out)
    offer = re.search(r"^declare: ([^,\n]+), worth (\d+) points; declaring shows these cards to the table", out, re.M)
    assert offer and out.index("1) declare  2) no_declare") > offer.end(), out[:3000]
    assert "legal moves:\n  1) declare  2) no_declare" in out[offer.end() :]
    cards, value = offer.group(1), offer.group(2)
    assert re.search(rf"^> player_0 \(you\) .* declared {value}: {re.escape(cards)}$", out[offer.end() :], re.M), out[offer.end() :][:2000]


@pytest.mark.parametrize(
    ("env_id", "args", "names"),
    [
        ("ottocento_v0", [], ["your side (you and player_2)", "the other side (player_1 and player_3)"]),
        ("millone_v0", ["--seat", "1"], ["player_0", "you"]),
        ("terziglio_v0", [], None),
    ],
)
def test_the_end_of_a_hand_says_which_side_won(tmp_path: Path, env_id: str, args: list[str], names: list[str] | None) -> None:
    out, record = first_deal(tmp_path, env_id, args, lambda out, record: "== hand 1 played" in out and len(set(record["scores"])) > 1)
    assert re.search(r"^\S[^\n]*: 1 hand\(s\); you are player_\d", out, re.M)  # a Tarocchino game counts hands
    assert "final scores after 1 hand(s)" in out and "deal(s)" not in out
    _, info, sides = replayed(record)
    line = re.search(r"^== (hand 1 played — .*)$", out, re.M).group(1)
    human = int(re.search(r"you are player_(\d)", out).group(1))
    points, scores = info["points"]["total"], info["scores"]
    members = [[p for p in range(len(sides)) if sides[p] == k] for k in range(2)]
    if names is None:  # Terziglio: the soloist alone (side 0) against the other two
        names = [views.side_name(m, human) for m in members]
        assert len(members[0]) == 1 and members[0][0] == info["soloist"]
    for name, pts in zip(names, points):
        assert f"{name}: {pts:g} points" in line, line
    if "soloist_won" in info:
        won = 0 if info["soloist_won"] else 1
    else:
        side_scores = [scores[m[0]] for m in members]
        assert side_scores[0] != side_scores[1]  # a hand with a winner (first_deal)
        won = int(np.argmax(side_scores))
    assert line.endswith(f"{views.side_name(members[won], human, short=True)} won the hand"), line


def test_the_hand_end_in_every_case() -> None:
    """The cases the games above do not reach, on the env's info as it reports them: a tie, a
    claim and a wrong claim (the claimer's side wins, or the other side), a hand thrown in,
    Mattazza's losers, Quindici's rounded scores and a match's standing."""
    partners = np.array([0, 1, 0, 1])
    played = {"hand": 0, "result": "played", "scores": [120, 120, 120, 120], "points": {"total": [120, 120]}}
    assert views.tarocchino_hand_end(played, partners, 1).endswith("a tie: nobody won the hand")
    claim = {"hand": 2, "result": "claimed", "claimer": 3, "claim_value": 812, "scores": [0, 40, 0, 40]}
    assert views.tarocchino_hand_end(claim, partners, 1) == (
        "hand 3 ended by player_3's claim of 812 (right) — the other side (player_0 and player_2): +0, "
        "your side (you and player_3): +40 — your side won the game"
    )
    wrong = {**claim, "result": "wrong_claim", "claim_value": 790}
    assert views.tarocchino_hand_end(wrong, partners, 1).endswith(
        "(wrong: below the target) — the other side (player_0 and player_2): +0, your side (you and player_3): +40"
        " — the other side won the game"
    )
    assert views.tarocchino_hand_end({"hand": 0, "result": "thrown_in", "scores": [0] * 3}, np.array([0, 1, 1]), 0) == (
        "hand 1 thrown in: no score"
    )
    mattazza = {"hand": 0, "result": "played", "scores": [12, 10, 46, 0], "points": {"total": [12, 10, 46, 0]}, "losers": [3],
                "penalties": [0, 0, 0, 1], "match_over": False}  # fmt: skip
    assert views.tarocchino_hand_end(mattazza, np.arange(4), 0) == (
        "hand 1 played — you: 12 points, player_1: 10 points, player_2: 46 points, player_3: 0 points — lost by player_3"
        " — penalty points 0, 0, 0, 1"
    )
    quindici = {"hand": 0, "result": "played", "scores": [3, 2], "raw": [31, 22], "points": {"total": [31, 22]}}
    assert views.tarocchino_hand_end(quindici, np.arange(2), 1) == (
        "hand 1 played — player_0: 31 points (scored 3), you: 22 points (scored 2) — player_0 won the hand"
    )


def test_a_match_counts_hands(tmp_path: Path) -> None:
    out = run("play", "centocinquanta_v0", "--match", "--seed", "2", cwd=tmp_path, stdin="1\n" * 3000)
    assert out.returncode == 0, out.stderr
    hands = len(re.findall(r"^== hand \d+ ", out.stdout, re.M))
    assert hands >= 2 and f"final scores after {hands} hand(s)" in out.stdout
    quit_early = run("play", "ottocento_v0", "--seed", "4", cwd=tmp_path, stdin="q\n")
    assert "quitting: the hand in progress is not kept" in quit_early.stdout


# ---------------------------------------------------------------------------- French Tarot
@pytest.mark.parametrize("players", ["3", "4", "5"])
def test_the_end_of_a_french_deal_breaks_the_score_down(tmp_path: Path, players: str) -> None:
    out, record = first_deal(tmp_path, "french_tarot_v0", ["--players", players], lambda out, _: "== taker " in out)
    env, info, _ = replayed(record)
    t = score_terms(env.unwrapped.game, env.unwrapped.game_state, 0)
    block = out[out.index("== taker ") :].splitlines()
    m, d = t["multiplier"], t["difference"]
    verdict = f"{'made' if t['made'] else 'lost'} by {d}"
    assert block[0] == (
        f"== taker player_{info['taker']} ({info['contract']}"
        + (f", partner player_{info['partner']}" if info["partner"] >= 0 and info["partner"] != info["taker"] else "")
        + f"): attack {info['attack_points']:g} points with {info['attack_bouts']} bouts, {t['threshold']} needed — contract {verdict}"
    )
    assert block[1] == f"   score S from the attack's side (docs/rules/french_tarot.md §9), multiplier ×{m} for a {info['contract']}:"
    rows = [re.fullmatch(r"     (.+?):(?: (.+) =)? +([+-]\d+)", line) for line in block[2:6]]
    assert all(rows), block
    labels, values = [r.group(1) for r in rows], [int(r.group(3)) for r in rows]
    assert values == [t["contract"], t["petit_au_bout"], t["poignees"], t["chelem"]]
    assert labels[0] == f"contract {verdict}" and rows[0].group(2) == f"{'' if t['made'] else '-'}(25 + {d}) × {m}"
    pab = info["petit_au_bout"]
    assert labels[1] == ("no petit au bout" if not pab else f"petit au bout to the {'attack' if pab > 0 else 'defence'}")
    assert (rows[1].group(2) is None) == (pab == 0)
    assert labels[2].startswith("poignée player_" if t["poignees"] else "no poignée")
    assert labels[3] == ("no chelem" if info["chelem"] == "none" else f"chelem ({info['chelem'].replace('_', ' ')})")
    unit = info["unit"]
    assert block[6] == f"     S = {unit:+d}: each defender {'pays' if unit >= 0 else 'receives'} {abs(unit)}"
    assert block[7].startswith("== scores: ")
    defenders = [p for p in range(int(players)) if p not in (info["taker"], info["partner"])]
    assert all(record["scores"][p] == -unit for p in defenders)
    assert "final scores after 1 deal(s)" in out


def points(value: int) -> str:
    """A term's points as the breakdown prints them (signed), for a regular expression."""
    return re.escape(f"{value:+d}")


def test_the_french_breakdown_shows_every_term() -> None:
    """Over deals of random moves, the lines show the petit au bout (either side), a poignée and a
    chelem with the scoring's own numbers; a deal thrown in has its one line."""
    every = {"petit au bout, attack", "petit au bout, defence", "poignée", "chelem"}
    seen: set[str] = set()
    for n, seed in ((n, seed) for seed in range(100) for n in (3, 4, 5)):
        if seen == every:
            break
        env = tarot_env.make("french_tarot_v0", num_players=n)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.unwrapped.game_over:
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        info = env.unwrapped.infos["player_0"]
        if info["result"] != "played":
            continue
        lines = views.deal_end("french_tarot_v0", env, info, None, 0)
        t = score_terms(env.unwrapped.game, env.unwrapped.game_state, 0)
        m = t["multiplier"]
        if info["petit_au_bout"]:
            side = "attack" if info["petit_au_bout"] > 0 else "defence"
            sign = "" if side == "attack" else "-"
            assert re.fullmatch(rf"     petit au bout to the {side}: {sign}10 × {m} = +{points(t['petit_au_bout'])}", lines[3]), lines[3]
            seen.add(f"petit au bout, {side}")
        if t["poignees"]:
            assert re.fullmatch(
                rf"     poignée player_\d \w+ \(\d+\)(, player_\d \w+ \(\d+\))*, to the (attack|defence): +{points(t['poignees'])}",
                lines[4],
            )
            seen.add("poignée")
        if t["chelem"]:
            assert re.fullmatch(rf"     chelem \({info['chelem'].replace('_', ' ')}\): +{points(t['chelem'])}", lines[5]), lines[5]
            seen.add("chelem")
    assert seen == every

    env = tarot_env.make("french_tarot_v0", num_players=4)
    env.reset(seed=0)
    while not env.unwrapped.game_over:
        env.step(env.unwrapped.string_to_action("pass"))
    assert views.deal_end("french_tarot_v0", env, env.unwrapped.infos["player_0"], None, 0) == ["deal all passed: no score"]


# ---------------------------------------------------------------------------- one legal move
def test_a_single_legal_move_is_made_with_enter_and_the_last_card_at_once(tmp_path: Path) -> None:
    child = spawn("play", "ottocento_v0", "--seed", "4", "--record", "r.json", cwd=tmp_path)
    entered = 0
    while child.expect([PROMPT, FINAL]) == 0:
        screen, prompt = child.before, child.after
        _, moves = legal_moves(screen)
        assert "trick 15/15" not in screen  # the last card is never asked for
        if len(moves) == 1:  # offered with Enter
            assert prompt == f"your move [Enter: play {moves[0]}]> "
            child.sendline("")
            child.expect(rf"you play {moves[0]}\r\n")
            entered += 1
        else:
            assert "Enter" not in prompt
            child.sendline("1")
    assert entered >= 2
    assert re.search(r"you play \w+ \(your last card\)\r\n", child.before)
    record = saved_record(child)
    assert tarot_env.replay(record) == record["scores"]
