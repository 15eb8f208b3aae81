"""Find the spec documents a command works on: explicit files, or ``*.md`` under folders.

A folder's ``README.md`` (any case) that does not start with ``---`` is the folder's
README, not a state document: walking a folder leaves it out, as ruff and pre-commit users
expect of a file that is not theirs to check. Named on the command line it is linted like any
file (an SD001 then says it has no front matter): an explicit path is always checked unless
``exclude`` names it. A README that does start with ``---`` is a spec like any other.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import sys
from pathlib import Path

from generator.core.errors import ConfigError
from generator.load.config import Config

SKIP_DIRS = {".git", "node_modules", ".statedoc_cache", "__pycache__", ".venv", "venv"}


class SpecFile:
    """One discovered spec. ``display`` is what findings print (relative to the working
    directory when inside it); ``relative`` is relative to the config root, for
    ``per-file-ignores`` and ``exclude``; ``error`` says why a folder under the specs could not
    be listed (an SD008 finding, as for an unreadable file, rather than specs silently left out).

    Written by hand, not as a record, because a run keeps one per document to its end: four
    slots and the ``display`` string (shared with ``relative`` when they are equal), the
    ``path`` built on use from the folder ``display`` is relative to (usually the working
    directory: one string for every spec). A record
    with a :class:`~pathlib.Path` cost about 600 bytes per spec (the path's parts list and
    strings, its cached string, the instance dict); this about 150. It behaves as the frozen,
    ordered record it replaces (``error`` not compared; ordered by ``display``, then ``path``,
    then ``relative``), but it is not a dataclass (no ``dataclasses.fields``/``replace``).
    """

    __slots__ = ("_at", "_display", "_error", "_relative")
    __match_args__ = ("display", "path", "relative", "error")
    _display: str
    _at: str
    _relative: str
    _error: str

    def __init__(self, display: str, path: Path, relative: str, error: str = "") -> None:
        _set(self, "_display", display)
        _set(self, "_at", _where(str(path), display))
        _set(self, "_relative", display if relative == display else relative)
        _set(self, "_error", error)

    @property
    def display(self) -> str:
        return self._display

    @property
    def relative(self) -> str:
        return self._relative

    @property
    def error(self) -> str:
        return self._error

    @property
    def path(self) -> Path:
        """Built on each use (a lint reads it once per file)."""
        return Path(self._path_str())

    def _path_str(self) -> str:
        at = self._at
        if not at:
            return self._display
        return at + self._display if at[-1] == os.sep else at

    def _rest(self) -> tuple[Path, str]:
        """What orders two specs of one ``display``: as the record compared them."""
        return (self.path, self._relative)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, SpecFile)
        # ``_at`` is a function of the path string and ``display``: equal exactly when the
        # paths are (a Path's string is its normal form)
        return (self._display, self._at, self._relative) == (
            other._display,
            other._at,
            other._relative,
        )

    def __hash__(self) -> int:
        return hash((self._display, self._at, self._relative))

    def __lt__(self, other: SpecFile) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self._display != other._display:
            return self._display < other._display
        return self._rest() < other._rest()

    def __le__(self, other: SpecFile) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self._display != other._display:
            return self._display < other._display
        return self._rest() <= other._rest()

    def __gt__(self, other: SpecFile) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self._display != other._display:
            return self._display > other._display
        return self._rest() > other._rest()

    def __ge__(self, other: SpecFile) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        if self._display != other._display:
            return self._display > other._display
        return self._rest() >= other._rest()

    def __repr__(self) -> str:
        return (
            f"SpecFile(display={self._display!r}, path={self.path!r}, "
            f"relative={self._relative!r}, error={self._error!r})"
        )

    def __setattr__(self, name: str, value: object) -> None:
        from dataclasses import FrozenInstanceError  # only when someone tries

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[object, tuple[str, str, str, str]]:
        """Pickled as its four strings (specs go to worker processes)."""
        return (_restored, (self._display, self._at, self._relative, self._error))


_set = object.__setattr__


def _where(path: str, display: str) -> str:
    """Where ``path`` is, given ``display``: "" when it is ``display`` itself; the folder
    ``display`` is under, with its trailing separator, when ``path`` ends in it (usually the
    working directory: one interned string for every spec); else the whole ``path``."""
    if path == display:
        return ""
    cut = len(path) - len(display)
    if cut > 1 and path[cut - 1] == os.sep and path.endswith(display):
        return sys.intern(path[:cut])
    return path


def _restored(display: str, at: str, relative: str, error: str) -> SpecFile:
    spec = object.__new__(SpecFile)
    _set(spec, "_display", display)
    _set(spec, "_at", sys.intern(at) if at and at[-1] == os.sep else at)
    _set(spec, "_relative", display if relative == display else relative)
    _set(spec, "_error", error)
    return spec


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
    found: dict[str, SpecFile] = {}  # by path string: a Path per file is ~400 bytes more
    folders = (str(cwd), str(config.root)) if _POSIX and config.root.is_absolute() else None
    for root in roots:
        absolute = (cwd / root).absolute() if not root.is_absolute() else root
        kind = _kind(absolute)
        if isinstance(kind, OSError):  # there, but not to be looked at (too long a path, ...)
            found.setdefault(str(absolute), _unlisted(absolute, kind, config, cwd, "file"))
        elif kind == "folder":
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
                        file = os.path.join(folder, name)
                        if name.casefold() == README and _readme(file):
                            continue
                        if file not in found:
                            found[file] = (
                                _walked(file, *folders)
                                if folders
                                else _spec_file(Path(file), config, cwd)
                            )
            for problem in problems:
                unlisted = Path(problem.filename or absolute)
                found.setdefault(str(unlisted), _unlisted(unlisted, problem, config, cwd))
        elif kind == "file":
            found.setdefault(str(absolute), _spec_file(absolute, config, cwd))
        else:
            shown = root.as_posix()
            where = " (the configured specs folder)" if not paths else ""
            raise ConfigError(f"{shown}{where}: no such file or folder")
    return sorted(f for f in found.values() if not excluded(f.relative, config.exclude))


#: The name of a folder's README (compared case-folded; discovery only lists ``*.md``).
README = "readme.md"
_BOM = b"\xef\xbb\xbf"


def folder_readme(name: str, head: bytes) -> bool:
    """Whether a file named ``name`` whose bytes start with ``head`` (a few are enough) is a
    folder's README rather than a state document: a README that does not start with
    ``---`` (after a BOM). For anything that lists the specs of a folder (also at a git ref)."""
    return name.casefold() == README and not head.removeprefix(_BOM).startswith(b"---")


def _readme(file: str) -> bool:
    """:func:`folder_readme` for a file on disk; a file that cannot be opened or is not a
    regular file is not taken for one, so lint reports it (SD008) rather than discovery
    leaving it out unseen. Opened without blocking: a FIFO never hangs the walk."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, len(_BOM) + 3)
    except OSError:
        return False
    finally:
        os.close(fd)
    return folder_readme(os.path.basename(file), head)


