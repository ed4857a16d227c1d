"""Ray RLlib: the multi-agent adapter (tarot_env/rllib.py) and the training entry point
(experiments/train_rllib.py). Needs the ``rllib`` extra (ray[rllib], torch); skipped without it.

The adapter passes RLlib's env pre-check for every env id; its observations are the dicts that
RLlib's ``ActionMaskingTorchRLModule`` takes; every seat's rewards add up, through RLlib's own
``MultiAgentEpisode``, to what the AEC env paid it for the same deal and actions. Two tiny
training runs write their checkpoints, log, curve and evaluations.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

import tarot_env
from tarot_env import rllib
from tarot_env.rllib import SHARED_POLICY, TarotMultiAgentEnv

pytestmark = pytest.mark.filterwarnings("ignore:an illegal action ended the episode")


# ---------------------------------------------------------------------- the adapter


@pytest.mark.parametrize("env_id", tarot_env.ENV_IDS)
def test_rllibs_env_pre_check_passes(env_id):
    check_multiagent_environments(TarotMultiAgentEnv({"env_id": env_id}))


@pytest.mark.parametrize(("env_id", "options"), [("french_tarot_v0", {"num_players": 5}), ("ottocento_v0", {}), ("millone_v0", {})])
def test_observations_are_the_action_masking_modules_dicts(env_id, options):
    env = TarotMultiAgentEnv({"env_id": env_id, **options})
    aec = tarot_env.make(env_id, **options)
    agent = aec.possible_agents[0]
    size, actions = aec.observation_space(agent)["observation"].shape[0], aec.action_space(agent).n
    assert env.possible_agents == env.agents == aec.possible_agents
    obs, infos = env.reset(seed=3)
    aec.reset(seed=3)
    assert list(obs) == list(infos) == [aec.agent_selection]  # only the seat to act
    for _ in range(30):
        ((seat, o),) = obs.items()
        space = env.get_observation_space(seat)
        assert set(o) == {"observations", "action_mask"} == set(space.spaces)
        assert o["observations"].dtype == o["action_mask"].dtype == np.float32
        assert o["observations"].shape == (size,) and o["action_mask"].shape == (actions,)
        assert space.contains(o) and env.get_action_space(seat).n == actions
        want = aec.observe(seat)
        np.testing.assert_array_equal(o["observations"], want["observation"])
        np.testing.assert_array_equal(o["action_mask"], want["action_mask"])
        action = int(np.flatnonzero(o["action_mask"])[-1])  # the last legal action: a bid rather than a pass
        obs, _, terminated, _, _ = env.step({seat: action})
        aec.step(action)
        assert not terminated["__all__"]


def random_deal(env: TarotMultiAgentEnv, seed: int) -> tuple[list[int], dict[str, float], MultiAgentEpisode, dict]:
    """A deal of random legal actions through the adapter: the actions, each seat's rewards summed,
    RLlib's ``MultiAgentEpisode`` of the deal, and the last step's output."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    episode = MultiAgentEpisode(
        observation_space=env.observation_spaces,
        action_space=env.action_spaces,
        agent_to_module_mapping_fn=rllib.shared_policy,
    )
    episode.add_env_reset(observations=obs, infos=infos)
    actions: list[int] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while True:
        ((seat, o),) = obs.items()
        assert o["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        actions.append(action)
        obs, rewards, terminated, truncated, infos = env.step({seat: action})
        assert set(rewards) == set(obs)  # a reward comes with an observation
        for a, r in rewards.items():
            totals[a] += r
        episode.add_env_step(obs, {seat: action}, rewards, infos, terminateds=terminated, truncateds=truncated)
        if terminated["__all__"] or truncated["__all__"]:
            return actions, totals, episode, {"obs": obs, "terminated": terminated, "truncated": truncated}


def aec_totals(env_id: str, options: dict, seed: int, actions: list[int]) -> dict[str, float]:
    """Each seat's rewards summed over the AEC env's deal of ``seed`` with ``actions`` (as the arena sums them)."""
    env = tarot_env.make(env_id, **options)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves = iter(actions)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        env.step(None if termination or truncation else next(moves))
    assert next(moves, None) is None
    return totals


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("french_tarot_v0", {"num_players": 4}),
        ("french_tarot_v0", {"num_players": 5, "shaping": True}),  # rewards after each trick too
        ("ottocento_v0", {}),
        ("ottocento_v0", {"episode": "match", "target": 150}),  # several hands, each paid as it ends
        ("terziglio_v0", {"reward": "normalised"}),
    ],
)
def test_every_seat_gets_the_aec_envs_rewards(env_id, options):
    env = TarotMultiAgentEnv({"env_id": env_id, **options})
    for seed in (0, 1, 2):
        actions, totals, episode, last = random_deal(env, seed)
        assert set(last["obs"]) == set(env.possible_agents)  # every seat's last observation ...
        assert all(last["terminated"][a] for a in env.possible_agents) and last["terminated"]["__all__"]
        assert not any(o["action_mask"].any() for o in last["obs"].values())  # ... with no legal action
        assert episode.is_done
        want = aec_totals(env_id, options, seed, actions)
        assert totals == pytest.approx(want)
        assert {a: e.get_return() for a, e in episode.agent_episodes.items()} == pytest.approx(want)
        assert any(want.values())


