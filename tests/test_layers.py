"""The layers above the rules: an import scan of the package, and no family asked by name.

The map (docs/design.md, "Layers"), lowest first; a module may import its own layer or a lower
one, never a higher one, and the three front ends of layer 7 import none of each other:

    0 base        tarot_env._version, .errors, ._jit, ._threads
    1 cards       tarot_env.cards
    2 rules       tarot_env.rules
    3 facts       tarot_env.tables, tarot_env.encoding
    4 envs        tarot_env.envs, .vector, .wrappers, .registry, .records, .rllib, .belief, .moves,
                  the env modules tarot_env.<game>_v0, the package root
    5 agents      tarot_env.agents (the repository's agents/)
    6 library     tarot_env.challenge, .warmup, .arena, .arguments
    7 front ends  tarot_env.cli, tarot_env.web, tarot_env.experiments (the repository's experiments/)
    8 command     tarot_env.command

Every ``import`` and ``from ... import`` of a tarot_env module is read with ``ast``, those inside
functions included (a lazy import is still a dependency). Why a test: an arrow drawn by hand runs
upwards unseen; here it is a failure naming the module, the line and the target.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (layer, module prefixes), lowest first
LAYERS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (0, ("tarot_env._version", "tarot_env.errors", "tarot_env._jit", "tarot_env._threads")),
    (1, ("tarot_env.cards",)),
    (2, ("tarot_env.rules",)),
    (3, ("tarot_env.tables", "tarot_env.encoding")),
    (
        4,
        (
            "tarot_env.envs",
            "tarot_env.vector",
            "tarot_env.wrappers",
            "tarot_env.registry",
            "tarot_env.records",
            "tarot_env.rllib",
            "tarot_env.belief",
            "tarot_env.moves",
        ),
    ),
    (5, ("tarot_env.agents",)),
    (6, ("tarot_env.challenge", "tarot_env.warmup", "tarot_env.arena", "tarot_env.arguments")),
    (7, ("tarot_env.cli", "tarot_env.web", "tarot_env.experiments")),
    (8, ("tarot_env.command",)),
)
#: the env modules (``tarot_env/<game>_v0.py``) and the package root sit with the envs
ENV_MODULE = re.compile(r"^tarot_env\.\w+_v0$")
FRONT_ENDS = ("tarot_env.cli", "tarot_env.web", "tarot_env.experiments")
#: the repository's folders and the package names they are installed as (pyproject's package-dir)
FOLDERS = {"tarot_env": "tarot_env", "agents": "tarot_env.agents", "experiments": "tarot_env.experiments"}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> int:
    """The layer of a tarot_env module; ``KeyError`` for one the map does not place (a new module
    must be placed on purpose)."""
    if module == "tarot_env" or ENV_MODULE.match(module):
        return 4
    for layer, prefixes in LAYERS:
        if any(_within(module, p) for p in prefixes):
            return layer
    raise KeyError(module)


def front_end(module: str) -> str | None:
    return next((p for p in FRONT_ENDS if _within(module, p)), None)


def modules() -> dict[str, Path]:
    """Every module of the package, by its installed name (``agents/pimc.py``: ``tarot_env.agents.pimc``)."""
    out: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


MODULES = modules()


def _target(name: str, known: dict[str, Path]) -> str:
    """The module an import names: ``from tarot_env import arguments`` imports the module
    ``tarot_env.arguments``; ``from tarot_env import make`` imports the package root."""
    return name if name in known else name.rsplit(".", 1)[0]


def imports(module: str, path: Path) -> list[tuple[str, int]]:
    """``(imported tarot_env module, line)`` for every import in ``path``, function-level ones included."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import, resolved against the module's package
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            names = [_target(f"{base}.{a.name}", MODULES) for a in node.names] if base else []
            if not names or all(n == base for n in names):
                names = [base]
        else:
            continue
        out += [(n, node.lineno) for n in names if n == "tarot_env" or n.startswith("tarot_env.")]
    return out


def arrows_against_the_map() -> list[str]:
    """``importer -> imported (path:line)`` for every import up a layer or between two front ends."""
    bad = []
    for module, path in MODULES.items():
        here = layer_of(module)
        for target, line in imports(module, path):
            where = f"{path.relative_to(ROOT)}:{line}"
            try:
                there = layer_of(target)
            except KeyError:
                bad.append(f"{module} -> {target} ({where}): {target} is not on the map")
                continue
            mine, theirs = front_end(module), front_end(target)
            if there > here:
                bad.append(f"{module} (layer {here}) -> {target} (layer {there}) ({where})")
            elif mine and theirs and mine != theirs:
                bad.append(f"{module} -> {target} ({where}): front ends import none of each other")
    return bad


def test_every_module_is_on_the_map():
    unplaced = []
    for module in MODULES:
        try:
            layer_of(module)
        except KeyError:
            unplaced.append(module)
    assert not unplaced, f"modules the layer map does not place (tests/test_layers.py LAYERS): {unplaced}"


def test_no_import_runs_up_a_layer_or_between_front_ends():
    bad = arrows_against_the_map()
    assert not bad, f"{len(bad)} import(s) against the layer map:\n" + "\n".join(bad)


#: the repository's development tools (``tools/env_docs.py`` rewrites the env modules' docstrings):
#: not in the wheel, off the run-time path; they read the package, the package never reads them
TOOLS = ROOT / "tools"


