"""Where each chosen target writes, and the configured folders that must not be used.

A target writes into, in order of precedence: ``--out DIR`` (every target alike), its own
``[tool.statedoc.<name>] out``, else ``[tool.statedoc] out``. Generated tests go to ``--tests
DIR``, else the tested target's own ``tests``, else ``[tool.statedoc] tests``; a target of
tests (``tests``, ``conformance``) may name its own folder with ``out``. A configured tests
folder is part of every ``generate``, ``build`` and ``check``, so CI sees a stale test module
as it sees a stale module.

Each target renders with ``settings.out`` set to its folder, and a target of tests with the
folder of the target it tests (:attr:`~generator.targets.Target.tests_of`): import paths follow
the modules wherever they go.

A configured folder that cannot be used is a finding at its key in pyproject.toml (SD410-SD414,
:mod:`generator.rules.catalogue`); a bad folder (SD410-SD413) stops the whole ``generate``
before anything is read or written, as a usage error does: a folder of one target nested in
another's would lose files to the other's stale-file cleanup. The same rules for ``--out`` and
``--tests`` stay usage errors (:func:`generator.run.tree.check_roots`): there is no line to
point at.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from generator.load.config import Config
from generator.output.paths import display
from generator.output.plan import Problem
from generator.run.locate import key_span
from generator.targets import FOLDER_KEYS, REGISTRY, Target, folder_value
from generator.targets.registry import lookup, resolve_targets

__all__ = ["BLOCKING", "Placement", "folder_key", "overlap", "place"]

INVALID = "SD410"
NESTED = "SD411"
SPECS = "SD412"
TOO_DEEP = "SD413"
UNUSED = "SD414"
#: The codes that stop a ``generate``: its folders are not safe to clean.
BLOCKING = frozenset({INVALID, NESTED, SPECS, TOO_DEEP})


def overlap(one: Path | str, two: Path | str) -> bool:
    """Whether two folders are one, or one lies inside the other (after symlinks)."""
    a, b = os.path.realpath(one), os.path.realpath(two)
    return (
        a == b or a.startswith(b.rstrip(os.sep) + os.sep) or b.startswith(a.rstrip(os.sep) + os.sep)
    )


def _inside(inner: Path, outer: Path) -> bool:
    a, b = os.path.realpath(inner), os.path.realpath(outer)
    return a != b and a.startswith(b.rstrip(os.sep) + os.sep)


@dataclass
class Placement:
    """The targets of one run, each with its folder and the settings it renders with."""

    targets: list[Target]
    #: Target name -> the folder its files go to.
    folders: dict[str, Path]
    #: Target name -> the configuration it renders with (``out``: its folder, or the folder
    #: of the target its tests import).
    settings: dict[str, Config]
    #: SD410-SD414 about the configured folders, at their keys in pyproject.toml.
    problems: list[Problem] = field(default_factory=list)
    #: Every folder the configuration or the command line names: stale-file cleanup in one of
    #: them never walks into another.
    known: list[Path] = field(default_factory=list)
    #: The usable folder values of the target tables: (target, ``out``/``tests``) -> folder.
    configured: dict[tuple[str, str], Path] = field(default_factory=dict)

    @property
    def blocked(self) -> bool:
        """A configured folder is unsafe: nothing may be generated."""
        return any(problem.code in BLOCKING for problem in self.problems)

    def key(self, name: str) -> str:
        """The plan target ``name`` writes through: its root and its folder's real path (a
        tests folder that is also an output folder has a plan of its own, as today)."""
        target = next(t for t in self.targets if t.name == name)
        return folder_key(target.root, self.folders[name])


def folder_key(root: str, folder: Path) -> str:
    """How plans are keyed: the kind of folder (``out``/``tests``) and its real path."""
    return f"{root}\0{os.path.realpath(folder)}"


@dataclass
class _Configured:
    """The folder values of the project's target tables, checked."""

    config: Config
    problems: list[Problem] = field(default_factory=list)
    values: dict[tuple[str, str], Path] = field(default_factory=dict)  # (target, key) -> folder

    def __post_init__(self) -> None:
        for name in sorted(self.config.target_tables):
            for key in FOLDER_KEYS:
                raw = folder_value(self.config, name, key)
                if raw is None:
                    continue
                if not isinstance(raw, str) or not raw or "\0" in raw:
                    self.problem(
                        INVALID,
                        name,
                        key,
                        f"{_where(name, key)} must be a folder path (a non-empty string), not "
                        f"{raw!r}; the {name} target is not generated until it is one",
                    )
                    continue
                self.values[name, key] = self.config.root / raw

    def problem(self, code: str, name: str | None, key: str, message: str) -> None:
        source = self.config.source
        assert source is not None  # a target table comes from a pyproject.toml
        table = ("tool", "statedoc") if name is None else ("tool", "statedoc", name)
        line, column, end_line, end_column = key_span(source, table, key)
        found = Problem(display(source), line, column, message, code, (end_line, end_column))
        if found not in self.problems:  # one key can give two targets of tests their folder
            self.problems.append(found)

    def get(self, name: str, key: str) -> Path | None:
        return self.values.get((name, key))


