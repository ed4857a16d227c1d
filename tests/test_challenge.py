"""The duplicate challenge's library (tarot_env/challenge.py): the deals, the seat's score, the committed
baselines reproduced, the comparison's arithmetic and words, the data set's round trip, the export
command and the arena reading a data set (docs/web.md, "The duplicate challenge")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tarot_env.agents import rule_agent

import tarot_env
from tarot_env import challenge as C
from tarot_env.errors import IllegalActionError

FT4 = "french_tarot_v0_4p"


def rules_everywhere(table: str, index: int) -> tuple[list[float], dict]:
    """The deal played by the rule-based bot at every seat through the arena's own table (not the challenge's code)."""
    from tarot_env.arena import _Table

    env_id, n = C.table_env(table)
    bot = rule_agent(env_id)
    t = _Table(env_id, n, {"r": bot}, bot, None)
    try:
        return t.play(C.deal_of(table, index), ["r"] * len(t.env.possible_agents), {})
    finally:
        t.close()


@pytest.mark.parametrize("table", [FT4, "ottocento_v0"])
def test_the_seat_score_is_the_arenas(table: str) -> None:
    """A seat's challenge score is its reward with reward='score', as the arena counts it (French: the deal's
    score; Ottocento: own side minus the other), for every seat of deals that are played."""
    for index in C.played_deals(table, 2):
        totals, _ = rules_everywhere(table, index)
        mine = [C.play_deal(table, index, s, rule_agent(C.table_env(table)[0]))[0] for s in range(len(totals))]
        assert mine == totals
        assert any(mine)


def test_played_deals_skip_the_deals_everyone_passes() -> None:
    deals = C.played_deals(FT4, 3)
    skipped = [i for i in range(deals[-1]) if i not in deals]
    assert skipped, "the first deals of the set are passed by the bots: some must be skipped"
    for i in skipped:
        assert rules_everywhere(FT4, i)[1]["result"] in C.NOT_PLAYED
    for i in deals:
        assert rules_everywhere(FT4, i)[1]["result"] not in C.NOT_PLAYED


def test_the_committed_baselines_reproduce_for_rules_and_trained() -> None:
    """The committed file's rules and trained scores are those of the deals played again now (both agents are
    deterministic; the search agent's depend on its time budget, so on the machine, which the file states)."""
    b = C.load_baselines(FT4)
    assert b is not None, "results/challenge/french_tarot_v0_4p.json is committed"
    assert b["deal_set"] == "french_tarot_v0_4p_v1" and len(b["deals"]) >= 24 and set(b["scores"]) == {"rules", "trained", "search", "pimc"}
    assert b["machine"] and b["agents"]["search"]["time"] > 0 and b["agents"]["search"]["spec"] == "search"
    assert b["agents"]["pimc"]["spec"] == "pimc"  # plain PIMC, kept under its name beside the reference
    for name, rows in b["scores"].items():
        assert len(rows) == len(b["deals"]) and all(len(r) == 4 for r in rows), name
    assert b["deals"] == C.played_deals(FT4, len(b["deals"]))
    for index in b["deals"][:2]:
        for seat in range(4):
            score, _ = C.play_deal(FT4, index, seat, C.baseline_agent("rules", FT4, index, seat))
            assert score == C.baseline_scores(b, index, seat)["rules"]
    pytest.importorskip("sb3_contrib")
    index = b["deals"][0]
    for seat in (0, 1):
        score, _ = C.play_deal(FT4, index, seat, C.baseline_agent("trained", FT4, index, seat))
        assert score == C.baseline_scores(b, index, seat)["trained"]


def test_challenge_deals_start_with_french_tarot_for_four() -> None:
    offered = C.challenge_deals()
    assert offered[0][0] == FT4 and C.TABLES[0] == FT4
    with pytest.raises(C.ChallengeError, match="deals 0 to 999"):
        C.deal_of(FT4, 1000)
    with pytest.raises(C.ChallengeError, match="the seats are 0 to 3"):
        C.ChallengeGame(FT4, 0, 4)
    with pytest.raises(C.ChallengeError, match="unknown table"):
        C.deal_of("french_tarot_v0_6p", 0)


