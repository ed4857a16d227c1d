"""Every Python snippet and every shell command of the documentation runs as written.

The snippets are the ```` ```python ```` blocks of README.md, of every Markdown file under docs/
and of the env modules' docstrings (``tarot_env/*_v0.py``). Each runs on its own, in a fresh
interpreter whose working directory is an empty temporary folder, so a snippet may use only what
it imports and makes itself. A failure names the file and the line of the block. Output listings
are untagged blocks; a block that shows commands is tagged ``bash``.

The shell commands are the lines of the ```` ```bash ```` blocks of README.md and docs/ (see
:func:`test_shell_command_runs`): each runs in one shared folder, in this environment (its
``tarot`` and ``python``), with small sizes where it is long (:func:`small`). They are marked
slow: about 5 minutes together on the project's 2-core machine (``make test`` runs them;
``pytest -m "not slow"`` leaves them out).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120  # seconds per snippet: none trains for more than a few seconds
FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)\s*$")
SHORT_FENCE = re.compile(r"^\s*``(?!`)\s*\w*\s*$")  # a block opened with two backticks: not a code block in Markdown


@dataclass(frozen=True)
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    code: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return paths + sorted((ROOT / "tarot_env").glob("*_v0.py"))


def markdown_of(path: Path) -> tuple[str, int]:
    """The Markdown text of ``path`` and the line at which it starts (a module's docstring for .py files)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text, 1
    start = text.index('"""')
    end = text.index('"""', start + 3)
    return text[start + 3 : end], text.count("\n", 0, start) + 1


def blocks_of(path: Path) -> list[tuple[str, int, list[str]]]:
    """The fenced blocks of ``path``: (language tag, line of the opening fence, lines without the fence's indent)."""
    text, first = markdown_of(path)
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.groups()
        j = i + 1
        while j < len(lines) and not re.match(rf"^\s*{ticks}\s*$", lines[j]):
            j += 1
        out.append((lang, first + i, [ln[len(indent) :] if ln.startswith(indent) else ln for ln in lines[i + 1 : j]]))
        i = j + 1
    return out


def snippets_of(path: Path) -> list[Snippet]:
    return [Snippet(path, line, "\n".join(body) + "\n") for lang, line, body in blocks_of(path) if lang == "python"]


SNIPPETS = [s for p in documents() for s in snippets_of(p)]


def test_snippets_were_found():
    files = {s.path.name for s in SNIPPETS}
    assert {"README.md", "vector.md", "french_tarot.md", "tarocchino.md", "agents.md", "french_tarot_v0.py"} <= files
    assert len(SNIPPETS) >= 20


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_block_opens_with_two_backticks(path):
    text, first = markdown_of(path)
    bad = [first + i for i, line in enumerate(text.splitlines()) if SHORT_FENCE.match(line)]
    assert not bad, f"{path.relative_to(ROOT)}: lines {bad} open or close a code block with two backticks; Markdown needs three"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.where)
def test_snippet_runs(snippet: Snippet, tmp_path: Path):
    script = tmp_path / "snippet.py"
    script.write_text(snippet.code, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)  # the installed package, as a reader has it
    env.pop("TAROT_ENV_JIT", None)  # and its default, compiled path (the suite may run under TAROT_ENV_JIT=0)
    try:
        proc = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{snippet.where}: the snippet ran past {TIMEOUT} s")
    assert proc.returncode == 0, f"{snippet.where}: the snippet failed (exit {proc.returncode})\n{proc.stderr[-3000:]}"


# ------------------------------------------------------------------------------------- shell commands
SHELL = ("bash", "sh", "shell", "console")
#: the first word of a documented command (a block holding one is tagged bash, :func:`test_commands_are_in_bash_blocks`)
COMMAND = re.compile(r"^(?:tarot|python|\.venv/bin/\S+|make|pip|sqlite3|tensorboard|ray|jupyter|TAROT_ENV_JIT=\S+)\s")


@dataclass(frozen=True)
class Command:
    path: Path
    line: int  # 1-based line of the command's first line
    text: str  # as shown: continued lines joined, the trailing comment dropped

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def scan(line: str, quote: str | None) -> tuple[str, str | None]:
    """``line`` up to a ``#`` that starts a comment (after a blank, outside quotes), and the quote
    still open at its end; ``quote``: the one open at its start (a quoted string over several lines)."""
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), None
    return line.rstrip(), quote


def commands_of(path: Path) -> list[Command]:
    """The commands of the shell blocks: a line ending in ``\\`` goes on on the next, and so does a
    quoted string (``python -c "..."`` over several lines)."""
    out = []
    for lang, first, body in blocks_of(path):
        if lang not in SHELL:
            continue
        pending, start, quote = "", 0, None
        for k, raw in enumerate(body):
            if not pending:
                start = first + 1 + k
            line, quote = scan(raw if quote or not pending else raw.lstrip(), quote)
            if quote:
                pending += line + "\n"
            elif line.endswith("\\"):
                pending += line[:-1].rstrip() + " "
            else:
                text, pending = (pending + line).strip(), ""
                if text:
                    out.append(Command(path, start, text))
    return out


