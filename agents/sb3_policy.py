"""Stable-Baselines3 policies as agents: a trained (Maskable)PPO plays a seat, or a frozen copy of it does.

>>> from tarot_env.agents.sb3_policy import SB3PolicyAgent, snapshot
>>> agent = SB3PolicyAgent(model)               # follows the model as it keeps training
>>> rival = snapshot(model)                     # a frozen copy: self-play against past selves
>>> env.set_opponents(rival)                    # SingleAgentEnv / TarotVecEnv

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import copy
import inspect
import itertools
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import is_image_space, preprocess_obs
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class BFloat16FirstLayer(BaseFeaturesExtractor):
    """The network's first hidden layer, computed in bfloat16: ``tanh(W x + b)``.

    The observations are 0/1 cards and small counts (exact in bfloat16), and the first layer is
    most of a policy's arithmetic (1,366 inputs to 256 units for French Tarot with 4 players,
    against 256 x 256 for the next). On processors with bfloat16 instructions (``avx512_bf16``,
    AMX) its matrix products run about twice as fast, which makes a PPO update about a third
    faster; the weights, their gradients and every later layer stay in float32, and the
    products accumulate in float32. Rollouts, updates, snapshots and evaluation all compute
    the layer the same way, so the policy is one function throughout. On a processor without
    bfloat16 instructions it is correct but slower: train with ``--no-bf16-first-layer``.

    Used by experiments/train.py as each of the policy's and the value's feature extractor
    (``share_features_extractor=False``), with the rest of ``net_arch`` after it.
    """

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        self.linear = th.nn.Linear(int(np.prod(observation_space.shape)), features_dim)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        w, b = self._bf16_weights()
        y = th.nn.functional.linear(observations.flatten(1).to(th.bfloat16), w, b)
        return th.tanh(y.float())

    def _bf16_weights(self) -> tuple[th.Tensor, th.Tensor]:
        """The weights in bfloat16. Outside autograd (rollouts, opponents, evaluations) the copy is
        kept until the weights change (an optimizer step or a load bumps their version): converting
        1,366 x 256 weights cost a snapshot opponent about a tenth of its call."""
        w, b = self.linear.weight, self.linear.bias
        if th.is_grad_enabled():
            return w.to(th.bfloat16), b.to(th.bfloat16)
        key = (w.data_ptr(), w._version, b.data_ptr(), b._version)
        cached = getattr(self, "_bf16_cache", None)
        if cached is None or cached[0] != key:
            cached = (key, w.detach().to(th.bfloat16), b.detach().to(th.bfloat16))
            self._bf16_cache = cached
        return cached[1], cached[2]


class SharedTrunk(BaseFeaturesExtractor):
    """The trunk the policy and the value share: the first hidden layer (in bfloat16 with
    ``bf16_first_layer``, as :class:`BFloat16FirstLayer`), then the other layers of ``net_arch``, all ``tanh``.

    Why shared: a PPO update costs one pass of the network per sample and term, and two separate
    256-256 networks (SB3's default for actor-critic policies) pay the 1,366-input first layer twice,
    forward and backward. One trunk with a linear policy head and a linear value head over its last
    layer halves that; measured on French Tarot (4 players), it learns as well (docs/performance.md,
    "The learner"). Used by experiments/train.py with ``share_features_extractor=True`` and empty
    ``net_arch`` heads (SB3's ``action_net`` and ``value_net`` are then the two linear heads).
    """

    def __init__(self, observation_space: spaces.Box, net_arch: tuple[int, ...] = (256, 256), bf16_first_layer: bool = True) -> None:
        if not net_arch:
            raise ValueError("the shared trunk needs at least one hidden layer in net_arch")
        super().__init__(observation_space, int(net_arch[-1]))
        inputs = int(np.prod(observation_space.shape))
        self.first = BFloat16FirstLayer(observation_space, int(net_arch[0])) if bf16_first_layer else None
        self.first_float = None if bf16_first_layer else th.nn.Linear(inputs, int(net_arch[0]))
        layers: list[th.nn.Module] = []
        for a, b in itertools.pairwise(net_arch):
            layers += [th.nn.Linear(int(a), int(b)), th.nn.Tanh()]
        self.rest = th.nn.Sequential(*layers)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        if self.first is not None:
            h = self.first(observations)
        else:
            h = th.tanh(self.first_float(observations.flatten(1)))  # type: ignore[misc]
        return self.rest(h)


class OracleCriticTrunks(BaseFeaturesExtractor):
    """Two trunks for an asymmetric actor-critic (PerfectDou, NeurIPS 2022; Baisero & Amato, AAMAS 2022):
    the actor's over the first ``observation_size`` columns (the player's observation), the critic's
    over every column (the observation followed by the oracle row, the hidden cards:
    :class:`~tarot_env.wrappers.TarotVecEnv` with ``critic_oracle=True``). Each is a
    :class:`SharedTrunk` of ``net_arch`` (the first layer in bfloat16 with ``bf16_first_layer``);
    the features are ``[actor's, critic's]``, which :class:`OracleCriticPolicy` hands to its policy
    head and its value head half by half.

    The policy must never read the hidden cards (a player does not see them when he plays), while
    a value that knows them is a better baseline: the returns' variance that the deal's cards
    explain is taken out of the advantages. The value only serves the training, so the policy that
    is kept plays from the observation alone.
    """

    def __init__(
        self, observation_space: spaces.Box, observation_size: int, net_arch: tuple[int, ...] = (256, 256), bf16_first_layer: bool = True
    ) -> None:
        width = int(np.prod(observation_space.shape))
        size = int(observation_size)
        if not 0 < size < width:
            raise ValueError(f"observation_size {size} must be below the {width} columns of the observation and the oracle together")
        if not net_arch:
            raise ValueError("the oracle critic's trunks need at least one hidden layer in net_arch")
        super().__init__(observation_space, 2 * int(net_arch[-1]))
        self.observation_size, self.width = size, width
        self.bf16_first_layer = bool(bf16_first_layer)
        low, high = np.broadcast_to(observation_space.low, (width,)), np.broadcast_to(observation_space.high, (width,))
        actor_space = spaces.Box(low[:size], high[:size], dtype=observation_space.dtype)  # type: ignore[arg-type]
        self.actor = SharedTrunk(actor_space, net_arch, bf16_first_layer)
        self.critic = SharedTrunk(observation_space, net_arch, bf16_first_layer)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        obs = observations.flatten(1)
        if obs.shape[1] != self.width:
            raise ValueError(f"observations of {obs.shape[1]} columns: the critic takes {self.width} (observation and oracle)")
        if not self.bf16_first_layer and not th.is_floating_point(obs):
            obs = obs.float()
        return th.cat([self.actor_features(obs), self.critic(obs)], dim=1)

    def actor_features(self, observations: th.Tensor) -> th.Tensor:
        """The actor's trunk alone, over observations of ``observation_size`` columns (what an opponent,
        a snapshot or an evaluation gives) or of the full width (its first columns are taken)."""
        obs = observations.flatten(1)
        if obs.shape[1] not in (self.observation_size, self.width):
            raise ValueError(
                f"observations of {obs.shape[1]} columns: the policy takes {self.observation_size} (the observation) "
                f"or {self.width} (the observation followed by the oracle)"
            )
        obs = obs[:, : self.observation_size]
        if not self.bf16_first_layer and not th.is_floating_point(obs):
            obs = obs.float()  # SB3's preprocessing of a Box, as extract_features does
        return self.actor(obs)


class _HalfAndHalf(th.nn.Module):
    """The ``mlp_extractor`` of :class:`OracleCriticPolicy`: the first ``actor`` features are the
    policy's latent, the rest the value's (no layers: the heads are linear over the trunks)."""

    def __init__(self, actor: int, critic: int) -> None:
        super().__init__()
        self.latent_dim_pi, self.latent_dim_vf = int(actor), int(critic)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return features[:, : self.latent_dim_pi]

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return features[:, self.latent_dim_pi :]


class MaskedSoftmaxPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's maskable actor-critic policy, with the masked distribution computed directly.

    ``MaskableCategorical`` builds a torch ``Categorical`` (a ``logsumexp`` over the actions) three
    times per rollout step and draws with ``multinomial``: on French Tarot (4 players, 256 tables)
    that is a quarter of the rollout's time. Here the illegal actions' logits are set to -1e8 (as
    sb3-contrib does), one ``log_softmax`` gives every log-probability, a draw inverts the cumulative
    distribution (:func:`draw`) and the entropy is ``-sum p log p`` over the legal actions: the same distribution, the same
    log-probabilities, entropies and gradients as the parent's (tests/test_sb3_policy.py checks
    it), in one vector operation each. ``predict`` and ``get_distribution`` are the parent's.
    """

    def extract_features(self, obs: th.Tensor, features_extractor: BaseFeaturesExtractor | None = None) -> Any:
        """The parent's, except that integer observations go to a bfloat16 first layer as they are: SB3's
        preprocessing would convert them to float32 first, which the layer then converts to bfloat16
        (the same values: the observations are small integers, exact in both), and the float32 copy
        of 1,024 x 1,366 inputs cost a rollout step's forward pass a tenth of its time."""
        extractor = self.features_extractor if features_extractor is None else features_extractor
        raw = not th.is_floating_point(obs) and not is_image_space(self.observation_space)  # images are scaled by 1/255 first
        if self.share_features_extractor and _takes_integers(extractor) and raw:
            return extractor(obs)
        return super().extract_features(obs, features_extractor)

    def action_logits(self, obs: th.Tensor) -> th.Tensor:
        """The actor's logits alone (no value head): what an opponent or an evaluation needs to act."""
        if self.share_features_extractor:
            features = self.extract_features(obs)
        else:  # the actor's extractor only
            features = self.pi_features_extractor(preprocess_obs(obs, self.observation_space, self.normalize_images))
        return self.action_net(self.mlp_extractor.forward_actor(features))

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def _log_probs(self, latent_pi: th.Tensor, action_masks: Any) -> tuple[th.Tensor, th.Tensor | None]:
        """Every action's log-probability under the masked softmax, and the legal actions' mask (None: all legal)."""
        logits = self.action_net(latent_pi)
        if action_masks is None:
            return th.log_softmax(logits, dim=1), None
        mask = th.as_tensor(action_masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
        # where(), not masked_fill(): the same values, at a third of the cost on (1,024, 205) logits
        return th.log_softmax(th.where(mask, logits, MASKED_LOGIT), dim=1), mask

    def forward(
        self, obs: th.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        log_probs, _ = self._log_probs(latent_pi, action_masks)
        if deterministic:
            actions = log_probs.argmax(dim=1)
        else:
            actions = draw(log_probs)
        return actions, values, log_probs.gather(1, actions[:, None]).squeeze(1)

    def evaluate_actions(
        self, obs: th.Tensor, actions: th.Tensor, action_masks: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        latent_pi, latent_vf = self._latents(obs)
        log_probs, mask = self._log_probs(latent_pi, action_masks)
        log_prob = log_probs.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        if mask is not None:  # an illegal action's p log p is 0: exp() of its -1e8 takes the slow path of underflow
            log_probs = log_probs.masked_fill(~mask, 0.0)
            entropy = -(log_probs.exp().masked_fill(~mask, 0.0) * log_probs).sum(dim=1)
        else:
            entropy = -(log_probs.exp() * log_probs).sum(dim=1)
        return self.value_net(latent_vf), log_prob, entropy


class OracleCriticPolicy(MaskedSoftmaxPolicy):
    """:class:`MaskedSoftmaxPolicy` with an asymmetric critic: :class:`OracleCriticTrunks` as its features
    extractor (``features_extractor_kwargs``: ``observation_size``, ``net_arch``, ``bf16_first_layer``),
    the policy head linear over the actor's trunk, the value head linear over the critic's.

    The observations it trains on are ``[observation, oracle]`` (``TarotVecEnv(critic_oracle=True)``);
    the policy reads the first ``observation_size`` columns only, so the policy gradient never
    reaches the critic's trunk and the value loss never reaches the actor's. To act,
    :meth:`action_logits` (what :class:`SB3PolicyAgent`, snapshots and the evaluations call) runs the
    actor's trunk alone, on observations with or without the oracle columns: a saved model plays
    any seat of a table from the observation, as any other model does. ``predict`` checks the
    observations against the training's width: use :class:`SB3PolicyAgent` to play observations alone.
    """

    features_extractor: OracleCriticTrunks

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("features_extractor_class") is not OracleCriticTrunks:
            raise ValueError("OracleCriticPolicy needs features_extractor_class=OracleCriticTrunks (its actor's and critic's trunks)")
        if not kwargs.get("share_features_extractor", True):
            raise ValueError("OracleCriticPolicy keeps its two trunks in one features extractor: share_features_extractor=True")
        super().__init__(*args, **kwargs)

    #: the actor's input width: what a table's observation must have for this policy to play it
    @property
    def actor_observation_shape(self) -> tuple[int, ...]:
        return (self.features_extractor.observation_size,)

    def _build_mlp_extractor(self) -> None:
        trunks = self.features_extractor
        self.mlp_extractor = _HalfAndHalf(trunks.actor.features_dim, trunks.critic.features_dim)

    def action_logits(self, obs: th.Tensor) -> th.Tensor:
        """The actor's logits from its own trunk: observations of ``observation_size`` columns or of the full width."""
        return self.action_net(self.features_extractor.actor_features(obs))

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> Any:
        """The parent's distribution, from the actor's trunk alone (the critic's is not run)."""
        distribution = self.action_dist.proba_distribution(action_logits=self.action_logits(obs))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution


def draw(log_probs: th.Tensor) -> th.Tensor:
    """One action a row drawn from ``exp(log_probs)`` by inverting its cumulative distribution with one
    uniform number a row. A Gumbel-max draw needs a uniform number per action (205 for French Tarot),
    and torch's generator made that a sixth of a snapshot opponent's call. An action of probability 0
    (an illegal one) is never drawn: the distribution does not rise at it, and ``right=True`` takes
    the first action whose cumulative probability exceeds the number."""
    cdf = th.softmax(log_probs, dim=1).cumsum(dim=1)  # = exp(log_probs); softmax's exp is fast where exp() of -1e8 is not
    u = th.rand((cdf.shape[0], 1), dtype=cdf.dtype, device=cdf.device) * cdf[:, -1:]  # below the total: a rounding-safe draw
    return th.searchsorted(cdf, u, right=True).squeeze(1).clamp_(max=cdf.shape[1] - 1)


def _takes_integers(extractor: Any) -> bool:
    """Whether ``extractor`` converts integer observations itself: a trunk whose first layer is in bfloat16."""
    if isinstance(extractor, OracleCriticTrunks):
        return extractor.bf16_first_layer
    return isinstance(extractor, SharedTrunk) and extractor.first is not None


#: the logit an illegal action gets (sb3-contrib's value: finite, so that 0 * logit is 0 in the entropy)
MASKED_LOGIT = -1e8


class SB3PolicyAgent:
    """An agent (``act(observations (B, D), masks (B, A)) -> actions (B,)``) from an SB3 model or policy.

    ``model`` is a ``MaskablePPO``/``PPO`` (its ``.policy`` is used, so the agent follows the
    model's training) or a policy itself. Actions are drawn from the policy's distribution
    restricted to the legal actions (``deterministic=True``: the most probable legal one). A
    ``MaskablePPO`` policy takes the masks itself; for other policies the illegal actions'
    logits are set to ``-inf`` here, so that the agent never plays an illegal action either.
    Sampling uses torch's random generator (``torch.manual_seed`` to reproduce).
    """

    name = "sb3"

    def __init__(self, model: Any, deterministic: bool = False) -> None:
        self.policy = getattr(model, "policy", model)
        self.deterministic = deterministic
        self._maskable = "action_masks" in inspect.signature(self.policy.predict).parameters
        # an actor-critic policy is asked for its logits directly (one forward pass, no value head,
        # none of predict()'s conversions): what opponents and evaluations call thousands of times
        self._fast = hasattr(self.policy, "get_distribution") and hasattr(self.policy, "obs_to_tensor")

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray | int:
        """One action per row (an int for a single observation and mask of shape ``(A,)``, as ``RandomAgent``)."""
        obs = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        single = masks.ndim == 1
        if single:
            obs, masks = obs[None], masks[None]
        if not masks.any(axis=1).all():
            raise ValueError("an action mask with no legal action was given to SB3PolicyAgent.act")
        actions = self._masked_predict(obs, masks) if self._fast or not self._maskable else self._predict(obs, masks)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        return int(actions[0]) if single else actions

    def _predict(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = self.policy.predict(obs, deterministic=self.deterministic, action_masks=masks)
        return actions

    def _masked_predict(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's categorical logits with the illegal actions at ``-inf``: the most probable
        legal action, or one drawn from the restricted distribution (as a maskable policy does)."""
        policy = self.policy
        if policy.training:  # a live model's policy after an update (walking the modules costs as much as the layers)
            policy.set_training_mode(False)
        with th.no_grad():
            logits = self._logits(th.as_tensor(obs, device=policy.device))
            logits = th.where(th.as_tensor(masks, device=logits.device), logits, -th.inf)
            if self.deterministic:
                actions = logits.argmax(dim=1)
            else:
                # a draw from softmax(logits) (one uniform number a row, where multinomial
                # costs as much as the network's layers on small batches)
                actions = draw(th.log_softmax(logits, dim=1))
        return actions.cpu().numpy()

    def _logits(self, obs: th.Tensor) -> th.Tensor:
        """The action logits of an actor-critic policy for observations: its actor only (the
        value head is not needed to act), without the distribution objects ``predict`` builds."""
        policy = self.policy
        if isinstance(policy, MaskedSoftmaxPolicy):
            return policy.action_logits(obs)
        obs = obs.float()
        if hasattr(policy, "pi_features_extractor") and hasattr(policy, "action_net"):
            features = policy.pi_features_extractor(preprocess_obs(obs, policy.observation_space, policy.normalize_images))
            return policy.action_net(policy.mlp_extractor.forward_actor(features))
        return policy.get_distribution(obs).distribution.logits


def snapshot(model: Any, deterministic: bool = False) -> SB3PolicyAgent:
    """A frozen copy of ``model``'s current policy as an agent: later training does not change it."""
    source = getattr(model, "policy", model)
    # A new policy from the same constructor parameters with the weights copied (as BasePolicy.load
    # does): deepcopy fails on the distribution tensors a policy keeps from its last forward pass.
    policy = type(source)(**source._get_constructor_parameters())
    policy.load_state_dict(copy.deepcopy(source.state_dict()))
    policy.to(source.device)
    policy.set_training_mode(False)
    for parameter in policy.parameters():
        parameter.requires_grad_(False)
    agent = SB3PolicyAgent(policy, deterministic=deterministic)
    agent.name = "snapshot"
    return agent
