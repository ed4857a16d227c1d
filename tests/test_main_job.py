"""The README's main job (experiments/main.py) runs end to end with a tiny budget: training, then
the arena against random and rule-based agents, with every output written."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")


def test_main_job_trains_then_evaluates(tmp_path):
    from tarot_env.experiments.main import main

    results = main(["--timesteps", "1024", "--bc-deals", "20", "--deals", "3", "--out", str(tmp_path / "run"),
                    "--deals-dir", str(tmp_path / "deals")])  # fmt: skip
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
