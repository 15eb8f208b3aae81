"""What ``generate`` writes for the chosen targets: every clean document served by the render
cache or rendered, with the refusals that keep a file from being written wrong.

* two documents that render one path (compared case-insensitively, for macOS and Windows
  checkouts) are both refused: neither overwrites the other;
* a document with a file too long for its folder is refused whole
  (:mod:`generator.output.fitting`);
* the files that follow from the set of paths (``__init__.py``...) come last.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from generator.cache.store import RenderCache, Rendered
from generator.lint.document import FileResult
from generator.load.config import Config
from generator.load.discover import SpecFile
from generator.model.document import Document
from generator.output.fitting import refuse_overlong
from generator.output.plan import COLLISION, REFUSED, Output, Problem
from generator.output.rendered import (
    Pending,
    cache_context,
    digests_of,
    in_sync,
    prepare,
    render_files,
    served,
    span_at,
    unloadable,
)
from generator.output.sources import Sources
from generator.render.environment import RenderError
from generator.targets import Target


def _collision(
    doc: Pending, relative: str, claimants: Sequence[tuple[Pending, str]], sources: Sources
) -> Problem:
    """SD406 at the document's title: ``relative`` is also written for another document, or
    by two of the chosen targets."""
    rest = list(dict.fromkeys(d.spec_file.display for d, _ in claimants if d is not doc))
    if rest:
        # Name a few: a message per document listing all others grows quadratically.
        others = ", ".join(rest[:3]) + (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
        why = f"would also be written for {others}; give the documents distinct titles"
    else:
        names = " and ".join(dict.fromkeys(target for _, target in claimants))
        why = f"is written by both the {names} targets; choose one of them"
    document = sources.document(doc.result)
    line, column, end_line, end_column = (
        span_at(document, "title") if document is not None else (1, 1, 1, 1)
    )
    return Problem(
        doc.spec_file.display,
        line,
        column,
        f"refused: the file {relative} {why}",
        COLLISION,
        (end_line, end_column),
    )


def _collisions(
    rendered: Sequence[tuple[Pending, dict[str, dict[str, bytes]]]],
    roots: dict[str, str],
    sources: Sources,
) -> tuple[list[Problem], set[int]]:
    """Refuse every document one of whose files another document also renders, or two of
    its targets do (paths of one root compared case-insensitively, for macOS and Windows
    checkouts); returns the refusals and the indexes of the documents refused."""
    claims: dict[tuple[str, str], list[tuple[int, str, str]]] = {}  # index, target, path
    for index, (_, files_by_target) in enumerate(rendered):
        for target_name, files in files_by_target.items():
            root = roots[target_name]
            for relative in files:
                key = (root, relative.casefold())
                claims.setdefault(key, []).append((index, target_name, relative))
    first: dict[int, tuple[str, list[tuple[int, str, str]]]] = {}  # document -> its first clash
    for owners in claims.values():
        if len(owners) > 1:
            for index, _, relative in owners:
                first.setdefault(index, (relative, owners))
    problems = [
        _collision(
            rendered[index][0], relative, [(rendered[i][0], t) for i, t, _ in owners], sources
        )
        for index, (relative, owners) in first.items()
    ]
    return problems, set(first)


def expected_outputs(
    candidates: Sequence[tuple[SpecFile, FileResult]],
    settings: Config,
    targets: Sequence[Target],
    cache: RenderCache | None = None,
    sources: Sources | None = None,
    folders: dict[str, Path | None] | None = None,
    roots: dict[str, str] | None = None,
    placed: dict[str, Config] | None = None,
) -> tuple[dict[str, list[Output]], list[Problem], list[str]]:
    """Render every clean document (a lint result and its file) for every target; returns
    the outputs by folder key, the refusals and the documents generated.

    ``settings.out`` is the output folder (its name goes into the package files); ``cache``
    serves renderings of documents rendered before (same bytes, path, targets and code);
    ``sources`` parses the documents the lint run did not keep; ``folders`` (folder key ->
    folder) is where a cached rendering's files are read back (compared by SHA-256).
    ``roots`` gives each target's folder key (default: its ``root``, ``"out"`` or
    ``"tests"``) and ``placed`` the settings it renders with (default: ``settings``), when
    targets write into folders of their own (:mod:`generator.run.folders`).
    """
    folders = folders or {"out": settings.out}
    placed = placed or {}
    if sources is None:
        from generator.lint.files import settings_for

        sources = Sources([f for f, _ in candidates], settings_for(settings))
    roots = roots or {target.name: target.root for target in targets}
    context = ""
    if cache is not None:  # where each target writes decides its bytes (import paths)
        where = ",".join(
            f"{t.name}={placed[t.name].out if t.name in placed else ''}" for t in targets
        )
        # a target of tests names other targets' files, placed even when not chosen
        every = sorted({n: str(p) for c in placed.values() for n, p in c.outs.items()}.items())
        context = f"{cache_context(targets, settings)}\0{where}\0{every!r}"
    docs, problems = prepare(candidates, sources, cache, context)
    create_only = {t.name for t in targets if t.create_only}
    rendered: list[tuple[Pending, dict[str, dict[str, bytes]]]] = []
    current: list[bool] = []  # per rendered document: served by the render cache
    parsed: list[Document | None] = []
    job = _Job(targets, settings, placed, cache, context, roots, folders, sources)
    with nullcontext() if cache is None else cache.batched():  # one write for the entries
        for doc in docs:
            done = job.files(doc)
            if isinstance(done, Problem):
                problems.append(done)
                continue
            files, document = done
            rendered.append((doc, files))
            current.append(document is None)
            parsed.append(document)
    collisions, colliding = _collisions(rendered, roots, sources)
    problems.extend(collisions)
    outputs: dict[str, list[Output]] = {root: [] for root in roots.values()}
    generated: list[str] = []
    kept: dict[str, tuple[Pending, Document | None]] = {}  # by display path: for refusals
    for index, (doc, files_by_target) in enumerate(rendered):
        if index in colliding:
            continue
        for target_name, target_files in files_by_target.items():
            for relative, data in target_files.items():
                outputs[roots[target_name]].append(
                    Output(
                        relative,
                        data,
                        doc.spec_file.display,
                        doc.at,
                        create_only=target_name in create_only,
                        current=current[index],
                    )
                )
        generated.append(doc.spec_file.display)
        kept[doc.spec_file.display] = (doc, parsed[index])
    _package_files(outputs, targets, roots, settings, placed)
    refusals, refused = refuse_overlong(
        outputs, folders, kept, lambda: _package_files(outputs, targets, roots, settings, placed)
    )
    problems.extend(refusals)
    generated = [shown for shown in generated if shown not in refused]
    for listed in outputs.values():
        listed.sort(key=lambda o: o.relative)
    problems.sort(key=lambda p: (p.path, p.line, p.column, p.message))
    return outputs, problems, sorted(generated)


@dataclass(frozen=True)
class _Job:
    """What every document of one :func:`expected_outputs` call is rendered with."""

    targets: Sequence[Target]
    settings: Config
    placed: dict[str, Config]
    cache: RenderCache | None
    context: str
    roots: dict[str, str]
    folders: dict[str, Path | None]
    sources: Sources

    def files(self, doc: Pending) -> tuple[dict[str, dict[str, bytes]], Document | None] | Problem:
        """The document's files by target and its parsed document (None: served by the
        render cache), or why it is refused."""
        if doc.files is not None:
            files = served(doc.files, self.roots, self.folders, self.sources.signatures)
            if files is not None:
                return files, None
        document = self.sources.document(doc.result)
        if document is None:
            return unloadable(doc.spec_file.display, self.sources)
        try:
            files = _render(self.targets, document, self.settings, self.placed)
        except (RenderError, ValueError) as exc:  # a target's refusal (SqlError: ValueError)
            return Problem(doc.spec_file.display, 1, 1, f"refused: {exc}", REFUSED)
        if self.cache is not None and doc.key:
            entry = Rendered(doc.parts, doc.at, in_sync(document), self.context, digests_of(files))
            self.cache.put(doc.key, entry)
        return files, document


def _render(
    targets: Sequence[Target], document: Document, settings: Config, placed: dict[str, Config]
) -> dict[str, dict[str, bytes]]:
    """Each target's files, rendered with its own settings (its folder as ``out``)."""
    if not placed:
        return render_files(targets, document, settings)
    return {t.name: t.files(document, placed.get(t.name, settings)) for t in targets}


def _package_files(
    outputs: dict[str, list[Output]],
    targets: Sequence[Target],
    roots: dict[str, str],
    settings: Config,
    placed: dict[str, Config],
) -> None:
    """Add the files that follow from the set of generated paths (``__init__.py``...)."""
    for target in targets:
        root = roots[target.name]
        paths = [o.relative for o in outputs[root]]
        name = placed.get(target.name, settings).out.name
        for relative, data in target.package_files(paths, name).items():
            outputs[root].append(Output(relative, data))
