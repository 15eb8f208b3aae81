"""Find the spec documents a command works on: explicit files, or ``*.md`` under folders."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from generator.config import Config, ConfigError
from generator.records import dataclass, field

SKIP_DIRS = {".git", "node_modules", ".statedoc_cache", "__pycache__", ".venv", "venv"}


@dataclass(frozen=True, order=True)
class SpecFile:
    """``display`` is what findings print (relative to the working directory when inside it);
    ``relative`` is relative to the config root, for ``per-file-ignores`` and ``exclude``;
    ``error`` says why a folder under the specs could not be listed (an SD008 finding, as for
    an unreadable file, rather than specs silently left out)."""

    display: str
    path: Path
    relative: str
    error: str = field(default="", compare=False)


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(relative, f"{p.rstrip('/')}/*")
        for p in patterns
    )


def discover(paths: list[str], config: Config, *, cwd: Path | None = None) -> list[SpecFile]:
    """Spec files for ``paths`` (default: the configured specs folders), sorted, unique.

    Folders are walked without following symlinked folders (no cycles, no escaping the tree);
    a path that does not exist is a usage error, not an empty result.
    """
    cwd = (cwd or Path.cwd()).resolve()
    roots = [Path(p) for p in paths] if paths else list(config.specs)
    found: dict[Path, SpecFile] = {}
    for root in roots:
        absolute = (cwd / root).absolute() if not root.is_absolute() else root
        if absolute.is_dir():
            problems: list[OSError] = []
            for folder, dirs, files in os.walk(absolute, onerror=problems.append):
                dirs[:] = sorted(
                    d
                    for d in dirs
                    if d not in SKIP_DIRS
                    and not d.startswith(".")
                    and not os.path.islink(os.path.join(folder, d))
                )
                for name in sorted(files):
                    if name.endswith(".md"):
                        file = Path(folder) / name
                        found.setdefault(file, _spec_file(file, config, cwd))
            for problem in problems:
                unlisted = Path(problem.filename or absolute)
                found.setdefault(unlisted, _unlisted(unlisted, problem, config, cwd))
        elif absolute.exists() or absolute.is_symlink():
            found.setdefault(absolute, _spec_file(absolute, config, cwd))
        else:
            shown = root.as_posix()
            where = " (the configured specs folder)" if not paths else ""
            raise ConfigError(f"{shown}{where}: no such file or folder")
    return sorted(f for f in found.values() if not excluded(f.relative, config.exclude))


def _unlisted(folder: Path, problem: OSError, config: Config, cwd: Path) -> SpecFile:
    import errno

    if problem.errno == errno.ELOOP:
        reason = "a symbolic link loop (too many levels of symbolic links)"
    else:
        reason = problem.strerror or str(problem)
    spec = _spec_file(folder, config, cwd)
    return SpecFile(spec.display, spec.path, spec.relative, f"cannot read the folder: {reason}")


def _spec_file(path: Path, config: Config, cwd: Path) -> SpecFile:
    return SpecFile(_display(path, cwd), path, _relative(path.absolute(), config.root))
