"""The ``tarot`` console command, driven end to end: the installed command in a pseudo-terminal
(pexpect) for the interactive parts, in a subprocess for the others.

A human's whole deal is typed move by move, as a player would (cards by name in any case,
other moves by number or by their string), with a typo and an illegal card on the way; the
record it saves is replayed through the rules and stepped through with ``tarot replay``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

import tarot_env

_SCRIPT = Path(sys.executable).parent / "tarot"
#: the installed console script (the venv's bin/tarot), else the module
TAROT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "tarot_env.command"]
PROMPT = r"your move(?: \[[^\]\r\n]*\])*> "  # [12s]: the time left; [Enter: play KS]: the only legal move
FINAL = r"final scores after \d+ (?:deal|hand)\(s\): ([^\r\n]*)\r?\n"


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    child = pexpect.spawn(TAROT[0], [*TAROT[1:], *args], cwd=str(cwd), encoding="utf-8", timeout=30, dimensions=(60, 200))
    return child


def run(*args: str, cwd: Path, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*TAROT, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)


def legal_moves(screen: str) -> tuple[str | None, list[str]]:
    """The last legal-move list on the screen: ``(card verb or None, [move texts in number order])``."""
    head = list(re.finditer(r"legal moves(?: \((\w+) a card\))?:", screen))
    assert head, f"no legal moves shown in:\n{screen}"
    block = screen[head[-1].end() :]
    moves = re.findall(r"(\d+)\) (\S+(?: (?!\d+\))\S+)?)", block)
    assert [int(k) for k, _ in moves] == list(range(1, len(moves) + 1)), block
    return head[-1].group(1), [m for _, m in moves]


def hand_cards(screen: str) -> list[str]:
    """The cards of the last ``your hand:`` line."""
    line = re.findall(r"your hand: ([^\r\n]*)", screen)[-1]
    return [w for group in line.split("|") for w in group.split(":")[-1].split()]


def play_to_end(child: pexpect.spawn, choose) -> tuple[str, list[str]]:
    """Answer every prompt with ``choose(verb, moves, screen)`` until the final scores; (final line, screens)."""
    screens = []
    while True:
        if child.expect([PROMPT, FINAL]) == 1:
            return child.match.group(1), screens
        screens.append(child.before)
        verb, moves = legal_moves(child.before)
        child.sendline(choose(verb, moves, child.before))


def saved_record(child: pexpect.spawn) -> dict:
    child.expect(r"game record saved to (\S+) ")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return json.loads((Path(child.cwd) / path).read_text())


# --------------------------------------------------------------------------------------- play
def test_french_deal_typed_with_typo_illegal_card_and_replay(tmp_path: Path) -> None:
    # seed 13: player_1 takes a garde, the human (seat 0) defends; a whole deal of 18 tricks
    child = spawn("play", "french_tarot_v0", "--players", "4", "--seed", "13", "--record", "game.json", cwd=tmp_path)
    child.expect(PROMPT)
    assert "your hand: " in child.before and "legal moves:" in child.before and "1) pass" in child.before
    assert re.search(r"> player_0 \(you\)", child.before)  # whose turn
    # a typo: a clear reason, the prompt again, nothing played
    child.sendline("kx")
    child.expect(r"not understood: 'kx' is not a card or a move[^\r\n]*\r\n")
    child.expect(PROMPT)
    assert "you:" not in child.before and "plays" not in child.before
    child.sendline("1")  # pass

    seen = {"illegal": False, "tricks": 0}

    def choose(verb: str | None, moves: list[str], screen: str) -> str:
        if verb == "play" and not seen["illegal"]:
            off = [c for c in hand_cards(screen) if c not in moves]
            if off:  # a card of the hand that the rules refuse now: the env's reason, then the prompt again
                seen["illegal"] = True
                child.sendline(off[0].lower())
                child.expect(rf"illegal: 'play {off[0]}' \(action \d+\) is not legal for seat 0 in the play phase: [^\r\n]+\r\n")
                child.expect(PROMPT)
                assert "you play" not in child.before
                _, again = legal_moves(child.before)
                assert again == moves
        if verb:  # a card typed alone, lower case
            assert re.search(r"trick \d+/18, led by player_\d", screen)
            seen["tricks"] += 1
            return moves[-1].lower()
        return "1"

    final, _ = play_to_end(child, choose)
    assert seen["illegal"] and seen["tricks"] == 17  # the last card is played at once
    record = saved_record(child)
    assert record["env"] == "french_tarot_v0" and len(record["actions"]) > 18 * 4
    assert tarot_env.replay(record) == record["scores"]
    assert final.startswith(f"player_0 (you) {record['scores'][0]:+d}")

    # tarot replay: forwards and back through the saved record
    n = len(record["actions"])
    rep = spawn("replay", "game.json", cwd=tmp_path)
    rep.expect(rf"move 0/{n} — the deal")
    rep.expect("replay> ")
    rep.sendline("")
    rep.expect(rf"move 1/{n} — last move: player_0 pass")
    rep.sendline("n")
    rep.expect(rf"move 2/{n} — last move: player_1 {re.escape(record['actions'][1])}")
    rep.sendline("p")
    rep.expect(rf"move 1/{n} — last move: player_0 pass")
    rep.sendline("g 40")
    rep.expect(rf"move 40/{n} — last move: player_\d {re.escape(record['actions'][39])}")
    rep.sendline("p")
    rep.expect(rf"move 39/{n} — last move: player_\d {re.escape(record['actions'][38])}")
    rep.sendline("e")
    rep.expect(rf"move {n}/{n}")
    rep.expect(r"scores: player_0 [-+]\d+")
    rep.sendline("q")
    rep.expect(pexpect.EOF)
    rep.close()
    assert rep.exitstatus == 0

    out = run("replay", "game.json", "--to-end", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("── french_tarot_v0 — move") == n + 1
    assert f"result: scores {record['scores']}" in out.stdout


@pytest.mark.parametrize(("env_id", "extra"), [("ottocento_v0", []), ("millone_v0", ["--seat", "1"])])
def test_tarocchino_hand_typed(tmp_path: Path, env_id: str, extra: list[str]) -> None:
    # in Millone both players discard 10 cards after the first deal: a discard typed by card
    child = spawn("play", env_id, "--seed", "4", *extra, cwd=tmp_path)
    verbs = set()

    def choose(verb: str | None, moves: list[str], screen: str) -> str:
        verbs.add(verb or moves[0].split()[0])
        if verb:
            return moves[0].swapcase() if verb == "discard" else moves[-1].lower()  # a card alone, any case
        return moves[0].upper()  # a move by its string: DECLARE, CLAIM ...

    _, screens = play_to_end(child, choose)
    assert "play" in verbs and ("discard" in verbs or env_id == "ottocento_v0")
    assert any(re.search(r"trick \d+/\d+, led by player_\d: player_\d \S+", s) for s in screens)
    record = saved_record(child)
    assert record["env"] == env_id
    assert tarot_env.replay(record) == record["scores"]


def test_time_per_move_plays_the_bots_move(tmp_path: Path) -> None:
    child = spawn("play", "french_tarot_v0", "--seed", "13", "--time-per-move", "1", cwd=tmp_path)
    child.expect(r"your move \[1s\]> ")
    _, moves = legal_moves(child.before)
    child.expect(r"time is up \(1s\): the rule-based bot plays for you: ([^\r\n]+)\r\n", timeout=10)
    assert child.match.group(1) in moves
    child.expect(r"you: ")  # announced like any move, and the game goes on
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("quitting")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "game record saved" not in child.before  # no deal finished: nothing to save


@pytest.mark.parametrize(("env_id", "players"), [(e, None) for e in tarot_env.ENV_IDS] + [("french_tarot_v0", "5")])
def test_every_env_plays_to_the_end(tmp_path: Path, env_id: str, players: str | None) -> None:
    # every seat but one taken by agents; the human always answers move 1
    args = ["play", env_id, "--seed", "1", "--seat", "random", "--agents", "rules,random", "--record", "r.json"]
    if players:
        args += ["--players", players]
    out = run(*args, cwd=tmp_path, stdin="1\n" * 400)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    assert f"final scores after 1 {'deal' if env_id.startswith('french') else 'hand'}(s)" in out.stdout
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["env"] == env_id
    assert tarot_env.replay(record) == record["scores"]


def test_match_to_a_target_and_a_session_of_deals(tmp_path: Path) -> None:
    out = run("play", "centocinquanta_v0", "--target", "60", "--seed", "2", "--record", "m.json", cwd=tmp_path, stdin="1\n" * 2000)
    assert out.returncode == 0, out.stderr
    assert "game over: " in out.stdout
    record = json.loads((tmp_path / "m.json").read_text())
    assert record["config"]["episode"] == "match" and record["config"]["target"] == 60 and len(record["deals"]) >= 1
    assert tarot_env.replay(record) == record["totals"]

    out = run("play", "french_tarot_v0", "--deals", "2", "--seed", "5", "--record", "s.json", cwd=tmp_path, stdin="1\n" * 400)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "s.json").read_text())
    assert len(data["records"]) == 2 and [r["deal"]["dealer"] for r in data["records"]][1] == (data["records"][0]["deal"]["dealer"] + 1) % 4
    assert data["totals"] == [sum(r["scores"][p] for r in data["records"]) for p in range(4)]
    out = run("replay", "s.json", "--to-end", cwd=tmp_path)
    assert out.returncode == 0 and "of episode 2/2" in out.stdout


def test_bad_input_to_the_command_is_refused_clearly(tmp_path: Path) -> None:
    out = run("play", "tarok_v0", cwd=tmp_path)
    assert out.returncode != 0 and "unknown env id 'tarok_v0'" in out.stderr and "french_tarot_v0" in out.stderr
    out = run("play", "ottocento_v0", "--option", "mori=some", cwd=tmp_path)
    assert out.returncode != 0 and "mori='some' is not allowed" in out.stderr


# --------------------------------------------------------------------------------------- list, help
def test_list(tmp_path: Path) -> None:
    out = run("list", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for env_id in tarot_env.ENV_IDS:
        assert re.search(rf"^{env_id}\s", out.stdout, re.M), env_id
    assert "petit_sec='annul'" in out.stdout and "target=800" in out.stdout
    out = run("list", "quattro_scartate_v0", cwd=tmp_path)
    assert out.returncode == 0
    assert "tie = 'draw'   ['draw', 'extra_hand']" in out.stdout  # the game's own default and values
    assert not re.search(r"^\s+target =", out.stdout, re.M)  # Quattro Scartate has no target


@pytest.mark.parametrize("command", ["list", "play", "replay", "bench", "arena", "train"])
def test_help_shows_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # in-process (the command's own main and parser): six more interpreters would cost seconds
    from tarot_env.command import main

    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    assert re.search(rf"^\s+tarot {command}( |$)", out, re.M)


# --------------------------------------------------------------------------------------- the scripts
def test_bench_arena_train_with_tiny_budgets(tmp_path: Path) -> None:
    out = run("bench", "--api", "aec", "--env", "french_tarot_v0", "--players", "4", "--seconds", "0.2", "--repeats", "1",
              "--out", str(tmp_path / "bench.json"), cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    results = json.loads((tmp_path / "bench.json").read_text())["results"]
    assert [(r["api"], r["env"], r["config"]) for r in results] == [("aec", "french_tarot_v0", {"num_players": 4})]
    assert results[0]["decisions_per_second"] > 0

    out = run("arena", "--env", "millone_v0", "--agents", "rules,random", "--deals", "2", "--seed", "3", "--time-per-move", "5",
              "--out", str(tmp_path / "arena"), "--deals-dir", str(tmp_path / "deals"), cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    arena = json.loads((tmp_path / "arena" / "arena_millone_v0.json").read_text())
    assert arena["deal_set"]["num_deals"] == 2 and arena["settings"]["time_limit"] == 5 and arena["settings"]["seed"] == 3

    out = run("train", "--env", "millone_v0", "--steps", "256", "--num-envs", "8", "--seed", "1", "--n-steps", "32", "--batch-size", "64",
              "--n-epochs", "1", "--net-arch", "16", "--bc-deals", "10", "--eval-episodes", "2",
              "--out", str(tmp_path / "train"), cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "train" / "model_final.zip").exists()
    config = json.loads((tmp_path / "train" / "config.json").read_text())
    assert config["env_id"] == "millone_v0" and config["num_envs"] == 8 and config["seed"] == 1 and config["n_steps"] == 32

    out = run("train", "--no-such-flag", cwd=tmp_path)  # passed to the script, refused there under the command's name
    assert out.returncode != 0 and "tarot train: error: unrecognized arguments: --no-such-flag" in out.stderr


def test_missing_extra_is_named() -> None:
    from tarot_env.experiments import scripts

    with pytest.raises(SystemExit, match=r'training needs no_such_module_xyz, from the train extra: pip install "tarot_env\[train\]"'):
        scripts.need("train", ["numpy", "no_such_module_xyz"], "training")
    scripts.need("train", ["numpy"], "training")  # nothing missing: no error
