"""The options the commands share, typed and read from argparse's namespace in this one place
(a command without PATHs or ``--against`` gets their empty value, never an ``AttributeError``).

Each command's own options stay on the namespace its parser fills; these are the ones
:func:`~generator.cli.running.workspace_for` and the reports need.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from generator.run.workspace import Options, options_from


class CommonOptions(NamedTuple):
    """``--format``, ``--select``, ``--ignore``, ``--output``, ``-q``, ``-j``, ``--no-cache``,
    ``--exit-zero``, and the command's PATHs and ``--against`` where it has them."""

    format: str
    select: str
    ignore: str
    output: str | None
    quiet: bool
    jobs: int
    no_cache: bool
    exit_zero: bool
    paths: tuple[str, ...]
    against: str | None

    @classmethod
    def of(cls, args: argparse.Namespace) -> CommonOptions:
        values = vars(args)
        return cls(
            format=str(values.get("format", "text")),
            select=str(values.get("select") or ""),
            ignore=str(values.get("ignore") or ""),
            output=values.get("output"),
            quiet=bool(values.get("quiet", False)),
            jobs=int(values.get("jobs") or 0),
            no_cache=bool(values.get("no_cache", False)),
            exit_zero=bool(values.get("exit_zero", False)),
            paths=tuple(values.get("paths") or ()),
            against=values.get("against"),
        )

    def workspace_options(self) -> Options:
        """What :class:`~generator.run.workspace.Workspace` is opened with."""
        return options_from(
            self.paths, self.select, self.ignore, self.jobs, self.no_cache, self.against
        )
