"""The one table of the Tarocchino games (tarot_env/rules/bolognese/game_specs.py).

- every game has a row, and the rows agree with the rules they cite (docs/rules/tarocchino.md):
  player counts, tricks, the deal (every card accounted for), the discards, targets, ties;
- the names other modules still export (titles, player counts, tricks, targets, reward scales,
  the scoring constants) are read from the rows, and so are the options each game has and the
  ``opts`` columns of the compiled kernels;
- no code of the package asks which game it plays: a grep for branches on game names (and for
  the old ``GM_`` game codes) finds none outside game_specs.py;
- a variant is one row: ``dataclasses.replace`` of a row is accepted by the config, the rules
  and the envs, and plays as the game with the matching options.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from oracles import tarocchino_scoring

import tarot_env
from tarot_env.cards.bolognese import NUM_CARDS
from tarot_env.envs.tarocchino import TarocchinoEnv
from tarot_env.envs.tarocchino_rewards import REWARD_SCALE
from tarot_env.rules.bolognese import deal, settlement
from tarot_env.rules.bolognese import state as S
from tarot_env.rules.bolognese.config import OPTIONS, TARGETS, TRICKS, TarocchinoConfig, default, option_names
from tarot_env.rules.bolognese.deal import deal_destinations
from tarot_env.rules.bolognese.game import TarocchinoGame
from tarot_env.rules.bolognese.game_specs import GAMES, GameSpec, game_spec
from tarot_env.vector.tarocchino import TarocchinoVectorEnv

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TABLES = [(name, n) for name, spec in GAMES.items() for n in spec.players]

#: The facts as the rules state them (docs/rules/tarocchino.md), independently of the table:
#: players, tricks (§8.2, §10.4, §11.5, §12.2, §13, §14.3), the default target and the others
#: some tables play (§8.1, §11, §12.3, §13, §14.6), the sides.
DOCUMENTED = {
    "ottocento": dict(players=(4,), tricks=15, target=800, targets=(800, 1000, 1500), sides="partners"),
    "quattro_scartate": dict(players=(4,), tricks=15, target=None, targets=(), sides="partners"),
    "terziglio": dict(players=(3,), tricks=18, target=None, targets=(), sides="soloist"),
    "millone": dict(players=(2,), tricks=20, target=1000, targets=(1000,), sides="each"),
    "centocinquanta": dict(players=(2,), tricks=15, target=150, targets=(150, 151, 200), sides="each"),
    "quindici": dict(players=(2,), tricks=15, target=15, targets=(15, 20, 21), sides="each"),
    "mattazza": dict(players=(3, 4, 5, 6), tricks=10, target=3, targets=(3,), sides="each"),
}


# ====================================================================== every game has a row
def test_every_game_has_a_row_and_an_env():
    tarocchino_ids = {env_id for env_id in tarot_env.ENV_IDS if env_id != "french_tarot_v0"}
    assert {f"{name}_v0" for name in GAMES} == tarocchino_ids
    assert set(GAMES) == set(DOCUMENTED)
    for name, spec in GAMES.items():
        assert spec.name == name
        assert (ROOT / "tarot_env" / f"{name}_v0.py").exists()
        assert f"## {spec.section.removeprefix('§')}. {spec.title}" in (DOCS / "rules" / "tarocchino.md").read_text()


def test_rows_are_frozen_and_hashable():
    spec = GAMES["ottocento"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.target = 1000  # type: ignore[misc]
    assert len({hash(s) for s in GAMES.values()}) == len(GAMES)


@pytest.mark.parametrize("name", list(GAMES))
def test_rows_agree_with_the_documented_rules(name):
    spec = GAMES[name]
    facts = DOCUMENTED[name]
    assert spec.players == facts["players"]
    assert spec.default_players in spec.players
    assert spec.tricks == facts["tricks"]
    assert spec.target == facts["target"]
    assert spec.targets == facts["targets"]
    assert not spec.targets or spec.targets[0] == spec.target
    assert spec.sides == facts["sides"]


@pytest.mark.parametrize(("name", "n"), TABLES)
def test_every_card_is_accounted_for(name, n):
    """Tricks × players + the discards + the cards out of play = 62, and the deal gives each
    player exactly what he plays and discards (§5.2, §5.3, §10.2–3, §11.2–5, §12.1–2, §14.2)."""
    spec = GAMES[name]
    assert spec.tricks * n + spec.first_discards * n + spec.discards + spec.out_of_play(n) == NUM_CARDS
    dest = deal_destinations(name, n)
    assert dest.tricks == spec.tricks
    assert dest.extra_size == spec.dealer_last
    assert dest.rest_size == spec.rest_size(n)
    assert sum(dest.hand_sizes) + dest.rest_size == NUM_CARDS
    if spec.auction:  # the soloist who goes up takes the Pozzo and discards as many (§10.3)
        assert spec.rest == "pozzo" and spec.rest_size(n) == spec.discards and spec.discarder == "soloist"
        assert all(size == spec.tricks for size in dest.hand_sizes)
        return
    for k in range(n):  # k: the offset from the dealer's right; the dealer is n - 1
        dealer_discards = spec.discards if k == n - 1 else 0
        assert dest.hand_sizes[k] - spec.first_discards + dest.second_sizes[k] - dealer_discards == spec.tricks, (name, n, k)


def test_field_values_are_in_range():
    for spec in GAMES.values():
        assert spec.sides in ("partners", "soloist", "each")
        assert spec.rest in ("none", "pozzo", "second_deal", "out")
        assert spec.scoring in ("sides", "poste", "penalty")
        assert spec.discarder in ("dealer", "soloist")
        assert spec.opponent_pickup_window in ("never", "always", "option")
        assert spec.next_dealer in ("right", "soloist")
        assert spec.reward_scale >= 1
        # a claim is made before the dealer picks up his last cards, with declarations (§8.4, U28)
        assert not spec.claims or (spec.dealer_last > 0 and spec.declarations and spec.target is not None)
        assert spec.opponent_pickup_window == "never" or (spec.claims and spec.players == (2,))
        assert not spec.primo_partner_adds or (spec.claims and spec.sides == "partners")
        assert spec.auction == (spec.sides == "soloist")
        # two sides' totals are compared at the end (U9, U10) where a hand is scored by sides
        assert bool(spec.tie_rules) == (spec.scoring == "sides")


def test_ties_and_game_ends():
    """U9: equal totals at the target play on; U10: Quattro Scartate's 4 hands end drawn."""
    assert GAMES["ottocento"].tie_rules[0] == "play_on"
    assert GAMES["quattro_scartate"].tie_rules == ("draw", "extra_hand")
    assert GAMES["quattro_scartate"].game_hands == 4  # §9: each player deals once
    assert [s.name for s in GAMES.values() if s.game_hands is not None] == ["quattro_scartate"]
    assert [s.name for s in GAMES.values() if s.rounded] == ["quindici"]  # §13
    assert GAMES["terziglio"].next_dealer == "soloist"  # §10.7


