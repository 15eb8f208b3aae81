"""The ``statedoc diff`` command's work (the parser lives in :mod:`generator.cli.commands.diff`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.core.errors import ConfigError
from generator.core.exitcodes import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from generator.diffing import gitref
from generator.diffing.matching import SpecDiff, Version, compare_sets, compare_versions
from generator.diffing.report import DiffReport, render, summary
from generator.load.config import Config
from generator.load.discover import SpecFile, discover
from generator.run.config import load_config


def run(args: argparse.Namespace) -> int:
    paths: list[str] = list(args.paths)
    if args.against is not None:
        report = _against(args.against, paths)
    elif len(paths) == 2:
        report = _two_files(Path(paths[0]), Path(paths[1]))
    else:
        raise ConfigError(
            "diff needs two files (statedoc diff OLD NEW) or a git ref "
            "(statedoc diff --against GIT_REF [PATH...])"
        )
    text = render(args.diff_format, report)
    if args.output:  # never over one of the documents compared (or any other)
        from generator.cli.commands.output import write_report

        write_report(Path(args.output), text, fmt=None, inputs=paths)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if not args.quiet and (args.diff_format == "text" or args.output):
        print(summary(report), file=sys.stderr)
    for diff in report.unreadable_new:
        print(
            f"statedoc: error: cannot compare {diff.path}: fix it first (see `statedoc lint`)",
            file=sys.stderr,
        )
    if report.unreadable_new:
        return EXIT_USAGE
    if report.breaking and not args.allow_breaking:
        return EXIT_FINDINGS
    return EXIT_OK


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


def _two_files(old_path: Path, new_path: Path) -> DiffReport:
    config = load_config()
    # One key for both: the two files are two versions of one spec, not a move.
    old, new = _read(old_path, config, "NEW"), _read(new_path, config, "NEW")
    return DiffReport([compare_versions(old, new)])


def _against(ref: str, paths: list[str]) -> DiffReport:
    config = load_config()
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
