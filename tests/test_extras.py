"""Each extra runs what it is for on its own.

A fresh virtual environment per extra (no system site-packages, nothing of this environment's),
the package installed from its wheel with that extra alone, and the extra's entry point run for a
few steps: ``train`` (``tarot train``, then ``pretrained`` through ``TAROT_ENV_MODELS``), ``rllib``
(the RLlib training script with its evaluation and TensorBoard logs), ``web`` (``tarot serve``
answers; and what the bare package runs, ``tarot list`` and ``tarot bench``, while ``tarot arena``
names the train extra it lacks), ``notebooks`` (the quickstart notebook runs in Jupyter's kernel),
``test`` (a slice of the suite). So an extra that lacks a package its entry point needs fails here, as
the ``rllib`` extra without ``tqdm`` would: ``No module named 'tqdm'``.

torch is installed first where an extra needs it, as the Makefile does (its ``TORCH``, the CPU
build these machines serve locally; the ``TORCH`` environment variable overrides it), so that no
CUDA build is downloaded. pip's cache serves the other packages after the first run.

Slow (``-m "not slow"`` leaves it out): about 10 minutes on the project's 2-core machine, most of
it pip installing torch, Ray and Jupyter. ``make test`` runs it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: seconds for one pip install or one command (Ray alone takes two minutes to install here)
TIMEOUT = 900


def torch_requirement() -> str:
    """The torch the Makefile installs first (``TORCH ?= ...``), or ``$TORCH``."""
    (default,) = re.findall(r"^TORCH \?= (\S+)", (ROOT / "Makefile").read_text(), re.M)
    return os.environ.get("TORCH", default)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = out.glob("tarot_env-*.whl")
    return path


class Venv:
    """A fresh virtual environment in ``folder``, its commands run from ``folder / "work"``."""

    def __init__(self, folder: Path) -> None:
        self.work, self.bin = folder / "work", folder / "venv" / "bin"
        self.work.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TAROT_ENV_JIT", "TAROT_ENV_MODELS")}
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["MPLBACKEND"] = "Agg"
        base = getattr(sys, "_base_executable", sys.executable)  # the interpreter behind this venv, without its packages
        self.check([base, "-m", "venv", folder / "venv"])

    def check(self, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
        done = self.run(argv, **kwargs)
        assert done.returncode == 0, f"{' '.join(map(str, argv))} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-4000:]}"
        return done

    def run(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(a) for a in argv], cwd=cwd or self.work, env=env or self.env, capture_output=True, text=True, timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def pip_install(self, *requirements: str) -> None:
        self.check([self.bin / "python", "-m", "pip", "install", "--quiet", *requirements])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_core(v: Venv) -> None:
    """What needs no extra; ``tarot arena``, which does, says which."""
    v.check(["tarot", "list"])
    v.check(["tarot", "bench", "ottocento_v0", "--api", "aec", "--seconds", "0.2", "--repeats", "1", "--out", "b.json"])
    lacking = v.run(["tarot", "arena", "ottocento_v0", "--deals", "1"])
    assert lacking.returncode != 0 and 'from the train extra: pip install "tarot_env[train]"' in lacking.stderr, lacking.stderr


def run_train(v: Venv) -> None:
    v.check(["tarot", "train", "millone_v0", "--steps", "256", "--num-envs", "8", "--n-steps", "32", "--batch-size", "64",
             "--n-epochs", "1", "--net-arch", "16", "--bc-deals", "4", "--eval-episodes", "2", "--no-progress-bar",
             "--out", "runs/t"])  # fmt: skip
    assert (v.work / "runs" / "t" / "model_final.zip").exists() and (v.work / "runs" / "t" / "learning_curve.png").exists()
    # outside a checkout the models are found through TAROT_ENV_MODELS, and the error says so without it
    lost = v.run(["tarot", "arena", "ottocento_v0", "--agents", "pretrained,rules", "--deals", "1"])
    assert lost.returncode != 0 and "TAROT_ENV_MODELS" in lost.stderr, lost.stderr
    models = {**v.env, "TAROT_ENV_MODELS": str(ROOT / "results" / "models")}
    v.check(["tarot", "arena", "ottocento_v0", "--agents", "pretrained,rules", "--deals", "1", "--out", "runs/a"], env=models)
    v.check(["python", "-c", "from tarot_env.agents import pretrained; pretrained('french_tarot_v0_4p')"], env=models)


def run_rllib(v: Venv) -> None:
    v.check(["python", "-m", "tarot_env.experiments.train_rllib", "--env", "ottocento_v0", "--iterations", "1",
             "--num-env-runners", "0", "--train-batch-size", "200", "--minibatch-size", "100", "--num-epochs", "1",
             "--eval-deals", "2", "--out", "runs/r"])  # fmt: skip
    out = v.work / "runs" / "r"
    assert (out / "eval.json").exists() and (out / "learning_curve.png").exists() and (out / "checkpoint_final").is_dir()
    assert list((out / "tb").glob("events.*")), "no TensorBoard logs (docs/rllib.md shows tensorboard --logdir on them)"


def run_web(v: Venv) -> None:
    run_core(v)  # a venv of its own for the bare package would cost another minute of installing numba and numpy
    port = free_port()
    argv = [v.bin / "tarot", "serve", "--port", str(port)]
    proc = subprocess.Popen([str(a) for a in argv], cwd=v.work, env=v.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, page = time.monotonic() + 120, None
        while page is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                time.sleep(0.5)
        assert page is not None, f"tarot serve did not answer: {proc.poll()}"
        assert "<html" in page.lower()
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert (v.work / "runs" / "tarot_web.sqlite").exists(), output


def run_notebooks(v: Venv) -> None:
    v.check(["jupyter", "nbconvert", "--to", "notebook", "--execute", ROOT / "notebooks" / "quickstart.ipynb", "--output-dir", v.work],
            cwd=ROOT)  # fmt: skip
    assert (v.work / "quickstart.ipynb").exists()


def run_tests(v: Venv) -> None:
    # the venv's pytest on a slice of the suite (hypothesis, the docs), importing the installed package
    v.check(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", ROOT / "tests" / "test_docs.py",
             ROOT / "tests" / "test_french_properties.py"])  # fmt: skip


#: extra -> (needs torch first, what it is for)
EXTRAS = {"train": (True, run_train), "rllib": (True, run_rllib), "web": (False, run_web), "notebooks": (False, run_notebooks),
          "test": (False, run_tests)}  # fmt: skip


def test_every_extra_with_something_to_install_is_checked():
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {name for name, requirements in declared.items() if requirements} == set(EXTRAS)


@pytest.mark.parametrize("extra", list(EXTRAS))
def test_the_extra_alone_runs_what_it_is_for(extra: str, wheel: Path, tmp_path: Path) -> None:
    needs_torch, run = EXTRAS[extra]
    v = Venv(tmp_path)
    if needs_torch:
        v.pip_install(torch_requirement())
    v.pip_install(f"{wheel}[{extra}]")
    run(v)
