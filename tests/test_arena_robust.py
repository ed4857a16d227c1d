"""The arena under misuse and misbehaving agents.

- The same command run again gives the same leaderboard: a run starts fresh, and extends a
  ratings file only when one is named (``ratings=`` / ``--ratings FILE``).
- An evaluation where an agent could not play at all is an error, not a 0.00 tie; ``sb3:``
  model paths work with or without ``.zip``, and a missing one is named as given.
- An agent raising ``SystemExit`` or ``KeyboardInterrupt`` is a faulty agent like any other;
  hung moves leave a bounded number of threads behind.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from tarot_env.agents import factory
from tarot_env.agents.random_agent import RandomAgent

from tarot_env import arena


def _tarot(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run the ``tarot`` command in-process: (exit status, stderr)."""
    from tarot_env.command import main

    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    return code, capsys.readouterr().err


# --------------------------------------------------------------------------------------- ratings
def _agents(env_id: str = "centocinquanta_v0") -> dict:
    return {"rules": arena.rule_agent(env_id), "random": RandomAgent(0)}


def test_the_same_run_gives_the_same_leaderboard_each_time(tmp_path):
    out = tmp_path / "out"
    runs = [arena.run_arena("centocinquanta_v0", _agents(), 4, deals_dir=tmp_path, out=out, progress=False) for _ in range(3)]
    boards = [r["leaderboard"] for r in runs]
    assert boards[0] == boards[1] == boards[2]
    assert [r["games"] for r in boards[2]] == [4, 4]  # not 4 -> 8 -> 12
    stored = json.loads((out / "ratings.json").read_text())["tables"]["centocinquanta_v0"]
    assert stored["rules"]["games"] == 4


def test_a_named_ratings_file_is_extended(tmp_path):
    league = tmp_path / "league.json"
    first = arena.run_arena("centocinquanta_v0", _agents(), 4, deals_dir=tmp_path, out=tmp_path / "a", ratings=league, progress=False)
    second = arena.run_arena("centocinquanta_v0", _agents(), 4, deals_dir=tmp_path, out=tmp_path / "b", ratings=league, progress=False)
    one = {r["agent"]: r for r in first["leaderboard"]}
    two = {r["agent"]: r for r in second["leaderboard"]}
    assert one["rules"]["games"] == 4 and two["rules"]["games"] == 8 and two["rules"]["sigma"] < one["rules"]["sigma"]
    assert second["settings"]["ratings"] == str(league)
    assert not (tmp_path / "b" / "ratings.json").exists()  # the named file, not the out folder's
    # another table goes into the same file beside it
    arena.run_arena("quindici_v0", _agents("quindici_v0"), 2, deals_dir=tmp_path, ratings=league, progress=False)
    assert set(json.loads(league.read_text())["tables"]) == {"centocinquanta_v0", "quindici_v0"}