def tool_imports(path: Path) -> list[tuple[str, int]]:
    """``(imported name, line)`` of each import in ``path`` that names ``tools`` or a module of it."""
    tools = {p.stem for p in TOOLS.glob("*.py")}
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [f"{node.module or ''}.{a.name}".lstrip(".") for a in node.names]
        else:
            continue
        out += [(n, node.lineno) for n in names if n.split(".")[0] == "tools" or tools & set(n.split("."))]
    return out


def test_no_module_of_the_package_imports_a_development_tool():
    assert (TOOLS / "env_docs.py").is_file()
    bad = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in MODULES.values() for name, line in tool_imports(path)]
    assert not bad, "the package imports a development tool of tools/:\n" + "\n".join(bad)


def test_the_tool_scan_sees_each_spelling(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from tarot_env.envs import env_docs\nimport tools.env_docs\nfrom tools import x\nimport numpy\n")
    assert sorted(line for _, line in tool_imports(src)) == [2, 3, 4]


# ------------------------------------------------------------------------------------- the scan itself
def test_the_scan_sees_function_level_relative_and_from_imports(tmp_path, monkeypatch):
    """The scan would fail on each kind of upward arrow: a lazy import in a function, a relative
    import and ``from package import module`` (so that its silence above means something)."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from tarot_env.cli import play\nfrom . import command\nfrom tarot_env import arena, make\nimport numpy\n")
    found = imports("tarot_env.rules.m", src)
    assert ("tarot_env.cli.play", 2) in found
    assert ("tarot_env.rules.command", 3) not in found and ("tarot_env.command", 3) not in found  # `.` is tarot_env.rules
    assert ("tarot_env.arena", 4) in found and ("tarot_env", 4) in found
    assert all(not m.startswith("numpy") for m, _ in found)
    assert layer_of("tarot_env.cli.play") > layer_of("tarot_env.rules.m")
    assert imports("tarot_env.rules.bolognese", _init(tmp_path, "from ... import tables\n")) == [("tarot_env.tables", 1)]


def _init(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "pkg" / "__init__.py"
    p.parent.mkdir()
    p.write_text(text)
    return p


def test_the_map_places_the_layers_in_order():
    assert layer_of("tarot_env") == layer_of("tarot_env.ottocento_v0") == layer_of("tarot_env.envs.tarocchino") == 4
    assert layer_of("tarot_env.tables") < layer_of("tarot_env.moves") < layer_of("tarot_env.agents.factory")
    assert layer_of("tarot_env.arena") < layer_of("tarot_env.experiments.arena") < layer_of("tarot_env.command")
    assert front_end("tarot_env.web.room") != front_end("tarot_env.cli.play") and front_end("tarot_env.arena") is None
    with pytest.raises(KeyError):
        layer_of("tarot_env.somewhere_new")


# ------------------------------------------------------------------------------------- families by name
#: what names a family or an env: the env ids, their games' names and the family words
FAMILY_WORDS = ("french", "tarocchino", "bolognese")


def _names_an_env(value: object) -> bool:
    from tarot_env.tables import ENVS

    if isinstance(value, str):
        v = value.lower()
        return v in ENVS or v in {r.game for r in ENVS.values()} or v.startswith(FAMILY_WORDS)
    return False


def _constants(node: ast.AST) -> list[object]:
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


#: the name of a function that asks a family by a flag of its own (the table's row answers it)
FAMILY_FLAG = re.compile(r"^_?is_(french|tarocchino|bolognese)\w*$")


def family_by_name(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, code)`` of each comparison of a value with an env id, a game's name or a family
    word (``env_id == "french_tarot_v0"``, ``game in ("ottocento", ...)``), each
    ``.startswith("french")`` / ``.endswith(...)`` / ``.removeprefix(...)`` of one, and each
    function that answers a family of its own (``def is_french(env_id)``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and FAMILY_FLAG.match(node.name):
            out.append((node.lineno, f"def {node.name}(...)"))
        elif isinstance(node, ast.Compare):
            ops_ok = all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops)
            sides = [node.left, *node.comparators]
            if ops_ok and any(_names_an_env(v) for s in sides for v in _constants(s)):
                out.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith", "removeprefix")
            and node.args
            and any(_names_an_env(v) for v in _constants(node.args[0]))
        ):
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_module_but_the_table_asks_a_family_by_name():
    """Which family (or which env) a table plays is read from its row of tarot_env.tables
    (``facts(env_id).french``, ``.spec``, ``.partners``), never by comparing its id or name to a literal."""
    bad = []
    for module, path in MODULES.items():
        if module == "tarot_env.tables":
            continue
        for line, code in family_by_name(ast.parse(path.read_text(), str(path))):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {code}")
    assert not bad, f"{len(bad)} family or env asked by name outside tarot_env/tables.py:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ('if env_id == "french_tarot_v0": pass', True),
        ('x = env_id.startswith("french")', True),
        ('x = name in ("ottocento", "mattazza")', True),
        ('x = env.metadata["name"].startswith(("french", "x"))', True),
        ('x = "tarocchino" != family', True),
        ('env_id: str = "french_tarot_v0"', False),  # a default, not a question
        ("x = facts(env_id).french", False),
        ('x = verb == "play"', False),
        ("def is_french(env_id): return True", True),
        ("def french_view(env): pass", False),
    ],
)
def test_the_family_scan_finds_what_it_names(code, found):
    assert bool(family_by_name(ast.parse(code))) is found
