"""SD207 revision-not-bumped: ``lint --against GIT_REF``.

For each linted spec that existed at the ref (matched by ``id``, so a moved file counts),
a change to its state machine (any breaking or compatible change; wording does not count)
must come with a higher ``revision``. The finding points at the ``revision`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from generator.core.findings import Finding
from generator.diffing import gitref
from generator.diffing.classify import diff_specs
from generator.diffing.matching import Version, match_by_id
from generator.lint.document import lint_bytes
from generator.lint.selection import Selection
from generator.lint.suppression import Suppressions
from generator.load.config import Config
from generator.load.discover import SpecFile
from generator.load.source import read_bounded
from generator.model.document import Document
from generator.rules import finding
from generator.rules.removals import removal_finding

_SHOWN = 3  # changes named in a message before "and N more"


def revision_findings(
    files: list[SpecFile],
    against: str,
    config: Config,
    texts: Mapping[Path, bytes] | None = None,
) -> list[Finding]:
    """SD207 findings for ``files`` against the git ref ``against`` (ConfigError when the ref
    or the repository is missing). Per-file and inline ignores are applied here; the caller
    applies ``--select``/``--ignore``. ``texts``: bytes to use instead of a file's (by path),
    for the language server, which lints the unsaved text of an editor."""
    top = gitref.toplevel(Path.cwd())
    commit = gitref.resolve(top, against)
    documents: dict[str, tuple[Document, str, Suppressions | None]] = {}
    new: list[Version] = []
    for file in files:
        given = None if texts is None else texts.get(file.path)
        try:  # bounded, regular files only, as lint reads them
            data, size = (
                (given, len(given))
                if given is not None
                else read_bounded(file.path, config.max_file_size)
            )
        except OSError:
            continue  # lint reports it (SD008)
        if size > config.max_file_size:
            continue  # lint reports it (SD007)
        result = lint_bytes(data, file.display, max_file_size=config.max_file_size)
        if result.document is None:
            continue  # lint reports why; there is no revision to check
        documents[file.display] = (result.document, file.relative, result.suppressions)
        new.append(gitref.from_result(result, key=gitref.repo_relative(file.path, top)))
    if not new:
        return []
    # Old specs: the configured folders (to follow moves) and each linted file's own path.
    roots = set(gitref.config_roots(config, top))
    roots.update(v.key for v in new if v.key is not None)
    old = [v for v in gitref.ref_versions(top, commit, roots, config) if v.spec is not None]
    found = []
    for before, after in match_by_id(old, new):
        if before is None or after is None:
            continue
        document, relative, suppressions = documents[after.path]
        hit = _check(before, after, document, against)
        if hit is not None and _reported(hit, relative, suppressions, config):
            found.append(hit)
        gone = removal_finding(before.spec, after.spec, document, after.path, against)  # SD208
        if gone is not None and _reported(gone, relative, suppressions, config):
            found.append(gone)
    return found


def _check(before: Version, after: Version, document: Document, against: str) -> Finding | None:
    old, new = before.spec, after.spec
    assert old is not None and new is not None
    if old.id != new.id or new.revision > old.revision:
        return None
    changes = [c for c in diff_specs(old, new) if c.semantic]
    if not changes:
        return None
    span = document.span(("revision",))
    start = document.source.position(span.start)
    end = document.source.position(max(span.end, span.start + 1))
    named = "; ".join(c.message for c in changes[:_SHOWN])
    if len(changes) > _SHOWN:
        named += f"; and {len(changes) - _SHOWN} more"
    moved = f" (then at {before.path})" if before.location != after.location else ""
    if new.revision == old.revision:
        stated = f"revision is still {new.revision}"
    else:
        stated = f"revision went down from {old.revision} to {new.revision}"
    message = (
        f"the lifecycle changed since {against}{moved} but {stated}: {named}; "
        f"set revision to {old.revision + 1} or more"
    )
    return finding("SD207", after.path, (*start, *end), message)


def _reported(
    finding: Finding, relative: str, suppressions: Suppressions | None, config: Config
) -> bool:
    """Not silenced by ``per-file-ignores`` or by ``# statedoc: ignore[SD207]`` in a real
    comment on its line (the same detection as every other rule: text inside a quoted
    scalar that merely looks like the directive silences nothing)."""
    if not Selection(per_file=dict(config.per_file_ignores)).enabled(finding.code, relative):
        return False
    return suppressions is None or not suppressions.ignores(finding.line, finding.code)