COMMANDS = [c for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))] for c in commands_of(p)]

#: commands that are not run here, and why (a regular expression of the command -> the reason)
NOT_RUN = {
    r"^ray start\b": "starts a node of a Ray cluster: the cluster set-up of docs/rllib.md, not this machine's",
    r"--address auto\b": "needs a Ray cluster started with ray start",
    r"^pip install\b": "installs the package: tests/test_extras.py installs each extra alone in a fresh venv and runs it",
    r"-m pytest\b": "runs tests of this suite, which runs them anyway",
    r"runs/web_games/table": "replays the record of a deal played in the browser (tests/test_web_*.py play and replay such records)",
}
#: flag -> the small value it takes here (a size: deals, steps, seconds, batch sizes)
SMALL = {
    "--deals": "2", "--timesteps": "256", "--steps": "256", "--eval-episodes": "2", "--iterations": "1", "--num-env-runners": "0",
    "--eval-deals": "2", "--seconds": "0.2", "--repeats": "1", "--batch": "16", "--threads": "1,2", "--samples": "2,4",
    "--rounds": "1", "--learner-steps": "8192", "--eval-points": "2", "--deals-per-iteration": "2",
    "--minutes": "0.01", "--deals-per-round": "1", "--ppo-steps": "1",
}  # fmt: skip
#: a script (a regular expression of its command) -> the small sizes it is given where the command leaves them at their defaults
SMALL_DEFAULTS = {
    r"experiments\.train\b|^tarot train\b": ["--num-envs 8", "--n-steps 32", "--batch-size 64", "--n-epochs 1", "--net-arch 16",
                                              "--bc-deals 4", "--eval-episodes 2", "--no-progress-bar"],
    r"experiments\.train\b": ["--timesteps 256"],
    r"^tarot train\b": ["--steps 256"],
    r"experiments\.train_rllib\b": ["--iterations 1", "--num-env-runners 0", "--train-batch-size 200", "--minibatch-size 100",
                                    "--num-epochs 1", "--eval-deals 2"],
    r"experiments\.(?:arena|suite)\b|^tarot arena\b": ["--deals 2"],
    r"(?:experiments\.benchmark\b|^tarot bench\b)(?!.*--api learner)": ["--seconds 0.2", "--repeats 1"],
    r"experiments\.benchmark\b.*--api learner": ["--repeats 1", "--learner-steps 8192"],
    r"experiments\.distill\b(?!.*--resume)": ["--teacher pimc:samples=2,time=0.02", "--bc-deals 4", "--net-arch 16", "--workers 1",
                                             "--eval-deals 2", "--no-progress-bar"],
    r"experiments\.expert\b(?!.*--resume)": ["--time 0.05", "--samples 2", "--eval-deals 2", "--no-progress-bar"],
    r"experiments\.main\b": ["--timesteps 256", "--bc-deals 4", "--deals 2", "--eval-points 2", "--eval-deals 2", "--no-progress-bar"],
    r"experiments\.threads_policy\b": ["--seconds 0.2", "--repeats 1", "--env ottocento_v0"],
}  # fmt: skip
#: commands that make what later commands read (models, game records, the room's database): run first
MAKERS = re.compile(r"experiments\.train|experiments\.expert\b|^tarot (?:train|play|serve)\b")
#: a move's number for every prompt of a game at the terminal (tarot play), more than any match asks
MOVES = "1\n" * 20_000


def small(text: str) -> str:
    """The command with small sizes: every flag of :data:`SMALL` at its small value (``--bc-deals``
    above 0 at 4), and the flags of :data:`SMALL_DEFAULTS` added where the command does not give them."""
    text = re.sub(r"(?<!\S)(--[\w-]+)([ =])(\S+)", lambda m: m.group(1) + m.group(2) + SMALL.get(m.group(1), m.group(3)), text)
    text = re.sub(r"(?<!\S)--bc-deals (?!0\b)\d+", "--bc-deals 4", text)
    if re.search(r"[;&|]", text):
        return text  # a compound line: its commands give their sizes
    for script, flags in SMALL_DEFAULTS.items():
        if re.search(script, text):
            text += "".join(f" {f}" for f in flags if not re.search(rf"(?<!\S){f.split()[0]}(?!\S)", text))
    return text


