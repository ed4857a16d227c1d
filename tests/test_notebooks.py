"""The notebooks run from top to bottom (small budgets), so they stay true as the code changes."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.mark.parametrize("name", ["quickstart.ipynb", "training.ipynb"])
def test_notebook_runs(name, tmp_path):
    if name == "training.ipynb":
        pytest.importorskip("sb3_contrib")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS.parent)}})
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    if name == "quickstart.ipynb":
        assert "Ottocento" in text and "player_0" in text
    else:
        assert "ppo - random" in text and text.strip().endswith("ppo.png")
        # the plot shows inline (display data in the notebook), not only in a file
        assert any("image/png" in o.get("data", {}) for o in outputs if o.get("output_type") == "display_data")


@pytest.mark.parametrize("name", ["quickstart.ipynb", "training.ipynb"])
def test_notebook_says_how_to_open_it(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert 'pip install -e ".[notebooks' in first.source and "jupyter lab notebooks/" in first.source
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert 'matplotlib.use("Agg")' not in code  # plots show inline
