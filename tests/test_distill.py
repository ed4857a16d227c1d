"""experiments/distill.py: tiny DAgger runs write their files, label legal actions, grow their data, resume
exactly, do not depend on the number of workers; the model plays; bad flags are refused in one line.

The teacher is ``pimc:samples=2,time=0.02``: its sample cap, not the clock, ends each search (the first
chunk is 2 samples), so the labels are the same on a fast or a busy machine and runs can be compared
array for array."""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from tarot_env.experiments.distill import FIELDS, DistillConfig, main, run

import tarot_env

ROOT = Path(__file__).resolve().parents[1]
TEACHER = "pimc:samples=2,time=0.02"


def tiny(out: Path, **kwargs) -> DistillConfig:
    small = dict(
        num_players=4, teacher=TEACHER, iterations=2, deals_per_iteration=3, workers=1, eval_deals=8, bc_deals=8,
        net_arch=[32], epochs=2, batch_size=64, torch_threads=1, progress_bar=False,
    )  # fmt: skip
    return DistillConfig(out=str(out), **{**small, **kwargs})


def flags(config: DistillConfig) -> list[str]:
    """The command line of a tiny config (the fields :func:`tiny` sets)."""
    return [
        "--env", config.env_id, "--players", str(config.num_players), "--teacher", config.teacher, "--iterations", str(config.iterations),
        "--deals-per-iteration", str(config.deals_per_iteration), "--workers", str(config.workers), "--eval-deals", str(config.eval_deals),
        "--bc-deals", str(config.bc_deals), "--net-arch", ",".join(map(str, config.net_arch)), "--epochs", str(config.epochs),
        "--batch-size", str(config.batch_size), "--torch-threads", str(config.torch_threads), "--no-progress-bar", "--out", config.out,
    ]  # fmt: skip


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


def data(out: Path) -> dict[str, np.ndarray]:
    with np.load(out / "data.npz") as saved:
        return {k: saved[k] for k in saved.files}


@pytest.fixture(scope="module")
def french(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """French Tarot, 4 players: a new student cloned from the bot, 2 iterations of 3 deals, one worker."""
    out = tmp_path_factory.mktemp("french")
    run(tiny(out))
    return out


def test_a_run_writes_its_files_and_logs_each_iteration(french):
    names = {p.name for p in french.iterdir()}
    assert {"config.json", "data.npz", "log.csv", "model_init.zip", "model_iter0.zip", "model_iter1.zip", "model_final.zip"} <= names
    config = json.loads((french / "config.json").read_text())
    assert set(config) == {f.name for f in dataclasses.fields(DistillConfig)} and config["teacher"] == TEACHER
    log = rows(french)
    assert [int(r["iteration"]) for r in log] == [-1, 0, 1]  # -1: the starting student
    labels = data(french)
    for r in log[1:]:
        k = int(r["iteration"])
        mine = labels["iteration"] == k
        assert int(r["labels"]) == mine.sum() > 3 * 20  # every deal has tens of decisions with a choice
        assert int(r["labels_total"]) == (labels["iteration"] <= k).sum()
        assert int(r["deals"]) == 3 and int(r["deals_total"]) == 3 * (k + 1)
        # the agreement is the student's before training on these labels: the student that played them
        assert float(r["agreement"]) == pytest.approx(np.mean(labels["student"][mine] == labels["actions"][mine]))
        assert 0.0 <= float(r["fit_accuracy"]) <= 1.0 and float(r["mean_samples"]) == 2.0
        for key in ("eval_vs_rules", "eval_vs_rules_duplicate"):  # plain, and minus the bot's own score in the seat
            assert np.isfinite(float(r[key])) and float(r[f"{key}_ci95"]) > 0
        for key in ("teacher_seconds", "label_seconds", "train_seconds", "wall_seconds", "labels_per_second"):
            assert float(r[key]) > 0
    assert int(log[2]["labels_total"]) > int(log[1]["labels_total"])  # the data grows by iteration


def test_labels_are_legal_teacher_actions_with_each_seats_deal_reward(french):
    labels = data(french)
    assert set(labels) == set(FIELDS)
    n = len(labels["actions"])
    assert labels["observations"].dtype == np.int8 and labels["masks"].dtype == bool
    assert labels["observations"].shape[0] == labels["masks"].shape[0] == n
    rows_ = np.arange(n)
    for key in ("actions", "student", "played"):  # the teacher's label, the student's choice, the move played
        assert labels["masks"][rows_, labels[key]].all(), key
    assert (labels["masks"].sum(axis=1) > 1).all()  # a forced move is not labelled
    assert (labels["samples"] == 2).all()  # every label was searched, with the cap's 2 samples
    assert sorted(set(labels["episodes"].tolist())) == list(range(6))  # deals 0-2 in iteration 0, 3-5 in 1
    for e in range(6):
        mine = labels["episodes"] == e
        seats = {}
        for p, r in zip(labels["players"][mine].tolist(), labels["returns"][mine].tolist()):
            assert seats.setdefault(p, r) == r  # one return per seat and deal
        assert sorted(seats) == [0, 1, 2, 3]  # every seat bids at least
        assert sum(seats.values()) == pytest.approx(0.0, abs=1e-5)  # French Tarot's rewards sum to zero


def test_the_final_model_plays_legal_actions(french):
    from sb3_contrib import MaskablePPO
    from tarot_env.agents.sb3_policy import SB3PolicyAgent

    agent = SB3PolicyAgent(MaskablePPO.load(french / "model_final.zip", device="cpu"))
    env = tarot_env.make("french_tarot_v0", num_players=4)
    for seed in range(3):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action]
            env.step(action)


