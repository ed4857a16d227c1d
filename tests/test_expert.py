"""experiments/expert.py and its target (experiments/distill.paired_target): the search over the student's
own policy labels its positions with the paired gains, the student learns them between PPO's updates,
the run writes and resumes its rounds, the control runs PPO alone, bad flags are refused in one line.

The search is ``samples=2``: its first chunk (2 worlds) is its only one, so the sample cap, not the
clock, ends each search and the labels do not depend on the machine's speed."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from tarot_env.agents.pimc import Paired
from tarot_env.experiments.distill import paired_target
from tarot_env.experiments.expert import ExpertConfig, _label_round, main, run, teacher_spec


def tiny(out: Path, **kwargs) -> ExpertConfig:
    small = dict(
        num_players=4, minutes=60.0, rounds=1, deals_per_round=2, time=5.0, samples=2, ppo_steps=1, eval_deals=16, progress_bar=False
    )
    return ExpertConfig(out=str(out), **{**small, **kwargs})


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_paired_target_tilts_the_students_policy_by_the_gains_only_where_the_search_changed_the_choice() -> None:
    logits = np.full(6, -np.inf)
    legal = np.array([1, 3, 4])
    logits[legal] = np.log([0.5, 0.3, 0.2])
    gains = np.array([0.0, 10.0, -5.0])  # the base's choice is legal[0]; legal[1] gains 10 points
    changed = Paired(default=0, chosen=1, gain=gains, se=np.ones(3), worlds=np.full(3, 8))
    target, taught = paired_target(logits, legal, changed, temperature=5.0)
    expected = np.array([0.5, 0.3 * np.e**2, 0.2 * np.e**-1])
    assert taught
    assert np.allclose(target[legal], expected / expected.sum())
    assert target.sum() == pytest.approx(1.0) and (target[[0, 2, 5]] == 0).all()
    kept = Paired(default=0, chosen=0, gain=gains, se=np.full(3, 20.0), worlds=np.full(3, 8))
    for paired in (kept, None):  # no significant gain, or not searched: the student's own policy
        target, taught = paired_target(logits, legal, paired, temperature=5.0)
        assert not taught
        assert np.allclose(target[legal], [0.5, 0.3, 0.2]) and target.sum() == pytest.approx(1.0)


@pytest.fixture(scope="module")
def expert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """French Tarot, 4 players, from the committed model: one round of 2 labelled deals and one PPO rollout."""
    out = tmp_path_factory.mktemp("expert")
    run(tiny(out))
    return out


def test_a_round_labels_the_students_card_play_distils_and_goes_on_with_ppo(expert: Path) -> None:
    log = rows(expert)
    assert [int(r["iteration"]) for r in log] == [-1, 0]
    first, done = log
    assert int(done["labels"]) > 0 and int(done["labels_total"]) == int(done["labels"])
    assert int(done["ppo_steps_total"]) > int(first["ppo_steps_total"])  # PPO went on from the model's own count
    for name in ("model_init.zip", "model_round0.zip", "model_final.zip", "data.npz", "config.json"):
        assert (expert / name).is_file(), name
    assert not (expert / "student_round0.zip").exists()  # the round's play-out policy, removed once used
    with np.load(expert / "data.npz") as saved:
        masks, targets, taught, samples = saved["masks"], saved["targets"].astype(np.float64), saved["taught"], saved["samples"]
    assert np.allclose(targets.sum(axis=1), 1.0, atol=1e-2)  # float16 targets
    assert (targets[~masks] == 0).all()  # nothing on an illegal action
    assert (samples > 0).any() and (samples <= 2).all()  # the card play searched, at its cap of 2 worlds
    assert int(done["changed"]) == int(taught.sum())


def test_the_teacher_can_play_the_other_seats_out_with_the_bot(tmp_path: Path) -> None:
    """``--others rules``: the search's play-outs have the student at the labelled seat and the bot at the
    others (the project's ``search`` reference plays them out that way); by default the student everywhere."""
    from tarot_env.agents.pimc import parse_spec
    from tarot_env.agents.trained import model_file

    student = model_file("french_tarot_v0_4p")
    plain, mixed = (parse_spec(teacher_spec(tiny(tmp_path, others=o), student)) for o in ("student", "rules"))
    assert (plain.rollout, plain.others) == (f"sb3:{student}", f"sb3:{student}")
    assert (mixed.rollout, mixed.others, mixed.classes, mixed.samples) == (f"sb3:{student}", "rules", {"play"}, 2)
    labels = _label_round(tiny(tmp_path, others="rules", deals_per_round=1), student, 0)
    assert len(labels["targets"]) > 0 and np.allclose(labels["targets"].astype(np.float64).sum(axis=1), 1.0, atol=1e-2)


def test_resume_goes_on_with_the_next_round_and_keeps_the_labels(expert: Path, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "run"
    shutil.copytree(expert, out)
    before = int(rows(out)[-1]["labels_total"])
    main(["--resume", str(out), "--rounds", "2"])
    log = rows(out)
    assert [int(r["iteration"]) for r in log] == [-1, 0, 1]
    with np.load(out / "data.npz") as saved:
        assert len(saved["actions"]) == int(log[-1]["labels_total"]) > before
        assert set(saved["iteration"].tolist()) == {0, 1}


def test_the_control_runs_ppo_alone(tmp_path: Path) -> None:
    run(tiny(tmp_path, deals_per_round=0))
    done = rows(tmp_path)[-1]
    assert int(done["labels_total"]) == 0 and not (tmp_path / "data.npz").exists()
    assert done["after_distill"] == "nan"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--temperature", "0"], "--temperature 0.0 refused"),
        (["--search", "bidding"], "'bidding' is not a class of decisions"),
        (["--init", "nowhere.zip"], "there is no model file"),
        (["--deals-per-round", "-1"], "--deals-per-round -1 refused"),
        (["--others", "random"], "--others 'random' refused: student or rules"),
    ],
)
def test_bad_flags_are_refused_in_one_line(argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--players", "4", "--out", str(tmp_path / "run"), *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert says in err and not (tmp_path / "run").exists()


def test_resume_refuses_what_would_change_the_labels(expert: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--resume", str(expert), "--temperature", "1"])
    assert "--resume refuses --temperature" in capsys.readouterr().err
