"""The generated parts of the env modules' docstrings (PettingZoo's classic-env format).

Each env module (``tarot_env/french_tarot_v0.py``, ``tarot_env/ottocento_v0.py`` ...) keeps its
documentation as a literal module docstring, so that it ships in the wheel and reads in the
source, ``help()`` and IDEs. The facts that come from the code — the header table, the action
table, the observation layouts and sizes, the options and their defaults — are printed here from
the code and made from the env itself; ``tests/test_env_docs.py`` checks that every block below
appears verbatim in the module's docstring, so the docstrings cannot drift. After a change:

    .venv/bin/python tools/env_docs.py --write            # puts the new blocks into every env module
    .venv/bin/python tools/env_docs.py ottocento_v0       # prints one env's blocks

Why a development tool in ``tools/`` (at the repository's root, not in the wheel) rather than a
module of the package: it rewrites the package's own source files, which only a checkout has to
rewrite (an installed wheel's are not to be edited), and nothing at run time needs it: the env
modules carry their docstrings as literals, the web room and the warm-up make their envs with
:func:`tarot_env.warmup.make_env`. Only this command line and ``tests/test_env_docs.py`` read it;
``tests/test_layers.py`` checks that no module of the package imports it. It reads the package
like any user of it (the env facts of :mod:`tarot_env.env_facts`, the envs, the registry), so it
runs wherever ``tarot_env`` imports (the editable install ``make`` sets up).
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path
from typing import Any

from tarot_env.env_facts import facts

#: the section headings every env module's docstring has, in order (PettingZoo's classic envs)
SECTIONS = (
    "## Arguments",
    "## Observation Space",
    "### Legal Actions Mask",
    "## Action Space",
    "## Rewards",
    "## Version History",
)
#: the rows of the header table, in order
HEADER_ROWS = (
    "Import",
    "Actions",
    "Parallel API",
    "Manual Control",
    "Agents",
    "Agents count",
    "Action Shape",
    "Action Values",
    "Observation Shape",
    "Observation Values",
)


def game_of(env_id: str) -> str:
    """The rules' name of the env's game (its row of :mod:`tarot_env.env_facts`)."""
    return facts(env_id).game


def player_counts(env_id: str) -> tuple[int, ...]:
    """The player counts the env accepts (``num_players``)."""
    return facts(env_id).player_counts


def default_players(env_id: str) -> int:
    """The player count of ``env()`` without ``num_players`` (4 where the game allows several)."""
    return facts(env_id).default_players


def make_env(env_id: str, num_players: int | None = None, **options: Any):
    """The env of the module itself, with ``num_players`` given only where the game has several counts."""
    module = importlib.import_module(f"tarot_env.{env_id}")
    if len(player_counts(env_id)) > 1:
        options["num_players"] = default_players(env_id) if num_players is None else num_players
    return module.env(**options)


def observation_sizes(env_id: str, oracle: bool = False) -> dict[int, int]:
    """Player count -> length of the ``observation`` (or ``oracle``) vector, read from the env's spaces."""
    out = {}
    for n in player_counts(env_id):
        env = make_env(env_id, n, oracle=oracle)
        space = env.observation_space(env.possible_agents[0])
        out[n] = int(space["oracle" if oracle else "observation"].shape[0])
    return out


def _shape_cell(sizes: dict[int, int], default: int) -> str:
    cell = f"({sizes[default]},)"
    others = [f"{n} players ({size},)" for n, size in sizes.items() if n != default]
    return cell + (f"; {', '.join(others)}" if others else "")


