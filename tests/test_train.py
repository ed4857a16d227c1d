"""experiments/train.py: tiny self-play runs write their files; the saved model plays; the CLI parses; the pool draws."""

from __future__ import annotations

import csv

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tarot_env.experiments.train import OpponentPool, TrainConfig, parse_args, train


def tiny(env_id: str, out, **kwargs) -> TrainConfig:
    small = dict(
        num_envs=16,
        timesteps=2048,
        n_steps=64,
        batch_size=256,
        n_epochs=2,
        net_arch=[32],
        snapshot_every=512,
        eval_every=1024,
        checkpoint_every=1024,
        eval_episodes=8,
        torch_threads=1,
        bc_deals=0,
    )
    return TrainConfig(env_id=env_id, out=str(out), **{**small, **kwargs})


@pytest.mark.parametrize("env_id", ["french_tarot_v0", "ottocento_v0"])
def test_tiny_run_writes_its_files_and_the_model_plays_legal_actions(tmp_path, env_id):
    from sb3_contrib import MaskablePPO
    from tarot_env.agents.sb3_policy import SB3PolicyAgent

    from tarot_env.wrappers import TarotVecEnv

    final = train(tiny(env_id, tmp_path))
    assert final == tmp_path / "model_final.zip" and final.exists()
    assert (tmp_path / "model_1024.zip").exists() and (tmp_path / "model_2048.zip").exists()
    assert (tmp_path / "learning_curve.png").stat().st_size > 0
    assert list((tmp_path / "tb").rglob("events.out.tfevents.*"))
    with open(tmp_path / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [1024, 2048]
    assert all(np.isfinite(float(r[k])) for r in rows for k in ("eval_vs_random", "eval_vs_rules"))
    assert all(float(r[f"{k}_ci95"]) > 0 for r in rows for k in ("eval_vs_random", "eval_vs_rules"))  # the points' intervals
    assert all(np.isfinite(float(r["eval_vs_rules_duplicate"])) and float(r["eval_vs_rules_duplicate_ci95"]) >= 0 for r in rows)

    agent = SB3PolicyAgent(MaskablePPO.load(final))
    venv = TarotVecEnv(8, env_id=env_id, seat="rotate", opponents=agent)  # the model at every seat
    obs = venv.reset()
    for _ in range(40):
        masks = venv.action_masks()
        actions = agent.act(obs, masks)
        assert masks[np.arange(8), actions].all()
        obs, _, _, _ = venv.step(actions)


def test_cli_overrides_fields():
    args = "--env ottocento_v0 --players 4 --timesteps 5000 --out runs/x --net-arch 64,32 --learning-rate 1e-3"
    args += " --pool-weights random=0,rules=1,snapshot=3 --option shaping=true --option dealer=2 --no-progress-bar --seed 7"
    config = parse_args(args.split(" "))
    assert config.env_id == "ottocento_v0" and config.num_players == 4 and config.timesteps == 5000
    assert config.out == "runs/x" and config.net_arch == [64, 32] and config.learning_rate == 1e-3
    assert config.pool_weights == {"random": 0.0, "rules": 1.0, "snapshot": 3.0}
    assert config.options == {"shaping": True, "dealer": 2}
    assert config.progress_bar is False and config.seed == 7
    assert config.reward == "normalised" and config.num_envs == TrainConfig().num_envs  # untouched defaults
    assert parse_args([]) == TrainConfig()


def test_opponents_are_drawn_from_the_pool_and_snapshots_join_it(tmp_path):
    from sb3_contrib import MaskablePPO

    from tarot_env.wrappers import TarotVecEnv

    pool = OpponentPool("french_tarot_v0", {"random": 1.0, "rules": 1.0, "snapshot": 1.0}, max_snapshots=2, seed=0)
    draws = {name for _ in range(30) for name in (pool.draw(3), pool.last_draw)[1]}
    assert draws == {"random", "rules"}  # no snapshot yet
    model = MaskablePPO("MlpPolicy", TarotVecEnv(2), policy_kwargs={"net_arch": [8]})
    for steps in (100, 200, 300):
        pool.add_snapshot(model, steps)
    assert [s for s, _ in pool.snapshots] == [200, 300]  # the latest max_snapshots
    only = OpponentPool("french_tarot_v0", {"snapshot": 1.0, "random": 0.0}, max_snapshots=2)
    with pytest.raises(ValueError, match="empty"):
        only.draw(3)

    # in a run: opponents re-drawn every rollout, snapshots appearing after the snapshot interval
    import tarot_env.experiments.train as train_module

    seen: list[list[str]] = []
    draw = OpponentPool.draw

    def spy(self, k):
        agents = draw(self, k)
        seen.append(list(self.last_draw))
        return agents

    monkey = pytest.MonkeyPatch()
    monkey.setattr(train_module.OpponentPool, "draw", spy)
    try:
        train(tiny("french_tarot_v0", tmp_path, pool_weights={"random": 1e-6, "rules": 0.0, "snapshot": 1.0}))
    finally:
        monkey.undo()
    assert len(seen) == 2048 // (16 * 64)  # one draw per rollout
    assert all(name == "random" for name in seen[0])  # no snapshot before the first interval
    assert all(name.startswith("snapshot@") for name in seen[-1])


def test_the_progress_bars_total_is_what_ppo_trains(tmp_path, capsys):
    """PPO learns in whole rollouts: the steps asked for are rounded up before learn(), so the
    progress bar's total (SB3 sets it to the steps given to learn) is the steps trained (it read
    106,496/100,000 before)."""
    from sb3_contrib import MaskablePPO
    from tarot_env.experiments.train import whole_rollouts

    assert whole_rollouts(100_000, 8192) == 106_496 and whole_rollouts(8192, 8192) == 8192 and whole_rollouts(1, 512) == 512
    import dataclasses

    # rollouts of 16 x 32
    config = dataclasses.replace(tiny("ottocento_v0", tmp_path), timesteps=1500, n_steps=32, checkpoint_every=0, eval_every=512)
    final = train(config)
    assert MaskablePPO.load(final).num_timesteps == 1536
    assert "1,500 steps rounded up to 1,536" in capsys.readouterr().out


# ---------------------------------------------------------------------- resuming, repeating, timing
def _rows(path):
    with open(path / "log.csv") as f:
        return list(csv.DictReader(f))


def test_a_run_resumes_from_its_last_checkpoint(tmp_path, capsys):
    """An interrupted run (here: a run that stopped at 1,024 steps) goes on from its last checkpoint
    to the new target: the step count, the log and the opponents' snapshots are picked up."""
    from sb3_contrib import MaskablePPO
    from tarot_env.experiments.train import main

    train(tiny("ottocento_v0", tmp_path, timesteps=1024))
    (tmp_path / "model_final.zip").unlink()  # as if it had been stopped after its checkpoint
    before = _rows(tmp_path)
    main(["--resume", str(tmp_path), "--timesteps", "3072", "--no-progress-bar"])
    out = capsys.readouterr().out
    assert "resuming" in out and "from model_1024.zip (1,024 steps; 1 snapshots, 1 log rows)" in out
    assert [int(r["steps"]) for r in _rows(tmp_path)] == [1024, 2048, 3072]
    assert _rows(tmp_path)[0] == before[0]  # the rows before the checkpoint are kept as they were
    assert (tmp_path / "model_2048.zip").exists() and (tmp_path / "model_3072.zip").exists()
    assert MaskablePPO.load(tmp_path / "model_final.zip").num_timesteps == 3072
    assert json_config(tmp_path)["timesteps"] == 3072  # the config of the run as it now stands


def test_resuming_with_no_checkpoint_starts_the_run(tmp_path):
    final = train(tiny("french_tarot_v0", tmp_path, timesteps=1024), resume=True)
    assert final.exists() and [int(r["steps"]) for r in _rows(tmp_path)] == [1024]


def test_a_runs_config_json_repeats_it(tmp_path):
    config = tiny("ottocento_v0", tmp_path / "a", learning_rate=3e-4, net_arch=[16, 8], options={"shaping": True})
    (tmp_path / "a").mkdir()
    import dataclasses
    import json

    (tmp_path / "a" / "config.json").write_text(json.dumps(dataclasses.asdict(config)))
    again = parse_args(["--config", str(tmp_path / "a" / "config.json")])
    assert again == config
    changed = parse_args(["--config", str(tmp_path / "a" / "config.json"), "--out", "runs/b", "--option", "dealer=1"])
    assert changed.out == "runs/b" and changed.options == {"shaping": True, "dealer": 1}
    assert dataclasses.replace(changed, out=config.out, options=config.options) == config


def test_bad_config_and_resume_flags_say_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="cannot read the training config"):
        parse_args(["--config", str(tmp_path / "missing.json")])
    (tmp_path / "c.json").write_text('{"env_id": "ottocento_v0", "lr": 1}')
    with pytest.raises(ValueError, match=r"unknown fields \['lr'\]"):
        parse_args(["--config", str(tmp_path / "c.json")])
    with pytest.raises(ValueError, match="not both"):
        parse_args(["--config", str(tmp_path / "c.json"), "--resume", str(tmp_path)])


