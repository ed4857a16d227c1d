"""The evaluation arena (experiments/arena.py): deal sets, duplicate seatings, statistics, fallbacks, ratings, outputs."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from tarot_env.agents import factory
from tarot_env.agents.random_agent import RandomAgent
from tarot_env.experiments import arena as arena_script

from tarot_env import arena


def test_deal_sets_are_reproducible_and_versioned(tmp_path):
    a = arena.load_deal_set("ottocento_v0", 3, deals_dir=tmp_path / "a")
    b = arena.load_deal_set("ottocento_v0", 5, deals_dir=tmp_path / "b")
    assert a["deals"] == b["deals"][:3]  # deal i depends on the seed and i only
    path = tmp_path / "a" / "ottocento_v0_v1.json"
    data = json.loads(path.read_text())
    assert data["version"] == arena.DEAL_SET_VERSION == 1 and data["seed"] == arena.DEFAULT_SEED and data["id"] == "ottocento_v0_v1"
    # extended deterministically, and never regenerated once present
    longer = arena.load_deal_set("ottocento_v0", 5, deals_dir=tmp_path / "a")
    assert longer["deals"] == b["deals"]
    mtime = path.stat().st_mtime_ns
    assert arena.load_deal_set("ottocento_v0", 4, deals_dir=tmp_path / "a")["deals"] == b["deals"][:4]
    assert path.stat().st_mtime_ns == mtime
    # player count and seed are in the name
    m = arena.load_deal_set("mattazza_v0", 2, num_players=5, seed=7, deals_dir=tmp_path)
    assert m["path"].endswith("mattazza_v0_5p_v1_s7.json") and len(m["deals"][0]["hands"]) == 5
    assert m["deals"] != arena.load_deal_set("mattazza_v0", 2, num_players=5, deals_dir=tmp_path)["deals"]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_rotation_covers_every_seat_for_every_agent(seats):
    for k in range(1, seats + 1):
        names = [f"a{i}" for i in range(k)]
        layout = arena.seatings(names, seats)
        for n in names:
            assert {s for sitting in layout for s, who in enumerate(sitting) if who == n} == set(range(seats))
    with pytest.raises(ValueError):
        arena.seatings(["a", "b", "c"], 2)


def test_every_role_is_played_and_output_has_seatings(tmp_path):
    res = arena.run_arena("terziglio_v0", {"random": RandomAgent(1), "rules": arena.rule_agent("terziglio_v0")}, 6, deals_dir=tmp_path)
    assert res["seatings"] == [["random", "rules", "random"], ["rules", "random", "random"], ["random", "random", "rules"]]
    assert res["deal_set"]["id"] == "terziglio_v0_v1" and len(res["deals"]) == 6
    for name in ("random", "rules"):
        assert {"soloist", "opponent"} <= set(res["agents"][name]["roles"])


def test_same_agent_against_itself(tmp_path):
    # a deterministic bot under two names: identical duplicate scores, and French Tarot is zero-sum
    bot = arena.rule_agent("french_tarot_v0")
    res = arena.run_arena("french_tarot_v0", {"a": bot, "b": bot}, 4, num_players=4, deals_dir=tmp_path)
    assert res["pairwise"]["a - b"]["mean"] == 0
    assert np.allclose(res["per_deal"]["a"], res["per_deal"]["b"])
    assert np.allclose(res["per_deal"]["a"], 0)  # seats A B A B: the two agents' seat scores sum to zero
    # a random agent against itself: the difference's interval contains 0
    rnd = RandomAgent(3)
    res = arena.run_arena("ottocento_v0", {"a": rnd, "b": rnd}, 20, deals_dir=tmp_path)
    d = res["pairwise"]["a - b"]
    assert d["lo"] <= 0 <= d["hi"]
    assert np.allclose(np.add(res["per_deal"]["a"], res["per_deal"]["b"]), 0)  # own side minus the other


@pytest.mark.parametrize(("env_id", "players", "deals"), [("french_tarot_v0", 4, 16), ("ottocento_v0", None, 12)])
def test_rules_beat_random(tmp_path, env_id, players, deals):
    agents = {"rules": arena.rule_agent(env_id), "random": RandomAgent(0)}
    res = arena.run_arena(env_id, agents, deals, num_players=players, deals_dir=tmp_path)
    assert res["pairwise"]["rules - random"]["lo"] > 0
    assert res["agents"]["rules"]["score"]["lo"] > 0
    assert res["agents"]["rules"]["win_rate"]["mean"] > res["agents"]["random"]["win_rate"]["mean"]
    assert sum(f["fallback"] for f in res["fallbacks"].values()) == 0


class Crashing:
    def act(self, obs, mask):
        raise RuntimeError("boom")


class Illegal:
    def act(self, obs, mask):
        return int(np.flatnonzero(~np.asarray(mask, dtype=bool))[0])


class Garbage:
    def act(self, obs, mask):
        return "not an action"


class Slow:
    def __init__(self, slow_moves: int, seconds: float):
        self.left, self.seconds, self.inner = slow_moves, seconds, RandomAgent(0)

    def act(self, obs, mask):
        if self.left > 0:
            self.left -= 1
            time.sleep(self.seconds)
        return self.inner.act(obs, mask)


def test_misbehaving_agents_are_replaced_and_counted(tmp_path):
    agents = {"crash": Crashing(), "illegal": Illegal(), "slow": Slow(3, 0.5), "garbage": Garbage()}
    res = arena.run_arena("mattazza_v0", agents, 2, num_players=4, time_limit=0.1, deals_dir=tmp_path, out=tmp_path / "out")
    fb = res["fallbacks"]
    assert fb["crash"]["moves"] > 0 and fb["crash"]["exception"] == fb["crash"]["fallback"] == fb["crash"]["moves"]
    assert fb["illegal"]["illegal"] == fb["illegal"]["fallback"] == fb["illegal"]["moves"] > 0
    assert fb["garbage"]["exception"] == fb["garbage"]["moves"] > 0
    assert fb["slow"]["timeout"] == fb["slow"]["fallback"] == 3 and fb["slow"]["moves"] > 3
    assert {e["kind"] for e in res["fallback_events"]} == {"exception", "illegal", "timeout"}
    assert all(len(v) == 2 for v in res["per_deal"].values())
    # every play of the run finished with a legal score: Mattazza rewards are -1 or 0
    assert all(s in (-1.0, 0.0) for deal in res["plays"] for play in deal for s in play["scores"])
    md = (tmp_path / "out" / "arena_mattazza_v0_4p.md").read_text()
    assert "| slow |" in md


def test_ratings_file_is_created_and_extended_when_named(tmp_path):
    agents = {"rules": arena.rule_agent("centocinquanta_v0"), "random": RandomAgent(0)}
    out = tmp_path / "out"
    arena.run_arena("centocinquanta_v0", agents, 4, deals_dir=tmp_path, out=out)
    first = json.loads((out / "ratings.json").read_text())["tables"]["centocinquanta_v0"]
    assert first["rules"]["games"] == first["random"]["games"] == 4
    # a run starts fresh; naming the ratings file extends it
    res = arena.run_arena("centocinquanta_v0", agents, 4, deals_dir=tmp_path, out=out, ratings=out / "ratings.json")
    second = json.loads((out / "ratings.json").read_text())["tables"]["centocinquanta_v0"]
    assert second["rules"]["games"] == 8 and second["rules"]["sigma"] < first["rules"]["sigma"]
    assert [r["agent"] for r in res["leaderboard"]] == ["rules", "random"]
    assert {"mu", "sigma", "ordinal", "games"} <= set(res["leaderboard"][0])


def test_outputs_and_cli(tmp_path, capsys):
    out = tmp_path / "out"
    res = arena_script.main(
        ["--env", "quindici_v0", "--agents", "random,rules", "--deals", "3", "--out", str(out), "--deals-dir", str(tmp_path / "deals")]
    )
    data = json.loads((out / "arena_quindici_v0.json").read_text())
    assert data["deal_set"]["id"] == "quindici_v0_v1" and data["seatings"] == res["seatings"] and "fallbacks" in data
    assert data["agents"]["rules"]["score"]["mean"] == pytest.approx(res["agents"]["rules"]["score"]["mean"])
    assert len(data["deals"]) == 3
    assert (out / "arena_quindici_v0.md").read_text().startswith("# Arena: quindici_v0")
    assert (out / "arena_quindici_v0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "deals" / "quindici_v0_v1.json").exists()
    assert "| rules |" in capsys.readouterr().out
    with pytest.raises(ValueError):
        factory.make_agent("nonsense", "quindici_v0")
