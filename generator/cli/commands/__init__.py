"""One module per command; each adds its sub-parser and a ``run(args) -> exit code``.

``COMMANDS`` maps every sub-command to the module that registers it, so a run of one command
imports and builds only that command's parser (start-up cost); help and unknown commands still
build them all. A test checks the table against what the modules register. A target adds
sub-commands through its :class:`~generator.targets.TargetSpec` (``statedoc db`` is the SQL
target's): they are looked up only for a name that is not one of these.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

COMMANDS = {
    "lint": "lint",
    "generate": "generate",
    "diagram": "diagram",
    "build": "build",
    "check": "build",
    "rules": "info",
    "explain": "info",
    "schema": "info",
    "diff": "diff",
    "new": "new",
    "server": "server",
}
_MODULES = tuple(dict.fromkeys(COMMANDS.values()))  # registration order = ``--help`` order


def target_commands() -> dict[str, str]:
    """Sub-command -> module, for the commands the built-in targets add."""
    from generator.targets import REGISTRY

    return {name: module for spec in REGISTRY.values() for name, module in spec.commands}


def module_of(command: str) -> str | None:
    """The module that registers ``command``, or None for no such command."""
    if command in COMMANDS:
        return f"generator.cli.commands.{COMMANDS[command]}"
    return target_commands().get(command)


def register(sub: Any, common: argparse.ArgumentParser, module: str) -> None:
    import_module(module).register(sub, common)


def register_all(sub: Any, common: argparse.ArgumentParser) -> None:
    modules = [f"generator.cli.commands.{module}" for module in _MODULES]
    for module in [*modules, *dict.fromkeys(target_commands().values())]:
        register(sub, common, module)
