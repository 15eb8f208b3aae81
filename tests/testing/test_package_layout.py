"""The lazy table of :mod:`generator.testing` agrees with the imports mypy reads, and the module
the ``pytest11`` entry point names is the one holding the pytest hooks."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

import generator.testing


def test_every_public_name_resolves_from_the_module_its_table_names() -> None:
    table: dict[str, str] = generator.testing._WHERE
    assert sorted(table) == sorted(generator.testing.__all__)
    for name, where in table.items():
        module = importlib.import_module(f"generator.testing.{where}")
        assert getattr(generator.testing, name) is getattr(module, name), name


def test_the_type_checking_imports_are_the_lazy_table() -> None:
    """mypy reads the ``TYPE_CHECKING`` block, the runtime the table: they must say the same."""
    tree = ast.parse(inspect.getsource(generator.testing))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    static = {
        alias.name: (node.module or "").removeprefix("generator.testing.")
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert static == generator.testing._WHERE


def test_the_plugin_module_holds_the_hooks_and_the_helpers_none() -> None:
    specs = {name for name in dir(pytest.PytestPluginManager().hook) if name.startswith("pytest_")}
    plugin = importlib.import_module("generator.testing.pytest_plugin")
    helpers = importlib.import_module("generator.testing.generated_tests")
    assert {"pytest_addoption", "pytest_configure", "pytest_terminal_summary"} <= set(
        vars(plugin)
    ) & specs
    assert set(vars(helpers)) & specs == set()
