"""The seam's records in one process: what a :class:`Target` subclass gets by default, how a
:class:`TargetSpec` is built, and the configuration errors of an entry point that does not
name a usable target (the installed-plugin runs are in test_plugin_targets.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generator.core.errors import ConfigError
from generator.load.config import Config
from generator.model.document import Document
from generator.targets import REGISTRY, Target, TargetSpec, registry, table_of


class Plain(Target):
    name = "plain"

    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        return {}

    def owns(self, path: str, first_line: str) -> bool:
        return False


def test_a_target_declares_only_files_and_owns() -> None:
    target = Plain()
    assert (target.root, target.create_only) == ("out", False)
    assert target.package_files(["a/b/c.x"], "generated") == {}
    assert target.findings([], Config(Path("."), (), Path("generated"))) == []
    assert target.tests_target(Path("tests")) is None
    assert target.context() == ""


def test_a_target_without_files_or_owns_cannot_be_built() -> None:
    class Half(Target):
        name = "half"

        def owns(self, path: str, first_line: str) -> bool:
            return False

    with pytest.raises(TypeError, match="files"):
        Half()  # type: ignore[abstract]


def test_a_spec_builds_its_target_with_its_parsed_table() -> None:
    seen: list[tuple[dict[str, Any], str]] = []

    class Keyed(Plain):
        name = "keyed"

        def __init__(self, settings: str) -> None:
            self.settings = settings

    def parse(table: Any, where: str) -> str:
        seen.append((dict(table), where))
        return str(table.get("key", "default"))

    spec = TargetSpec("keyed", Keyed, parse)
    source = Path("/p/pyproject.toml")
    config = Config(Path("/p"), (), Path("/p/generated"), source=source)
    built = spec.build(config._replace(target_tables={"keyed": {"key": "value"}}))
    assert isinstance(built, Keyed) and built.settings == "value"
    default = spec.build()
    assert isinstance(default, Keyed) and default.settings == "default"
    assert seen[0] == ({"key": "value"}, "/p/pyproject.toml [tool.statedoc.keyed]")
    assert seen[1] == ({}, "[tool.statedoc.keyed]")
    assert table_of(config, "keyed") == ({}, "/p/pyproject.toml [tool.statedoc.keyed]")


def test_every_built_in_record_builds_the_target_it_names() -> None:
    for name, spec in REGISTRY.items():
        assert spec.name == name
        target = spec.build()
        assert target.name == name and isinstance(target, Target)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (TargetSpec("plain", "builtins:dict"), "is <class 'dict'>, not a Target subclass"),
        (TargetSpec("other", Plain), "registered as 'other' but names itself 'plain'"),
    ],
)
def test_a_spec_that_names_no_fitting_target_is_a_configuration_error(
    spec: TargetSpec, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        spec.build()


@pytest.fixture
def entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, EntryPoint]]:
    """The plugins the registry sees, by name (nothing installed is looked at)."""
    points: dict[str, EntryPoint] = {}
    module = ModuleType("statedoc_fake_plugin")
    module.__dict__.update(SPEC=TargetSpec("fake", Plain), NOT_A_SPEC=Plain)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(registry, "plugins", lambda: points)
    registry._load.cache_clear()
    yield points
    registry._load.cache_clear()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("statedoc_fake_plugin:NOT_A_SPEC", "must name a TargetSpec with name='fake'"),
        ("statedoc_no_such_module:SPEC", "cannot be loaded .*ModuleNotFoundError"),
    ],
)
def test_an_entry_point_that_names_no_target_is_a_configuration_error(
    entry_points: dict[str, EntryPoint], value: str, message: str
) -> None:
    entry_points["fake"] = EntryPoint("fake", value, registry.GROUP)
    assert registry.unknown_targets(["python", "fake", "cobol"]) == ["cobol"]
    with pytest.raises(ConfigError, match=message):
        registry.lookup("fake")


def test_an_entry_point_names_the_spec_it_is_looked_up_by(
    entry_points: dict[str, EntryPoint],
) -> None:
    entry_points["renamed"] = EntryPoint("renamed", "statedoc_fake_plugin:SPEC", registry.GROUP)
    with pytest.raises(ConfigError, match="with name='renamed'"):
        registry.lookup("renamed")
    entry_points["fake"] = EntryPoint("fake", "statedoc_fake_plugin:SPEC", registry.GROUP)
    assert registry.lookup("fake") == TargetSpec("fake", Plain)
    assert registry.known() == [*sorted(REGISTRY), "fake", "renamed"]
    assert registry.takes_table("fake") and registry.takes_table("sql")  # every target: out, tests