def test_a_refused_move_changes_nothing() -> None:
    game = C.ChallengeGame(FT4, C.played_deals(FT4, 1)[0], 1)
    before = (game.steps, game.score, game.raw.agent_selection, json.dumps(game.observation()["observation"].tolist()))
    illegal = int(np.flatnonzero(~np.asarray(game.observation()["action_mask"], dtype=bool))[0])
    with pytest.raises(IllegalActionError):
        game.move(illegal)
    after = (game.steps, game.score, game.raw.agent_selection, json.dumps(game.observation()["observation"].tolist()))
    assert after == before


def test_comparison_arithmetic_and_words() -> None:
    c = C.compare(10, {"rules": -25, "trained": 10, "search": 45}, [0, 30, 45])
    assert c["agents"]["rules"] == {"score": -25.0, "difference": 35.0}
    assert c["agents"]["trained"]["difference"] == 0.0
    assert c["agents"]["search"]["difference"] == -35.0
    assert c["people"] == {"n": 3, "mean": 25.0, "difference": -15.0}
    lines = C.comparison_lines(c)
    assert lines[0] == "you did 35 points better than the rule-based bot on this deal (it scored -25)"
    assert lines[1] == "you did the same as the trained agent on this deal (it scored 10)"
    assert lines[2] == "you did 35 points worse than the search agent on this deal (it scored 45)"
    assert lines[3] == "you did 15 points worse than the 3 people who played it before you (their mean: 25)"
    alone = C.compare(-7.5, {"search": 0}, [])
    assert alone["people"] == {"n": 0, "mean": None, "difference": None}
    assert C.comparison_lines(alone) == [
        "you did 7.5 points worse than the search agent on this deal (it scored 0)",
        "nobody else has played this deal in this seat yet",
    ]
    assert C.comparison_lines(C.compare(3, {}, [1]))[0].startswith("you did 2 points better than the person who played it")


def test_the_data_set_round_trip(tmp_path: Path) -> None:
    index = C.played_deals(FT4, 1)[0]
    rows = []
    for seat in range(2):
        score, record = C.play_deal(FT4, index, seat, rule_agent("french_tarot_v0"))
        rows.append(C.dataset_row(FT4, index, seat, C.pseudonym(f"token{seat}"), score, record))
    path = tmp_path / "sub" / "humans.jsonl"
    assert C.write_dataset(rows, path) == 2
    back = C.read_dataset(path)
    assert back == rows
    assert back[0]["player"] != back[1]["player"] and len(back[0]["player"]) == 16
    for r in back:  # the record is the env's: it replays, to the row's score at its seat
        assert tarot_env.replay(r["record"])[r["seat"]] == r["score"]
    path.write_text(path.read_text() + '{"table": "french_tarot_v0_4p", "deal": 1}\n')
    with pytest.raises(C.ChallengeError, match=r"humans.jsonl:3: missing seat, player, score, record"):
        C.read_dataset(path)
    path.write_text("not json\n")
    with pytest.raises(C.ChallengeError, match=r":1: not JSON"):
        C.read_dataset(path)
    bad = dict(rows[0], seat="0")
    with pytest.raises(C.ChallengeError, match="seat has the wrong type"):
        C.write_dataset([bad], tmp_path / "x.jsonl")