def test_the_log_says_where_the_time_went(tmp_path, capsys):
    train(tiny("french_tarot_v0", tmp_path, pool_weights={"random": 1.0, "rules": 1.0, "snapshot": 1.0}))
    out = capsys.readouterr().out
    assert "learner steps/s" in out and "opponents" in out and "update" in out
    # the threads it used, printed and kept beside the config: torch's and the env's, within the cores
    line = (tmp_path / "threads.txt").read_text().strip()
    assert line in out and line.startswith("threads: torch 1, env 1, of ") and "more threads than cores" not in line
    last = _rows(tmp_path)[-1]
    parts = {k: float(last[f"seconds_{k}"]) for k in ("env", "opponents", "learner", "update", "evaluation", "checkpoints")}
    assert all(v > 0 for v in parts.values()), parts
    training = sum(parts[k] for k in ("env", "opponents", "learner", "update"))
    assert float(last["steps_per_second"]) == pytest.approx(int(last["steps"]) / training, rel=0.02)
    assert training + parts["evaluation"] + parts["checkpoints"] <= float(last["seconds"]) + 1.0


def json_config(path):
    import json

    return json.loads((path / "config.json").read_text())


@pytest.mark.parametrize("env_id", ["ottocento_v0", "millone_v0", "french_tarot_v0"])
def test_an_evaluation_scores_the_margin_the_arena_scores(env_id):
    """The training's evaluation counts the learner's score as the arena does (the sum of his
    rewards with reward="score": in partnership games his side's points minus the other side's),
    so the bot against copies of itself scores about 0 and beats random players. Reading the
    players' points instead would make every policy look some 200 points ahead in Tarocchino games."""
    from tarot_env.agents.random_agent import RandomAgent
    from tarot_env.experiments.train import evaluate_ci, rule_agent

    class AsModel:  # an agent behind SB3's predict()
        def __init__(self, agent):
            self.agent = agent

        def predict(self, obs, action_masks=None, deterministic=True):
            return self.agent.act(obs, action_masks), None

    config = TrainConfig(env_id=env_id)
    bot = rule_agent(env_id)
    even, half = evaluate_ci(AsModel(bot), config, bot, 300)
    assert abs(even) <= 1.5 * half, (even, half)  # the same policy at every seat: level
    ahead, half = evaluate_ci(AsModel(bot), config, RandomAgent(1), 300)
    assert ahead - half > 0
    behind, half = evaluate_ci(AsModel(RandomAgent(0)), config, bot, 300)
    assert behind + half < 0


