"""The one table of env facts: one frozen :class:`EnvFacts` row per env id, in :data:`ENVS`.

Everything the code above the rules asks about an env (its family, the title shown to people,
the player counts and the default one, the deck, the rules options and their allowed values, the
leaderboard's table names, where its rules are written) is a field or a method of its row. The
registry, the vector envs, the CLI, the web room, the arena, the suite and the docs generator read
the row; no other module asks which family an env is by its name.

Why here: these facts were written in many places (``is_french`` three ways, the player counts
three times, the default count twice), so a new env had to be taught to each front end. The rows
are made from where the rules keep them (:class:`~tarot_env.rules.french.config.FrenchTarotConfig`
and its choices, the Tarocchino :class:`~tarot_env.rules.bolognese.game_specs.GameSpec` rows and
``OPTIONS``), so the table cannot drift from what ``make`` accepts.

    >>> from tarot_env.env_facts import facts
    >>> facts("mattazza_v0").player_counts, facts("mattazza_v0").default_players
    ((3, 4, 5, 6), 4)
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass
from typing import Any, Literal

from tarot_env.cards.bolognese import BOLOGNESE_DECK
from tarot_env.cards.deck import Deck
from tarot_env.cards.french import FRENCH_DECK
from tarot_env.rules.bolognese.deal import GAMES as TAROCCHINO_GAMES
from tarot_env.rules.bolognese.game_specs import GAMES as GAME_SPECS
from tarot_env.rules.bolognese.game_specs import GameSpec
from tarot_env.rules.french.config import _CHOICES as FRENCH_CHOICES
from tarot_env.rules.french.config import FrenchTarotConfig

Family = Literal["french", "tarocchino"]

#: the keywords every env takes besides its rules options: ``(default, allowed, description)``
ENV_OPTIONS: dict[str, tuple[Any, str, str]] = {
    "render_mode": (None, "None, 'ansi', 'human'", "text view of the table from render()"),
    "reward": ("score", "'score', 'normalised', 'win_loss'", "the reward: the deal's score, scaled, or its sign"),
    "shaping": (False, "False, True", "a reward after each trick (the deal's rewards sum to the same)"),
    "oracle": (False, "False, True", "adds the hidden information to the observation (centralised critics)"),
    "dealer": (None, "None (random), a seat", "who deals"),
    "illegal_action": ("raise", "'raise', 'terminate'", "an illegal action raises (state unchanged), or ends the episode"),
    "illegal_reward": (-1.0, "a number", "the offender's reward when illegal_action='terminate' ends the episode"),
}

#: one rules option as ``tarot list`` and the env docs show it: ``(name, default, allowed, description)``
Option = tuple[str, Any, str, str]


@dataclass(frozen=True)
class EnvFacts:
    """What the code above the rules knows of one env id."""

    #: the env id (``french_tarot_v0``, ``ottocento_v0`` ...)
    env_id: str
    #: the game family, which decides the rules package, the deck and the agents' bot
    family: Family
    #: the rules' name of the game: the env id without ``_v0`` (a Tarocchino ``GameSpec``'s name)
    game: str
    #: the name shown to people (``French Tarot``, ``Quattro Scartate``)
    title: str
    #: the player counts the env accepts (``num_players``), in increasing order
    player_counts: tuple[int, ...]
    #: the player count of an env made without ``num_players``
    default_players: int
    #: the card deck its actions and records name
    deck: Deck
    #: the rules text (the § references of errors and options)
    rules_doc: str
    #: the guide to the env (options, observations)
    guide_doc: str
    #: what the rules text's references are, in words (``tarot list``)
    rule_refs: str
    #: cards written in this deck's notation, for a player's typo
    card_examples: str

    @property
    def french(self) -> bool:
        """French Tarot (the deal is an episode, no match); else a Tarocchino game."""
        return self.family == "french"

    @property
    def module(self) -> str:
        """The env module that exposes ``env()`` and ``raw_env()``."""
        return f"tarot_env.{self.env_id}"

    @property
    def spec(self) -> GameSpec | None:
        """The Tarocchino game's row (its sides, scoring ...), ``None`` for French Tarot."""
        return None if self.french else GAME_SPECS[self.game]

    @property
    def matches(self) -> bool:
        """Whether the env plays match episodes (``episode='match'``): the Tarocchino games."""
        return not self.french

    @property
    def partners(self) -> bool:
        """Whether the players sit as two sides of partners (seat and seat + 2)."""
        return self.spec is not None and self.spec.sides == "partners"

    @property
    def penalty_scoring(self) -> bool:
        """Whether a hand's loser takes a penalty (Mattazza): not losing a hand is winning it."""
        return self.spec is not None and self.spec.scoring == "penalty"

    @property
    def tables(self) -> tuple[str, ...]:
        """The leaderboard's (and the benchmark's) table names: the env id for a game of one count,
        ``<env_id>_<n>p`` for each count where there are several (``french_tarot_v0_4p``)."""
        if len(self.player_counts) == 1:
            return (self.env_id,)
        return tuple(f"{self.env_id}_{n}p" for n in self.player_counts)

    def table(self, num_players: int | None = None) -> str:
        """The table name of this env at ``num_players`` (``None``: the default count)."""
        n = self.default_players if num_players is None else num_players
        if n not in self.player_counts:
            raise ValueError(f"no table for {self.env_id!r} with {num_players} players; the tables are {', '.join(self.tables)}")
        return self.env_id if len(self.player_counts) == 1 else f"{self.env_id}_{n}p"

    def players_text(self) -> str:
        """The player counts in words, as ``tarot list`` prints them: ``4``, ``3, 4, 5 (default 4)``, ``3 to 6 (default 4)``."""
        counts = self.player_counts
        if len(counts) == 1:
            return str(counts[0])
        if self.french:
            return f"{', '.join(map(str, counts))} (default {self.default_players})"
        return f"{counts[0]} to {counts[-1]} (default {self.default_players})"

    def players_allowed(self) -> str:
        """The player counts as a sentence ends: ``4``, ``3, 4 or 5``."""
        counts = self.player_counts
        return str(counts[0]) if len(counts) == 1 else ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"

    def options(self) -> list[Option]:
        """Each rules option ``(name, default, allowed, description)``, ``num_players`` included."""
        return _french_options() if self.french else _tarocchino_options(self.game)