def test_two_workers_label_the_same_deals_as_one(french, tmp_path):
    """Each deal is seeded by its number, not by the worker that plays it."""
    run(tiny(tmp_path, workers=2))
    one, two = data(french), data(tmp_path)
    for key in FIELDS:
        assert np.array_equal(one[key], two[key]), key
    assert [r["eval_vs_rules"] for r in rows(tmp_path)] == [r["eval_vs_rules"] for r in rows(french)]  # the same students


def test_resume_goes_on_with_the_next_iteration_and_the_same_labels(french, tmp_path, capsys):
    main(flags(tiny(tmp_path, iterations=1)))
    assert [int(r["iteration"]) for r in rows(tmp_path)] == [-1, 0]
    main(["--resume", str(tmp_path), "--iterations", "2", "--no-progress-bar"])
    assert "resuming" in capsys.readouterr().out
    assert [int(r["iteration"]) for r in rows(tmp_path)] == [-1, 0, 1]
    assert json.loads((tmp_path / "config.json").read_text())["iterations"] == 2
    whole, resumed = data(french), data(tmp_path)
    for key in FIELDS:
        assert np.array_equal(whole[key], resumed[key]), key  # as the uninterrupted run's
    same = ("labels", "labels_total", "agreement", "eval_vs_rules", "eval_vs_rules_duplicate", "fit_accuracy")
    assert [{k: r[k] for k in same} for r in rows(tmp_path)[1:]] == [{k: r[k] for k in same} for r in rows(french)[1:]]


def test_an_iteration_stopped_before_its_model_is_labelled_again(french, tmp_path):
    """Stopped after data.npz was written but before model_iter1.zip: its labels are dropped and made again."""
    out = tmp_path / "run"
    shutil.copytree(french, out)
    (out / "model_iter1.zip").unlink()
    main(["--resume", str(out), "--no-progress-bar"])
    whole, resumed = data(french), data(out)
    for key in FIELDS:
        assert np.array_equal(whole[key], resumed[key]), key
    assert [r["iteration"] for r in rows(out)] == ["-1", "0", "1"]


