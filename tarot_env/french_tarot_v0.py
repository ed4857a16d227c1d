"""French Tarot (FFT rules, 3–5 players) as a PettingZoo AEC environment: `french_tarot_v0`.

| Import | `from tarot_env import french_tarot_v0` |
|---|---|
| Actions | Discrete |
| Parallel API | Yes: `pettingzoo.make("parallel", "tarot/french_tarot-v0")` |
| Manual Control | Yes: `tarot play french_tarot_v0` at the terminal |
| Agents | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents count | 4 (`num_players`: 3 to 5) |
| Action Shape | Discrete(205) |
| Action Values | [0, 204] |
| Observation Shape | (1366,); 3 players (1122,), 5 players (1638,) |
| Observation Values | [0, 1] |

French Tarot under the rules of the Fédération Française de Tarot (*Règlement officiel*, 2012),
as specified in `docs/rules/french_tarot.md` and implemented in `tarot_env.rules.french`: the
bidding, the chien and the écart, the called King with 5 players, poignées, chelem and petit au
bout. Every decision of a deal is an agent's action, and a decision is asked only when the rules
give a choice (the chelem only of the taker, the poignée only of a player who can show one).
Agents are `player_0` … `player_{n-1}` in play order: seat `s + 1` plays after seat `s`.
`docs/french_tarot.md` is the full reference.

```python
from tarot_env import french_tarot_v0

env = french_tarot_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
print(env.render())
```

## Arguments

```python
from tarot_env import french_tarot_v0

env = french_tarot_v0.env(num_players=4, render_mode=None, reward="score", shaping=False, oracle=False,
                          dealer=None, illegal_action="raise", illegal_reward=-1.0)  # and any rules option below
```

The same env: `tarot_env.make("french_tarot_v0", ...)`, `pettingzoo.make("aec", "tarot/french_tarot-v0", ...)`;
its Parallel form: `pettingzoo.make("parallel", "tarot/french_tarot-v0", ...)`; one learning seat
against random legal opponents (Gymnasium): `gymnasium.make("tarot_env/FrenchTarot-v0", ...)`.
Options survive `reset(seed=...)`; an unknown option, or one of another game, is refused by name.
Every keyword with its default and values: the env's own options, then the rules options,
which answer the points the spec marks [interpretation], each with the spec's default:

- `num_players=4` (3, 4, 5): the number of players
- `render_mode=None` (None, 'ansi', 'human'): text view of the table from render()
- `reward='score'` ('score', 'normalised', 'win_loss'): the reward: the deal's score, scaled, or its
  sign
- `shaping=False` (False, True): a reward after each trick (the deal's rewards sum to the same)
- `oracle=False` (False, True): adds the hidden information to the observation (centralised critics)
- `dealer=None` (None (random), a seat): who deals
- `illegal_action='raise'` ('raise', 'terminate'): an illegal action raises (state unchanged), or
  ends the episode
- `illegal_reward=-1.0` (a number): the offender's reward when illegal_action='terminate' ends the
  episode
- `petit_sec='annul'` ('annul', 'redeal'): §2 / §15.14. `"annul"`: a deal with a petit sec ends at
  once, every score 0, no decision asked. `"redeal"`: a random deal with a petit sec is replaced at
  once by the next dealer's deal (fixed deals are always annulled).
- `chelem_announcement='after_ecart'` ('after_ecart', 'before_ecart', 'never'): §5.1 / §15.6, 15.13.
  When the taker may announce a chelem: `"after_ecart"` (after the écart, or after bidding for garde
  sans/contre, before the opening lead), `"before_ecart"` (right after bidding and the call, before
  the chien is taken up, as Pagat and the seed allow) or `"never"`.
- `excuse_last_trick='changes_camp'` ('changes_camp', 'trick_winner'): §6.3 / §15.2. The Excuse
  played to the last trick outside a chelem `"changes_camp"` (FFT) or goes to the `"trick_winner"`
  (variant).
- `excuse_chelem_needs_announcement=False` (False, True): §6.3 / §15.3. Whether the Excuse wins the
  last trick for a side that won every earlier trick only when a chelem was announced.
- `excuse_chelem_defence=True` (False, True): §6.3 / §15.3. Whether that rule applies to the defence
  too.
- `unpaid_excuse_debt='four_points'` ('four_points', 'excuse_keeps_value'): §6.3 / §15.4. When the
  Excuse's side wins no trick, the exchange is still booked, the Excuse worth 4 points
  (`"four_points"`, FFT, applied to both sides) or it keeps its 4.5 (`"excuse_keeps_value"`).
- `double_chelem_penalty=True` (False, True): §9.1 / §15.5. A failed announced chelem and a defence
  chelem in the same deal cost 200 + 200 (True) or 200 (False, as TarotClub).
- `jack_call='all_knights'` ('all_knights', 'all_queens'): §10 / §15.7. A Jack may be called by a
  taker holding all Kings, Queens and Knights (`"all_knights"`) or all Kings and Queens
  (`"all_queens"`, literal).
- `excuse_opening_lead='next_player'` ('next_player', 'lapses'): §10 / §15.8. When the Excuse opens
  trick 1 in the 5-player game, the called-suit restriction passes to the `"next_player"` or
  `"lapses"`.
- `called_suit_only_hand='lead_anything'` ('lead_anything', 'excuse_if_held'): §15.11. A 5-player
  opening leader with nothing but cards of the called suit (and perhaps the Excuse) may
  `"lead_anything"`, or must lead the Excuse if he holds it (`"excuse_if_held"`). With 15-card hands
  this cannot arise in a dealt game (13 other cards of the suit and the Excuse make 14); the option
  is kept as the spec asks and tested on edited states.
- `poignee_forced_discards=True` (False, True): §5.2 / §15.9. Trumps the taker was forced to discard
  (and so showed) may be shown again in his poignée.
- `petit_au_bout_defence_chelem_shift=True` (False, True): §7 / §15.12. In a defence chelem with the
  Excuse played to the last trick, the Petit in the penultimate trick is au bout.
- `poignee_trumps='lowest'` ('lowest', 'highest', 'choose'): §5.2 and docs/interface.md §3. Which
  trumps a poignée shows when the player holds more than the size: the `"lowest"` (trumps already
  shown in the écart first), the `"highest"`, or `"choose"` them one by one (`show` actions).
- `chien_after_packets=None` (None (the pattern of the player count), or a list of packet numbers):
  §2 / §15.10. The packets after which one card goes to the chien when a random deal is dealt;
  `None` for the default pattern of the player count.

Fixed deals: `env.reset(options={"deal": {"dealer": 0, "hands": [...], "rest": [...]}})` (the hands
in seat order, the chien in `rest`). After a deal, `env.unwrapped.record()` is its JSON-ready
record and `tarot_env.replay(record)` replays it through the rules.

## Observation Space

`env.observe(agent)` and `env.last()` give `{"observation": int8 vector, "action_mask": int8
vector of 205}`, and with `oracle=True` also `"oracle"`: what the observation hides (every hand,
the chien, the whole écart, the secret partner), for centralised critics only. The observation is
the player's information state: his hand, everything public so far, and what only he knows (his
écart as taker; the partner's identity to the partner). Seats are relative: slot 0 is the
observer, slot 1 the next player after him.

Sizes of `observation`: 3 players 1122, 4 players 1366, 5 players 1638; of `oracle`: 3 players 393,
4 players 472, 5 players 551.

With 5 players the fields `called`, `partner` and `alone` follow `contract`. Layout for 4
players (`python -m tarot_env.encoding.french` prints every player count):

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

The oracle, 4 players:

| field | offset | length | meaning |
|---|---|---|---|
| `hands` | 0 | 312 | every hand, by relative seat |
| `chien` | 312 | 78 | the chien as dealt |
| `ecart` | 390 | 78 | the whole écart |
| `partner` | 468 | 4 | the secret partner (5 players), one-hot over relative seats |

`env.state()` (space `env.state_space`) is seat 0's observation followed by the oracle block:
the whole deal, for centralised critics.

### Legal Actions Mask

The legal actions of the agent to act are the `action_mask` of its observation (1 = legal);
the mask is all zeros for every other agent. `env.unwrapped.legal_actions()` lists them as ids.
An illegal action raises `tarot_env.IllegalActionError` (a `ValueError`) that names the action,
says why it is refused and lists the legal ones, leaving the state unchanged. With
`illegal_action="terminate"` it ends the episode instead, as PettingZoo's
`TerminateIllegalWrapper` does: the offender is rewarded `illegal_reward` (-1 by default), the
others 0, and `infos[agent]["illegal_action"]` says what was refused and why.

## Action Space

One `Discrete(205)` space for every player count:

| ids | action strings | when |
|---|---|---|
| 0–77 | `play <card>` | play a card (card ids of docs/cards.md) |
| 78–155 | `discard <card>` | the taker's écart, one card per action |
| 156–160 | `pass`, `bid petite`, `bid garde`, `bid garde_sans`, `bid garde_contre` | bidding |
| 161–176 | `call <card>` | 5 players: the King (Queen, Knight, Jack) the taker calls |
| 177–178 | `chelem`, `no_chelem` | the taker, before the opening lead |
| 179–182 | `poignee simple`, `poignee double`, `poignee triple`, `no_poignee` | at a player's first card, only when he holds a poignée |
| 183–204 | `show <card>` | the trumps of a poignée, one per action (`poignee_trumps="choose"`) |

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(s)` convert; `step` also
accepts the strings (any case). Cards are written as in `docs/cards.md` (`KS`, `T21`, `EX`).

## Rewards

At the end of the deal (a thrown-in or annulled deal scores 0):

| `reward=` | each player's reward |
|---|---|
| `"score"` (default) | the deal's score (§9: the taker ±(N−1)·S, each defender ∓S; with a partner, taker ±2S, partner ±S) |
| `"normalised"` | score / (100·(N−1)); ordinary deals fall within [−1, 1], big chelems exceed it |
| `"win_loss"` | sign of the score: +1, −1, or 0 for a thrown-in deal |

`shaping=True` adds a reward after every trick: the trick's card points, + for the side that won
it and − for the other, weighted by each seat's share of the score (taker N−1, or 2 with a
partner; partner and defenders 1), in the reward mode's unit. The terminal reward is reduced by
what was paid out, so the rewards of a deal always sum to the unshaped reward. In 5-player games
a shaped reward reveals the teams before they are public. `infos[agent]` at the end holds the
result (`result`, `taker`, `partner`, `contract`, `attack_points`, `made`, ...).

## Version History

* v0: initial release. The `illegal_action` and `illegal_reward` options and the PettingZoo and
  Gymnasium registry ids came later, without changing observations, actions or rewards.
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
