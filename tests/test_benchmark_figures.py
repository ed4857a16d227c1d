"""The speed figures of README.md and docs/performance.md are those of results/benchmark.json.

``results/benchmark.json`` (written by ``python -m tarot_env.experiments.benchmark``, ``make bench``)
is the one source of the throughput figures; ``results/benchmark_numpy.json`` holds the NumPy-path
run (``TAROT_ENV_JIT=0``). Every number of the measured tables, and the README's headline figures,
must equal the JSON's value rounded as written (a number written with k decimals is within half a
unit of the k-th decimal). After ``make bench``, update the tables to the new JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = json.loads((ROOT / "results" / "benchmark.json").read_text())["results"]
NUMPY = json.loads((ROOT / "results" / "benchmark_numpy.json").read_text())["results"]
PERFORMANCE = (ROOT / "docs" / "performance.md").read_text()
README = (ROOT / "README.md").read_text()
MIB = 2**20


def record(results: list[dict], env: str, api: str, players: int | None = None, batch: int | None = None) -> dict:
    found = [
        r
        for r in results
        if r["env"] == env
        and r["api"] == api
        and (players is None or r["config"].get("num_players") == players)
        and (batch is None or r.get("batch_size") == batch)
    ]
    assert len(found) == 1, f"{len(found)} rows of the JSON for {env} {api} players={players} B={batch}"
    return found[0]


def number(text: str) -> tuple[float, int]:
    """The number written in a table cell or sentence (bold, thousands separators and units aside) and its decimals."""
    m = re.search(r"[+−-]?\d[\d,]*(?:\.\d+)?", text.replace("*", ""))
    assert m, f"no number in {text!r}"
    digits = m.group(0).replace(",", "").replace("−", "-")
    return float(digits), len(digits.split(".")[1]) if "." in digits else 0


def assert_rounds_to(written: str, value: float, what: str) -> None:
    shown, decimals = number(written)
    assert abs(value - shown) <= 0.5 * 10**-decimals + 1e-9, f"{what}: written {written.strip()!r}, the JSON says {value}"


def table_after(heading: str, nth: int = 0) -> list[list[str]]:
    """The rows (cells) of the ``nth`` Markdown table under ``heading`` in docs/performance.md, header and rule aside."""
    lines = PERFORMANCE.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0].splitlines()
    tables, current = [], []
    for line in [*lines, ""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current[2:])
            current = []
    return tables[nth]


def check_row(row: list[str], columns: dict[int, Callable[[], float]], what: str) -> None:
    for i, value in columns.items():
        if row[i] != "—":
            assert_rounds_to(row[i], value(), f"{what}, column {i + 1}")


def test_french_aec_table():
    rows = table_after("## French Tarot through the AEC API (one core)")
    assert [r[0] for r in rows] == ["3", "4", "5"]
    for row in rows:
        n = int(row[0])
        r = record(BENCH, "french_tarot_v0", "aec", n)
        numpy_r = record(NUMPY, "french_tarot_v0", "aec", n)
        check_row(
            row,
            {
                1: lambda r=r: r["decisions_per_second"],
                2: lambda r=r: r["decisions_per_second_best"],
                3: lambda r=r: r["deals_per_second"],
                4: lambda r=r: r["decisions_per_deal"],
                5: lambda r=numpy_r: r["decisions_per_second"],
            },
            f"French AEC, {n} players",
        )


def _pair(cell: str) -> tuple[str, str]:
    """``"18,382 (19,487)"`` -> median, best."""
    median, _, best = cell.partition("(")
    return median, best.rstrip(")")


def test_french_vector_table():
    rows = table_after("## French Tarot through the vector API (one core)")
    first = record(BENCH, "french_tarot_v0", "vector", 4, 1)
    assert [int(number(r[0])[0]) for r in rows] == [1, 16, 256, 1024, 4096, 16384]
    for row in rows:
        b = int(number(row[0])[0])
        r = record(BENCH, "french_tarot_v0", "vector", 4, b)
        (env_median, env_best), (agent_median, agent_best) = _pair(row[1]), _pair(row[2])
        row = [row[0], env_median, env_best, agent_median, agent_best, *row[3:]]
        check_row(
            row,
            {
                1: lambda r=r: r["env_decisions_per_second"],
                2: lambda r=r: r["env_decisions_per_second_best"],
                3: lambda r=r: r["decisions_per_second"],
                4: lambda r=r: r["decisions_per_second_best"],
                5: lambda r=r: 100 * r["agent_share"],
                6: lambda r=r: r["deals_per_second"],
                7: lambda r=r: r["env_us_per_step"] / 1000,
                8: lambda r=r: r["peak_rss_bytes"] / MIB,
                9: lambda r=r: (r["peak_rss_bytes"] - first["peak_rss_bytes"]) / MIB,
                10: lambda r=r: r["memory_per_game_bytes"],
            },
            f"French vector, B = {b}",
        )


def test_tarocchino_aec_table():
    rows = table_after("## The Tarocchino games through the AEC API (one core)")
    envs = [r[0].strip("`") for r in rows]
    assert envs == [
        "ottocento_v0",
        "quattro_scartate_v0",
        "terziglio_v0",
        "millone_v0",
        "centocinquanta_v0",
        "quindici_v0",
        "mattazza_v0",
    ]
    for row, env in zip(rows, envs):
        counts = [int(c) for c in row[1].split("/")]
        cells = [[part.strip() for part in cell.split("/")] for cell in row[2:]]
        for k, n in enumerate(counts):
            r = record(BENCH, env, "aec", n if env == "mattazza_v0" else None)
            check_row(
                [c[k] for c in cells],
                {
                    0: lambda r=r: r["decisions_per_second"],
                    1: lambda r=r: r["decisions_per_second_best"],
                    2: lambda r=r: r["deals_per_second"],
                    3: lambda r=r: r["decisions_per_deal"],
                },
                f"{env} AEC, {n} players",
            )


def test_tarocchino_vector_table():
    rows = table_after("## The Tarocchino games through the vector API (one core)")
    assert [int(number(r[0])[0]) for r in rows] == [1, 16, 256, 1024, 4096, 16384]
    for row in rows:
        b = int(number(row[0])[0])
        r = record(BENCH, "ottocento_v0", "vector", None, b)
        env_median, env_best = _pair(row[1])
        check_row(
            [row[0], env_median, env_best, *row[2:]],
            {
                1: lambda r=r: r["env_decisions_per_second"],
                2: lambda r=r: r["env_decisions_per_second_best"],
                3: lambda r=r: r["decisions_per_second"],
                4: lambda r=r: r["peak_rss_bytes"] / MIB,
                5: lambda r=r: r["memory_per_game_bytes"],
            },
            f"Ottocento vector, B = {b}",
        )


def test_readme_headline_figures():
    m = re.search(r"about ([\d,]+) decisions per second for 4-player French Tarot and ([\d,]+) for\s+Ottocento", README)
    assert m, "README: the AEC headline sentence changed; update this test with it"
    for written, r in zip(m.groups(), (record(BENCH, "french_tarot_v0", "aec", 4), record(BENCH, "ottocento_v0", "aec"))):
        shown = number(written)[0]
        assert abs(r["decisions_per_second"] - shown) <= 500, f"README says about {written}; the JSON says {r['decisions_per_second']}"
    m = re.search(r"About ([\d.]+) million decisions per second at ([\d,]+) tables", README)
    assert m, "README: the vector headline sentence changed; update this test with it"
    r = record(BENCH, "french_tarot_v0", "vector", 4, int(number(m.group(2))[0]))
    assert_rounds_to(m.group(1), r["env_decisions_per_second"] / 1e6, "README, vector headline (millions)")


@pytest.mark.parametrize("path", ["README.md", "docs/performance.md"])
def test_no_stale_headline(path):
    text = (ROOT / path).read_text()
    for stale in ("24,000 decisions per second", "21,144", "23,366"):
        assert stale not in text, f"{path} still quotes {stale!r}, which is not in results/benchmark.json"


@pytest.mark.parametrize(
    ("heading", "figures"),
    [
        ("### The learner, 2026-11-28", "learner_speed_2026-11-28.json"),
        ("### The learner, 2026-11-29: one epoch", "learner_speed_2026-11-29_one_epoch.json"),
        ("### The learner, 2026-11-29 (later)", "learner_speed.json"),
    ],
)
def test_learner_table_is_the_learner_json(heading, figures):
    """Each of docs/performance.md's learner tables ("The learner", by date) is its JSON under results/, as
    ``benchmark --api learner`` wrote it: every run, the medians and the ratio (the newest is learner_speed.json)."""
    learner = json.loads((ROOT / "results" / figures).read_text())
    section = PERFORMANCE.split(heading, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    for setting in ("before", "now"):
        row = next(line for line in section.splitlines() if line.startswith(f"| {setting} |"))
        runs = [r["steps_per_second"] for r in learner["runs"] if r["setting"] == setting]
        assert f"| {', '.join(f'{x:,.0f}' for x in runs)} |" in row, (row, runs)
        assert f"**{learner['summary'][setting]['median']:,.0f}**" in row
    s = learner["speedup"]
    assert f"**{s['ratio_of_medians']:.2f}x**" in section
    assert f"{s['pairs_min']:.2f}x to {s['pairs_max']:.2f}x" in section
