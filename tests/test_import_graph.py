"""The package has no import cycles, lazy imports inside functions included (only
``TYPE_CHECKING`` blocks are exempt), and the exit codes and errors live in leaf modules."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, modules: set[str]) -> set[str]:
    """``generator`` modules that ``path`` imports, at module level or lazily inside a
    function (only ``TYPE_CHECKING`` blocks never run). A package's lazy import of its own
    submodules (a registry filling itself, as ``rules`` and ``report`` do) is not an edge:
    the submodule is the package's part, not a layer above or below it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    never = {id(n) for node in ast.walk(tree) if _type_checking(node) for n in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in never:
            continue
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
    own = f"{name}." if path.name == "__init__.py" else None
    return {
        m
        for m in found
        if m in modules and m != name and not (own is not None and m.startswith(own))
    }


def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports(p, modules) for p in paths}


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


def test_no_import_cycles() -> None:
    edges = graph()
    assert len(edges) > 50  # the walk found the package
    assert cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_exit_codes_are_a_leaf() -> None:
    edges = graph()
    assert edges["generator.core.exitcodes"] == set()
    assert edges["generator.core.errors"] == set()
    importers = {m for m, targets in edges.items() if "generator.cli.main" in targets}
    assert importers <= {"generator.cli", "generator.__main__"}