def test_the_target_option_documents_the_rows():
    """The ``target`` option's text (printed in docs/tarocchino.md and the env docstrings) names
    each game's default target and the alternatives of its row."""
    doc = OPTIONS["target"].doc
    for spec in GAMES.values():
        if spec.target is None:
            assert spec.title not in doc
            continue
        if spec.scoring == "penalty":
            expected = f"{spec.title} the penalty points that put a player out ({spec.target})"
        else:
            alternatives = spec.targets[1:]
            expected = f"{spec.title} {spec.target}" + (f" ({', '.join(map(str, alternatives))})" if alternatives else "")
        assert expected in doc, expected


def test_the_documented_options_table_names_the_games_the_rows_give():
    """docs/tarocchino.md's options table: its "games" column is what the rows' fields give."""
    rows = {}
    for line in (DOCS / "tarocchino.md").read_text().splitlines():
        m = re.match(r"\| `(\w+)` \|", line)
        if m and m.group(1) in OPTIONS:
            rows[m.group(1)] = [c.strip() for c in line.strip("|").split(" | ")]
    assert set(rows) == set(OPTIONS)
    for name, cells in rows.items():
        games = set(GAMES) if cells[4] == "all" else {g.strip() for g in cells[4].split(",")}
        assert games == OPTIONS[name].games, name


