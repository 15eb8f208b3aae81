"""``[tool.statedoc]`` from the nearest ``pyproject.toml``: defaults for every command.

As in ruff, the config that applies is found from the files being checked, not from the working
directory: ``cd /tmp && statedoc lint /proj/specs/x.md`` uses ``/proj``'s config (and cache).
Paths in two different projects are a usage error (each project has its own rules and output
tree: run once per project); paths under no project use the working directory's config.

Config errors are usage errors (exit 2) with a message that names the key, because a typo in a
CI config must not silently lint nothing.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from generator.core.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "KNOWN_KEYS",
    "Config",
    "find_pyproject",
    "known_keys",
    "read_config",
    "read_config_for",
]

DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
#: The keys of ``[tool.statedoc]`` the core reads; any other must be a target's table
#: (``[tool.statedoc.sql]``), which that target parses.
KNOWN_KEYS = {
    "specs",
    "out",
    "tests",
    "select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "max-file-size",
    "targets",
}


#: What a config without ``targets`` generates (``generator.targets`` says the same; a test
#: holds them equal: the registry is not imported just to read this default).
DEFAULT_TARGETS: tuple[str, ...] = ("python", "mermaid")


class Config(NamedTuple):
    """One project's settings (a NamedTuple: read on every start of ``statedoc lint``)."""

    root: Path
    specs: tuple[Path, ...]
    out: Path
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    exclude: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    source: Path | None = None  # the pyproject.toml it came from
    #: ``[tool.statedoc.<target>]`` as read, by target name: each target parses its own.
    target_tables: Mapping[str, Mapping[str, Any]] = MappingProxyType({})
    #: What ``generate``/``build``/``check`` write (``--target`` overrides it).
    targets: tuple[str, ...] = DEFAULT_TARGETS
    #: ``tests``: where the chosen targets' generated tests go (None: only with ``--tests``).
    tests: Path | None = None
    #: Where each target writes in this run, by name, as the run placed them (``--out``, each
    #: target's own ``out``): a target of tests names files of other targets. Empty when no
    #: run placed the targets.
    outs: Mapping[str, Path] = MappingProxyType({})


#: The last parse of each pyproject.toml, with the text it was parsed from: a run looks the
#: project up, then reads its config (the same file up to three times), and parsing a large
#: pyproject.toml costs more than linting a document. Callers never mutate the result.
_PARSED: dict[Path, tuple[str, dict[str, Any]]] = {}


def _toml(path: Path) -> dict[str, Any]:
    """``path`` parsed, from :data:`_PARSED` while its text is unchanged."""
    text = path.read_text(encoding="utf-8")
    known = _PARSED.get(path)
    if known is not None and known[0] == text:
        return known[1]
    import tomllib  # here: a project without pyproject.toml never pays for it

    data = tomllib.loads(text)
    _PARSED[path] = (text, data)
    return data


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.statedoc]`` table, walking up."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if os.path.isfile(candidate):  # os.path: False, not an error, for too long a path
            try:
                data = _toml(candidate)
            except (OSError, UnicodeDecodeError, ValueError) as exc:  # TOMLDecodeError too
                raise ConfigError(f"{candidate}: cannot read: {exc}") from None
            if "statedoc" in data.get("tool", {}):
                return candidate
    return None


def _start(path: Path) -> Path:
    """The folder a path's config is looked up from (a file's or a missing path's parent)."""
    return path if os.path.isdir(path) else path.parent


def read_config_for(paths: Sequence[str], cwd: Path | None = None) -> Config:
    """The config for the files and folders ``paths`` (default: the working directory's)."""
    cwd = (cwd or Path.cwd()).resolve()
    found: dict[Path, str] = {}
    for raw in paths:
        start = _start(cwd / raw)
        pyproject = find_pyproject(start.resolve() if os.path.exists(start) else start.absolute())
        if pyproject is not None:
            found.setdefault(pyproject, raw)
    if len(found) > 1:
        listed = ", ".join(f"{raw} -> {p}" for p, raw in found.items())
        raise ConfigError(
            f"the paths belong to different projects ({listed}): run statedoc once per project"
        )
    if found:
        (pyproject,) = found
        return read_config(pyproject.parent)
    return read_config(cwd)


def known_keys(table: Mapping[str, Any], known: Collection[str], where: str) -> None:
    """Refuse keys ``where`` does not know, each with the "did you mean" that state names
    get (a typo in CI config must say what was meant, not only list every key)."""
    unknown = sorted(set(table) - set(known))
    if not unknown:
        return
    from generator.core.suggest import did_you_mean  # only on the error path

    choices = sorted(known)
    named = []
    for key in unknown:
        hint = did_you_mean(key, choices)
        named.append(f"{key} ({hint.removeprefix('; ')})" if hint else key)
    raise ConfigError(f"{where}: unknown key(s) {', '.join(named)}; known: {', '.join(choices)}")


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a string or a list of strings")
    return tuple(value)


def _targets(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """``targets = [...]`` as written (the names are checked against the registry by
    :func:`generator.run.config.load_config`)."""
    if "targets" not in table:
        return DEFAULT_TARGETS
    return tuple(dict.fromkeys(_strings(table, "targets", where)))


def read_config(start: Path | None = None) -> Config:
    """Read the config that applies to ``start`` (default: the working directory), checking
    its shape; what only the registries know (target names and tables, rule codes) is
    checked by :func:`generator.run.config.load_config`, which every command calls."""
    start = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config(root=start, specs=(start / "specs",), out=start / "generated")
    root = pyproject.parent
    table = _toml(pyproject)["tool"]["statedoc"]
    where = f"{pyproject} [tool.statedoc]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    out = table.get("out", "generated")
    if not isinstance(out, str):
        raise ConfigError(f"{where}: out must be a string")
    tests = table.get("tests")
    if tests is not None and (not isinstance(tests, str) or not tests or "\0" in tests):
        raise ConfigError(f"{where}: tests must be a folder path (a non-empty string)")
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict):
        raise ConfigError(f"{where}: per-file-ignores must be a table of glob = [codes]")
    size = table.get("max-file-size", DEFAULT_MAX_FILE_SIZE)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ConfigError(f"{where}: max-file-size must be a positive integer (bytes)")
    config = Config(
        root=root,
        specs=tuple(root / s for s in _strings(table, "specs", where) or ("specs",)),
        out=root / out,
        select=_strings(table, "select", where),
        ignore=_strings(table, "ignore", where),
        per_file_ignores={
            glob: _strings(ignores, glob, f"{where} per-file-ignores") for glob in ignores
        },
        exclude=_strings(table, "exclude", where),
        max_file_size=size,
        source=pyproject,
        target_tables={key: value for key, value in table.items() if key not in KNOWN_KEYS},
        targets=_targets(table, where),
        tests=None if tests is None else root / tests,
    )
    return config
