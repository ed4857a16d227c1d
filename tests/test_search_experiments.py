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


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["speed", "--table", "bridge"], "unknown table 'bridge'"),
        (["samples", "--table", "ottocento_v0", "--samples", "0,4"], "samples must be positive ints"),
        (["speed", "--table", "ottocento_v0", "--deals", "0"], "--deals"),
    ],
)
def test_bad_flags_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as err:
        search.main(argv)
    assert err.value.code != 0 and message in capsys.readouterr().err
