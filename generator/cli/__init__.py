"""The ``statedoc`` command line: :mod:`.main` parses and dispatches, :mod:`.commands` holds
one module per command. ``generator.cli:main`` stays the console script's old spelling."""

from generator.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
