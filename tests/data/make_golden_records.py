"""Write ``tests/data/golden_records.json``: the digests of seeded play of every env (tests/golden_play.py).

Run from the repository root, on the code whose behaviour is the reference:

    .venv/bin/python tests/data/make_golden_records.py

``tests/test_golden_records.py`` replays the same play and compares. Rewrite the file only
for a change of behaviour that is meant (a rule fixed), and say so in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: golden_play

import golden_play  # noqa: E402

OUT = HERE / "golden_records.json"


def main() -> None:
    data = {"batch": golden_play.BATCH, "hands": golden_play.HANDS, "tables": golden_play.golden()}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data['tables'])} tables, {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
