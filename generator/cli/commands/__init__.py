"""One module per command; each adds its sub-parser and a ``run(args) -> exit code``.

``COMMANDS`` maps every sub-command to the module that registers it, so a run of one command
imports and builds only that command's parser (start-up cost); help and unknown commands still
build them all. A test checks the table against what the modules register.
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
    "db": "db",
}
_MODULES = tuple(dict.fromkeys(COMMANDS.values()))  # registration order = ``--help`` order


def register(sub: Any, common: argparse.ArgumentParser, module: str) -> None:
    import_module(f"generator.cli.commands.{module}").register(sub, common)


def register_all(sub: Any, common: argparse.ArgumentParser) -> None:
    for module in _MODULES:
        register(sub, common, module)
