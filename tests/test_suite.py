"""The benchmark suite (experiments/suite.py) and the trained agents by name (agents/pretrained.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tarot_env.agents import trained as P
from tarot_env.experiments import suite


def test_every_table_has_a_committed_deal_set_of_the_protocols_size():
    from tarot_env.arena import deal_set_path

    for table, (env_id, n) in P.TABLES.items():
        path = deal_set_path(env_id, n)
        assert path.name == f"{table}_v{suite.PROTOCOL['deal_set_version']}.json", path
        data = json.loads(path.read_text())
        assert len(data["deals"]) >= suite.PROTOCOL["deals"] and data["seed"] == suite.PROTOCOL["seed"], table


def test_a_row_is_the_entry_against_the_bot_and_is_saved_and_shown(tmp_path):
    row = suite.evaluate("quindici_v0", "random", deals=4, progress=False)
    assert row["protocol"] is None and row["deals"] == 4  # fewer deals than the protocol's: marked
    assert row["difference"]["lo"] <= row["difference"]["mean"] <= row["difference"]["hi"]
    assert 0 <= row["win_rate"]["lo"] <= row["win_rate"]["mean"] <= row["win_rate"]["hi"] <= 1
    assert row["command"].endswith("--table quindici_v0 --agent random --deals 4")  # the row can be made again
    reference = suite.evaluate("quindici_v0", "rules", deals=4, progress=False)
    assert reference["difference"]["mean"] == 0  # the bot against itself, in duplicate: exactly even
    suite.save_row(row, tmp_path)
    suite.save_row(reference, tmp_path)
    suite.save_row(row, tmp_path)  # replaced, not repeated
    rows = json.loads((tmp_path / "quindici_v0.json").read_text())["rows"]
    committed = json.loads((suite.COMMITTED / "quindici_v0.json").read_text())["rows"]
    # the new file started from the committed rows; the two rows made here replaced theirs; ranked by the difference
    assert sorted(r["entry"] for r in rows) == sorted({r["entry"] for r in committed} | {"rules", "random"})
    assert [r["difference"]["mean"] for r in rows] == sorted((r["difference"]["mean"] for r in rows), reverse=True)
    assert next(r for r in rows if r["entry"] == "random")["deals"] == 4
    text = suite.markdown(tmp_path)
    assert "**quindici_v0**" in text and "random (4 deals: not protocol v1)" in text
    doc = tmp_path / "results.md"
    doc.write_text(f"before\n{suite.BEGIN}\nold\n{suite.END}\nafter\n")
    suite.write_docs(doc, tmp_path)
    written = doc.read_text()
    assert written.startswith("before\n") and written.endswith("after\n") and "old" not in written and "**quindici_v0**" in written


def test_bad_tables_and_agents_get_one_line_errors(capsys):
    with pytest.raises(SystemExit) as e:
        suite.main(["--table", "bogus", "--no-docs"])
    assert e.value.code == 2 and "unknown table 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        suite.main(["--table", "ottocento_v0", "--agent", "foo", "--deals", "1", "--no-docs", "--out", "/tmp/never"])
    assert e.value.code == 1 and "unknown agent 'foo'" in capsys.readouterr().err


def test_a_trained_model_exports_small_loads_by_name_and_plays(tmp_path, monkeypatch):
    """export() keeps the weights (as float16) without optimizer state; pretrained() finds it by
    table name; the arena plays it as ``pretrained`` and as ``sb3:<file>``."""
    from sb3_contrib import MaskablePPO
    from tarot_env.agents.factory import make_agent
    from tarot_env.experiments.train import TrainConfig, train

    run = tmp_path / "run"
    train(TrainConfig(env_id="ottocento_v0", num_envs=8, timesteps=256, n_steps=32, batch_size=128, n_epochs=1, net_arch=[16],
                      bc_deals=0, eval_every=0, snapshot_every=0, checkpoint_every=0, out=str(run), progress_bar=False))  # fmt: skip
    models = tmp_path / "models"
    path = P.export(run / "model_final.zip", "ottocento_v0", models)
    assert path == models / "ottocento_v0.zip" and path.stat().st_size < (run / "model_final.zip").stat().st_size
    source, exported = MaskablePPO.load(run / "model_final.zip"), MaskablePPO.load(path)
    for a, b in zip(source.policy.parameters(), exported.policy.parameters()):
        assert b.dtype == a.dtype and np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-2)
    assert not exported.policy.optimizer.state_dict()["state"]  # no optimizer state

    monkeypatch.setenv("TAROT_ENV_MODELS", str(models))
    assert P.available() == ["ottocento_v0", "quattro_scartate_v0"]  # one model for both (SAME_MODEL)
    agent = P.pretrained("ottocento_v0")
    import tarot_env

    env = tarot_env.make("ottocento_v0")
    env.reset(seed=1)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"]))
    assert not env.agents
    assert make_agent("pretrained", "ottocento_v0").policy is not None
    with pytest.raises(ValueError, match=r"no trained model for 'millone_v0'.*models: ottocento_v0"):
        P.pretrained("millone_v0")
    with pytest.raises(ValueError, match="unknown table"):
        P.model_file("ottocento")
    assert P.table_of("french_tarot_v0") == "french_tarot_v0_4p" and P.table_of("mattazza_v0", 6) == "mattazza_v0_6p"


@pytest.mark.parametrize("table", P.available())
def test_every_committed_model_loads_by_name_and_plays_a_deal(table):
    """Each model of results/models (the tables that have one: docs/results.md says which) loads by
    name, is small, and plays a whole deal of its table with legal actions only (the env raises on
    an illegal one)."""
    import tarot_env

    assert P.model_file(table).stat().st_size < 3_000_000
    agent = P.pretrained(table)
    env_id, n = P.TABLES[table]
    env = tarot_env.make(env_id, **({} if n is None else {"num_players": n}))
    env.reset(seed=7)
    moves = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"]))
        moves += not (term or trunc)
    assert moves > 0 and not env.agents


def test_the_committed_models_fit_the_budget():
    total = sum(p.stat().st_size for p in P.models_dir().glob("*.zip"))
    assert total < 40_000_000, total


def test_the_arena_plays_the_trained_agent_by_name(tmp_path, monkeypatch, capsys):
    from tarot_env.experiments import arena as script

    res = script.main(
        ["--env", "french_tarot_v0", "--players", "4", "--agents", "pretrained,rules", "--deals", "2", "--out", str(tmp_path)]
    )
    assert res["fallbacks"]["pretrained"]["moves"] > 0 and res["fallbacks"]["pretrained"]["fallback"] == 0
    monkeypatch.setenv("TAROT_ENV_MODELS", str(tmp_path / "none"))
    with pytest.raises(SystemExit) as e:
        script.main(["--env", "millone_v0", "--agents", "pretrained,rules", "--deals", "2", "--out", str(tmp_path)])
    assert e.value.code == 2 and "no trained model for 'millone_v0'" in capsys.readouterr().err


@pytest.mark.parametrize("table", P.available())
def test_every_committed_model_has_its_config_log_and_learning_curve(table):
    own = P.SAME_MODEL.get(table, table)
    run = P.models_dir().parent / "training" / own
    for name in ("config.json", "log.csv", "learning_curve.png", "summary.txt"):
        assert (run / name).stat().st_size > 0, run / name
    assert suite.training_budget(own, run.parent).startswith("trained: ")


def test_the_training_line_names_an_expert_iteration_after_the_ppo_run(tmp_path: Path) -> None:
    """A model trained on by expert iteration (experiments/expert.py) says so on its leaderboard line: its rounds,
    labels and PPO steps after the PPO run's, read from the ``expert_*`` files kept beside the run's."""
    run = tmp_path / "ottocento_v0"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"bc_deals": 5000, "learning_rate": 3e-4, "options": {"shaping": True}}))
    (run / "log.csv").write_text("steps,seconds,steps_per_second\n1000,60.0,16.7\n")
    plain = suite.training_budget("ottocento_v0", tmp_path)
    assert plain is not None and "expert" not in plain
    (run / "expert_config.json").write_text(json.dumps({"search": "play", "others": "rules", "ppo_steps": 500}))
    (run / "expert_log.csv").write_text(
        "iteration,labels_total,wall_seconds,ppo_steps_total\n-1,0,0.0,1000\n0,80,60.0,1512\n1,170,120.0,2024\n"
    )
    line = suite.training_budget("ottocento_v0", tmp_path)
    assert line == plain.replace(
        "; `results", ", then expert iteration: 2 rounds of the search's labels (170 labels, search=play, others=rules) "
        "and 1,024 more PPO steps, 3 min on one core; `results"
    )
    (run / "expert_log.csv").write_text("iteration,labels_total,wall_seconds,ppo_steps_total\n-1,0,0.0,1000\n0,0,60.0,1512\n")
    assert suite.training_budget("ottocento_v0", tmp_path) == plain.replace(
        "; `results", ", then 512 more PPO steps in 1 round of expert.py's control (no labels), 1 min on one core; `results"
    )