# ====================================================================== the names read from the table
def test_exported_names_are_read_from_the_table():
    assert tuple(GAMES) == deal.GAMES
    assert {name: spec.title for name, spec in GAMES.items()} == deal.GAME_TITLES
    assert {name: spec.players for name, spec in GAMES.items()} == deal.PLAYER_COUNTS
    assert {name: spec.default_players for name, spec in GAMES.items()} == deal.DEFAULT_PLAYERS
    assert {name: spec.tricks for name, spec in GAMES.items()} == TRICKS
    assert {name: spec.target for name, spec in GAMES.items() if spec.target is not None} == TARGETS
    assert {name: spec.reward_scale for name, spec in GAMES.items()} == REWARD_SCALE
    assert GAMES["ottocento"].targets == tarocchino_scoring.OTTOCENTO_TARGETS
    assert GAMES["quindici"].target == tarocchino_scoring.QUINDICI_TARGET
    assert GAMES["quattro_scartate"].game_hands == settlement.QUATTRO_SCARTATE_HANDS
    assert GAMES["millone"].tricks == tarocchino_scoring.MILLONE_TRICKS
    assert tarocchino_scoring.CENTOCINQUANTA_CARDS == 32


@pytest.mark.parametrize("name", list(GAMES))
def test_kernel_columns_are_the_rows_fields(name):
    spec = GAMES[name]
    config = TarocchinoConfig.make(name)
    o = config.kernel_options()
    assert len(o) == len(S.OPTION_NAMES)
    assert o[S.O_N] == spec.default_players and o[S.O_TRICKS] == spec.tricks
    assert o[S.O_TARGET] == (spec.target or 0)
    assert o[S.O_SIDES] == S.SIDES_CODES[spec.sides]
    assert o[S.O_AUCTION] == spec.auction
    assert o[S.O_CLAIMS] == spec.claims
    assert o[S.O_OPP_AFTER_PICKUP] == (spec.opponent_pickup_window == "always")  # at the options' defaults
    assert o[S.O_PRIMO_PARTNER_ADDS] == spec.primo_partner_adds
    assert o[S.O_ROUNDED] == spec.rounded
    assert o[S.O_FIRST_DISCARDS] == spec.first_discards
    assert o[S.O_SECOND_DEAL] == spec.second_deal
    assert o[S.O_DISCARDS] == spec.discards
    assert o[S.O_DISCARDER] == S.DISCARDER_CODES[spec.discarder]
    assert o[S.O_DECLARATIONS] == spec.declarations
    assert default(name, "target") == spec.target
    assert TarocchinoGame(config).two_sides == spec.two_sides


def test_the_opponent_window_option_moves_the_window():
    """U21's alternative: the opponent's window right after the pickup instead of his first turn."""
    o = TarocchinoConfig.make("centocinquanta", opponent_claim="before_discard").kernel_options()
    assert o[S.O_OPP_AFTER_PICKUP] == 1 and o[S.O_OPP_CLAIM_EARLY] == 1
    o = TarocchinoConfig.make("millone").kernel_options()
    assert o[S.O_OPP_AFTER_PICKUP] == 1 and o[S.O_OPP_CLAIM_EARLY] == 0