def test_ottocento_from_a_trained_model(tmp_path):
    """The other family (Tarocchino), starting from --init: the student is that model, not a new one."""
    init = ROOT / "results" / "models" / "ottocento_v0.zip"
    config = tiny(tmp_path, env_id="ottocento_v0", num_players=None, init=str(init), iterations=1, deals_per_iteration=2)
    final = run(config)
    assert not (tmp_path / "warm_start.csv").exists()  # nothing was cloned from the bot
    labels = data(tmp_path)
    assert len(labels["actions"]) > 20 and labels["masks"][np.arange(len(labels["actions"])), labels["actions"]].all()
    from sb3_contrib import MaskablePPO

    start, model = MaskablePPO.load(init, device="cpu"), MaskablePPO.load(final, device="cpu")
    assert model.observation_space.shape == start.observation_space.shape
    assert model.policy.state_dict().keys() == start.policy.state_dict().keys()  # the same network, trained on


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--env", "chess_v0"], ["chess_v0", "french_tarot_v0", "ottocento_v0"]),
        (["--players", "7"], ["--players 7 refused", "3, 4 or 5"]),
        (["--teacher", "mcts"], ["'mcts' refused", "pimc", "rules"]),
        (["--teacher", "pimc:samples=x"], ["samples='x' is not a number"]),
        (["--workers", "0"], ["'0' refused", "1 or more"]),
        (["--beta", "1.5"], ["'1.5' refused", "from 0 to 1"]),
        (["--student-play", "best"], ["'best'", "sample", "greedy"]),
        (["--net-arch", "0"], ["'0' refused", "256,256"]),
        (["--init", "no/such/model.zip"], ["no/such/model.zip", "no model file"]),
        (["--init", str(ROOT / "results" / "models" / "ottocento_v0.zip")], ["cannot play", "1366"]),
        (["--iterations", "two"], ["'two' refused", "1 or more"]),
        (["--reward", "points"], ["reward='points'", "'score', 'normalised', 'win_loss'"]),
        (["--option", "dealr=1"], ["['dealr']", "dealer"]),
    ],
)
def test_bad_flags_are_refused_in_one_line(argv, says, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--out", str(tmp_path / "run")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    for text in says:
        assert text in err, (text, err)
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_resume_refuses_what_would_change_the_labels(french, tmp_path, capsys):
    cases = [
        (["--resume", str(french), "--teacher", "rules"], ["--teacher refused with --resume", "--iterations"]),
        (["--resume", str(tmp_path)], ["no distillation run there"]),
        (["--resume", str(french), "--out", str(tmp_path)], ["drop --out"]),
        (flags(tiny(french)), ["holds a run already", f"--resume {french}"]),
    ]
    for argv, says in cases:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        for text in says:
            assert text in err, (text, err)
    assert [int(r["iteration"]) for r in rows(french)] == [-1, 0, 1]  # the run was left as it was


def test_resuming_a_finished_run_changes_nothing(french, capsys):
    before = {p.name: p.stat().st_mtime_ns for p in french.iterdir() if p.name != "model_final.zip"}
    main(["--resume", str(french), "--no-progress-bar"])
    assert "iterations are done" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in french.iterdir() if p.name != "model_final.zip"} == before | {
        "config.json": (french / "config.json").stat().st_mtime_ns
    }
    assert (french / "model_final.zip").read_bytes() == (french / "model_iter1.zip").read_bytes()


def test_label_auction_asks_the_teacher_outside_the_card_play_only(tmp_path: Path) -> None:
    """``--label auction``: the teacher labels the bids, the écart, the announcements (searched, 2 samples), and
    every card-play decision is labelled with the student's own most probable action (an anchor, unsearched);
    the agreement is counted on the teacher's labels only."""
    from tarot_env.envs.french_tarot import FrenchTarotEnv

    out = tmp_path / "auction"
    run(tiny(out, label="auction", iterations=1, deals_per_iteration=4))
    labels = data(out)
    names = [FrenchTarotEnv.action_to_string(int(a)) for a in labels["actions"]]
    plays = np.array([name.startswith("play ") for name in names])
    assert plays.any() and (~plays).any()
    assert (labels["taught"] == ~plays).all()
    assert (labels["actions"][plays] == labels["student"][plays]).all()  # anchors: the student's own choice
    assert (labels["samples"][~plays] == 2).all() and (labels["samples"][plays] == 0).all()
    (row,) = [r for r in rows(out) if r["iteration"] == "0"]
    taught = labels["taught"]
    assert int(row["taught"]) == taught.sum()
    assert float(row["agreement"]) == pytest.approx(np.mean(labels["student"][taught] == labels["actions"][taught]))


