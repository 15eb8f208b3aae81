"""The workspace every pipeline step works in: configuration read once, files discovered
once, the selection, and the caches.

A command builds :class:`Options` from its arguments (typed values, never an
``argparse.Namespace``), opens a :class:`Workspace` and hands it to the functions of
:mod:`generator.run.pipeline`; the build hook does the same with a configuration of its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.core.errors import ConfigError
from generator.load.config import Config
from generator.run.config import load_config_for

if TYPE_CHECKING:
    from generator.cache.store import Cache, RenderCache
    from generator.lint.files import Settings
    from generator.load.discover import SpecFile


class Options(NamedTuple):
    """What a run asks for, as typed values."""

    paths: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    jobs: int = 0  # 0: every core
    use_cache: bool = True
    against: str | None = None  # lint --against GIT_REF (SD207)


class Workspace:
    """The project a run works on (see the module docstring)."""

    __slots__ = ("_render_cache", "config", "files", "opened", "options", "settings")

    def __init__(self, config: Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.files: list[SpecFile] = []
        self.settings: Settings | None = None
        #: When the workspace was opened, before any of its documents was read (a stat
        #: signature dated then is racy for any change made since: see
        #: :class:`~generator.output.sources.Sources`).
        self.opened = time.time_ns()
        self._render_cache: RenderCache | None = None

    @classmethod
    def open(
        cls, options: Options, config: Config | None = None, *, cwd: Path | None = None
    ) -> Workspace:
        """Read the config of the paths' project (``config``: one given by the caller),
        check the selection and discover the documents once.

        No document is a usage error, except when every path is a file that ``exclude``
        leaves out (pre-commit passes such files): then the workspace is empty."""
        from generator.lint.files import settings_for
        from generator.lint.selection import validate_codes
        from generator.load.discover import discover

        paths = list(options.paths)
        config = config if config is not None else load_config_for(paths)
        validate_codes(options.select, "--select")
        validate_codes(options.ignore, "--ignore")
        workspace = cls(config, options)
        workspace.settings = settings_for(config, options.select, options.ignore)
        workspace.files = discover(paths, config, cwd=cwd)
        if not workspace.files and not (paths and all(os.path.isfile(p) for p in paths)):
            where = ", ".join(str(p) for p in (paths or config.specs))
            raise ConfigError(f"no spec documents (*.md) found in {where}")
        return workspace

    @property
    def whole(self) -> bool:
        """Whether the run covers the configured set (no PATH): only then can a generated
        file be stale."""
        return not self.options.paths

    @property
    def displays(self) -> list[str]:
        return [spec.display for spec in self.files]

    @property
    def paths(self) -> dict[str, Path]:
        """Display path -> path, for the steps that write into the documents."""
        return {spec.display: spec.path for spec in self.files}

    def jobs(self) -> int:
        from generator.lint.files import default_jobs

        return self.options.jobs if self.options.jobs > 0 else default_jobs()

    def lint_cache(self, *, keep_documents: bool, reuse: bool = False) -> Cache | None:
        """The lint cache: next to a project's config, never where there is none, and not
        when documents are kept (unless ``reuse``: the steps after lint load the documents
        their caches cannot serve, :mod:`generator.output.sources`)."""
        if not self.options.use_cache or self.config.source is None:
            return None
        if keep_documents and not reuse:
            return None
        from generator.cache.store import Cache

        return Cache(self.config.root, max_file_size=self.config.max_file_size)

    def render_cache(self) -> RenderCache | None:
        """The render cache (one per workspace: the steps of a run share what it read)."""
        if not self.options.use_cache:
            return None
        if self._render_cache is None:
            from generator.cache.store import RenderCache

            self._render_cache = RenderCache(self.config.root)
        return self._render_cache


def codes(text: str) -> tuple[str, ...]:
    """``--select``/``--ignore`` text -> the codes or prefixes it lists."""
    return tuple(c.strip() for c in text.split(",") if c.strip())


def options_from(
    paths: Sequence[str] = (),
    select: str = "",
    ignore: str = "",
    jobs: int = 0,
    no_cache: bool = False,
    against: str | None = None,
) -> Options:
    """:class:`Options` from command-line spellings."""
    return Options(tuple(paths), codes(select), codes(ignore), jobs, not no_cache, against)
