"""The I/O of a comparison: spec versions from the working tree and from a git ref.

Old versions come straight from git's object store (``git ls-tree`` lists the blobs at the
ref, ``git cat-file --batch`` reads them in one process): no checkout, no temporary files, and
it works on a shallow clone as long as the ref's commit is present. Paths handed to git are
relative to the top of the work tree, NUL-separated (``-z``) and literal (no glob magic).
Every git failure becomes a :class:`~generator.core.errors.ConfigError` (exit 2) that says
what to do.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.core.errors import ConfigError
from generator.core.findings import Severity
from generator.diffing.changes import MODEL_KEYS
from generator.diffing.matching import Version
from generator.lint.document import FileResult, lint_bytes
from generator.load.config import Config
from generator.load.discover import SKIP_DIRS, SpecFile, excluded, folder_readme
from generator.load.source import read_bounded

_GIT = ("git", "-c", "core.quotepath=off", "--literal-pathspecs", "--no-pager")


def _git(
    args: Sequence[str], cwd: Path, *, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        return subprocess.run(
            [*_GIT, *args], cwd=cwd, input=stdin, capture_output=True, env=env, check=False
        )
    except FileNotFoundError:
        raise ConfigError("--against needs git, and no `git` was found on PATH") from None
    except OSError as exc:
        raise ConfigError(f"cannot run git: {exc}") from None


def _stderr(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stderr.decode("utf-8", "replace").strip().replace("\n", "; ")


def toplevel(cwd: Path) -> Path:
    """The top of the work tree that holds ``cwd``."""
    result = _git(["rev-parse", "--show-toplevel"], cwd)
    if result.returncode != 0:
        raise ConfigError(
            f"--against needs a git repository, and {cwd} is not inside one ({_stderr(result)})"
        )
    return Path(os.fsdecode(result.stdout.rstrip(b"\n"))).resolve()


def resolve(top: Path, ref: str) -> str:
    """The commit ``ref`` names, or a usage error that says how to get it on a shallow clone."""
    if not ref or ref.startswith("-"):
        raise ConfigError(f"--against {ref!r}: not a git ref")
    verify = ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"]
    result = _git(verify, top)
    if result.returncode == 0:
        return result.stdout.decode("ascii").strip()
    hint = ""
    shallow = _git(["rev-parse", "--is-shallow-repository"], top)
    if shallow.returncode == 0 and shallow.stdout.strip() == b"true":
        hint = (
            "; this is a shallow clone, so fetch the ref first "
            "(e.g. `git fetch --depth=1 origin main`, or `fetch-depth: 0` in actions/checkout)"
        )
    raise ConfigError(f"--against {ref}: no such commit in the git repository at {top}{hint}")


def repo_relative(path: Path, top: Path) -> str | None:
    """``path`` relative to the work tree top as git spells it ('' for the top), or None."""
    absolute = path if path.is_absolute() else Path.cwd() / path
    if absolute.name not in ("", ".", ".."):
        # Resolve the folder, not the file: a symlinked spec is still at its own path.
        absolute = absolute.parent.resolve() / absolute.name
    else:
        absolute = absolute.resolve()
    try:
        relative = absolute.relative_to(top)
    except ValueError:
        return None
    return relative.as_posix() if relative.parts else ""


@dataclass(frozen=True)
class Blob:
    path: str  # relative to the work tree top, '/'-separated
    oid: str


def list_specs(top: Path, commit: str, roots: Iterable[str]) -> list[Blob]:
    """``*.md`` blobs at ``commit`` under each root (a folder or a file, top-relative).

    Folders are filtered as :func:`generator.load.discover.discover` walks them: no hidden or
    tool folders, no symlinks or submodules.
    """
    roots = sorted(set(roots))
    if not roots:
        return []
    pathspecs = [r if r else "." for r in roots]
    result = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *pathspecs], top)
    if result.returncode != 0:
        raise ConfigError(f"git ls-tree {commit[:12]} failed: {_stderr(result)}")
    found: dict[str, Blob] = {}
    for entry in result.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        path = os.fsdecode(raw_path)
        if kind != "blob" or mode == "120000":
            continue
        if path in roots or (
            path.endswith(".md")
            and any(_walked(path, root) for root in roots if _under(path, root))
        ):
            found.setdefault(path, Blob(path, oid))
    return [found[p] for p in sorted(found)]


def _under(path: str, root: str) -> bool:
    return not root or path.startswith(root.rstrip("/") + "/")


def _walked(path: str, root: str) -> bool:
    """Would a folder walk from ``root`` reach ``path``? (No hidden or tool folders.)"""
    below = PurePosixPath(path).relative_to(root) if root else PurePosixPath(path)
    return not any(d in SKIP_DIRS or d.startswith(".") for d in below.parts[:-1])


def read_blobs(top: Path, blobs: Sequence[Blob]) -> dict[str, bytes]:
    """oid -> content, in one ``git cat-file --batch`` process."""
    oids = list(dict.fromkeys(b.oid for b in blobs))
    if not oids:
        return {}
    result = _git(["cat-file", "--batch"], top, stdin="".join(f"{o}\n" for o in oids).encode())
    if result.returncode != 0:
        raise ConfigError(f"git cat-file failed: {_stderr(result)}")
    out, at, contents = result.stdout, 0, {}
    for oid in oids:
        end = out.index(b"\n", at)
        header = out[at:end].decode("ascii").split(" ")
        if len(header) != 3 or header[1] != "blob":
            raise ConfigError(f"git cat-file: cannot read object {oid}: {' '.join(header)}")
        size = int(header[2])
        contents[oid] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return contents


def version(
    data: bytes, path: str, config: Config, *, key: str | None = None, in_scope: bool = True
) -> Version:
    """Lint ``data`` far enough to build its spec (see :func:`from_result`)."""
    result = lint_bytes(data, path, max_file_size=config.max_file_size)
    return from_result(result, key=key, in_scope=in_scope)


def from_result(result: FileResult, *, key: str | None = None, in_scope: bool = True) -> Version:
    """A linted document as one side of a comparison; a document that does not get past the
    schema stage becomes a version without a spec, with its first error as the ``problem``."""
    path = result.path
    document = result.document
    if document is None:
        errors = [f for f in result.findings if f.severity is Severity.ERROR] or result.findings
        first = errors[0] if errors else None
        problem = (
            f"{first.path}:{first.line}:{first.column}: {first.code} {first.message}"
            if first is not None
            else f"{path}: cannot be read"
        )
        more = len(errors) - 1
        if more > 0:
            problem += f" (and {more} more)"
        return Version(path, None, problem, key=key, in_scope=in_scope)
    front = document.loaded.value
    extras = (
        {k: v for k, v in front.items() if k not in MODEL_KEYS} if isinstance(front, dict) else {}
    )
    return Version(path, document.spec, None, extras, key=key, in_scope=in_scope)


def worktree_versions(
    files: Sequence[SpecFile], config: Config, top: Path | None = None
) -> list[Version]:
    """The working-tree side: each discovered file, labelled with its display path (and keyed
    by its path relative to ``top``, to meet the same path at a git ref)."""
    found = []
    for file in files:
        key = repo_relative(file.path, top) if top is not None else None
        try:  # bounded, regular files only: a FIFO or /dev/zero must not hang the diff
            data, size = read_bounded(file.path, config.max_file_size)
        except OSError as exc:
            reason = file.error or f"cannot read: {exc.strerror or exc}"
            problem = f"{file.display}: {reason}"
            found.append(Version(file.display, None, problem, key=key))
            continue
        if size > config.max_file_size:
            problem = f"{file.display}: {size} bytes; the limit is {config.max_file_size}"
            found.append(Version(file.display, None, problem, key=key))
            continue
        found.append(version(data, file.display, config, key=key))
    return found


def ref_versions(
    top: Path,
    commit: str,
    roots: Iterable[str],
    config: Config,
    *,
    scope: Iterable[str] | None = None,
) -> list[Version]:
    """The old side: specs under ``roots`` at ``commit`` (keyed by top-relative path).

    Specs outside ``scope`` (roots too; default: all) are read only to recognise moved specs;
    so are paths that the configuration excludes.
    """
    scope_roots = None if scope is None else sorted(set(scope))
    roots = sorted(set(roots))
    cwd = Path.cwd().resolve()
    blobs = []
    for blob in list_specs(top, commit, roots):
        relative = repo_relative(top / blob.path, config.root.resolve())
        if relative is None or not excluded(relative, config.exclude):
            blobs.append(blob)
    contents = read_blobs(top, blobs)
    blobs = [  # as a walk of the working tree does: a folder's README is no spec
        b
        for b in blobs
        if b.path in roots or not folder_readme(PurePosixPath(b.path).name, contents[b.oid])
    ]
    found = []
    for blob in blobs:
        in_scope = scope_roots is None or any(
            blob.path == r or _under(blob.path, r) for r in scope_roots
        )
        found.append(
            version(
                contents[blob.oid],
                _display(top / blob.path, cwd),
                config,
                key=blob.path,
                in_scope=in_scope,
            )
        )
    return found


def _display(path: Path, cwd: Path) -> str:
    """Like a discovered file's display path: relative to the working directory when inside."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def config_roots(config: Config, top: Path) -> list[str]:
    """The configured specs folders inside the work tree, top-relative."""
    return [r for r in (repo_relative(p, top) for p in config.specs) if r is not None]
