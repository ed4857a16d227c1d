"""Every env id as a Ray RLlib multi-agent env (RLlib's new API stack), with action masking.

    from ray.rllib.algorithms.ppo import PPOConfig
    from tarot_env import rllib

    name = rllib.register("ottocento_v0")                      # tune.register_env under "tarot_ottocento_v0"
    config = (
        PPOConfig()
        .environment(name)
        .multi_agent(**rllib.multi_agent("ottocento_v0"))      # one policy shared by every seat
        .rl_module(rl_module_spec=rllib.rl_module_spec("ottocento_v0"))
    )
    algo = config.build_algo()

:class:`TarotMultiAgentEnv` runs the AEC env ``tarot_env.make(env_id, **options)`` turn by turn,
as RLlib's own ``PettingZooEnv`` does:

- **Turns**: ``reset`` and ``step`` return an observation for the seat to act only (the same seat
  again when it acts twice running, as in French Tarot's discard). Agent ids are the AEC env's,
  ``player_0`` ... ``player_{n-1}``.
- **Observations**: ``{"observations": float32 (D,), "action_mask": float32 (A,)}``, both in
  ``Box(0, 1)``: the form RLlib's ``ActionMaskingTorchRLModule``
  (``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``) takes. Actions: ``Discrete(A)``.
- **Rewards**: whatever the AEC env pays a seat (at the end of a deal, after each trick with
  ``shaping=True``, or an illegal action's penalty) is held for it and handed over with its next
  observation, so that the reward keys are always the observation keys. When the episode ends,
  every seat gets its last observation (no legal action), what it is still owed, and
  ``terminated=True`` (``truncated`` where the AEC env truncates), with ``"__all__"``. RLlib's
  ``MultiAgentEpisode`` adds a reward given with an observation to the seat's last action, so each
  seat's return is the sum of its AEC rewards (tests/test_rllib.py checks it through a
  ``MultiAgentEpisode``). The sum over all seats, RLlib's ``episode_return_mean``, is 0 in
  zero-sum games.
- **Illegal actions**: ``illegal_action="terminate"`` unless the options say otherwise, so that
  RLlib's env pre-check (which samples actions without the mask) ends the episode with
  ``illegal_reward`` instead of raising. A masked policy never plays one.
- ``agents`` stays ``possible_agents`` (every seat is in every deal).

Policies: :func:`multi_agent` gives ``policies`` and ``policy_mapping_fn`` for
``AlgorithmConfig.multi_agent``: one module ``shared_policy`` for every seat (``"shared"``, the
default), or one module per seat named after it (``"per_seat"``). :func:`rl_module_spec` gives
the matching ``MultiRLModuleSpec`` of ``ActionMaskingTorchRLModule`` s. :class:`RLlibPolicyAgent`
plays a trained module in the arena (``act(observation, mask)``: its most probable legal action).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import tarot_env

#: the module of every seat with ``policies="shared"``
SHARED_POLICY = "shared_policy"
#: the ways to map seats to policies
POLICIES = ("shared", "per_seat")


class TarotMultiAgentEnv(MultiAgentEnv):
    """The AEC env of ``config["env_id"]`` as an RLlib ``MultiAgentEnv`` (see the module docstring).

    ``config``: ``{"env_id": ..., **options}``, the options as ``tarot_env.make`` takes them
    (``num_players``, ``reward``, ``shaping``, rules options ...); ``illegal_action`` is
    ``"terminate"`` unless given. RLlib passes its ``env_config`` (an ``EnvContext``, a dict).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        env_id = options.pop("env_id", None)
        if env_id not in tarot_env.ENV_IDS:
            raise ValueError(f"env_config needs an env id: env_id={env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
        options.setdefault("illegal_action", "terminate")
        self.env_id = env_id
        self.env = tarot_env.make(env_id, **options)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        first = self.possible_agents[0]
        size = self.env.observation_space(first)["observation"].shape[0]
        self.num_actions = int(self.env.action_space(first).n)
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (self.num_actions,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gym.spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._owed = dict.fromkeys(self.possible_agents, 0.0)  # rewards paid to a seat since its last observation

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {
            "observations": np.asarray(obs["observation"], dtype=np.float32),
            "action_mask": np.asarray(obs["action_mask"], dtype=np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.env.reset(seed=seed, options=options)
        while self._over():  # a deal over before anyone acts: deal again (never with a fixed deal)
            if options:
                raise ValueError(f"the fixed deal of the reset options {sorted(options)} is over before anyone acts")
            self.env.reset()
        self._owed = dict.fromkeys(self.possible_agents, 0.0)  # a deal pays nothing before its first action
        agent = self.env.agent_selection
        return {agent: self._observe(agent)}, {agent: dict(self.env.infos[agent])}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.env.agent_selection
        if agent not in action_dict:
            raise ValueError(f"it is {agent}'s turn: the action dict {sorted(action_dict)} has no action for {agent}")
        self.env.step(int(action_dict[agent]))
        self._collect()
        if self._over():
            seats = self.possible_agents  # every seat: its last observation, what it is owed, done
            terminated = {a: bool(self.env.terminations[a]) for a in seats}
            truncated = {a: bool(self.env.truncations[a]) for a in seats}
            terminated["__all__"] = all(terminated[a] for a in seats)
            truncated["__all__"] = not terminated["__all__"]  # one of the two ends the episode for RLlib
        else:
            seats = [self.env.agent_selection]
            terminated = {seats[0]: False, "__all__": False}
            truncated = {seats[0]: False, "__all__": False}
        obs = {a: self._observe(a) for a in seats}
        rewards = {a: self._owed[a] for a in seats}
        for a in seats:
            self._owed[a] = 0.0
        infos = {a: dict(self.env.infos[a]) for a in seats}
        return obs, rewards, terminated, truncated, infos

    def _collect(self) -> None:
        """Hold what the last AEC step paid each seat (``env.rewards``: that step's rewards)."""
        for a, r in self.env.rewards.items():
            self._owed[a] += float(r)

    def _over(self) -> bool:
        return all(self.env.terminations[a] or self.env.truncations[a] for a in self.possible_agents)

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


# ---------------------------------------------------------------------- registration


def env_name(env_id: str) -> str:
    """The name :func:`register` gives ``env_id`` in RLlib's registry: ``tarot_<env_id>``."""
    return f"tarot_{env_id}"


def env_creator(config: dict[str, Any]) -> TarotMultiAgentEnv:
    """The creator for ``tune.register_env``: ``config`` is ``{"env_id": ..., **options}``."""
    return TarotMultiAgentEnv(config)


def register(env_id: str, **options: Any) -> str:
    """Register ``env_id`` with ``tune.register_env`` as :func:`env_name` (``tarot_<env_id>``); the name.

    ``options`` are the env's (``num_players=5``, ``reward="normalised"`` ...); the algorithm's
    ``env_config`` is laid over them, and may name another ``env_id``."""
    from ray import tune

    if env_id not in tarot_env.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; the env ids are {', '.join(tarot_env.ENV_IDS)}")
    name = env_name(env_id)
    base = {"env_id": env_id, **options}
    tune.register_env(name, lambda config: TarotMultiAgentEnv({**base, **dict(config or {})}))
    return name


# ---------------------------------------------------------------------- policies


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """``policy_mapping_fn`` of ``policies="shared"``: every seat plays :data:`SHARED_POLICY`."""
    return SHARED_POLICY


def seat_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """``policy_mapping_fn`` of ``policies="per_seat"``: each seat plays the module named after it."""
    return str(agent_id)


def seats(env_id: str, **options: Any) -> list[str]:
    """The agent ids of ``env_id`` with these options: ``player_0`` ... ``player_{n-1}``."""
    options = {k: v for k, v in options.items() if k != "env_id"}
    return list(tarot_env.make(env_id, **options).possible_agents)


def module_ids(env_id: str, policies: str = "shared", **options: Any) -> list[str]:
    """The modules trained: :data:`SHARED_POLICY`, or one per seat (``player_0`` ...)."""
    if policies not in POLICIES:
        raise ValueError(f"policies={policies!r}: use one of {', '.join(POLICIES)}")
    return [SHARED_POLICY] if policies == "shared" else seats(env_id, **options)


def multi_agent(env_id: str, policies: str = "shared", **options: Any) -> dict[str, Any]:
    """The arguments of ``AlgorithmConfig.multi_agent``: ``policies`` and ``policy_mapping_fn``."""
    ids = module_ids(env_id, policies, **options)
    return {"policies": set(ids), "policy_mapping_fn": shared_policy if policies == "shared" else seat_policy}


def rl_module_spec(env_id: str, policies: str = "shared", model_config: dict[str, Any] | None = None, **options: Any) -> Any:
    """A ``MultiRLModuleSpec`` with an ``ActionMaskingTorchRLModule`` for each module of :func:`module_ids`.

    ``model_config``: RLlib's ``DefaultModelConfig`` fields (default: RLlib's, two hidden layers of 256)."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    ids = module_ids(env_id, policies, **options)
    specs = {m: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=dict(model_config or {})) for m in ids}
    return MultiRLModuleSpec(rl_module_specs=specs)


# ---------------------------------------------------------------------- playing a trained module


class RLlibPolicyAgent:
    """A trained RLModule as an arena agent: ``act(observation, mask)`` is its most probable legal action.

    ``module``: an ``ActionMaskingTorchRLModule`` (its forward pass masks the illegal actions; the
    argmax is masked again here, so that any module that takes the dict observation plays legally).
    """

    def __init__(self, module: Any) -> None:
        self.module = module

    @classmethod
    def from_checkpoint(cls, checkpoint: str | Path, module_id: str = SHARED_POLICY) -> RLlibPolicyAgent:
        """The module ``module_id`` of an ``algo.save()`` checkpoint (the learner's copy)."""
        from ray.rllib.core.rl_module.rl_module import RLModule

        path = Path(checkpoint) / "learner_group" / "learner" / "rl_module" / module_id
        if not path.is_dir():
            raise ValueError(f"{str(checkpoint)!r} has no module {module_id!r} (looked for {str(path)!r})")
        return cls(RLModule.from_checkpoint(path))

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        import torch
        from ray.rllib.core.columns import Columns

        legal = np.asarray(mask) > 0
        obs = {
            "observations": torch.as_tensor(np.asarray(observation, dtype=np.float32)[None]),
            "action_mask": torch.as_tensor(legal.astype(np.float32)[None]),
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
        logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
        return int(np.argmax(np.where(legal, logits, -np.inf)))
