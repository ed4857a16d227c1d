"""French Tarot (FFT rules, 3–5 players) as a PettingZoo AEC environment: ``french_tarot_v0``.

.. code-block:: python

    from tarot_env import french_tarot_v0
    env = french_tarot_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

The rules are ``rules/french_tarot.md`` (FFT *Règlement officiel*, 2012) as implemented in
:mod:`tarot_env.rules.french`; ``docs/french_tarot.md`` has the full documentation.

Agents: ``player_0`` … ``player_{n-1}`` in play order (seat ``s + 1`` plays after seat ``s``).

Every decision is an action of one ``Discrete(205)`` space:

| ids | action strings |
|---|---|
| 0–77 | ``play <card>`` |
| 78–155 | ``discard <card>`` (écart, one card per action) |
| 156–160 | ``pass``, ``bid petite``, ``bid garde``, ``bid garde_sans``, ``bid garde_contre`` |
| 161–176 | ``call <card>`` (5 players: K, Q, N, J of S, H, D, C) |
| 177–178 | ``chelem``, ``no_chelem`` (the taker, before the opening lead) |
| 179–182 | ``poignee simple``, ``poignee double``, ``poignee triple``, ``no_poignee`` (at a player's first card, only when he qualifies) |
| 183–204 | ``show <card>`` (trumps of a poignée, only with ``poignee_trumps="choose"``) |

``env.unwrapped.action_to_string(a)`` and ``env.unwrapped.string_to_action(s)`` convert;
``step`` also accepts the strings. A decision is asked only when there is a choice to make
in the rules' terms: the chelem only of the taker, the poignée only of a player who can show one.

Observation: ``{"observation": int8 vector, "action_mask": int8 vector of 205}`` (plus
``"oracle"`` with ``oracle=True``). Seats in the vector are relative to the observer.
Layout for 4 players (1366 values; 3 players: 1122, 5 players: 1638 with the call fields):

| field | offset | length | meaning |
|---|---|---|---|
| `hand` | 0 | 78 | cards in the observer's hand (card ids of docs/cards.md) |
| `decision` | 78 | 7 | the decision the observer must take now: bid, call, discard, chelem, poignee, show, play (all 0 when not his turn) |
| `dealer` | 85 | 4 | dealer, one-hot over relative seats |
| `bids` | 89 | 20 | each relative seat's bid, one-hot pass/petite/garde/garde_sans/garde_contre (0 = not spoken) |
| `taker` | 109 | 4 | taker, one-hot over relative seats (0 while bidding) |
| `contract` | 113 | 4 | contract, one-hot petite/garde/garde_sans/garde_contre |
| `chien` | 117 | 78 | the chien, once shown (petite, garde) |
| `ecart` | 195 | 78 | the écart as the observer knows it: all of it for the taker, the shown trumps for others |
| `chelem` | 273 | 1 | 1 if the taker announced a chelem |
| `poignee` | 274 | 12 | each relative seat's poignée, one-hot simple/double/triple |
| `poignee_cards` | 286 | 312 | cards shown in each relative seat's poignée |
| `played` | 598 | 312 | cards each relative seat has played (current trick included) |
| `trick` | 910 | 312 | the card each relative seat has put on the current trick |
| `leaders` | 1222 | 72 | leader of each trick so far, one-hot over relative seats, trick by trick |
| `winners` | 1294 | 72 | winner of each trick so far, one-hot over relative seats, trick by trick |

Rewards (at the end of the deal; thrown-in deals score 0):

| ``reward=`` | each player's reward |
|---|---|
| ``"score"`` (default) | the deal's score (§9: the taker ±(N−1)·S, each defender ∓S) |
| ``"normalised"`` | score / (100·(N−1)); ordinary deals fall within [−1, 1], big chelems exceed it |
| ``"win_loss"`` | sign of the score: +1, −1, or 0 for a thrown-in deal |

``shaping=True`` adds a reward after every trick: the trick's card points, + for the side
that won it and − for the other, weighted by each seat's share of the score (taker N−1, or 2
with a partner; partner and defenders 1), in the reward mode's unit. The terminal reward is
reduced by what was paid out, so the rewards of a deal always sum to the unshaped reward.
In 5-player games a shaped reward reveals the teams before they are public.

Options (keywords of ``env()``; they survive ``reset(seed=...)``): ``num_players`` (3, 4, 5),
``render_mode`` (``"ansi"``, ``"human"``), ``reward``, ``shaping``, ``oracle``, ``dealer``
(``None``: drawn at random from the seed), and every rules option of
:class:`tarot_env.rules.french.FrenchTarotConfig` (the spec's [interpretation] points).

Fixed deals: ``env.reset(options={"deal": {"dealer": 0, "hands": [[...], ...], "rest": [chien]}})``.
Records: ``env.unwrapped.record()``; ``tarot_env.replay(record)``.

Version history: v0 — first release.
"""

from __future__ import annotations

from typing import Any

from tarot_env.envs.french_tarot import FrenchTarotEnv

__all__ = ["FrenchTarotEnv", "env", "raw_env"]


def raw_env(**kwargs: Any) -> FrenchTarotEnv:
    """The environment itself."""
    return FrenchTarotEnv(**kwargs)


def env(**kwargs: Any) -> FrenchTarotEnv:
    """The environment as users should take it.

    PettingZoo classic wraps its envs in order-enforcing and illegal-move wrappers; this env
    already refuses calls out of order and illegal or malformed actions with clear errors,
    leaving the state unchanged, so it is returned unwrapped (the wrapper stack would halve
    its speed).
    """
    return FrenchTarotEnv(**kwargs)
