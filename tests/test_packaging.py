"""The package as users install it: the wheel holds only ``tarot_env``, runs from outside the
repository, states its license and dependencies; the compiled path warns when it is off; the
README's commands are what CI runs."""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import tarot_env

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # setuptools copies the modules into build/lib and never takes out one that has moved away: a wheel built
    # over an old build/ shipped tarot_env/cli/checks.py and envs/env_docs.py after they left the package.
    # build/ is only that copy (make clean removes it too)
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    # no build isolation: the build tools are those of this environment (setuptools, wheel), so no download
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = out.glob("tarot_env-*.whl")
    return path


def test_the_wheel_installs_only_the_tarot_env_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"tarot_env", f"tarot_env-{tarot_env.__version__}.dist-info"}, top
    assert not any(n.endswith(".pth") for n in names)
    assert not any(n.endswith("env_docs.py") for n in names)  # a development tool of the checkout (tools/), not shipped


def test_the_wheel_holds_every_module_of_the_repository(wheel):
    """agents/ and experiments/ become tarot_env.agents and tarot_env.experiments; nothing is left out
    (the package list in pyproject.toml is explicit, so a new subpackage must be added there)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(p.relative_to(ROOT)) for p in (ROOT / "tarot_env").rglob("*.py") if "__pycache__" not in p.parts}
    for folder in ("agents", "experiments"):
        expected |= {f"tarot_env/{p.relative_to(ROOT)}" for p in (ROOT / folder).glob("*.py")}
    assert expected - names == set()
    assert {n for n in names if n.endswith(".py")} - expected == set()  # and no module the checkout no longer has
    assert "tarot_env/py.typed" in names
    assert f"tarot_env-{tarot_env.__version__}.dist-info/licenses/LICENSE" in names


def test_the_wheels_metadata(wheel):
    z = zipfile.ZipFile(wheel)
    meta = email.message_from_string(z.read(f"tarot_env-{tarot_env.__version__}.dist-info/METADATA").decode())
    assert meta["Version"] == tarot_env.__version__
    assert meta["License-Expression"] == "MIT"
    requires = meta.get_all("Requires-Dist")
    core = [r for r in requires if "extra ==" not in r]
    assert {re.split(r"[<>=!~ ;\[]", r)[0].lower() for r in core} == {"numpy", "gymnasium", "pettingzoo", "numba"}
    torch = [r for r in requires if r.startswith("torch")]
    assert torch and all("==" not in r.split(";")[0] and ">=" in r for r in torch), torch  # a lower bound, never an exact pin
    train = [r.split(";")[0].strip() for r in requires if 'extra == "train"' in r]
    for needed in ("rich", "tqdm", "stable-baselines3", "sb3-contrib", "matplotlib"):
        assert any(r.startswith(needed) for r in train), (needed, train)
    entry_points = z.read(f"tarot_env-{tarot_env.__version__}.dist-info/entry_points.txt").decode()
    assert "tarot = tarot_env.command:main" in entry_points


def test_the_wheel_runs_from_outside_the_repository(wheel, tmp_path):
    """The unpacked wheel first on the path, from a folder with no checkout: the documented
    python -m commands and the tarot command's module run, and import from the wheel."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = dict(os.environ, PYTHONPATH=str(site))
    code = (
        "import tarot_env, tarot_env.agents.french_rules, tarot_env.experiments.arena, importlib.util;"
        "print(tarot_env.__file__, tarot_env.agents.__file__);"
        "print(importlib.util.find_spec('agents'), importlib.util.find_spec('experiments'))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert all(p.startswith(str(site)) for p in first.split()), first
    assert second == "None None"  # no top-level agents or experiments
    for module in ("tarot_env.experiments.main", "tarot_env.experiments.arena", "tarot_env.experiments.train", "tarot_env.command"):
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "usage" in done.stdout.lower(), (module, done.stderr[-2000:])


def test_the_version_is_stated_once():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'attr = "tarot_env._version.__version__"' in pyproject
    assert "## " + tarot_env.__version__ in (ROOT / "CHANGELOG.md").read_text()


def test_sb3s_progress_bar_has_what_it_imports():
    """The train extra installs rich and tqdm: SB3's progress bar callback refuses to start without them."""
    from stable_baselines3.common.callbacks import ProgressBarCallback

    ProgressBarCallback()


@pytest.mark.parametrize(
    ("env", "prelude", "expected"),
    [
        ({"TAROT_ENV_JIT": "0"}, "", "TAROT_ENV_JIT=0 is set"),
        ({}, "import sys; sys.modules['numba'] = None;", "numba cannot be imported"),
    ],
)
def test_running_without_the_compiled_path_warns_once(env, prelude, expected):
    code = prelude + "import tarot_env, tarot_env.vector, tarot_env.rules.french, tarot_env.encoding.bolognese; import tarot_env"
    done = subprocess.run(
        [sys.executable, "-W", "always::tarot_env.PerformanceWarning", "-c", code],
        env={**{k: v for k, v in os.environ.items() if k != "TAROT_ENV_JIT"}, **env},  # the suite may run under TAROT_ENV_JIT=0
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("PerformanceWarning") == 1, done.stderr
    assert expected in done.stderr


def test_the_compiled_path_is_silent():
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", "import tarot_env, tarot_env.vector"],
        env={k: v for k, v in os.environ.items() if k != "TAROT_ENV_JIT"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "PerformanceWarning" not in done.stderr, done.stderr


def test_ci_runs_the_readmes_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip() and not line.startswith("#")]
    makes = [line.split()[:2] for line in ci if line.startswith("make ")]
    assert makes == [["make", "test"], ["make", "demo"]], makes  # in this order, nothing else made
    assert "set -euo pipefail" in ci  # a failing `make test | tee` fails the run
    assert ".venv/bin/tarot" in readme  # how to reach the command
    makefile = (ROOT / "Makefile").read_text()
    assert "torch==2.13.0" in makefile  # the local CPU build first: no CUDA download
    assert "--no-progress-bar" not in makefile and "--no-progress-bar" not in "".join(ci)


def test_a_checkout_runs_without_an_editable_install():
    """From the repository's root with no install of this checkout on the path (PYTHONPATH=. and no
    site processing, so no editable finder): the documented commands still find agents/ and experiments/."""
    import numpy

    site_packages = str(Path(numpy.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), site_packages]))
    done = subprocess.run(
        [sys.executable, "-S", "-m", "tarot_env.experiments.arena", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "usage" in done.stdout.lower(), done.stderr[-2000:]
    code = "import tarot_env.agents as a; print(a.__file__)"
    done = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == str(ROOT / "agents" / "__init__.py"), done.stderr