def _where(name: str | None, key: str) -> str:
    return f"[tool.statedoc] {key}" if name is None else f"[tool.statedoc.{name}] {key}"


def place(
    names: Sequence[str] | None,
    config: Config,
    *,
    out: Path | None = None,
    tests: Path | None = None,
) -> Placement:
    """The targets to run (``names``: ``--target``, else configured), each with its folder;
    ``out``/``tests``: ``--out``/``--tests``, which override every configured folder.

    Unknown targets, and a target of tests with no folder at all, are usage errors; folders
    configured wrong are the placement's problems (:attr:`Placement.blocked`)."""
    configured = _Configured(config)
    default_out = out if out is not None else config.out

    def out_of(name: str) -> Path:
        if out is not None:
            return out
        return configured.get(name, "out") or config.out

    def tests_of(name: str) -> Path | None:
        if tests is not None:
            return tests
        return configured.get(name, "tests") or config.tests

    def tests_folder(target: Target) -> Path | None:
        if target.root == "tests":  # a target of tests chosen by name
            if tests is not None:
                return tests
            subject = target.tests_of
            return configured.get(target.name, "out") or (
                tests_of(subject) if subject else config.tests
            )
        return tests_of(target.name)

    invalid = _invalid_targets(configured)
    targets = [
        target
        for target in resolve_targets(names, config, tests=tests_folder)
        if target.name not in invalid and (target.tests_of or "") not in invalid
    ]
    folders: dict[str, Path] = {}
    settings: dict[str, Config] = {}
    # built-in and chosen names only: listing every plugin would read the entry points
    chosen = [t.name for t in targets]
    names_placed = dict.fromkeys([*REGISTRY, *chosen, *configured.config.target_tables])
    outs = MappingProxyType({name: out_of(name) for name in names_placed})
    for target in targets:
        if target.root == "tests":
            folder = tests_folder(target)
            assert folder is not None  # resolve_targets refused a target of tests without one
            folders[target.name] = folder
            subject = target.tests_of
            module_out = out_of(subject) if subject else default_out
        else:
            folders[target.name] = module_out = out_of(target.name)
        settings[target.name] = config._replace(out=module_out, outs=outs)
    placement = Placement(targets, folders, settings, configured.problems)
    placement.configured = dict(configured.values)
    placement.known = _known(configured, config, out, tests, folders.values())
    _check_unused(configured, targets)
    _check_folders(configured, placement, explicit=(out, tests))
    placement.problems = configured.problems
    return placement


def _invalid_targets(configured: _Configured) -> set[str]:
    """The targets whose folder value is not usable (their files are not generated)."""
    invalid: set[str] = set()
    for name in configured.config.target_tables:
        for key in FOLDER_KEYS:
            raw = folder_value(configured.config, name, key)
            if raw is not None and (name, key) not in configured.values:
                invalid.add(name)
    return invalid


def _known(
    configured: _Configured,
    config: Config,
    out: Path | None,
    tests: Path | None,
    chosen: Iterable[Path],
) -> list[Path]:
    every = [config.out, *configured.values.values(), *chosen]
    every += [p for p in (config.tests, out, tests) if p is not None]
    return list(dict.fromkeys(every))


def _check_unused(configured: _Configured, targets: Sequence[Target]) -> None:
    """SD414: ``tests`` for a target that writes no tests of its own."""
    built = {target.name: target for target in targets}
    for (name, key), folder in configured.values.items():
        if key != "tests":
            continue
        target = built.get(name)
        if target is None:
            spec = lookup(name)
            if spec is None:
                continue  # not a target: the configuration check reports the key
            target = spec.build(configured.config)
        if target.root == "tests" or target.tests_target(folder) is None:
            configured.problem(
                UNUSED,
                name,
                key,
                f"{_where(name, key)}: the {name} target generates no tests, so this folder "
                "would stay empty; remove the key (tests are generated by the python and "
                "typescript targets)",
            )


