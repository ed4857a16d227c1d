"""``tarot bench``, ``tarot arena`` and ``tarot train`` do what they say.

A flag that does not apply is refused before anything runs, never dropped with a file written
all the same; the arena names a table as the benchmark suite does and writes nothing into the
repository's tracked folders unless told to; the env id may be given as the first argument, as
``tarot play`` takes it. The command's own ``main`` runs in-process where nothing heavy runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tarot_env.command import main


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``tarot argv``; check the refusal (non-zero status, one line on stderr); the line."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    captured = capsys.readouterr()
    assert code not in (0, None), f"tarot {' '.join(argv)} was accepted:\n{captured.out}"
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tarot"), captured.err
    return lines[0]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # whatever is written by mistake lands here, not in the repository


# ------------------------------------------------------------------------------------- bench
@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--env", "ottocento_v0", "--players", "3"], ["--players 3", "ottocento_v0", "4 players"]),
        (["--env", "french_tarot_v0", "--env", "millone_v0", "--players", "4"], ["--players 4", "millone_v0", "2 players"]),
        (["--players", "7"], ["--players 7", "no game"]),
        (["--env", "french_tarot_v0", "--batch", "16"], ["--batch", "--api aec"]),
        (["--env", "french_tarot_v0", "--threads", "1,2"], ["--threads", "--api aec"]),
        (["--env", "french_tarot_v0", "--plot", "runs/x.png"], ["--plot", "--api aec"]),
        (["--env", "no_such_env"], ["'no_such_env'", "env ids"]),
    ],
)
def test_bench_refuses_a_flag_that_measures_nothing(flags, named, capsys, tmp_path):
    line = refused(["bench", "--api", "aec", "--seconds", "0.1", "--repeats", "1", *flags, "--out", "b.json"], capsys)
    for word in named:
        assert word in line, line
    assert not (tmp_path / "b.json").exists()


def test_bench_measures_a_one_count_game_at_its_count(capsys, tmp_path):
    """``--players 4`` for Ottocento, a 4-player game, measures it (it measured nothing and wrote the file)."""
    assert main(["bench", "--api", "aec", "--env", "ottocento_v0", "--players", "4", "--seconds", "0.2", "--repeats", "1",
                 "--out", "b.json"]) == 0  # fmt: skip
    results = json.loads((tmp_path / "b.json").read_text())["results"]
    assert [(r["api"], r["env"]) for r in results] == [("aec", "ottocento_v0")]
    assert results[0]["decisions"] > 0


# ------------------------------------------------------------------------------------- arena
ROOT = Path(__file__).resolve().parents[1]


def tracked_deal_sets() -> dict[str, tuple[int, int]]:
    """The committed deal sets' names, sizes and modification times: the arena must leave them alone."""
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in (ROOT / "results" / "deals").iterdir()}


@pytest.mark.parametrize(
    ("flags", "table", "deal_set"),
    [
        ([], "french_tarot_v0_4p", ROOT / "results" / "deals" / "french_tarot_v0_4p_v1.json"),  # the game's default count
        (["--players", "4"], "french_tarot_v0_4p", ROOT / "results" / "deals" / "french_tarot_v0_4p_v1.json"),
        (["--players", "4", "--seed", "5"], "french_tarot_v0_4p", Path("runs/deals/french_tarot_v0_4p_v1_s5.json")),
        (["--players", "4", "--deals", "1001"], "french_tarot_v0_4p", Path("runs/deals/french_tarot_v0_4p_v1.json")),
    ],
)
def test_arena_names_the_table_as_the_suite_and_writes_nothing_tracked(flags, table, deal_set, tmp_path, monkeypatch):
    """Without --players the table was ``french_tarot_v0`` and its deal set was written to
    ``results/deals/french_tarot_v0_v1.json``; a deal set the repository does not hold goes under runs/."""
    from tarot_env import arena

    before = tracked_deal_sets()
    made: list[int] = []
    if "1001" in flags:  # more deals than committed: the set is extended from the committed one, not remade
        real = arena._generate_deal
        monkeypatch.setattr(arena, "_generate_deal", lambda env, seed: made.append(seed) or real(env, seed))
        res = arena.load_deal_set("french_tarot_v0", 1001, 4)
        assert made == [1000] and len(res["deals"]) == 1001
        assert res["deals"][:1000] == json.loads(arena.deal_set_path("french_tarot_v0", 4).read_text())["deals"]
    else:
        assert main(["arena", "--env", "french_tarot_v0", *flags, "--agents", "rules,random", "--deals", "2", "--out", "out"]) == 0
        results = json.loads((tmp_path / "out" / f"arena_{table}.json").read_text())
        assert results["table"] == table and results["num_players"] == 4
        assert Path(results["deal_set"]["path"]) == deal_set
    assert (tmp_path / deal_set).exists()
    assert not (tmp_path / "results").exists()
    assert tracked_deal_sets() == before


