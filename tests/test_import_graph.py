"""The package's import graph: stages in one layer order, and no cycles between modules.

Every import counts: at module level, lazily inside a function, under ``TYPE_CHECKING`` (a
type-only import still couples the two modules for the reader and for mypy) and through
``importlib.import_module`` of a literal name. The only imports not counted are a package's
``__init__`` importing its own submodules (a registry filling itself, as ``rules`` and
``report`` do: the submodule is the package's part).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator"

#: The stages, bottom first: a package may import only packages before it. ``core`` is what
#: every stage shares; ``run`` drives the stages; ``cli`` parses arguments and prints.
LAYERS = (
    "core",
    "load",
    "model",
    "render",
    "rules",
    "diagram",
    "lint",
    "cache",
    "targets",
    "output",
    "report",
    "diffing",
    "run",
    "integrations",
    "testing",
    "server",
    "cli",
)
#: A target's own sub-commands (``TargetSpec.commands``) are part of the CLI layer.
COMMAND_MODULES = ("generator.targets.sql.command",)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """``generator`` modules that ``path`` imports, anywhere in the file."""
    text = path.read_text(encoding="utf-8")
    return imports_of(text, module_name(path), path.name == "__init__.py", modules)


def imports_of(text: str, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """``generator`` modules that the source ``text`` of module ``name`` imports."""
    package = name if is_package else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in modules else base)
        elif isinstance(node, ast.Call):
            found.add(dynamic_import(node) or "")
    own = f"{name}." if is_package else None
    return {
        m
        for m in found
        if m in modules and m != name and not (own is not None and m.startswith(own))
    }


def dynamic_import(call: ast.Call) -> str | None:
    """The module of ``import_module("generator.x")`` or ``__import__("generator.x")`` with
    a literal name: an import all the same (None for any other call)."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called not in ("import_module", "__import__") or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports(p, modules) for p in paths}


def layer(module: str) -> str | None:
    """The stage ``module`` belongs to (None: the package root and ``__main__``)."""
    if module in COMMAND_MODULES:
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else None


def upward(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a later stage than its own."""
    found = []
    for module, targets in sorted(edges.items()):
        mine = layer(module)
        for target in sorted(targets):
            theirs = layer(target)
            if mine is None or theirs is None or mine == theirs:
                continue
            if LAYERS.index(theirs) > LAYERS.index(mine):
                found.append(f"{module} ({mine}) imports {target} ({theirs})")
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first search (one per back edge)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_every_package_of_generator_is_a_stage() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(LAYERS)
    loose = {p.name for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__.py", "__main__.py"}  # every module lives in its stage


def test_stages_import_only_the_stages_below_them() -> None:
    edges = graph()
    assert len(edges) > 100  # the walk found the package
    assert upward(edges) == []


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"generator.load.x": {"generator.rules.y"}}, ["generator.load.x (load) imports"]),
        ({"generator.cli.x": {"generator.load.y"}}, []),
        ({"generator.targets.sql.command": {"generator.run.pipeline"}}, []),
        ({"generator.targets.sql.plan": {"generator.run.pipeline"}}, ["generator.targets"]),
    ],
)
def test_the_layer_check_sees_an_upward_import(
    edges: dict[str, set[str]], expected: list[str]
) -> None:
    found = upward(edges)
    assert len(found) == len(expected)
    assert all(f.startswith(e) for f, e in zip(found, expected, strict=True))


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


#: The target seam: the modules directly in ``generator/targets/`` (the package, its registry
#: and the helpers every target shares). Each concrete target is a package below it.
TARGETS = PACKAGE / "targets"


def concrete_target(module: str) -> str | None:
    """The concrete target package ``module`` is part of (``generator.targets.sql`` for
    ``generator.targets.sql.verify``); None for the seam and for every other stage."""
    parts = module.split(".")
    if parts[:2] != ["generator", "targets"] or len(parts) < 3:
        return None
    return ".".join(parts[:3]) if (TARGETS / parts[2]).is_dir() else None


def target_imports(edges: dict[str, set[str]]) -> list[str]:
    """Every import of a concrete target from a module that is not part of the targets stage
    (a command a target adds to the CLI counts as the target's own)."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(edges.items())
        if layer(module) != "targets" and module not in COMMAND_MODULES
        for target in sorted(targets)
        if concrete_target(target) is not None
    ]


def test_every_built_in_target_is_a_package_of_the_targets_stage() -> None:
    from generator.targets import REGISTRY

    for spec in REGISTRY.values():
        assert isinstance(spec.target, str)
        assert concrete_target(spec.target.partition(":")[0]) == f"generator.targets.{spec.name}"


def test_no_stage_outside_the_targets_imports_a_concrete_target() -> None:
    """Other stages reach a target through :mod:`generator.targets.registry` only (module
    level, lazily in a function or under ``TYPE_CHECKING`` alike), so a target is its package
    and one line of the registry."""
    assert target_imports(graph()) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"generator.testing.x": {"generator.targets.python.render"}}, 1),
        ({"generator.run.x": {"generator.targets.vectors"}}, 1),
        ({"generator.run.x": {"generator.targets.registry", "generator.targets"}}, 0),
        ({"generator.targets.tests": {"generator.targets.vectors"}}, 0),
        ({"generator.targets.sql.command": {"generator.targets.sql.verify"}}, 0),
    ],
)
def test_the_target_check_sees_an_import_of_a_target(
    edges: dict[str, set[str]], expected: int
) -> None:
    assert len(target_imports(edges)) == expected


def test_every_kind_of_import_of_a_target_is_seen() -> None:
    """Module level, relative, lazy, ``TYPE_CHECKING`` and ``import_module`` alike."""
    modules = {
        "generator.testing.x",
        "generator.targets.python.render",
        "generator.targets.vectors",
        "generator.targets.vectors.files",
        "generator.targets.tests",
        "generator.targets.sql.verify",
        "generator.targets.registry",
    }
    source = (
        "from typing import TYPE_CHECKING\n"
        "from generator.targets import registry\n"
        "if TYPE_CHECKING:\n"
        "    from generator.targets.vectors import Vectors\n"
        "def f():\n"
        "    from generator.targets.python.render import render_module\n"
        "    import generator.targets.sql.verify\n"
        "    return importlib.import_module('generator.targets.tests')\n"
        "from ..targets.vectors import files\n"
    )
    found = imports_of(source, "generator.testing.x", False, modules)
    assert target_imports({"generator.testing.x": found}) == [
        f"generator.testing.x imports generator.targets.{m}"
        for m in ("python.render", "sql.verify", "tests", "vectors", "vectors.files")
    ]


def test_exit_codes_are_a_leaf() -> None:
    edges = graph()
    assert edges["generator.core.exitcodes"] == set()
    assert edges["generator.core.errors"] == set()
    importers = {m for m, targets in edges.items() if "generator.cli.main" in targets}
    assert importers <= {"generator.cli", "generator.__main__"}
