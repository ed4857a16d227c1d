"""The README's main job (experiments/main.py) runs end to end with a tiny budget: training, then
the arena against random and rule-based agents, with every output written."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")


def test_main_job_trains_then_evaluates(tmp_path):
    from tarot_env.experiments.main import main

    results = main(["--timesteps", "1024", "--bc-deals", "20", "--deals", "3", "--eval-points", "2", "--eval-deals", "8",
                    "--out", str(tmp_path / "run"), "--deals-dir", str(tmp_path / "deals")])  # fmt: skip
    assert set(results) == {"random", "rules"}
    train = tmp_path / "run" / "train"
    assert (train / "model_final.zip").exists() and (train / "learning_curve.png").exists() and (train / "log.csv").exists()
    assert (train / "warm_start.csv").exists()  # the rule-based bot was cloned first
    for name, r in results.items():
        folder = tmp_path / "run" / f"arena_{name}"
        assert sorted(p.suffix for p in folder.glob("arena_*")) == [".json", ".md", ".png"]
        saved = json.loads(next(folder.glob("arena_*.json")).read_text())
        assert set(saved["agents"]) == {"ppo", name}
        assert len(saved["per_deal"]["ppo"]) == 3 and saved["deal_set"]
        assert r["agents"]["ppo"]["fallbacks"]["fallback"] == 0  # the trained policy only plays legal moves


def test_the_verdict_says_whether_the_bot_is_beaten_and_where_the_scale_goes(tmp_path):
    from tarot_env.experiments.main import LEADERBOARD, verdict

    board = json.loads(LEADERBOARD.read_text())
    rows = {r["entry"]: r for r in board["rows"]}
    lines = verdict({"mean": 12.0, "lo": 4.0, "hi": 20.0}, 200)
    assert lines[0].startswith("this run's agent beats the rule-based bot (the interval is above zero): +12.0 [+4.0, +20.0]")
    assert len(lines) == 4  # one line each: the committed trained agent, plain PIMC, the search over the network
    trained, pimc, search = (rows[e]["difference"]["mean"] for e in ("trained", "pimc", "search"))
    assert "committed trained agent" in lines[1] and f"{trained - 12.0:+.1f} a deal from this run's agent" in lines[1]
    assert "plain PIMC" in lines[2] and f"{pimc - 12.0:+.1f} a deal from this run's agent" in lines[2]
    assert "(search)" in lines[3] and f"{search - 12.0:+.1f} a deal from this run's agent" in lines[3]
    assert "is level with" in verdict({"mean": 1.0, "lo": -3.0, "hi": 5.0}, 200)[0]
    assert "loses to" in verdict({"mean": -6.0, "lo": -9.0, "hi": -3.0}, 200)[0]
    missing = verdict({"mean": 1.0, "lo": -3.0, "hi": 5.0}, 200, leaderboard=tmp_path / "none.json")
    assert len(missing) == 2 and "no leaderboard" in missing[1]
