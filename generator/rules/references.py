"""SD2xx: references inside a document (repos, commits, invariants, ids, title)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from generator.core.findings import Severity
from generator.core.suggest import did_you_mean
from generator.load.source import Span
from generator.model.document import Document
from generator.rules import Hit, rule
from generator.rules.examples import BODY, DOOR, HEADER

_SHA = "ad3f6a6582843008ed0f5a17b131878d15829af1"
_SOURCED = (
    DOOR.replace("trigger: close}", "trigger: close, source: 'door-service:src/door.py'}")
    + f"source_sha:\n  door-service: {_SHA}\n"
)
# A repo name is what source_sha's keys allow (letters, digits, '_', '.', '-', in any order).
_CITE = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+) at ([0-9a-f]{7,40})\b")
_SEGMENTS = re.compile(r"[A-Z0-9]+")


def is_url(source: str) -> bool:
    """Whether ``source`` is a web page (``http(s)://``) rather than ``<repo>:<path>``."""
    return source.startswith(("https://", "http://"))


@rule(
    "SD201",
    "unknown-source-repo",
    "a transition's `source` names a repo that `source_sha` does not declare",
    why="`source` is `<repo>:<path>` (or an `http(s)://` URL, which this rule leaves alone); "
    "without the repo's commit in `source_sha` the reference cannot be followed, and it is often "
    "a misspelt repo name.",
    bad=_SOURCED.replace("door-service:src", "door-svc:src"),
    good=_SOURCED,
)
def unknown_source_repo(doc: Document) -> Iterator[Hit]:
    known = doc.spec.source_sha
    for item in doc.spec.transitions:
        # Web pages are followed by their URL; a list ``from`` shares one source (report once).
        if item.source is None or is_url(item.source) or item.from_index:
            continue
        repo = item.source.split(":", 1)[0]
        if repo not in known:
            declared = ", ".join(sorted(known)) or "none"
            hint = did_you_mean(repo, sorted(known))
            yield Hit(
                f"source repo {repo!r} is not declared in source_sha (declared: {declared}){hint}",
                (*item.path, "source"),
            )


@rule(
    "SD202",
    "evidence-sha-mismatch",
    "evidence cites `<repo> at <hex>` where hex is not a prefix of that repo's `source_sha`",
    why="Evidence and `source_sha` must describe the same commit, or the spec mixes two versions "
    "of the code it documents.",
    bad=_SOURCED + "evidence:\n  - 'door-service at 1234567: src/door.py'\n",
    good=_SOURCED + "evidence:\n  - 'door-service at ad3f6a6: src/door.py'\n",
)
def evidence_sha_mismatch(doc: Document) -> Iterator[Hit]:
    shas = doc.spec.source_sha
    for index, text in enumerate(doc.spec.evidence):
        for match in _CITE.finditer(text):
            repo, cited = match.group(1), match.group(2)
            full = shas.get(repo)
            if full is None:
                if shas:
                    yield Hit(
                        f"evidence cites {repo} at {cited}, "
                        f"but source_sha does not declare {repo!r}",
                        ("evidence", index),
                    )
            elif not full.startswith(cited):
                yield Hit(
                    f"evidence cites {repo} at {cited}, but source_sha says {full[:12]}",
                    ("evidence", index),
                )


@rule(
    "SD203",
    "invariant-object-mismatch",
    "an invariant id is not `INV-<object>-<n>` for this document's `object`",
    why="Invariants belong to the domain object the document describes; a foreign id is usually "
    "a copy-paste from another spec.",
    bad=DOOR + "invariants:\n  - INV-DOM-EX-WIN-001-01\n",
    good=DOOR + "invariants:\n  - INV-DOM-EX-DOR-001-01\n",
)
def invariant_object_mismatch(doc: Document) -> Iterator[Hit]:
    prefix = f"INV-{doc.spec.object}-"  # no regex compiled per document
    for index, text in enumerate(doc.spec.invariants):
        number = text[len(prefix) :] if text.startswith(prefix) else ""
        if not (number.isascii() and number.isdigit()):
            yield Hit(
                f"invariant {text!r} does not belong to {doc.spec.object} "
                f"(expected INV-{doc.spec.object}-<n>)",
                ("invariants", index),
            )


def _codes(identifier: str) -> tuple[str, ...]:
    parts = _SEGMENTS.findall(identifier)
    return tuple(parts[1:-1])


@rule(
    "SD205",
    "id-object-mismatch",
    "the area/module codes of `id` and `object` differ",
    why="`STATE-PFM-QRY-011` describes an object of area PFM, module QRY: `DOM-PFM-QRY-...`.",
    bad=f"---\n{HEADER.replace('DOM-EX-DOR', 'DOM-EX-WIN')}{DOOR}---\n{BODY}",
    good=DOOR,
    severity=Severity.WARNING,
)
def id_object_mismatch(doc: Document) -> Iterator[Hit]:
    id_codes, object_codes = _codes(doc.spec.id), _codes(doc.spec.object)
    if id_codes and object_codes and id_codes != object_codes:
        yield Hit(
            f"id {doc.spec.id} has codes {'-'.join(id_codes)} but object {doc.spec.object} "
            f"has {'-'.join(object_codes)}",
            ("object",),
        )


@rule(
    "SD206",
    "title-heading-mismatch",
    "the body's first heading differs from `title`",
    why="Readers see the heading, tools and generated code use the title; they should agree.",
    bad=f"---\n{HEADER}{DOOR}---\n\n# Window\n",
    good=DOOR,
    severity=Severity.WARNING,
)
def title_heading_mismatch(doc: Document) -> Iterator[Hit]:
    headings = doc.body.headings
    if not headings:
        return
    first = headings[0]
    if first.text.casefold() != doc.spec.title.strip().casefold():
        line = doc.source.text[first.start : first.end]
        at = line.find(first.text) if first.text else -1
        span = (
            Span(first.start + at, first.start + at + len(first.text))
            if at >= 0
            else Span(first.start, first.end)
        )
        yield Hit(f"first heading {first.text!r} differs from title {doc.spec.title!r}", span=span)