def _french_row() -> EnvFacts:
    return EnvFacts(
        env_id="french_tarot_v0",
        family="french",
        game="french_tarot",
        title="French Tarot",
        player_counts=tuple(FRENCH_CHOICES["num_players"]),
        default_players=FrenchTarotConfig().num_players,
        deck=FRENCH_DECK,
        rules_doc="docs/rules/french_tarot.md",
        guide_doc="docs/french_tarot.md",
        rule_refs="§ references are its sections",
        card_examples="KS, 10H, T21, EX",
    )


def _tarocchino_row(game: str) -> EnvFacts:
    spec = GAME_SPECS[game]
    return EnvFacts(
        env_id=f"{game}_v0",
        family="tarocchino",
        game=game,
        title=spec.title,
        player_counts=tuple(spec.players),
        default_players=spec.default_players,
        deck=BOLOGNESE_DECK,
        rules_doc="docs/rules/tarocchino.md",
        guide_doc="docs/tarocchino.md",
        rule_refs="§ and U references are its sections and decisions",
        card_examples="KS, AD, 10B, ANG, M1, MAT",
    )


#: env id -> its facts, in the order the package lists its envs (French Tarot, then the Tarocchino games)
ENVS: dict[str, EnvFacts] = {row.env_id: row for row in (_french_row(), *(_tarocchino_row(g) for g in TAROCCHINO_GAMES))}
#: the env ids, in :data:`ENVS`'s order
ENV_IDS: tuple[str, ...] = tuple(ENVS)


def facts(env_id: str) -> EnvFacts:
    """The row of ``env_id``; ``ValueError`` naming the env ids for any other name."""
    try:
        return ENVS[env_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown env id {env_id!r}; the env ids are {', '.join(ENV_IDS)}") from None


def is_french(env_id: str) -> bool:
    """Whether ``env_id`` is French Tarot (read from its row; an unknown id is refused)."""
    return facts(env_id).french


#: every table name -> (env id, player count, or None for the game's only count), in :data:`ENVS`'s order
LEADERBOARD_TABLES: dict[str, tuple[str, int | None]] = {
    name: (row.env_id, None if len(row.player_counts) == 1 else n)
    for row in ENVS.values()
    for name, n in zip(row.tables, row.player_counts)
}


# ------------------------------------------------------------------------------------- options
def _french_docs() -> dict[str, str]:
    """Each option's description, from the ``Attributes:`` section of FrenchTarotConfig's docstring."""
    doc = inspect.cleandoc(FrenchTarotConfig.__doc__ or "")  # the first line is not indented: dedent would keep the rest
    out: dict[str, str] = {}
    name = None
    for line in doc.splitlines():
        m = re.match(r"^\s{4}(\w+): (.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2).strip()
        elif name and line.startswith(" " * 8):
            out[name] += " " + line.strip()
        elif not line.strip():
            name = None
    return out


def _french_options() -> list[Option]:
    """``(name, default, allowed, description)`` for each French Tarot rules option."""
    docs = _french_docs()
    out = []
    for f in dataclasses.fields(FrenchTarotConfig):
        if f.name in FRENCH_CHOICES:
            allowed = ", ".join(repr(v) for v in FRENCH_CHOICES[f.name])
        elif f.type == "bool":
            allowed = "False, True"
        elif f.name == "chien_after_packets":
            allowed = "None (the pattern of the player count), or a list of packet numbers"
        else:
            allowed = str(f.type)
        out.append((f.name, f.default, allowed, docs.get(f.name, "")))
    return out


def _tarocchino_options(game: str) -> list[Option]:
    """``(name, default, allowed, description)`` for each rules option of a Tarocchino game."""
    from tarot_env.rules.bolognese.config import OPTIONS, TarocchinoConfig, default, option_names

    out = []
    for name in option_names(game):
        opt = OPTIONS[name]
        if isinstance(opt.allowed, type):
            allowed = f"{opt.allowed.__name__} ≥ {0 if name == 'cappotto_bonus' else 1}"
        else:  # the values this game accepts (Quattro Scartate's tie differs): asked of the config itself
            ok = []
            for v in opt.allowed:
                try:
                    TarocchinoConfig.make(game, **{name: v})  # at the default player count
                    ok.append(v)
                except (TypeError, ValueError):
                    pass
            allowed = ", ".join(repr(v) for v in ok)
        out.append((name, default(game, name), allowed, f"{opt.doc} ({opt.ref})" if opt.ref != "—" else opt.doc))
    return out
