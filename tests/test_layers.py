"""The layers above the rules: an import scan of the package, and no family asked by name.

The map (docs/design.md, "Layers"), lowest first; a module may import its own layer or a lower
one, never a higher one, and the three front ends of layer 7 import none of each other:

    0 base        tarot_env._version, .errors, ._jit, ._threads
    1 cards       tarot_env.cards
    2 rules       tarot_env.rules
    3 facts       tarot_env.env_facts, tarot_env.encoding
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
    (3, ("tarot_env.env_facts", "tarot_env.encoding")),
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


def _type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): what it imports is read by type checkers only."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST, type_checking: bool) -> list[ast.AST]:
    """Every node of ``tree``; without ``type_checking``, none in the body of an ``if TYPE_CHECKING:``."""
    if type_checking:
        return list(ast.walk(tree))
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if _type_checking(node):
            assert isinstance(node, ast.If)
            todo += node.orelse
        else:
            todo += ast.iter_child_nodes(node)
    return out


def imports(module: str, path: Path, type_checking: bool = True) -> list[tuple[str, int]]:
    """``(imported tarot_env module, line)`` for every import in ``path``, function-level ones included;
    those under ``if TYPE_CHECKING:`` only with ``type_checking``."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = []
    for node in _nodes(tree, type_checking):
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


# ------------------------------------------------------------------------------------- import circles
#: circles known and not yet broken, each as its sorted modules: the agents' factory makes the search
#: agent (it imports pimc in a function) and the search agent makes its rollout agents with the factory
#: (a function-level import back). A circle broken is taken off this list (the test says so).
KNOWN_CIRCLES: set[tuple[str, ...]] = set()


def import_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports at run time: function-level imports count (a lazy
    import is still a dependency); imports under ``if TYPE_CHECKING:`` do not (nothing runs them), nor a
    module's import of itself (``warmup``'s ``if __name__ == "__main__":`` reads itself as a module)."""
    return {m: {t for t, _ in imports(m, p, type_checking=False) if t in MODULES and t != m} for m, p in MODULES.items()}


def circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The import circles of ``graph``: its strongly connected components of two modules or more, each
    as its sorted modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return found


def test_no_import_circle_in_the_package():
    """No module of the package imports, through others, a module that imports it (``if TYPE_CHECKING:``
    imports aside): a circle makes the import order matter and hides which module depends on which. A
    part of the room's table takes what it reads of the table as a Protocol rather than importing it."""
    found = set(circles(import_graph()))
    new = sorted(found - KNOWN_CIRCLES)
    assert not new, "import circles (each module imports the next, through the others):\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = sorted(KNOWN_CIRCLES - found)
    assert not gone, f"circles broken: take them off KNOWN_CIRCLES in tests/test_layers.py: {gone}"


def test_the_circle_scan_finds_circles_and_reads_type_checking_imports_as_not_real(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [("a", "b", "c")]  # d only leads into it; e imports itself
    src = tmp_path / "m.py"
    src.write_text(
        "from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n    from tarot_env.web.room import Table\n"
        "else:\n    from tarot_env.web import seats\nif typing.TYPE_CHECKING:\n    import tarot_env.web.app\n"
        "def f():\n    from tarot_env.web.votes import Votes\n"
    )
    assert {t for t, _ in imports("tarot_env.web.m", src)} == {
        "tarot_env.web.room",
        "tarot_env.web.seats",
        "tarot_env.web.app",
        "tarot_env.web.votes",
    }
    assert {t for t, _ in imports("tarot_env.web.m", src, type_checking=False)} == {"tarot_env.web.seats", "tarot_env.web.votes"}


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
    assert imports("tarot_env.rules.bolognese", _init(tmp_path, "from ... import env_facts\n")) == [("tarot_env.env_facts", 1)]


def _init(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "pkg" / "__init__.py"
    p.parent.mkdir()
    p.write_text(text)
    return p


def test_the_map_places_the_layers_in_order():
    assert layer_of("tarot_env") == layer_of("tarot_env.ottocento_v0") == layer_of("tarot_env.envs.tarocchino") == 4
    assert layer_of("tarot_env.env_facts") < layer_of("tarot_env.moves") < layer_of("tarot_env.agents.factory")
    assert layer_of("tarot_env.arena") < layer_of("tarot_env.experiments.arena") < layer_of("tarot_env.command")
    assert front_end("tarot_env.web.room") != front_end("tarot_env.cli.play") and front_end("tarot_env.arena") is None
    with pytest.raises(KeyError):
        layer_of("tarot_env.somewhere_new")


# ------------------------------------------------------------------------------------- families by name
#: what names a family or an env: the env ids, their games' names and the family words
FAMILY_WORDS = ("french", "tarocchino", "bolognese")


def _names_an_env(value: object) -> bool:
    from tarot_env.env_facts import ENVS

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
    """Which family (or which env) a table plays is read from its row of tarot_env.env_facts
    (``facts(env_id).french``, ``.spec``, ``.partners``), never by comparing its id or name to a literal."""
    bad = []
    for module, path in MODULES.items():
        if module == "tarot_env.env_facts":
            continue
        for line, code in family_by_name(ast.parse(path.read_text(), str(path))):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {code}")
    assert not bad, f"{len(bad)} family or env asked by name outside tarot_env/env_facts.py:\n" + "\n".join(bad)


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