def _check_folders(
    configured: _Configured, placement: Placement, *, explicit: tuple[Path | None, Path | None]
) -> None:
    """SD411-SD413 for the folders the configuration gives the chosen targets (a folder the
    command line gives is checked as a usage error by ``check_roots``)."""
    config = configured.config
    out, tests = explicit
    outs: dict[str, list[tuple[str | None, str, str]]] = {}  # folder -> (target, key, name)
    test_folders: list[tuple[Path, str | None, str, str]] = []
    for target in placement.targets:
        folder = placement.folders[target.name]
        if target.root == "tests":
            if tests is not None:
                continue
            origin = _origin_tests(configured, target)
            if origin is not None:
                test_folders.append((folder, *origin))
        elif out is None:
            origin = _origin_out(configured, target.name)
            outs.setdefault(os.fspath(folder), []).append(origin)
    for written, origins in outs.items():
        path = Path(written)
        configured_here = [o for o in origins if o[0] is not None]
        if not configured_here:
            continue  # the core ``out``: check_roots refuses what it must
        name, key, label = configured_here[0]
        root_real = os.path.realpath(config.root)
        if os.path.realpath(path) == root_real or _inside(config.root, path):
            configured.problem(
                SPECS,
                name,
                key,
                f"{_where(name, key)} = {display(path)} holds the project root; stale-file "
                f"cleanup would treat the whole project as the {label} target's: choose a "
                "sub-folder",
            )
            continue
        for specs in config.specs:
            if overlap(path, specs):
                configured.problem(
                    SPECS,
                    name,
                    key,
                    f"{_where(name, key)} = {display(path)} overlaps the specs folder "
                    f"{display(specs)}; keep generated files and specs in separate folders",
                )
        for other, there in outs.items():
            if _inside(path, Path(other)):  # reported once, at the inner folder's key
                who = ", ".join(sorted({o[2] for o in there}))
                configured.problem(
                    NESTED,
                    name,
                    key,
                    f"{_where(name, key)} = {display(path)} lies inside the output folder "
                    f"{display(Path(other))} of the {who} target(s): cleanup there would delete "
                    "its files as stale; give each a folder of its own outside the other (or "
                    "the same folder)",
                )
            elif _inside(Path(other), path) and not any(o[0] for o in there):
                who = ", ".join(sorted({o[2] for o in there}))
                configured.problem(
                    NESTED,
                    name,
                    key,
                    f"{_where(name, key)} = {display(path)} holds the output folder "
                    f"{display(Path(other))} of the {who} target(s): cleanup here would delete "
                    "its files as stale; give each a folder of its own outside the other (or "
                    "the same folder)",
                )
    for folder, name, key, _ in test_folders:
        for other in outs:
            depth = _depth(folder, Path(other))
            if depth is None:
                continue
            if depth > 1:
                configured.problem(
                    TOO_DEEP,
                    name,
                    key,
                    f"{_where(name, key)} = {display(folder)} lies {depth} folders deep in the "
                    f"output folder {display(Path(other))}, where its test modules would look "
                    "like stale generated modules; use the output folder itself, a folder "
                    "directly in it, or one outside it",
                )


def _depth(folder: Path, outer: Path) -> int | None:
    """How many folders deep ``folder`` lies in ``outer`` (0: the same), None: outside."""
    try:
        return len(Path(os.path.realpath(folder)).relative_to(os.path.realpath(outer)).parts)
    except ValueError:
        return None


def _origin_out(configured: _Configured, name: str) -> tuple[str | None, str, str]:
    """Which key gave target ``name`` its output folder: its own ``out`` or the core one
    (``None``: not located, check_roots covers it)."""
    if (name, "out") in configured.values:
        return name, "out", name
    return None, "out", name


def _origin_tests(configured: _Configured, target: Target) -> tuple[str | None, str, str] | None:
    """Which key gave a target of tests its folder (None: none of the configuration's)."""
    if (target.name, "out") in configured.values:
        return target.name, "out", target.name
    subject = target.tests_of
    if subject is not None and (subject, "tests") in configured.values:
        return subject, "tests", target.name
    if configured.config.tests is not None:
        return None, "tests", target.name
    return None
