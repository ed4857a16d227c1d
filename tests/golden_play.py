"""Seeded play of every env, reduced to a digest: the golden records of ``tests/data/golden_records.json``.

Why: a refactoring of the rules (the end of a Tarocchino hand moved into ``scoring.py``, say)
must leave every observation, mask, reward, hand detail and record byte-identical. Playing a few
hundred deals of every env id at every player count, under the options that change how a hand
or a match ends, and hashing everything the envs hand out gives one short string per table
that any change of behaviour alters. The per-deal scores are kept too, so that a failure says
which deal first differs.

The actions are drawn here from a seeded generator over the legal mask (not by an agent of
``agents/``), so that the digests depend on the rules and the envs only: retuning a bot does not
touch them (the bots have their own golden file, ``tests/data/bot_golden.json``).

``tests/data/make_golden_records.py`` writes the file; ``tests/test_golden_records.py`` replays
and compares.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

import tarot_env
import tarot_env.vector
from tarot_env.rules.bolognese.game_specs import GAMES

#: tables per vector env and hands played per table set (a deal, or a hand of a match)
BATCH = 16
HANDS = 240
#: the AEC env's own path (its details and rewards), a few hands of each game
AEC_HANDS = 12


def tables() -> list[tuple[str, dict[str, Any]]]:
    """Every (env id, options) the golden file covers: each Tarocchino game at each of its player
    counts, one deal per episode and whole matches; the options of the end of a hand and of a
    match (U7, U9, U10, U11, U14, U16, U18, §8.4's wrong claim, §14.6's two ways); French Tarot at
    3, 4 and 5 players."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name, spec in GAMES.items():
        env_id = f"{name}_v0"
        for n in spec.players:
            players = {} if len(spec.players) == 1 else {"num_players": n}
            out.append((env_id, dict(players)))
            out.append((env_id, dict(players, episode="match")))
    extra = [
        ("ottocento_v0", {"episode": "match", "target": 300, "wrong_claim": "loses"}),
        ("ottocento_v0", {"keep_capotted_declarations": False, "cappotto_bonus": 50, "matto_exchange": "choose", "reward": "normalised"}),
        ("ottocento_v0", {"episode": "match", "target": 400, "tie": "draw", "mori": "best"}),
        ("quattro_scartate_v0", {"episode": "match", "tie": "extra_hand", "cappotto_bonus": 20}),
        ("terziglio_v0", {"episode": "match", "poste_rounding": "nearest", "odd_pile": "odd_alone", "match_hands": 5}),
        ("terziglio_v0", {"keep_capotted_declarations": False, "cappotto_bonus": 10, "declarations": False}),
        ("millone_v0", {"episode": "match", "wrong_claim": "loses", "target": 500}),
        ("centocinquanta_v0", {"episode": "match", "target": 100, "tie": "draw"}),
        ("quindici_v0", {"episode": "match", "claim_rounding": "raw_sum", "wrong_claim": "loses", "target": 10}),
        ("mattazza_v0", {"num_players": 3, "episode": "match", "way": "first_two", "full_count": False}),
        ("mattazza_v0", {"num_players": 4, "episode": "match", "way": "first_two"}),
        ("mattazza_v0", {"num_players": 6, "episode": "match", "target": 2, "match_reward": "result"}),
        ("ottocento_v0", {"episode": "match", "target": 300, "match_reward": "result", "reward": "win_loss"}),
    ]
    out += extra
    out += [("french_tarot_v0", {"num_players": n}) for n in (3, 4, 5)]
    return out


def key(env_id: str, options: dict[str, Any]) -> str:
    """The table's name in the golden file: the env id and its options, sorted."""
    return env_id + "".join(f" {k}={v}" for k, v in sorted(options.items()))


def _plain(x: Any) -> Any:
    """JSON's view of a detail (numpy scalars and arrays as plain numbers and lists)."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if hasattr(x, "__dict__") or hasattr(x, "__slots__"):
        return repr(x)
    raise TypeError(f"not JSON: {type(x).__name__}")


def _dump(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, default=_plain, separators=(",", ":")).encode()


def play_vector(env_id: str, options: dict[str, Any], hands: int = HANDS, seed: int = 0) -> dict[str, Any]:
    """Play ``hands`` hands at :data:`BATCH` tables of the vector env, with records; the digest of
    every step (observations, masks, players, rewards, terminations, the hands' details, the
    final observations and the records) and each hand's scores, in the order they ended."""
    venv = tarot_env.vector.make(env_id, BATCH, records=True, **options)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    out = venv.reset(seed=seed)
    scores: list[list[int]] = []
    steps = 0
    while len(scores) < hands:
        for a in (out.observations, out.action_masks, out.players, out.rewards, out.terminations):
            h.update(np.ascontiguousarray(a).tobytes())
        infos = out.infos
        for e in infos.get("hands", []):  # Tarocchino: every hand that ended, matches included
            h.update(_dump([e.row, e.result, list(e.scores), e.match_over, e.sides, e.active, e.info]))
            scores.append([int(x) for x in e.scores])
        if "scores" in infos:
            h.update(_dump([infos["ended"], infos["scores"], infos["results"]]))
            h.update(np.ascontiguousarray(infos["final_observations"]).tobytes())
            h.update(_dump(infos["records"]))
            if env_id == "french_tarot_v0":
                scores += infos["scores"].tolist()
        actions = (rng.random(out.action_masks.shape) * out.action_masks).argmax(axis=1)
        out = venv.step(actions)
        steps += 1
    return {"steps": steps, "sha256": h.hexdigest(), "scores": _compact(scores[:hands])}


def play_aec(env_id: str, options: dict[str, Any], hands: int = AEC_HANDS, seed: int = 0) -> dict[str, Any]:
    """The AEC env of ``env_id`` for ``hands`` episodes: the digest of every ``last()`` (observation,
    mask, reward, flags, details) and each episode's scores."""
    env = tarot_env.make(env_id, **options)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    scores: list[list[int]] = []
    steps = 0
    for episode in range(hands):
        env.reset(seed=seed + episode)
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            h.update(np.ascontiguousarray(obs["observation"]).tobytes())
            h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
            h.update(_dump([float(reward), bool(term), bool(trunc), info]))
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"].astype(bool)
            env.step(int((rng.random(mask.shape) * mask).argmax()))
            steps += 1
        scores.append([int(x) for x in env.unwrapped.game_state.scores[0]])
        h.update(_dump(scores[-1]))
    return {"steps": steps, "sha256": h.hexdigest(), "scores": _compact(scores)}


def _compact(scores: list[list[int]]) -> str:
    """Each hand's scores as ``a,b,c`` joined by ``;``: short in the JSON file, easy to read."""
    return ";".join(",".join(map(str, s)) for s in scores)


def golden() -> dict[str, dict[str, Any]]:
    """Every table's digest: ``vector <key>`` and, for the default options of each env, ``aec <key>``."""
    out: dict[str, dict[str, Any]] = {}
    for env_id, options in tables():
        out["vector " + key(env_id, options)] = play_vector(env_id, options)
    for name in GAMES:
        out["aec " + key(f"{name}_v0", {})] = play_aec(f"{name}_v0", {})
        out["aec " + key(f"{name}_v0", {"episode": "match"})] = play_aec(f"{name}_v0", {"episode": "match"}, hands=3)
    for n in (3, 4, 5):
        out["aec " + key("french_tarot_v0", {"num_players": n})] = play_aec("french_tarot_v0", {"num_players": n})
    return out