def test_ratings_flag_of_the_command(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    league = tmp_path / "league.json"
    base = ["arena", "--env", "quindici_v0", "--agents", "random,rules", "--deals", "2", "--out", "out", "--deals-dir", "deals"]
    for _ in range(2):
        assert _tarot(base, capsys)[0] == 0
    assert json.loads((tmp_path / "out" / "ratings.json").read_text())["tables"]["quindici_v0"]["rules"]["games"] == 2
    for _ in range(2):
        assert _tarot([*base, "--ratings", str(league)], capsys)[0] == 0
    assert json.loads(league.read_text())["tables"]["quindici_v0"]["rules"]["games"] == 4
    from tarot_env.command import main

    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    assert "--ratings FILE" in capsys.readouterr().out


# ------------------------------------------------------------------------ agents that cannot play
@pytest.fixture(scope="module")
def french_model(tmp_path_factory) -> Path:
    """An untrained MaskablePPO model of French Tarot, 4 players, saved as ``french4.zip``."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from tarot_env.wrappers import SingleAgentEnv

    path = tmp_path_factory.mktemp("models") / "french4.zip"
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), n_steps=64, batch_size=64, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")
    model.save(path)
    return path


def test_sb3_model_paths_with_or_without_zip(french_model):
    for spec in (f"sb3:{french_model}", f"sb3:{french_model.with_suffix('')}"):
        agent = factory.make_agent(spec, "french_tarot_v0", num_players=4)
        mask = np.ones(205, dtype=bool)
        assert 0 <= agent.act(np.zeros(1366, dtype=np.int8), mask) < 205
    for missing in (french_model.parent / "missing.zip", french_model.parent / "missing"):
        with pytest.raises(ValueError) as err:
            factory.make_agent(f"sb3:{missing}", "french_tarot_v0", num_players=4)
        assert str(missing) in str(err.value) and ".zip.zip" not in str(err.value)


def test_a_model_of_another_game_is_refused_before_play(french_model, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["arena", "--env", "ottocento_v0", "--agents", f"rules,sb3:{french_model}", "--deals", "2", "--out", "out", "--deals-dir", "d"]
    code, err = _tarot(argv, capsys)
    assert code != 0 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert f"sb3:{french_model}" in err and "ottocento_v0" in err and "1366" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("search", ["search:rollout=sb3:nowhere/missing.zip", "pimc:rollout=sb3:nowhere/missing.zip"])
def test_a_search_over_a_missing_model_is_refused_in_one_line(search, french_model, tmp_path, capsys, monkeypatch):
    """The search's network is loaded when the agent is made: a missing one is a one-line error, not a traceback."""
    monkeypatch.chdir(tmp_path)
    argv = ["arena", "--env", "french_tarot_v0", "--players", "4", "--agents", f"rules,{search}", "--deals", "2", "--out", "out"]
    code, err = _tarot(argv, capsys)
    assert code != 0 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 or "usage:" in err.splitlines()[0], err
    assert "nowhere/missing.zip" in err.splitlines()[-1] and "no model file" in err.splitlines()[-1]
    assert not (tmp_path / "out").exists()


class Crashing:
    def act(self, obs, mask):
        raise RuntimeError("boom")


def test_an_agent_that_never_played_is_an_error(tmp_path):
    agents = {"crash": Crashing(), "rules": arena.rule_agent("quindici_v0")}
    expected = r"'crash' could not play quindici_v0: all \d+ of its moves .*RuntimeError: boom"
    with pytest.raises(factory.AgentCouldNotPlayError, match=expected):
        arena.run_arena("quindici_v0", agents, 2, deals_dir=tmp_path, out=tmp_path / "out", strict=True, progress=False)
    assert not (tmp_path / "out").exists()  # nothing reported
    res = arena.run_arena("quindici_v0", agents, 2, deals_dir=tmp_path, progress=False)  # not strict: counted, as before
    assert res["fallbacks"]["crash"]["fallback"] == res["fallbacks"]["crash"]["moves"] > 0


# ------------------------------------------------------------------------- faulty and hung agents
class Raising:
    def __init__(self, exc: type[BaseException]):
        self.exc = exc

    def act(self, obs, mask):
        raise self.exc("out of here")


@pytest.mark.parametrize("exc", [SystemExit, KeyboardInterrupt])
@pytest.mark.parametrize("time_limit", [None, 5.0])
def test_an_agent_raising_system_exit_or_keyboard_interrupt_is_a_faulty_agent(tmp_path, exc, time_limit):
    agents = {"bad": Raising(exc), "rules": arena.rule_agent("quindici_v0")}
    try:
        res = arena.run_arena("quindici_v0", agents, 2, time_limit=time_limit, deals_dir=tmp_path, progress=False)
    except BaseException as e:  # the bug: it ended the tournament
        pytest.fail(f"{type(e).__name__} from an agent's move ended the tournament")
    fb = res["fallbacks"]["bad"]
    assert fb["exception"] == fb["fallback"] == fb["moves"] > 0
    assert any(e["detail"].startswith(exc.__name__) for e in res["fallback_events"])


class Hanging:
    """Never answers (until released): every move runs past any limit."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def act(self, obs, mask):
        self.calls += 1
        self.release.wait(60)
        return int(np.flatnonzero(mask)[0])


def test_hung_moves_leave_a_bounded_number_of_threads(tmp_path):
    before = threading.active_count()
    hang = Hanging()
    try:
        res = arena.run_arena(
            "mattazza_v0", {"hang": hang, "rules": arena.rule_agent("mattazza_v0")}, 2, num_players=4, time_limit=0.02,
            deals_dir=tmp_path, progress=False,
        )  # fmt: skip
        fb = res["fallbacks"]["hang"]
        assert fb["moves"] >= 40 and fb["timeout"] == fb["fallback"] == fb["moves"]
        assert threading.active_count() - before <= 4, "every hung move left its thread behind"
        assert hang.calls <= 4  # no agent thread started for moves it could not answer anyway
    finally:
        hang.release.set()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() <= before  # released, the stuck threads end; the idle workers were closed


def test_worker_threads_end_with_the_run(tmp_path):
    before = threading.active_count()
    res = arena.run_arena("quindici_v0", _agents("quindici_v0"), 2, time_limit=5.0, deals_dir=tmp_path, progress=False)
    assert sum(f["fallback"] for f in res["fallbacks"].values()) == 0
    assert threading.active_count() <= before  # (<=: a thread of an earlier test may have ended meanwhile)