def test_a_one_count_game_is_one_table(tmp_path):
    """``--players 4`` at Ottocento, a 4-player game, is the table ``ottocento_v0`` (it was ``ottocento_v0_4p``)."""
    assert main(["arena", "--env", "ottocento_v0", "--players", "4", "--agents", "rules,random", "--deals", "1", "--out", "out"]) == 0
    assert [p.name for p in (tmp_path / "out").glob("arena_*.json")] == ["arena_ottocento_v0.json"]


# ------------------------------------------------------------------------------------- the env id first
def test_arena_takes_the_env_id_first_as_play_does(tmp_path):
    assert main(["arena", "ottocento_v0", "--agents", "rules,random", "--deals", "1", "--out", "out"]) == 0
    assert (tmp_path / "out" / "arena_ottocento_v0.json").exists()


def test_bench_takes_the_env_id_first(tmp_path):
    assert main(["bench", "ottocento_v0", "--api", "aec", "--seconds", "0.2", "--repeats", "1", "--out", "b.json"]) == 0
    assert [r["env"] for r in json.loads((tmp_path / "b.json").read_text())["results"]] == ["ottocento_v0"]


def test_train_takes_the_env_id_first_and_passes_the_other_flags_on(monkeypatch):
    """The script gets ``--env`` and every flag it alone knows, values included (``--n-steps 256``
    is not read as an env id)."""
    from tarot_env.experiments import train

    given: list[list[str]] = []
    monkeypatch.setattr(train, "main", lambda argv: given.append(argv))
    assert main(["train", "millone_v0", "--n-steps", "256", "--steps", "512"]) == 0
    assert main(["train", "--n-steps", "256"]) == 0
    assert given == [["--env", "millone_v0", "--steps", "512", "--n-steps", "256"], ["--n-steps", "256"]]


def test_an_env_id_given_twice_is_refused(capsys):
    line = refused(["arena", "ottocento_v0", "--env", "millone_v0", "--deals", "1"], capsys)
    assert "'ottocento_v0'" in line and "'millone_v0'" in line


def test_the_help_examples_play_a_model_on_its_own_game():
    """An arena example's ``sb3:runs/<run>/...`` model is one a train example makes, for the same env
    (the arena's help paired the French run runs/french4 with Ottocento)."""
    import re

    from tarot_env.command import EXAMPLES

    def env_of(line: str) -> str | None:
        words = line.split()
        if not words[2].startswith("-"):
            return words[2]
        return words[words.index("--env") + 1] if "--env" in words else None

    trained = {}
    for line in re.findall(r"^\s+(tarot train .*)$", EXAMPLES["train"], re.M):
        out = re.search(r"--out (runs/\S+)", line)
        if out and env_of(line):
            trained[out.group(1)] = env_of(line)
    played = re.findall(r"^\s+(tarot arena .*sb3:(runs/[^/\s]+)/.*)$", EXAMPLES["arena"], re.M)
    assert played, "no arena example plays a trained model"
    for line, run in played:
        assert trained.get(run) == env_of(line), f"{line!r} plays {run}, trained for {trained.get(run)}"


