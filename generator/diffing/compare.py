"""``statedoc diff`` as one function: a request and the configuration in, an outcome out.

The command line (:mod:`generator.cli.commands.diff`) parses its arguments into a
:class:`DiffRequest`, loads the configuration, calls :func:`run_diff` and prints what the
:class:`DiffOutcome` holds. Nothing here prints or knows about the command line.

Exit status: 2 when a new version cannot be compared; else 1 when the gate fails, 0 when it
passes. The default gate fails on a breaking change, as ``diff`` always has;
``--fail-on CATEGORY`` fails on a change in any of those categories instead
(:mod:`generator.diffing.categories`), and ``--allow-breaking`` never fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.core.errors import ConfigError
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.diffing import FORMATS, gitref
from generator.diffing.categories import Category
from generator.diffing.matching import SpecDiff, Version, compare_sets, compare_versions
from generator.diffing.report import DiffReport, render, summary
from generator.load.config import Config
from generator.load.discover import SpecFile, discover


@dataclass(frozen=True)
class DiffRequest:
    """What to compare and how to judge it; a request that cannot run is refused when built
    (ConfigError: exit 2), before any configuration or file is read."""

    paths: tuple[str, ...] = ()
    against: str | None = None  # a git ref; None: ``paths`` are OLD and NEW
    fmt: str = "text"
    fail_on: frozenset[Category] | None = None  # None: the default gate (a breaking change)
    allow_breaking: bool = False

    def __post_init__(self) -> None:
        if self.against is None and len(self.paths) != 2:
            raise ConfigError(
                "diff needs two files (statedoc diff OLD NEW) or a git ref "
                "(statedoc diff --against GIT_REF [PATH...])"
            )
        if self.fmt not in FORMATS:
            raise ConfigError(f"diff --format {self.fmt!r}: choose from {', '.join(FORMATS)}")
        if self.fail_on is not None and self.allow_breaking:
            raise ConfigError(
                "--allow-breaking and --fail-on do not combine: --fail-on says what fails"
            )


@dataclass(frozen=True)
class DiffOutcome:
    report: DiffReport
    text: str  # the report in the requested format
    summary: str  # one line for people
    errors: tuple[str, ...]  # why the diff is incomplete, one line each
    exit_code: int


def run_diff(request: DiffRequest, config: Config) -> DiffOutcome:
    """Compare, render and judge (ConfigError for a missing file or ref, outside a repo)."""
    if request.against is not None:
        report = _against(request.against, list(request.paths), config)
    else:
        report = _two_files(Path(request.paths[0]), Path(request.paths[1]), config)
    errors = tuple(
        f"cannot compare {diff.path}: fix it first (see `statedoc lint`)"
        for diff in report.unreadable_new
    )
    return DiffOutcome(
        report=report,
        text=render(request.fmt, report),
        summary=summary(report),
        errors=errors,
        exit_code=EXIT_USAGE if errors else exit_status(report, request),
    )


def exit_status(report: DiffReport, request: DiffRequest) -> int:
    """1 when the gate fails: a change in a ``fail_on`` category, else (default) a breaking
    change unless ``allow_breaking``; 0 otherwise."""
    if request.fail_on is not None:
        failed = any(
            c in request.fail_on for _, change in report.changes for c in change.categories
        )
    else:
        failed = report.breaking and not request.allow_breaking
    return EXIT_FINDINGS if failed else EXIT_OK


def _read(path: Path, config: Config, key: str) -> Version:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder; diff OLD NEW compares two files") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return gitref.version(data, path.as_posix(), config, key=key)


def _two_files(old_path: Path, new_path: Path, config: Config) -> DiffReport:
    # One key for both: the two files are two versions of one spec, not a move.
    old, new = _read(old_path, config, "NEW"), _read(new_path, config, "NEW")
    return DiffReport([compare_versions(old, new)])


def _against(ref: str, paths: list[str], config: Config) -> DiffReport:
    top = gitref.toplevel(Path.cwd())
    commit = gitref.resolve(top, ref)
    scope: list[str] = []  # top-relative roots the user asked about
    files: list[SpecFile] = []
    if paths:
        for raw in paths:
            relative = gitref.repo_relative(Path(raw), top)
            if relative is None:
                raise ConfigError(f"{raw}: outside the git repository at {top}")
            scope.append(relative)
            if Path(raw).exists():
                files += discover([raw], config)
            elif not gitref.list_specs(top, commit, [relative]):
                raise ConfigError(f"{raw}: no such file or folder, here or at {ref}")
    else:
        scope = gitref.config_roots(config, top)
        existing = [p for p in config.specs if p.exists()]
        if existing:
            files = discover([str(p) for p in existing], config)
    files = sorted(set(files))
    new = gitref.worktree_versions(files, config, top)
    # Old side: the asked-about roots, plus the configured folders so a spec moved in from
    # elsewhere is recognised as the same spec rather than as added.
    roots = set(scope) | set(gitref.config_roots(config, top))
    old = gitref.ref_versions(top, commit, roots, config, scope=scope)
    diffs: list[SpecDiff] = compare_sets(old, new)
    return DiffReport(diffs, against=ref)