# ====================================================================== no branch on a game name
_NAMES = "(?:" + "|".join(GAMES) + ")(?:_v0)?"  # a game's name or its env id
_BRANCHES = [
    re.compile(rf"""(==|!=)\s*["']({_NAMES})["']"""),  # game == "ottocento"
    re.compile(rf"""["']({_NAMES})["']\s*(==|!=)"""),  # "ottocento" == game
    re.compile(rf"""\bin\s*[(\[{{]\s*["']({_NAMES})["']"""),  # game in ("ottocento", ...)
    re.compile(rf"""frozenset\(\{{\s*["']({_NAMES})["']"""),  # frozenset({"ottocento"})
    re.compile(rf"""["']({_NAMES})["']\s*:\s*\w+_hand_scores"""),  # {"millone": millone_hand_scores}
    re.compile(r"\bGM_[A-Z_]+"),  # the old game codes
    re.compile(r"\bO_GAME\b"),  # the old game column of the kernels' options
]
_SCANNED = ("tarot_env", "agents", "experiments")


def test_no_code_branches_on_a_game_name():
    """Everything that tells the games apart is a field of the game's row (game_specs.py); the
    package (the CLI, the bots and the experiments included) never compares a game's name."""
    found = []
    for folder in _SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "game_specs.py" and path.parent.name == "bolognese":
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if any(p.search(line) for p in _BRANCHES):
                    found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not found, "branches on a game name (read a GameSpec field instead):\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for():
    for line in (
        'if game == "mattazza":',
        'if self.game_name != "terziglio"',
        'env_id == "mattazza_v0"',
        'g in ("ottocento", "x")',
        "GM_MILLONE",
        "opts[O_GAME]",
    ):
        assert any(p.search(line) for p in _BRANCHES), line
    for line in ('GAMES["ottocento"].target', 'deal_destinations("millone")', "spec.scoring == 'penalty'"):
        assert not any(p.search(line) for p in _BRANCHES), line


# ====================================================================== a variant is one row
def _variant() -> GameSpec:
    return dataclasses.replace(GAMES["ottocento"], name="ottocento_1500", title="Ottocento a 1500", target=1500, targets=(1500,))


def test_a_variant_is_one_row():
    v = _variant()
    assert game_spec(v) is v
    config = TarocchinoConfig.make(v)
    assert (config.game, config.spec, config.num_players, config.target) == ("ottocento_1500", v, 4, 1500)
    assert option_names(v) == option_names("ottocento")
    o, base = config.kernel_options(), TarocchinoConfig.make("ottocento", target=1500).kernel_options()
    assert np.array_equal(o, base)
    assert config.to_dict() == {"num_players": 4}  # 1500 is the variant's default
    assert TarocchinoConfig.make(v, target=800).kernel_options()[S.O_TARGET] == 800
    assert deal_destinations(v).packets == deal_destinations("ottocento").packets
    with pytest.raises(ValueError, match="Ottocento a 1500 is played by 4 players"):
        TarocchinoConfig.make(v, num_players=3)


def test_a_variant_plays_as_the_game_with_its_options():
    """AEC and vector envs of the variant play the same deals as Ottocento with ``target=1500``:
    the same legal actions and the same rewards, step by step."""
    envs = [TarocchinoEnv(_variant(), episode="match"), TarocchinoEnv("ottocento", target=1500, episode="match")]
    assert envs[0].metadata["name"] == "ottocento_1500_v0"
    rng = np.random.default_rng(7)
    for env in envs:
        env.reset(seed=3)
    for _ in range(300):
        if envs[0].game_over:
            break
        masks = [env.observe(env.agent_selection)["action_mask"] for env in envs]
        assert np.array_equal(masks[0], masks[1])
        action = int(rng.choice(np.flatnonzero(masks[0])))
        for env in envs:
            env.step(action)
        assert envs[0].rewards == envs[1].rewards
    vecs = [TarocchinoVectorEnv(4, _variant()), TarocchinoVectorEnv(4, "ottocento", target=1500)]
    assert vecs[0].env_id == "ottocento_1500_v0"
    out = [vec.reset(seed=5) for vec in vecs]
    ended = 0
    for _ in range(200):
        assert np.array_equal(out[0].action_masks, out[1].action_masks)
        assert np.array_equal(out[0].rewards, out[1].rewards) and np.array_equal(out[0].observations, out[1].observations)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in out[0].action_masks])
        out = [vec.step(actions) for vec in vecs]
        ended += len(out[0].infos["ended"])
    assert ended > 0