def _kind(path: Path) -> str | OSError | None:
    """``"folder"``, ``"file"`` (anything else that is there, a dangling symlink too: lint says
    why it cannot be read), None when nothing is there, or the error that says why ``path``
    cannot be looked at (``ENAMETOOLONG``, ``EACCES``): an SD008 finding, not a crash."""
    import errno

    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return exc
        try:
            os.lstat(path)
        except OSError:
            return None if exc.errno != errno.ELOOP else exc
        return "file"  # a dangling symlink
    return "folder" if stat.S_ISDIR(info.st_mode) else "file"


def _unlisted(
    folder: Path, problem: OSError, config: Config, cwd: Path, what: str = "folder"
) -> SpecFile:
    import errno

    if problem.errno == errno.ELOOP:
        reason = "a symbolic link loop (too many levels of symbolic links)"
    else:
        reason = problem.strerror or str(problem)
    spec = _spec_file(folder, config, cwd)
    return SpecFile(spec.display, spec.path, spec.relative, f"cannot read the {what}: {reason}")


def _spec_file(path: Path, config: Config, cwd: Path) -> SpecFile:
    return SpecFile(_display(path, cwd), path, _relative(path.absolute(), config.root))


_POSIX = os.sep == "/" and os.altsep is None


def _walked(file: str, cwd: str, root: str) -> SpecFile:
    """:func:`_spec_file` for a path string from the walk, without a :class:`Path` per file
    (each also interns its parts): on POSIX, ``relative_to`` between normal absolute paths is
    a prefix test at a separator, and ``as_posix`` is the string itself."""
    display = _under(file, cwd) or file
    return _restored(display, _where(file, display), _under(file, root) or file, "")


def _under(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` (a strict descendant), or "" when it is not under it."""
    prefix = folder if folder.endswith("/") else folder + "/"
    return path[len(prefix) :] if path.startswith(prefix) and len(path) > len(prefix) else ""