def test_label_auction_needs_the_search_teacher(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--label auction refused with --teacher 'rules'"):
        run(tiny(tmp_path / "x", label="auction", teacher="rules"))
    with pytest.raises(ValueError, match="--label 'cards' refused"):
        run(tiny(tmp_path / "y", label="cards"))


def test_soft_target_is_a_softmax_of_the_values_over_the_legal_actions() -> None:
    from tarot_env.experiments.distill import soft_target

    target = soft_target(np.array([5.0, -5.0, -15.0]), np.array([1, 4, 6]), 8, temperature=10.0)
    expected = np.exp([0.0, -1.0, -2.0]) / np.exp([0.0, -1.0, -2.0]).sum()  # 10 points worse: e^-1 of the weight
    assert target[[1, 4, 6]] == pytest.approx(expected) and target.sum() == pytest.approx(1.0)
    assert (np.delete(target, [1, 4, 6]) == 0).all()


def test_label_play_with_soft_targets_teaches_the_card_play_from_the_searchs_values(tmp_path: Path) -> None:
    """``--label play --soft-temperature 10``: the teacher searches every card-play decision and its per-action
    values become the target (a softmax over the legal cards; the label is the best of them); the bids, the
    écart and the announcements are anchored at the student's own choice, one-hot; the run trains on them."""
    from tarot_env.envs.french_tarot import FrenchTarotEnv

    out = tmp_path / "soft"
    run(tiny(out, label="play", soft_temperature=10.0, iterations=1, deals_per_iteration=3))
    labels = data(out)
    names = [FrenchTarotEnv.action_to_string(int(a)) for a in labels["actions"]]
    plays = np.array([name.startswith("play ") for name in names])
    assert plays.any() and (~plays).any()
    assert (labels["taught"] == plays).all()
    assert (labels["actions"][~plays] == labels["student"][~plays]).all()  # anchors: the student's own choice
    assert (labels["samples"][plays] == 2).all() and (labels["samples"][~plays] == 0).all()
    targets = labels["targets"].astype(np.float32)
    assert targets.shape == labels["masks"].shape
    assert np.allclose(targets.sum(axis=1), 1.0, atol=1e-2) and (targets[~labels["masks"]] == 0).all()
    assert (targets.argmax(axis=1) == labels["actions"]).all()  # the label is the best-valued card
    anchors = targets[~plays]
    assert (anchors.max(axis=1) == 1.0).all()  # one-hot
    assert (targets[plays].max(axis=1) < 1.0).any()  # at some card the search saw more than one good choice
    assert json.loads((out / "config.json").read_text())["soft_temperature"] == 10.0
    assert [int(r["iteration"]) for r in rows(out)] == [-1, 0]


def test_one_hot_targets_give_the_hard_labels_loss_and_gradient(french: Path) -> None:
    """imitation's soft loss with ``targets`` one-hot at the labels is the hard labels' loss, with the same
    gradient: the soft targets generalise the objective, they do not change it."""
    import torch as th
    from sb3_contrib import MaskablePPO
    from tarot_env.experiments.distill import demonstrations
    from tarot_env.experiments.imitation import losses

    soft = demonstrations(data(french), soft=True)
    assert soft.targets is not None and (soft.targets.argmax(axis=1) == soft.actions).all()
    policy = MaskablePPO.load(french / "model_init.zip", device="cpu").policy
    obs, actions = th.as_tensor(soft.observations[:256]), th.as_tensor(soft.actions[:256])
    grads = []
    for targets in (None, soft.targets[:256]):
        policy.zero_grad()
        _, loss = losses(policy, obs, actions, soft.masks[:256], targets)
        loss.backward()
        grads.append((loss.item(), [p.grad.clone() for p in policy.parameters() if p.grad is not None]))
    (hard_loss, hard_grads), (soft_loss, soft_grads) = grads
    assert soft_loss == pytest.approx(hard_loss, rel=1e-5) and len(hard_grads) == len(soft_grads) > 0
    for a, b in zip(hard_grads, soft_grads):
        assert th.allclose(a.float(), b.float(), rtol=1e-3, atol=1e-6)
    # a soft target: half the weight moved to another legal action; the loss is -sum_a target_a log p_a
    mixed = soft.targets[:256].astype(np.float32) * 0.5
    other = np.array([np.flatnonzero(m & (np.arange(len(m)) != a))[0] if (m.sum() > 1) else a
                      for m, a in zip(soft.masks[:256], soft.actions[:256])])  # fmt: skip
    mixed[np.arange(256), other] += 0.5
    with th.no_grad():
        _, moved = losses(policy, obs, actions, soft.masks[:256], mixed)
        log_p = policy.get_distribution(obs, action_masks=soft.masks[:256]).distribution.log_prob
        expected = -(0.5 * log_p(actions) + 0.5 * log_p(th.as_tensor(other))).mean()
    assert moved.item() == pytest.approx(expected.item(), rel=1e-5)


def test_a_run_saved_before_targets_resumes_with_one_hot_targets(french: Path, tmp_path: Path) -> None:
    from tarot_env.experiments.distill import _restore

    out = tmp_path / "old"
    shutil.copytree(french, out)
    saved = data(out)
    np.savez_compressed(out / "data.npz", **{k: v for k, v in saved.items() if k not in ("targets", "taught")})
    _, restored, _, first = _restore(out)
    assert first == 2 and restored is not None
    assert (restored["taught"]).all()
    assert (restored["targets"].argmax(axis=1) == restored["actions"]).all() and (restored["targets"].sum(axis=1) == 1).all()


def test_soft_targets_are_refused_without_the_search_teacher_or_below_zero(tmp_path: Path, capsys) -> None:
    with pytest.raises(ValueError, match="--soft-temperature refused with --teacher 'rules'"):
        run(tiny(tmp_path / "x", soft_temperature=10.0, teacher="rules"))
    with pytest.raises(ValueError, match="--label play refused with --teacher 'rules'"):
        run(tiny(tmp_path / "y", label="play", teacher="rules"))
    with pytest.raises(SystemExit):
        main(["--soft-temperature", "-1", "--out", str(tmp_path / "z")])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'-1' refused" in err and "0 (hard labels) or more" in err
    assert not (tmp_path / "z").exists()


# ------------------------------------------------------------------------------ distill_curves.py
def test_the_curves_read_each_runs_log_and_refuse_a_folder_without_one(tmp_path):
    from tarot_env.experiments import distill_curves

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with open(run_dir / "log.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*distill_curves.COLUMNS, "agreement"])
        w.writerow([-1, 0, 2.0, 17.5, 6.0, ""])
        w.writerow([0, 8000, 540.0, 10.9, 6.3, 0.5])
        w.writerow([1, 15600, 300.0, 9.1, 6.4, 0.5])
    log = distill_curves.read_log(run_dir)
    assert log["labels"].tolist() == [0, 8000, 15600] and log["margin"].tolist() == [17.5, 10.9, 9.1]
    assert np.allclose(log["hours"], np.cumsum([2.0, 540.0, 300.0]) / 3600)  # the runs' hours so far, not each iteration's
    png = tmp_path / "curves.png"
    distill_curves.main(["T=2 soft=" + str(run_dir), "--line", "target=30", "--out", str(png)])  # a name may hold "="
    assert png.stat().st_size > 10_000
    with pytest.raises(FileNotFoundError, match=r"no log\.csv"):
        distill_curves.read_log(tmp_path)
    (tmp_path / "log.csv").write_text("iteration,labels_total\n0,1\n")
    with pytest.raises(ValueError, match="not a distillation log"):
        distill_curves.read_log(tmp_path)
    with pytest.raises(SystemExit):
        distill_curves.main([f"x={tmp_path / 'nowhere'}"])
    with pytest.raises(SystemExit):
        distill_curves.main([f"x={run_dir}", "--line", "target=thirty"])


def test_the_curves_read_training_and_expert_iteration_logs_with_their_ppo_steps(tmp_path):
    from tarot_env.experiments import distill_curves

    train_dir, expert_dir = tmp_path / "train", tmp_path / "expert"
    train_dir.mkdir(), expert_dir.mkdir()
    with open(train_dir / "log.csv", "w", newline="") as f:  # experiments/train.py: a row an evaluation
        w = csv.writer(f)
        w.writerow(["steps", "seconds", "eval_vs_rules", *distill_curves.TRAIN_COLUMNS[2:]])
        w.writerows([[0, 1.5, 3.0, 4.0, 3.9], [250_000, 18.0, 5.0, 6.0, 5.2]])
    with open(expert_dir / "log.csv", "w", newline="") as f:  # experiments/expert.py: a row a round
        w = csv.writer(f)
        w.writerow([*distill_curves.COLUMNS, "ppo_steps_total"])
        w.writerows([[-1, 0, 0.0, 20.0, 3.0, 12_000_000], [0, 900, 600.0, 22.0, 3.1, 12_500_000]])
    log = distill_curves.read_log(train_dir)
    assert log["labels"].tolist() == [0, 0] and log["steps"].tolist() == [0, 250_000] and log["margin"].tolist() == [4.0, 6.0]
    assert np.allclose(log["hours"], np.array([1.5, 18.0]) / 3600)  # train.py's seconds are the run's so far already
    log = distill_curves.read_log(expert_dir)
    assert log["labels"].tolist() == [0, 900] and log["steps"].tolist() == [0, 500_000]  # the steps since the run's start
    png = tmp_path / "curves.png"
    distill_curves.main([f"PPO={train_dir}", f"expert={expert_dir}", "--left", "steps", "--out", str(png)])
    assert png.stat().st_size > 10_000
