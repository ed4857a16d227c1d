"""Bad flags and files given to the ``tarot`` command.

Each gets one line on stderr that names what was given, why it is refused and what is allowed,
and a non-zero exit status: never a Python traceback, never silent acceptance, and nothing
written or played first. The command's own ``main`` runs in-process (an interpreter per case
would cost seconds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tarot_env.command import main


class NoInput:
    """A stdin that must not be read: the refusal comes before any game starts."""

    def fileno(self) -> int:
        raise AssertionError("the command read the keyboard: the game started instead of refusing the flag")

    def readline(self, *args: object) -> str:
        raise AssertionError("the command read the keyboard: the game started instead of refusing the flag")

    read = readline


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """Run ``tarot argv``; check the refusal (non-zero status, one line on stderr, no traceback); the line."""
    monkeypatch.setattr("sys.stdin", NoInput())
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else f"SystemExit({e.code!r}) not printed by main"
    captured = capsys.readouterr()
    err = captured.err
    assert code != 0, f"tarot {' '.join(argv)} was accepted (exit status 0)"
    assert isinstance(code, int), code
    assert "Traceback" not in err + captured.out
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"not one line on stderr:\n{err}"
    assert lines[0].startswith("tarot"), lines[0]
    return lines[0]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may be written, but if it were, not in the repository


# ------------------------------------------------------------------------------------- play
@pytest.mark.parametrize(
    ("flags", "given", "allowed"),
    [
        (["--seed", "-1"], "-1", "0 or more"),
        (["--seed", "x"], "'x'", "0 or more"),
        (["--time-per-move", "inf"], "'inf'", "seconds"),
        (["--time-per-move", "nan"], "'nan'", "seconds"),
        (["--time-per-move", "0"], "'0'", "seconds"),
        (["--time-per-move", "1e9"], "'1e9'", "seconds"),
        (["--players", "0"], "0", "3, 4 or 5"),
        (["--players", "-4"], "-4", "3, 4 or 5"),
        (["--players", "9"], "9", "3, 4 or 5"),
        (["--target", "0"], "'0'", "1 or more"),
        (["--deals", "0"], "'0'", "1 or more"),
        (["--option", "dealer=1"], "dealer=1", "--seed"),
        (["--option", "num_players=3"], "num_players=3", "--players"),
        (["--option", "illegal_action=terminate"], "illegal_action='terminate'", "'raise'"),
        (["--option", "render_mode=human"], "render_mode='human'", "seat view"),
        (["--option", "render_mode=ansi"], "render_mode='ansi'", "seat view"),
    ],
)
def test_play_refuses_bad_flags(flags, given, allowed, capsys, monkeypatch):
    line = refused(["play", "french_tarot_v0", *flags], capsys, monkeypatch)
    assert given in line and allowed in line, line


def test_render_mode_human_names_the_seat_view_and_replay(capsys, monkeypatch):
    line = refused(["play", "ottocento_v0", "--option", "render_mode=human"], capsys, monkeypatch)
    assert "every player's hand" in line and "seat view" in line and "tarot replay" in line


def test_play_refuses_a_match_option_with_deals(capsys, monkeypatch):
    line = refused(["play", "ottocento_v0", "--option", "episode=match", "--deals", "2"], capsys, monkeypatch)
    assert "episode='match'" in line and "--deals 2" in line


@pytest.mark.parametrize("where", ["folder", "under_a_file", "unwritable"])
def test_play_checks_the_record_path_before_the_deal(where, tmp_path, capsys, monkeypatch):
    if where == "folder":
        path = tmp_path / "games"
        path.mkdir()
    elif where == "under_a_file":
        (tmp_path / "notes.txt").write_text("")
        path = tmp_path / "notes.txt" / "game.json"
    else:
        path = Path("/proc/no_such_dir/game.json")  # not writable, even as root
    line = refused(["play", "french_tarot_v0", "--record", str(path)], capsys, monkeypatch)
    assert str(path) in line or str(path.parent) in line, line


# ------------------------------------------------------------------------------------- replay
def test_replay_of_a_folder(tmp_path, capsys, monkeypatch):
    line = refused(["replay", str(tmp_path)], capsys, monkeypatch)
    assert str(tmp_path) in line and "folder" in line


def test_replay_of_a_binary_file_and_a_bad_move(tmp_path, capsys, monkeypatch):
    (tmp_path / "x.bin").write_bytes(b"\xff\xfe\x00\x01")
    line = refused(["replay", str(tmp_path / "x.bin")], capsys, monkeypatch)
    assert "x.bin" in line
    line = refused(["replay", "game.json", "--move", "-3"], capsys, monkeypatch)
    assert "'-3'" in line


# ------------------------------------------------------------------------------------- arena
@pytest.mark.parametrize(
    ("flags", "given"),
    [
        (["--env", "french_tarot_v0", "--agents", "foo"], "'foo'"),
        (["--env", "french_tarot_v0", "--agents", "rules,rules"], "'rules'"),
        (["--env", "french_tarot_v0", "--agents", " , "], "' , '"),
        (["--env", "bogus"], "'bogus'"),
        (["--env", "french_tarot_v0", "--players", "7"], "7"),
        (["--env", "ottocento_v0", "--players", "3"], "3"),
        (["--env", "ottocento_v0", "--agents", "rules,sb3:models/missing.zip"], "models/missing.zip"),
        (["--env", "ottocento_v0", "--agents", "rules,sb3:"], "'sb3:'"),
        (["--env", "millone_v0", "--deals", "0"], "'0'"),
        (["--env", "millone_v0", "--seed", "-2"], "'-2'"),
        (["--env", "millone_v0", "--time-per-move", "-1"], "'-1'"),
        (["--env", "millone_v0", "--time-per-move", "nan"], "'nan'"),
        (["--env", "millone_v0", "--time-limit", "0"], "'0'"),  # the script's own name of the flag
        (["--env", "millone_v0", "--ratings", "."], "'.'"),
    ],
)
def test_arena_refuses_bad_flags(flags, given, capsys, monkeypatch, tmp_path):
    line = refused(["arena", *flags], capsys, monkeypatch)
    assert given in line, line
    assert ".zip.zip" not in line
    assert not (tmp_path / "runs").exists() and not (tmp_path / "results").exists()  # refused before anything was written


def test_arena_needs_an_env(capsys, monkeypatch):
    line = refused(["arena"], capsys, monkeypatch)
    assert "--env" in line


# ------------------------------------------------------------------------------------- the guard
def test_unknown_subcommand_and_flag_are_one_line(capsys, monkeypatch):
    line = refused(["plya"], capsys, monkeypatch)
    assert "'plya'" in line
    line = refused(["play", "french_tarot_v0", "--no-such-flag"], capsys, monkeypatch)
    assert "--no-such-flag" in line


def test_last_guard_turns_an_input_error_into_one_line(capsys, monkeypatch):
    # every known bad input is checked explicitly; what still gets through is one line, not a traceback
    from tarot_env.cli import listing

    def broken(args):
        raise OSError("the disk went away\nwhile listing")

    monkeypatch.setattr(listing, "run", broken)
    line = refused(["list"], capsys, monkeypatch)
    assert line == "tarot: error: the disk went away while listing"