def test_the_arena_reads_a_data_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """People against the agents: the mean difference per result, clustered by deal, and the count."""
    from tarot_env.experiments import arena as arena_script

    from tarot_env import arena

    b = {
        "table": FT4,
        "deals": [8, 9, 12],
        "scores": {"rules": [[10, 0, 0, 0], [20, 0, 0, -30], [0, 0, 0, 0]], "search": [[40, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]},
    }
    (tmp_path / f"{FT4}.json").write_text(json.dumps(b))
    record = {"env": "french_tarot_v0", "config": {}, "deal": {}, "actions": [], "scores": []}
    rows = [
        C.dataset_row(FT4, 8, 0, "a", 30, record),  # rules +20, search -10
        C.dataset_row(FT4, 9, 0, "b", 20, record),  # rules 0, search +20
        C.dataset_row(FT4, 9, 3, "a", -10, record),  # rules +20, search -10
        C.dataset_row(FT4, 40, 0, "c", 5, record),  # no baselines: not counted
        C.dataset_row("ottocento_v0", 8, 0, "c", 5, record),  # another table
    ]
    path = tmp_path / "humans.jsonl"
    C.write_dataset(rows, path)
    res = arena.humans_vs_agents(path, "french_tarot_v0", 4, tmp_path)
    assert (res["results"], res["people"], res["deals"]) == (3, 2, 2)
    rules, search = res["agents"]["rules"], res["agents"]["search"]
    assert rules["mean"] == pytest.approx(40 / 3) and rules["n"] == 3 and rules["deals"] == 2
    assert search["mean"] == pytest.approx(0.0)
    # the interval is clustered by deal: deal 8 holds one result (+20), deal 9 two (0 and +20)
    assert rules == arena.cluster_mean_ci([[20.0], [0.0, 20.0]])
    text = arena.humans_markdown(res)
    assert "| people - rules | 13.33 [" in text and "3 results of 2 people on 2 deals" in text

    committed = C.load_baselines(FT4)
    assert committed is not None
    d = committed["deals"][0]
    C.write_dataset([C.dataset_row(FT4, d, 1, "a", 100, record)], path)
    out = arena_script.main(["--env", "french_tarot_v0", "--players", "4", "--humans", str(path)])
    assert out["results"] == 1
    assert out["agents"]["search"]["mean"] == 100 - C.baseline_scores(committed, d, 1)["search"]
    assert "| people - search |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        arena_script.main(["--env", "french_tarot_v0", "--players", "4", "--humans", str(tmp_path / "missing.jsonl")])
    assert "--humans" in capsys.readouterr().err


def test_held_out_rows_are_compared_with_their_own_agents_scores(tmp_path: Path) -> None:
    """A row of the room's held-out deals carries the agents' scores on its deal and seat: those are its
    baseline (its deal index is in the held-out set, not in the committed one); rows of the same held-out
    deal share a cluster, and a row whose scores are not computed yet is left out."""
    from tarot_env import arena

    record = {"env": "french_tarot_v0", "config": {}, "deal": {}, "actions": [], "scores": []}
    rows = [
        {**C.dataset_row(FT4, 0, 0, "a", 30, record), "deal_set": "h1", "agents": {"rules": 10.0, "trained": 50.0}},
        {**C.dataset_row(FT4, 0, 2, "b", -20, record), "deal_set": "h1", "agents": {"rules": -30.0, "trained": -20.0}},
        {**C.dataset_row(FT4, 1, 0, "c", 0, record), "deal_set": "h1", "agents": {}},  # not computed yet
        {**C.dataset_row(FT4, 5, 1, "d", 40, record), "deal_set": "h1", "agents": {"rules": 0.0, "trained": 20.0}},
    ]
    path = tmp_path / "held_out.jsonl"
    C.write_dataset(rows, path)
    res = arena.humans_vs_agents(path, "french_tarot_v0", 4, tmp_path / "no_baselines_here")
    assert (res["results"], res["people"], res["deals"]) == (3, 3, 2)
    assert res["agents"]["rules"] == arena.cluster_mean_ci([[20.0, 10.0], [40.0]])
    assert res["agents"]["trained"] == arena.cluster_mean_ci([[-20.0, 0.0], [20.0]])


def test_keeping_baselines_finds_an_agent_by_its_spec_and_only_on_the_same_deals() -> None:
    """A file from before 2026-12-07 holds plain PIMC under ``search``: it is kept as ``pimc``, with its machine,
    note and command; scores of another deal set, table or deals are never kept."""
    old = {
        "table": FT4, "deal_set": "french_tarot_v0_4p_v1", "deals": [8, 9], "num_players": 4, "machine": "old box",
        "agents": {"rules": {"spec": "rules"}, "search": {"spec": "pimc", "time": 0.25}},
        "scores": {"rules": [[1, 2, 3, 4], [5, 6, 7, 8]], "search": [[9, 9, 9, 9], [8, 8, 8, 8]]},
        "seconds": {"rules": 2.0, "search": 270.0, "total": 272.0}, "command": "the old command", "search_note": "a note",
    }  # fmt: skip
    new = {
        "table": FT4, "deal_set": "french_tarot_v0_4p_v1", "deals": [8, 9], "num_players": 4, "machine": "new box",
        "agents": {"search": {"spec": "search"}}, "scores": {"search": [[0, 0, 0, 0], [1, 1, 1, 1]]},
        "seconds": {"search": 250.0, "total": 251.0}, "command": "the new command",
    }  # fmt: skip
    assert C.keep_baselines(new, old) == ["rules", "pimc"]
    assert list(new["scores"]) == ["rules", "search", "pimc"] and new["scores"]["pimc"] == old["scores"]["search"]
    assert new["scores"]["search"] == [[0, 0, 0, 0], [1, 1, 1, 1]]  # the new search, not the old file's plain PIMC
    assert new["agents"]["pimc"] == {"spec": "pimc", "time": 0.25, "machine": "old box"} and new["pimc_note"] == "a note"
    assert new["kept_from"] == {"rules": "the old command", "pimc": "the old command"} and new["seconds"]["pimc"] == 270.0
    assert list(new["seconds"]) == ["rules", "search", "pimc", "total"] and "search_note" not in new
    for key, other in (("deal_set", "french_tarot_v0_4p_v2"), ("deals", [8, 10]), ("table", "french_tarot_v0_5p")):
        fresh = {**{k: v for k, v in new.items() if k != "kept_from"}, "agents": {"search": {}}, "scores": {"search": []}, key: other}
        assert C.keep_baselines(fresh, old) == [] and list(fresh["scores"]) == ["search"] and "kept_from" not in fresh


def test_the_baselines_command_refuses_to_drop_scores_or_to_read_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tarot_env.command import main

    path = C.baselines_path(FT4, tmp_path)
    path.write_text("{not json")
    assert main(["challenge", "baselines", "--table", FT4, "--deals", "1", "--agents", "rules", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"cannot read {path}" in err and len(err.strip().splitlines()) == 1
    committed = C.load_baselines(FT4)
    assert committed is not None
    path.write_text(json.dumps(committed))
    assert main(["challenge", "baselines", "--table", FT4, "--deals", "2", "--agents", "rules", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "holds 24 deals of french_tarot_v0_4p_v1; --deals 2 would drop the scores of trained, search, pimc" in err
    assert "give --deals 24 to keep them, or --agents rules,trained,search,pimc" in err
    assert json.loads(path.read_text()) == committed  # nothing written


def test_the_baselines_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tarot_env.command import main

    assert main(["challenge", "baselines", "--table", FT4, "--deals", "2", "--agents", "rules", "--out", str(tmp_path)]) == 0
    b = C.load_baselines(FT4, tmp_path)
    assert b is not None and b["deals"] == C.played_deals(FT4, 2) and list(b["scores"]) == ["rules"]
    assert b["command"].startswith("tarot challenge baselines --table french_tarot_v0_4p") and b["machine"]
    committed = C.load_baselines(FT4)
    assert committed is not None and b["scores"]["rules"] == committed["scores"]["rules"][:2]
    # one agent's scores again: the others' in the file (same deals) are kept, with the command that made them
    b["agents"]["search"], b["scores"]["search"], b["seconds"]["search"] = {"spec": "search"}, [[1, 2, 3, 4], [5, 6, 7, 8]], 9.0
    b["command"] = "the search's command"
    C.baselines_path(FT4, tmp_path).write_text(json.dumps(b))
    assert main(["challenge", "baselines", "--table", FT4, "--deals", "2", "--agents", "rules", "--out", str(tmp_path)]) == 0
    assert "(search kept from the file)" in capsys.readouterr().out
    again = C.load_baselines(FT4, tmp_path)
    assert again is not None and list(again["scores"]) == ["rules", "search"] and again["scores"]["search"] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert again["kept_from"] == {"search": "the search's command"} and again["seconds"]["search"] == 9.0
    assert again["scores"]["rules"] == b["scores"]["rules"] and again["command"].endswith("--agents rules")
    # other deals: refused before anything is played (the search's scores would be dropped)
    assert main(["challenge", "baselines", "--table", FT4, "--deals", "1", "--agents", "rules", "--out", str(tmp_path)]) == 1
    assert "--deals 1 would drop the scores of search" in capsys.readouterr().err
    assert main(["challenge", "baselines", "--table", FT4, "--agents", "rules,oracle", "--out", str(tmp_path)]) == 1
    assert "give some of rules, trained, search, pimc" in capsys.readouterr().err
    assert main(["challenge", "baselines", "--table", "bridge", "--out", str(tmp_path)]) == 1
    assert "unknown table 'bridge'" in capsys.readouterr().err