# ------------------------------------------------------------------------------------- intervals over few deals
def _duplicate(deals: int, tmp_path: Path) -> dict:
    from tarot_env.agents.random_agent import RandomAgent

    from tarot_env import arena

    agents = {"a": RandomAgent(1), "b": arena.rule_agent("centocinquanta_v0")}
    return arena.run_arena("centocinquanta_v0", agents, deals, deals_dir=tmp_path, progress=False)


def _interval_cells(markdown: str) -> list[str]:
    import re

    return [cell for line in markdown.splitlines() if line.startswith("|") for cell in line.split("|") if re.search(r"\[.*,.*\]", cell)]


def test_an_interval_over_fewer_than_30_deals_carries_a_warning(tmp_path):
    from tarot_env.experiments import suite

    from tarot_env import arena

    few = arena.markdown(_duplicate(6, tmp_path))
    cells = _interval_cells(few)
    assert cells and all("warning: 6 deals, fewer than 30" in c for c in cells), cells
    assert "**Warning: 6 deals, fewer than 30" in few
    enough = arena.markdown(_duplicate(30, tmp_path))
    assert _interval_cells(enough) and "warning" not in enough.lower()
    # the leaderboard's and the search experiments' intervals (suite._ci) likewise
    assert "warning: 6 deals" in suite._ci(arena.mean_ci([1.0, 2.0, 0.0, 3.0, 1.0, 2.0]), 2)
    assert "warning" not in suite._ci(arena.mean_ci([1.0, 2.0, 0.0] * 10), 2)


def test_the_learning_curve_warns_of_evaluations_over_few_deals(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt
    from tarot_env.experiments.train import plot_curve

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    rows = [{"steps": s, "mean_episode_reward": 0.0, "eval_vs_random": 1.0, "eval_vs_random_ci95": 0.5, "eval_vs_rules": 0.0,
             "eval_vs_rules_ci95": 0.5} for s in (0, 100)]  # fmt: skip
    plot_curve(rows, tmp_path / "few.png", "t", eval_deals=8)
    plot_curve(rows, tmp_path / "many.png", "t", eval_deals=100)
    few, many = ([ax.get_title() for ax in fig.axes] for fig in figures)
    assert sum("warning: 8 deals" in t for t in few) == 2
    assert not any("warning" in t for t in many)


# ------------------------------------------------------------------------------------- serve
def test_serve_keeps_its_database_in_an_ignored_folder():
    """``tarot serve`` wrote ``tarot_web.sqlite`` into the working folder, which git did not ignore:
    in a checkout, ``git status`` showed the room's users and games."""
    import inspect
    import subprocess

    from tarot_env.command import build_parser
    from tarot_env.web.app import create_app

    default = build_parser().parse_args(["serve"]).db
    assert Path(default).parts[0] == "runs", default
    assert inspect.signature(create_app).parameters["db"].default == default
    for path in (default, "tarot_web.sqlite"):  # the old default too, where a room already made one
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, f"git does not ignore {path}"


def test_bench_says_why_it_draws_no_scaling_plot(capsys, tmp_path):
    """``--scaling-plot`` without two thread counts to compare was dropped without a word."""
    assert main(["bench", "ottocento_v0", "--api", "vector", "--batch", "16", "--seconds", "0.1", "--repeats", "1", "--plot", "",
                 "--scaling-plot", "s.png", "--out", "b.json"]) == 0  # fmt: skip
    assert "not written s.png: b.json holds no configuration measured at two thread counts" in capsys.readouterr().out
    assert (tmp_path / "b.json").exists() and not (tmp_path / "s.png").exists()