def placeholders(text: str, folder: Path) -> str:
    """A ``<...>`` in a path (``runs/games/french_tarot_v0-<time>.json``) as the newest file that fits."""

    def newest(m: re.Match) -> str:
        found = sorted(folder.glob(re.sub(r"<[^>]+>", "*", m.group(0))), key=lambda p: p.stat().st_mtime)
        assert found, f"nothing in {folder} fits {m.group(0)}"
        return str(found[-1].relative_to(folder))

    return re.sub(r"\S*<[^>]+>\S*", newest, text)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def results_files() -> dict[str, tuple[int, int]]:
    """Every file of results/ with its size and modification time."""
    return {str(p.relative_to(ROOT)): (p.stat().st_size, p.stat().st_mtime_ns) for p in (ROOT / "results").rglob("*") if p.is_file()}


RESULTS_BEFORE: dict[str, tuple[int, int]] = {}


@pytest.fixture(scope="module")
def shell_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The commands' working folder: a reader's checkout as far as they read it (``results`` is the
    repository's, which they must not write: its files are noted here, before the first command)."""
    RESULTS_BEFORE.update(results_files())
    folder = tmp_path_factory.mktemp("shell")
    (folder / "results").symlink_to(ROOT / "results")
    (folder / ".venv").symlink_to(Path(sys.executable).parent.parent)  # the docs' .venv/bin/python: this environment
    return folder


def shell_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TAROT_ENV_JIT", "TAROT_ENV_MODELS")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # this environment's tarot, python
    env["MPLBACKEND"] = "Agg"
    return env


def serve(argv: str, port: int, folder: Path) -> None:
    """Start a server's command, wait until it answers HTTP on ``port``, and stop it."""
    import time
    import urllib.request

    proc = subprocess.Popen(["bash", "-c", f"exec {argv}"], cwd=folder, env=shell_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        deadline, answered = time.monotonic() + 120, False
        while not answered and time.monotonic() < deadline and proc.poll() is None:
            try:
                answered = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).status == 200
            except OSError:
                time.sleep(0.5)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert answered, f"{argv} did not answer on port {port}:\n{output[-3000:]}"


def run_command(command: Command, folder: Path) -> None:
    text = command.text
    if text.startswith("make "):  # a target of the Makefile: it sets up .venv and rewrites the committed results
        done = subprocess.run(["make", "-n", *text.split()[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{command.where}: {text!r}: {done.stderr[-2000:]}"
        return
    text = placeholders(small(text), folder)
    if re.match(r"tarot serve\b|tensorboard\b", text):
        port = free_port()
        text = re.sub(r"--port[ =]\d+", f"--port {port}", text) if "--port" in text else f"{text} --port {port}"
        serve(text, port, folder)
        return
    stdin = MOVES if text.startswith("tarot play ") else "e\nq\n" if text.startswith("tarot replay ") else ""
    done = subprocess.run(["bash", "-c", text], cwd=folder, env=shell_env(), input=stdin, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command.where}: {text!r} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def _order(command: Command) -> int:
    return 0 if MAKERS.search(command.text) else 1


RUN = sorted((c for c in COMMANDS if not any(re.search(p, c.text) for p in NOT_RUN)), key=_order)


def test_shell_commands_were_found():
    files = {c.path.name for c in COMMANDS}
    assert {"README.md", "agents.md", "cli.md", "rllib.md", "results.md", "performance.md", "search.md", "web.md"} <= files
    assert len(RUN) >= 40


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_commands_are_in_bash_blocks(path):
    """A command shown in a block that is not tagged bash would escape :func:`test_shell_command_runs`."""
    for lang, line, body in blocks_of(path):
        if lang not in SHELL and lang != "python":
            shown = [ln for ln in body if COMMAND.match(ln.strip() + " ")]
            assert not shown, f"{path.relative_to(ROOT)}:{line}: commands in a block tagged {lang or 'nothing'}: tag it bash\n{shown}"


@pytest.mark.slow
@pytest.mark.parametrize("command", RUN, ids=lambda c: c.where)
def test_shell_command_runs(command: Command, shell_folder: Path):
    """The command as shown, in :func:`shell_folder`, with small sizes where it is long (:func:`small`):
    its exit status is 0. The commands that make what others read (a training run's model, a game's
    record, the room's database) run first. A server (``tarot serve``, ``tensorboard``) must answer
    on its port, then is stopped; a game at the terminal gets move 1 at every prompt; a replay goes
    to the end and quits. A Makefile target is checked with ``make -n`` (the targets set up .venv
    and rewrite the committed results; CI runs ``make test`` and ``make demo``, .ci/run)."""
    run_command(command, shell_folder)


@pytest.mark.slow
def test_the_shell_commands_left_the_committed_results_alone(shell_folder: Path):
    """Runs after the commands (in this file's order): nothing of results/, which they read through
    the working folder, was written, made or removed."""
    after = results_files()
    changed = sorted(k for k in RESULTS_BEFORE.keys() | after.keys() if RESULTS_BEFORE.get(k) != after.get(k))
    assert not changed, f"the documented commands changed results/: {changed}"