def test_the_duplicate_evaluation_counts_from_the_bots_own_score_in_the_seat():
    """The bot in the learner's place scores exactly its baseline: a margin of 0 with no spread; a
    learner that plays differently is counted deal by deal from the same baseline."""
    from tarot_env.agents import rule_agent
    from tarot_env.experiments.train import TrainConfig, baseline_scores, evaluate_ci, learner_scores

    config = TrainConfig(env_id="french_tarot_v0", num_players=4)
    bot = rule_agent("french_tarot_v0")

    class AsModel:  # an agent behind the model's predict()
        def __init__(self, agent):
            self.agent = agent

        def predict(self, obs, action_masks, deterministic=True):
            return np.asarray(self.agent.act(obs, action_masks)), None

    base = baseline_scores(config, bot, 40)
    assert base.shape == (40,) and np.isfinite(base).all() and base.std() > 0
    assert evaluate_ci(AsModel(bot), config, bot, 40, baseline=base) == (0.0, 0.0)

    class FirstLegal:  # deterministic, and not the bot
        def act(self, obs, masks):
            return np.argmax(masks, axis=1)

    first = AsModel(FirstLegal())
    raw = learner_scores(first, config, bot, 40)
    mean, half = evaluate_ci(first, config, bot, 40, baseline=base)
    assert mean == pytest.approx(float((raw - base).mean())) and half > 0 and not np.array_equal(raw, base)
