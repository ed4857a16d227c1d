"""Millone (Tarocchino, 2 players, to 1000) as a PettingZoo AEC environment: `millone_v0`.

| Import | `from tarot_env import millone_v0` |
|---|---|
| Actions | Discrete |
| Parallel API | Yes: `pettingzoo.make("parallel", "tarot/millone-v0")` |
| Manual Control | Yes: `tarot play millone_v0` at the terminal |
| Agents | `agents= ['player_0', 'player_1']` |
| Agents count | 2 |
| Action Shape | Discrete(195) |
| Action Values | [0, 194] |
| Observation Shape | (760,) |
| Observation Values | [0, 1] |

Millone (§11 of `docs/rules/tarocchino.md`), the two-player game of two deals: the opponent
and the dealer discard 10 each, a second deal gives them 10 more, and the dealer discards 2
more; then 20 tricks. Declarations at the first turn; a player whose running total with his
declaration would reach the target (1000) may claim and wins at once: the dealer before his
pickup, the opponent right after it, and each at his own first turn (U8, U29), counting only
first-deal cards toward the target (§11.6). Actions in this game:
`play`, `discard`, `declare` / `no_declare`, `claim` / `no_claim`, and `give` with
`matto_exchange="choose"`; never the auction.
Agents are `player_0` … `player_{n-1}` in play order (seat `s + 1` plays after seat `s`, on
his right); the dealer is drawn from the seed, and the dealer's right leads. `docs/tarocchino.md`
is the full reference for the seven Tarocchino games.

```python
from tarot_env import millone_v0

env = millone_v0.env(render_mode="ansi")
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
print(env.render())
```

## Arguments

```python
from tarot_env import millone_v0

env = millone_v0.env(render_mode=None, reward="score", shaping=False, oracle=False, dealer=None,
                     illegal_action="raise", illegal_reward=-1.0)  # and any rules option below
```

The same env: `tarot_env.make("millone_v0", ...)`, `pettingzoo.make("aec", "tarot/millone-v0", ...)`;
its Parallel form: `pettingzoo.make("parallel", "tarot/millone-v0", ...)`; one learning seat
against random legal opponents (Gymnasium): `gymnasium.make("tarot_env/Millone-v0", ...)`.
Options survive `reset(seed=...)`; an unknown option, or one of another game, is refused by name.
Every keyword with its default and values: the env's own options, then the rules options of
this game, each with the spec's default (the U numbers are the spec's open questions, §15):

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
- `episode='deal'` ('deal', 'match'): one deal per episode, or a whole game (to the target, 4 deals,
  the agreed end)
- `match_reward='deals'` ('deals', 'result'): match episodes: each deal's reward as it ends, or only
  the match result (+1/-1/0)
- `target=1000` (int ≥ 1): the game's target: Ottocento 800 (1000, 1500), Millone 1000,
  Centocinquanta 150 (151, 200), Quindici 15 (20, 21), Mattazza the penalty points that put a player
  out (3) (§8.1, §11, §12.3, §13, §14.6)
- `must_overtrump=False` (False, True): a trump played must beat the trumps in the trick when it can
  (U1)
- `matto_lead='allowed'` ('allowed', 'never'): the Matto may be led (the next card sets the suit),
  or never while other cards are held (U2)
- `matto_gift='scartino'` ('scartino', 'any'): the card given for the Matto must be a scartino when
  the side has one, or any card (U3)
- `matto_last_trick='kept'` ('kept', 'lost'): a Matto covered in the last trick is kept as usual, or
  lost to that trick's winner (U4)
- `matto_is_trump=False` (False, True): the Matto counts as a trump for the duty to trump (U19)
- `matto_exchange='auto'` ('auto', 'choose'): the card given for the Matto: chosen by the rule of
  U20, or by the Matto's owner (`give <card>`) (U20, U3)
- `mori='both'` ('both', 'grande', 'mori', 'best'): the Mori count in both the Grande and the Mori
  sequence, or in one (U5)
- `doubling=True` (True, False): declarations double like the end-of-hand count (U6)
- `declarations=True` (True, False): players may declare combinations in hand at their first turn
  (§7, §10.6)
- `keep_capotted_declarations=True` (True, False): a capotted side keeps its declarations (U7)
- `cappotto_bonus=0` (int ≥ 0): points added to a side that takes every trick (U11)
- `dealer_claims_after_pickup=True` (True, False): the dealer may claim at his first turn with his
  own declaration (U8, U21)
- `wrong_claim='refused'` ('refused', 'loses'): a claim below the target is never offered, or is
  offered and loses the game (§8.4)
- `tie='play_on'` ('play_on', 'draw'): equal totals at the end: play another hand (U9 default) /
  draw (U10 default, Quattro Scartate) / extra hand (U9, U10)
- `second_deal_first='opponent'` ('opponent', 'dealer'): who receives the second deal's first packet
  (U22)
- `first_discarder='opponent'` ('opponent', 'dealer'): who makes the first discard of 10 first (U22)

An episode is one hand by default; `episode="match"` plays the whole game. Fixed deals:
`env.reset(options={"deal": {"dealer": 0, "hands": [...], "rest": [...]}})`, or `"deals"` for the
successive hands of a match (`docs/tarocchino.md`). `env.unwrapped.record()` is the last episode's
JSON-ready record; `tarot_env.replay(record)` replays it through the rules.

## Observation Space

`env.observe(agent)` and `env.last()` give `{"observation": int8 vector, "action_mask": int8
vector of 195}`, and with `oracle=True` also `"oracle"`: what the observation hides (the other
hands, the dealer's unpicked cards, the Pozzo, the second deal, the cards out of play, the others'
discards), for centralised critics only. The observation is the observer's information state: his
hand and discards, every card played and whose pile it went to, the trick in progress, the cards
shown in declarations, the dealer / Primo / leader / soloist, the auction, declared values,
tricks won and, in a match, the running totals, penalties and the hand number. Seats are relative
(slot 0 is the observer, slot 1 the next to play); numbers are written in binary, least
significant bit first. A player's claim window is seen only by him.

Sizes (2 players): `observation` 760 values, `oracle` 434 values.

Layout for 2 players:

| field | offset | length | meaning |
|---|---|---|---|
| `hand` | 0 | 62 | cards in the observer's hand (the dealer's last 2 cards once picked up) |
| `discard` | 62 | 62 | the observer's own discards |
| `played` | 124 | 124 | cards each relative seat played in completed tricks |
| `trick` | 248 | 124 | the card each relative seat has on the table in the trick in progress |
| `won` | 372 | 124 | played cards (and the covered Matto) in each relative seat's pile |
| `shown` | 496 | 124 | cards each relative seat showed in a declaration (§7) |
| `decision` | 620 | 6 | the decision the observer must take now: auction, claim, discard, declare, play, give (all 0 when not his turn) |
| `dealer` | 626 | 2 | dealer, one-hot over relative seats |
| `primo` | 628 | 2 | the first leader (Primo di Mano), one-hot over relative seats, once play starts |
| `leader` | 630 | 2 | the leader of the trick in progress, one-hot over relative seats |
| `soloist` | 632 | 2 | Terziglio: the soloist, one-hot over relative seats |
| `contract` | 634 | 2 | Terziglio: the contract, one-hot su (with the Pozzo) / di_mio |
| `bidder` | 636 | 2 | Terziglio: the player who said posso, awaiting answers |
| `passes` | 638 | 3 | Terziglio: passes so far, thermometer |
| `trick_no` | 641 | 20 | the number of the trick in progress, one-hot |
| `tricks_won` | 661 | 10 | tricks won by each relative seat, binary |
| `first_turn_done` | 671 | 2 | 1 for each relative seat whose first turn (claim, declaration) is over |
| `declared` | 673 | 22 | each relative seat's declared points, binary |
| `my_declaration` | 695 | 11 | the value the observer's declaration would have (0 before his hand is final) |
| `claim_value` | 706 | 11 | in the observer's claim window: the value his claim would reach, binary |
| `discards_left` | 717 | 4 | discards the discarder still owes, binary |
| `totals` | 721 | 26 | match: each relative seat's running total (side total), binary magnitude then a sign bit |
| `penalties` | 747 | 6 | Mattazza match: each relative seat's penalty points, binary |
| `active` | 753 | 2 | Mattazza match: 1 for each relative seat still in the game |
| `hand_no` | 755 | 5 | match: the number of the hand, binary |

The oracle, 2 players:

| field | offset | length | meaning |
|---|---|---|---|
| `hands` | 0 | 124 | each relative seat's hand (the dealer's last 2 cards included before he picks them up) |
| `discards` | 124 | 124 | each relative seat's discards |
| `rest` | 248 | 186 | the cards not in hands: Pozzo, Millone's second deal, out of play |

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

One `Discrete(195)` space, the same in every Tarocchino game:

| ids | action strings | when |
|---|---|---|
| 0–61 | `play <card>` | play a card (card ids of docs/cards.md) |
| 62–123 | `discard <card>` | a discard, one card per action (never a Carta da 5) |
| 124–185 | `give <card>` | the card given for the Matto (`matto_exchange="choose"`) |
| 186–187 | `declare`, `no_declare` | at a first turn, with combinations in hand |
| 188–189 | `claim`, `no_claim` | a claim window (the games with a target) |
| 190–194 | `pass`, `posso`, `di_mio`, `va_bene`, `oppose` | the Terziglio auction |

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(s)` convert; `step` also
accepts the strings (any case). Cards are written as in `docs/cards.md` (`KS`, `NC`, `ANG`, `MAT`).

## Rewards

At the end of each hand:

| `reward=` | each player's reward |
|---|---|
| `"score"` (default) | own hand score − the opponent's |
| `"normalised"` | the `"score"` reward / 100 |
| `"win_loss"` | +1 for the player who scored more in the hand, −1 for the other, 0 on equal scores |

`shaping=True` adds a reward after each trick: its card points (Σ values − cards + 1) to the
side that won it and minus that to the other, in the reward mode's unit; the hand's final reward
is reduced by what was paid, so a hand's rewards sum to the unshaped ones (exactly with
`reward="score"`, to floating-point rounding with `"normalised"`).
A correct claim ends the game at once: the hand is not played, its score credits every
declaration made so far to its side (U27: the claiming side's includes the declaration it
claimed with, whole even where only its first-deal cards counted toward the target, U29), and
the claiming side wins. A claim needs a declaration worth more than 0 (U28). A wrong claim
(offered only with `wrong_claim="loses"`) loses the game; its reward is ∓ the target.
In a match, `match_reward="deals"` (default) pays each hand's reward as it ends and
`"result"` only the match result at the end (+1 / −1, 0 for a draw). `infos[agent]` after a hand
holds its `scores` (by seat), `result` and the points breakdown.

## Version History

* v0: initial release. The `illegal_action` and `illegal_reward` options and the PettingZoo and
  Gymnasium registry ids came later, without changing observations, actions or rewards.
"""

from __future__ import annotations

from tarot_env.envs.tarocchino import TarocchinoEnv, make_env_functions

__all__ = ["TarocchinoEnv", "env", "raw_env"]

env, raw_env = make_env_functions("millone", __doc__)