def test_an_illegal_action_ends_the_episode_for_every_seat():
    env = TarotMultiAgentEnv({"env_id": "ottocento_v0", "illegal_reward": -5})
    obs, _ = env.reset(seed=0)
    ((seat, o),) = obs.items()
    with pytest.warns(UserWarning, match="illegal action"):
        obs, rewards, terminated, truncated, infos = env.step({seat: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    assert rewards == {a: (-5.0 if a == seat else 0.0) for a in env.possible_agents}
    assert all(terminated.values()) and not any(truncated.values())
    assert infos[seat]["illegal_action"]["agent"] == seat
    strict = TarotMultiAgentEnv({"env_id": "ottocento_v0", "illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    with pytest.raises(tarot_env.IllegalActionError):
        strict.step({seat: int(np.flatnonzero(o["action_mask"] == 0)[0])})


def test_config_errors_are_clear():
    with pytest.raises(ValueError, match="env_config needs an env id"):
        TarotMultiAgentEnv({})
    with pytest.raises(ValueError, match="unknown env id"):
        rllib.register("chess_v0")
    env = TarotMultiAgentEnv({"env_id": "millone_v0"})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="turn"):
        env.step({"nobody": 0})


def test_register_lays_the_env_config_over_its_options():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    name = rllib.register("french_tarot_v0", num_players=5)
    assert name == rllib.env_name("french_tarot_v0") == "tarot_french_tarot_v0"
    creator = _global_registry.get(ENV_CREATOR, name)
    assert len(creator({}).possible_agents) == 5
    assert len(creator({"num_players": 3}).possible_agents) == 3
    assert len(rllib.env_creator({"env_id": "mattazza_v0", "num_players": 6}).possible_agents) == 6


def test_policy_mapping():
    shared = rllib.multi_agent("ottocento_v0")
    assert shared["policies"] == {SHARED_POLICY}
    assert {shared["policy_mapping_fn"](a, None) for a in ("player_0", "player_3")} == {SHARED_POLICY}
    per_seat = rllib.multi_agent("french_tarot_v0", "per_seat", num_players=5)
    assert per_seat["policies"] == {f"player_{i}" for i in range(5)}
    assert per_seat["policy_mapping_fn"]("player_3", None) == "player_3"
    spec = rllib.rl_module_spec("french_tarot_v0", "per_seat", num_players=3)
    assert sorted(spec.rl_module_specs) == ["player_0", "player_1", "player_2"]
    with pytest.raises(ValueError, match="shared, per_seat"):
        rllib.multi_agent("ottocento_v0", "per_team")


# ---------------------------------------------------------------------- the training entry point


@pytest.mark.parametrize(
    ("env_id", "flags", "options", "modules"),
    [
        # one env runner (the default), stepping two tables
        ("french_tarot_v0", ["--players", "4", "--envs-per-env-runner", "2"], {"num_players": 4}, [SHARED_POLICY]),
        # sampling in the driver, one table, a policy per seat
        (
            "ottocento_v0",
            ["--num-env-runners", "0", "--envs-per-env-runner", "1", "--policies", "per_seat"],
            {},
            ["player_0", "player_1", "player_2", "player_3"],
        ),
    ],
)
def test_tiny_training_run_writes_its_files_and_evaluates(tmp_path, monkeypatch, env_id, flags, options, modules):
    from tarot_env.experiments import train_rllib

    monkeypatch.chdir(tmp_path)  # the arena's deal sets (results/deals) are made here
    out = tmp_path / "run"
    small = ["--iterations", "2", "--train-batch-size", "200", "--minibatch-size", "100", "--num-epochs", "1"]
    summary = train_rllib.main(["--env", env_id, *flags, *small, "--checkpoint-every", "1", "--eval-deals", "2", "--out", str(out)])

    for checkpoint in ("checkpoint_000001", "checkpoint_000002", "checkpoint_final"):
        for module in modules:
            assert (out / checkpoint / "learner_group" / "learner" / "rl_module" / module).is_dir()
    assert summary["checkpoint"] == str((out / "checkpoint_final").resolve())
    with open(out / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert int(rows[0]["env_steps"]) >= 200 and int(rows[1]["env_steps"]) > int(rows[0]["env_steps"])
    for key in ("seconds", "env_steps_per_second", "sampling_env_steps_per_second", *(f"entropy_{m}" for m in modules)):
        assert float(rows[-1][key]) > 0, key
    assert np.isfinite(float(rows[-1]["episode_return_mean"]))  # deals have ended (each table has played 200 steps)
    assert (out / "learning_curve.png").stat().st_size > 0
    assert list((out / "tb").glob("events.out.tfevents.*"))
    assert json.loads((out / "config.json").read_text())["env"] == env_id
    assert (out / "threads.txt").read_text().startswith("threads: torch 1, env ")  # what the run used, logged

    evaluation = json.loads((out / "eval.json").read_text())
    assert evaluation["module"] == modules[0]
    for opponent in ("random", "rules"):
        result = evaluation[f"vs_{opponent}"]
        assert np.isfinite(result["score"]["mean"]) and result["fallbacks"] == 0  # every move its own, and legal
        assert (out / f"eval_vs_{opponent}").is_dir()

    agent = rllib.RLlibPolicyAgent.from_checkpoint(out / "checkpoint_final", modules[0])
    env = TarotMultiAgentEnv({"env_id": env_id, **options})
    obs, _ = env.reset(seed=5)
    for _ in range(40):
        ((seat, o),) = obs.items()
        action = agent.act(o["observations"], o["action_mask"])
        assert o["action_mask"][action] == 1
        obs, _, terminated, _, _ = env.step({seat: action})
        if terminated["__all__"]:
            obs, _ = env.reset()


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--env", "chess_v0"], "unknown env id 'chess_v0'"),
        (["--env", "french_tarot_v0", "--players", "7"], "--players 7 refused"),
        (["--iterations", "0"], "a number of iterations"),
        (["--train-batch-size", "100", "--minibatch-size", "200"], "above --train-batch-size"),
        (["--policies", "per_team"], "invalid choice"),
    ],
)
def test_command_line_errors_are_one_line(argv, match, capsys):
    from tarot_env.experiments.train_rllib import parse_args

    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1
