"""One module per command; each adds its sub-parser and a ``run(args) -> exit code``."""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Any

_COMMANDS = ("lint", "generate", "diagram", "build", "info", "diff", "new", "db")


def register_all(sub: Any, common: argparse.ArgumentParser) -> None:
    for name in _COMMANDS:
        import_module(f"generator.cli.commands.{name}").register(sub, common)