def header_table(env_id: str) -> str:
    """PettingZoo's header table, made from the env (agents, spaces) and the registry."""
    from tarot_env.registry import PETTINGZOO_IDS

    env = make_env(env_id)
    agent = env.possible_agents[0]
    action_space = env.action_space(agent)
    obs_space = env.observation_space(agent)["observation"]
    low, high = int(obs_space.low.min()), int(obs_space.high.max())
    counts = player_counts(env_id)
    n = default_players(env_id)
    if len(counts) == 1:
        count_cell = str(n)
    else:
        count_cell = f"{n} (`num_players`: {counts[0]} to {counts[-1]})"
    rows = [
        ("Import", f"`from tarot_env import {env_id}`"),
        ("Actions", "Discrete"),
        ("Parallel API", f'Yes: `pettingzoo.make("parallel", "{PETTINGZOO_IDS[env_id]}")`'),
        ("Manual Control", f"Yes: `tarot play {env_id}` at the terminal"),
        ("Agents", f"`agents= {env.possible_agents!r}`"),
        ("Agents count", count_cell),
        ("Action Shape", f"Discrete({action_space.n})"),
        ("Action Values", f"[0, {action_space.n - 1}]"),
        ("Observation Shape", _shape_cell(observation_sizes(env_id), n)),
        ("Observation Values", f"[{low}, {high}]"),
    ]
    assert tuple(r[0] for r in rows) == HEADER_ROWS
    lines = [f"| {rows[0][0]} | {rows[0][1]} |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows[1:]]
    return "\n".join(lines)


def sizes_line(env_id: str) -> str:
    """One line with the observation and oracle sizes for every player count."""
    obs, oracle = observation_sizes(env_id), observation_sizes(env_id, oracle=True)
    if len(obs) == 1:
        ((n, size),) = obs.items()
        text = f"Sizes ({n} players): `observation` {size} values, `oracle` {oracle[n]} values."
    else:
        parts = ", ".join(f"{n} players {size}" for n, size in obs.items())
        oparts = ", ".join(f"{n} players {size}" for n, size in oracle.items())
        text = f"Sizes of `observation`: {parts}; of `oracle`: {oparts}."
    return textwrap.fill(text, width=100)


def observation_table(env_id: str, oracle: bool = False) -> str:
    """The observation (or oracle) layout for the env's default player count, as a Markdown table."""
    if facts(env_id).french:
        from tarot_env.encoding.french import layout_table
    else:
        from tarot_env.encoding.bolognese import layout_table
    return layout_table(default_players(env_id), oracle=oracle)


def _ids(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def action_rows(env_id: str) -> list[tuple[int, int, str, str]]:
    """``(first id, last id, action strings, meaning)`` for each group of actions."""
    if facts(env_id).french:
        from tarot_env.rules.french import actions as A

        return [
            (A.PLAY, A.DISCARD - 1, "`play <card>`", "play a card (card ids of docs/cards.md)"),
            (A.DISCARD, A.BID - 1, "`discard <card>`", "the taker's écart, one card per action"),
            (A.BID, A.CALL - 1, ", ".join(f"`{A.action_to_string(a)}`" for a in range(A.BID, A.CALL)), "bidding"),
            (A.CALL, A.CHELEM - 1, "`call <card>`", "5 players: the King (Queen, Knight, Jack) the taker calls"),
            (A.CHELEM, A.POIGNEE - 1, "`chelem`, `no_chelem`", "the taker, before the opening lead"),
            (
                A.POIGNEE,
                A.SHOW - 1,
                ", ".join(f"`{A.action_to_string(a)}`" for a in range(A.POIGNEE, A.SHOW)),
                "at a player's first card, only when he holds a poignée",
            ),
            (A.SHOW, A.NUM_ACTIONS - 1, "`show <card>`", 'the trumps of a poignée, one per action (`poignee_trumps="choose"`)'),
        ]
    from tarot_env.rules.bolognese import state as S

    words = S.WORDS
    return [
        (S.AB_PLAY, S.AB_DISCARD - 1, "`play <card>`", "play a card (card ids of docs/cards.md)"),
        (S.AB_DISCARD, S.AB_GIVE - 1, "`discard <card>`", "a discard, one card per action (never a Carta da 5)"),
        (S.AB_GIVE, S.A_DECLARE - 1, "`give <card>`", 'the card given for the Matto (`matto_exchange="choose"`)'),
        (S.A_DECLARE, S.A_NO_DECLARE, f"`{words[S.A_DECLARE]}`, `{words[S.A_NO_DECLARE]}`", "at a first turn, with combinations in hand"),
        (S.A_CLAIM, S.A_NO_CLAIM, f"`{words[S.A_CLAIM]}`, `{words[S.A_NO_CLAIM]}`", "a claim window (the games with a target)"),
        (
            S.A_PASS,
            S.NUM_ACTIONS - 1,
            ", ".join(f"`{words[a]}`" for a in range(S.A_PASS, S.NUM_ACTIONS)),
            "the Terziglio auction",
        ),
    ]


def action_table(env_id: str) -> str:
    lines = ["| ids | action strings | when |", "|---|---|---|"]
    lines += [f"| {_ids(first, last)} | {strings} | {meaning} |" for first, last, strings, meaning in action_rows(env_id)]
    return "\n".join(lines)


def _wrap(text: str) -> str:
    """A list item wrapped at 100 columns (docstring lines stay within the linter's limit)."""
    return textwrap.fill(text, width=100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def options_list(env_id: str) -> str:
    """Every keyword of ``env()``: the env options, then the game's rules options, with defaults and values."""
    from tarot_env.env_facts import ENV_OPTIONS

    items = []
    counts = player_counts(env_id)
    if len(counts) > 1:
        items.append(f"- `num_players={default_players(env_id)}` ({', '.join(map(str, counts))}): the number of players")
    for name, (default, allowed, doc) in ENV_OPTIONS.items():
        items.append(f"- `{name}={default!r}` ({allowed}): {doc}")
    for name, default, allowed, doc in facts(env_id).options():
        if name != "num_players":
            items.append(f"- `{name}={default!r}` ({allowed}): {doc}".replace("``", "`"))
    return "\n".join(_wrap(item) for item in items)


def blocks(env_id: str) -> dict[str, str]:
    """Every generated block of ``env_id``'s docstring, by name."""
    return {
        "header": header_table(env_id),
        "options": options_list(env_id),
        "sizes": sizes_line(env_id),
        "observation": observation_table(env_id),
        "oracle": observation_table(env_id, oracle=True),
        "actions": action_table(env_id),
    }


def _paragraph_at(doc: str, start: int) -> tuple[int, int]:
    end = doc.find("\n\n", start)
    return start, len(doc) if end < 0 else end


def locate(doc: str, name: str) -> tuple[int, int]:
    """Where block ``name`` stands in a module docstring, by the structure every env docstring shares:
    ``(start, end)`` offsets of the header table, the options list, the sizes paragraph, the
    observation and oracle tables and the action table."""

    def section(heading: str) -> int:
        at = doc.find(f"\n{heading}\n")
        if at < 0:
            raise ValueError(f"no {heading!r} section")
        return at

    if name == "header":
        start = doc.find("| Import |")
    elif name == "options":
        start = doc.find("\n- `", section("## Arguments")) + 1
    elif name == "sizes":
        start = doc.find("\nSizes", section("## Observation Space")) + 1
    elif name in ("observation", "oracle"):
        start = doc.find("\n| field |", section("## Observation Space")) + 1
        if name == "oracle":
            start = doc.find("\n| field |", start) + 1
    elif name == "actions":
        start = doc.find("\n| ids |", section("## Action Space")) + 1
    else:
        raise ValueError(f"unknown block {name!r}")
    if start <= 0:
        raise ValueError(f"block {name!r} not found")
    return _paragraph_at(doc, start)


def rewrite(env_id: str) -> bool:
    """Put the generated blocks into ``tarot_env/<env_id>.py``'s docstring; True if the file changed."""
    module = importlib.import_module(f"tarot_env.{env_id}")
    path = Path(module.__file__)
    source = path.read_text(encoding="utf-8")
    start = source.index('"""') + 3
    end = source.index('"""', start)
    doc = source[start:end]
    for name, text in blocks(env_id).items():
        a, b = locate(doc, name)
        doc = doc[:a] + text + doc[b:]
    new = source[:start] + doc + source[end:]
    if new != source:
        path.write_text(new, encoding="utf-8")
    return new != source


def main(argv: list[str] | None = None) -> int:
    from tarot_env.registry import ENV_IDS

    args = list(sys.argv[1:] if argv is None else argv)
    write = "--write" in args
    ids = [a for a in args if a != "--write"] or list(ENV_IDS)
    for env_id in ids:
        if write:
            print(f"{'rewritten' if rewrite(env_id) else 'unchanged'}: tarot_env/{env_id}.py")
            continue
        for name, text in blocks(env_id).items():
            print(f"--- {env_id}: {name}\n{text}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
