"""experiments/search.py: the PIMC agent's measurements run, write their files and refuse bad flags."""

from __future__ import annotations

import json

import pytest
from tarot_env.experiments import search


def test_speed_mode_times_every_searched_decision(tmp_path):
    result = search.main(["speed", "--table", "mattazza_v0_4p", "--deals", "1", "--out", str(tmp_path), "--no-progress-bar"])
    assert result["decisions"] > 0 and result["samples"] == 64 and result["limit"] == 0.25
    assert 0 <= result["over_limit"] <= 1 and result["median_s"] <= result["max_s"]
    assert json.loads((tmp_path / "speed_mattazza_v0_4p.json").read_text())["decisions"] == result["decisions"]


def test_samples_mode_writes_a_row_per_k_and_its_plot(tmp_path):
    args = ["samples", "--table", "mattazza_v0_4p", "--samples", "2,4", "--deals", "2", "--out", str(tmp_path), "--no-progress-bar"]
    result = search.main([*args, "--deals-dir", str(tmp_path / "deals")])
    assert [r["samples"] for r in result["rows"]] == [2, 4]
    assert all(r["difference"]["lo"] <= r["difference"]["mean"] <= r["difference"]["hi"] for r in result["rows"])
    assert (tmp_path / "samples_mattazza_v0_4p.png").stat().st_size > 0


def test_versus_mode_plays_the_trained_agent(tmp_path):
    result = search.main(["versus", "--table", "mattazza_v0_4p", "--deals", "1", "--out", str(tmp_path), "--no-progress-bar"])
    assert result["fallbacks"]["pimc"]["fallback"] == 0 and result["difference"]["n"] == 1


def test_versus_mode_takes_any_two_agents_and_a_seed(tmp_path):
    spec = "pimc:search=play,base=pretrained,samples=2"
    argv = ["versus", "--table", "mattazza_v0_4p", "--deals", "1", "--agent", spec, "--against", "rules", "--seed", "7",
            "--out", str(tmp_path), "--deals-dir", str(tmp_path / "deals"), "--no-progress-bar"]  # fmt: skip
    result = search.main(argv)
    assert (result["seed"], result["against"], result["difference"]["n"]) == (7, "rules", 1)
    assert set(result["search"][spec]["decisions"]) == {"play"} and result["search"][spec]["median_s"] > 0
    assert (tmp_path / "versus_mattazza_v0_4p_pimc-search-play-base-pretrained-samples-2_vs_rules_seed7.json").is_file()


def test_classes_mode_measures_each_class_and_resumes(tmp_path, capsys):
    argv = ["classes", "--table", "mattazza_v0_4p", "--deals", "1", "--classes", "play,declare,all", "--out", str(tmp_path),
            "--deals-dir", str(tmp_path / "deals"), "--no-progress-bar"]  # fmt: skip
    result = search.main(argv)
    rows = {r["class"]: r for r in result["rows"]}
    assert set(rows) == {"play", "declare", "all"} and rows["play"]["decisions"] > 0
    assert rows["declare"]["decisions"] == 0 and rows["declare"]["difference"]["mean"] == 0  # Mattazza declares nothing
    assert rows["all"]["share"] is None and "| play |" in capsys.readouterr().out
    cells = sorted(p.name for p in (tmp_path / "classes_mattazza_v0_4p").iterdir())
    assert cells == ["all_seed0_1.json", "declare_seed0_1.json", "play_seed0_1.json"]
    cell = tmp_path / "classes_mattazza_v0_4p" / "play_seed0_1.json"
    cell.write_text(json.dumps({**json.loads(cell.read_text()), "seconds": -1.0}))
    again = search.main(argv)  # the cells done are read, not played again
    assert {r["class"]: r["seconds"] for r in again["rows"]}["play"] == -1.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["classes", "--table", "ottocento_v0", "--classes", "ecart"], "are not decisions of ottocento_v0"),
        (["versus", "--table", "ottocento_v0", "--agent", "rules", "--against", "rules"], "two different agents"),
        (["speed", "--table", "bridge"], "unknown table 'bridge'"),
        (["samples", "--table", "ottocento_v0", "--samples", "0,4"], "samples must be positive ints"),
        (["speed", "--table", "ottocento_v0", "--deals", "0"], "--deals"),
    ],
)
def test_bad_flags_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as err:
        search.main(argv)
    assert err.value.code != 0 and message in capsys.readouterr().err
