"""The configuration every command runs with: :func:`~generator.load.config.read_config`, then
the checks only the registries can make (target names and tables, rule codes).

Reading stays in :mod:`generator.load` (the stages below the targets take a ``Config``); the
checks live here, above the targets and the rule catalogue, so that a typo in a CI config is a
usage error (exit 2) naming the key before any command does work.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generator.core.errors import ConfigError
from generator.load.config import (
    KNOWN_KEYS,
    Config,
    known_keys,
    read_config,
    read_config_for,
)

__all__ = ["check_config", "load_config", "load_config_for"]


def load_config(start: Path | None = None) -> Config:
    """The checked config that applies to ``start`` (default: the working directory)."""
    return check_config(read_config(start))


def load_config_for(paths: Sequence[str], cwd: Path | None = None) -> Config:
    """The checked config for the files and folders ``paths`` (default: the working
    directory's)."""
    return check_config(read_config_for(paths, cwd))


def check_config(config: Config) -> Config:
    """``config`` if the registries know every name it uses, else :class:`ConfigError`."""
    if config.source is None:
        return config
    where = f"{config.source} [tool.statedoc]"
    _check_tables(config, where)
    _check_targets(config, where)
    from generator.lint.selection import validate_codes

    for key, codes in (("select", config.select), ("ignore", config.ignore)):
        validate_codes(codes, f"{where}: {key}")
    for glob, codes in config.per_file_ignores.items():
        validate_codes(codes, f"{where}: per-file-ignores {glob!r}")
    return config


def _check_tables(config: Config, where: str) -> None:
    """Keys that are neither core keys nor a target's table are refused; each table is parsed
    by its target now, so a bad value is a usage error of every command."""
    tables = config.target_tables
    if not tables:
        return
    from generator.targets.registry import check_tables, table_targets, takes_table

    if not all(takes_table(key) for key in tables):
        known_keys(tables, KNOWN_KEYS | set(table_targets()), where)
    assert config.source is not None
    check_tables(dict(tables), config.source)


def _check_targets(config: Config, where: str) -> None:
    """``targets`` names registered targets, at least one."""
    from generator.targets.registry import known, unknown_targets

    names = config.targets
    unknown = unknown_targets(names)
    if unknown or not names:
        raise ConfigError(
            f"{where}: targets must list known targets ({', '.join(known())}), "
            f"not {', '.join(map(repr, unknown)) or 'nothing'}"
        )
