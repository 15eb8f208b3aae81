"""Finding targets by name: the built-in :data:`~generator.targets.REGISTRY`, then the
``statedoc.targets`` entry points of other installed distributions.

Entry points are only looked for when a name is not built in (a ``targets`` entry, a
``--target``, a ``[tool.statedoc.<name>]`` table): a project that uses built-in targets alone
never pays for :mod:`importlib.metadata`. Each entry point is named after its target and
names a :class:`~generator.targets.TargetSpec`; it is imported only when its target is used.
A plugin named like a built-in target, or two plugins of one name, are configuration errors
(:class:`~generator.core.errors.ConfigError`, exit 2) whenever plugins are looked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from generator.core.errors import ConfigError
from generator.targets import DEFAULT_TARGETS, REGISTRY, Target, TargetSpec

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from generator.load.config import Config

#: The entry-point group a distribution adds targets in.
GROUP = "statedoc.targets"


@functools.cache
def plugins() -> dict[str, EntryPoint]:
    """The ``statedoc.targets`` entry points by target name, not yet loaded."""
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=GROUP):
        owner = _owner(point)
        if point.name in REGISTRY:
            raise ConfigError(
                f"{owner} adds a target named {point.name!r}, the name of a built-in target: "
                "a plugin target needs a name of its own (uninstall it or ask for a rename)"
            )
        if point.name in found:
            raise ConfigError(
                f"{_owner(found[point.name])} and {owner} both add a target named "
                f"{point.name!r}: uninstall one of them"
            )
        found[point.name] = point
    return found


def _owner(point: EntryPoint) -> str:
    """The distribution an entry point comes from, as messages name it."""
    dist = point.dist
    return f"the distribution {dist.name}" if dist is not None else f"the entry point {point}"


@functools.cache
def _load(name: str) -> TargetSpec:
    point = plugins()[name]
    try:
        spec = point.load()
    except Exception as exc:  # a broken plugin: say whose, not a traceback
        raise ConfigError(
            f"the {name} target of {_owner(point)} cannot be loaded ({point.value}): "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(spec, TargetSpec) or spec.name != name:
        raise ConfigError(
            f"the {GROUP} entry point {name} of {_owner(point)} must name a TargetSpec "
            f"with name={name!r}, not {spec!r}"
        )
    return spec


def lookup(name: str) -> TargetSpec | None:
    """The target registered as ``name``, built in or a plugin's; None for no target."""
    spec = REGISTRY.get(name)
    if spec is not None:
        return spec
    return _load(name) if name in plugins() else None


def known() -> list[str]:
    """Every target name: the built-in ones, then the plugins', sorted."""
    return sorted(REGISTRY) + sorted(plugins())


def unknown_targets(names: Iterable[str]) -> list[str]:
    """The names in ``names`` that no target is registered as."""
    return [name for name in names if name not in REGISTRY and name not in plugins()]


def get_target(name: str, config: Config | None = None) -> Target:
    """The target registered as ``name``, built with its settings from ``config``
    (``KeyError`` for an unknown name)."""
    spec = lookup(name)
    if spec is None:
        raise KeyError(name)
    return spec.build(config)


def takes_table(name: str) -> bool:
    """Whether ``name`` is a target, so ``[tool.statedoc.<name>]`` is its table (every target
    takes one: at least the folder keys of :data:`~generator.targets.FOLDER_KEYS`)."""
    return lookup(name) is not None


def table_targets() -> list[str]:
    """Every target that reads a table of its own (each plugin is loaded to know)."""
    return [name for name in known() if takes_table(name)]


def check_tables(tables: Mapping[str, object], source: Path) -> None:
    """Parse each target's ``[tool.statedoc.<name>]`` of the pyproject.toml ``source`` with
    its target's parser, so a bad value is a usage error of every command, as the core keys
    are (the target parses it again when it runs)."""
    for name, table in tables.items():
        spec = lookup(name)
        assert spec is not None  # the caller checked the keys with takes_table
        where = f"{source} [tool.statedoc.{name}]"
        if not isinstance(table, dict):
            raise ConfigError(f"{where} must be a table")
        spec.parse(table, where)


def resolve_targets(
    names: Sequence[str] | None,
    config: Config,
    *,
    tests: Path | Callable[[Target], Path | None] | None = None,
) -> list[Target]:
    """The targets to run: ``names`` (``--target``), else the configured ones, then the test
    target of each (:meth:`~generator.targets.Target.tests_target`: Python's pytest modules,
    TypeScript's ``node --test`` files) that has a tests folder: ``tests`` is ``--tests DIR``
    (every chosen target's) or gives each target its folder (the configured ones), None for
    none. Only the chosen targets' tests are written. Unknown names, and a target that writes
    into a tests folder without one, are usage errors."""
    chosen = list(dict.fromkeys(names or config.targets or DEFAULT_TARGETS))
    unknown = unknown_targets(chosen)
    if unknown:
        raise ConfigError(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(known())}")
    resolved = [get_target(name, config) for name in chosen]

    def folder_of(target: Target) -> Path | None:
        return tests(target) if callable(tests) else tests

    for target in resolved:
        if target.root == "tests" and folder_of(target) is None:
            raise ConfigError(
                f"the {target.name} target writes into a folder of its own: pass --tests DIR "
                "or set [tool.statedoc] tests"
            )
    names_now = {target.name for target in resolved}
    for target in list(resolved):
        folder = None if target.root == "tests" else folder_of(target)
        companion = None if folder is None else target.tests_target(folder)
        if companion is not None and companion.name not in names_now:
            resolved.append(companion)
            names_now.add(companion.name)
    return resolved
