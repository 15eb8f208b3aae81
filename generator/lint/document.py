"""The lint pipeline for one document: bytes -> findings (pure; no file system access).

load (decode, split, strict YAML) -> schema -> model -> rules. Each stage that fails stops
the pipeline for that document with its own findings: later checks would only add noise about
values that are not there. A crash inside a check becomes an SD000 finding for this file only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from generator.core.findings import Finding, Related, Severity
from generator.lint import suppression
from generator.lint.suppression import Suppressions
from generator.load import frontmatter
from generator.load import strict_yaml as yamlload
from generator.load.source import DecodeError, SourceText, Span, decode
from generator.load.textchecks import bidi_controls, foreign_encoding
from generator.model.document import Document
from generator.rules import REGISTRY, Hit, all_rules, document_checks, finding

if TYPE_CHECKING:
    from traceback import FrameSummary


class SpecFacts(NamedTuple):
    """What cross-file rules need from a document: small enough to cache and to ship."""

    id: str
    id_line: int
    id_column: int
    id_end_line: int
    id_end_column: int
    suppressed: bool = False  # an inline ``ignore[SD204]`` on the id line


class FileResult:
    """What linting one file gave. One per linted file, kept to the end of the run: slots,
    no ``__dict__``."""

    __slots__ = ("document", "facts", "findings", "path", "sha256", "suppressions")

    def __init__(
        self,
        path: str,
        findings: list[Finding] | None = None,
        facts: SpecFacts | None = None,
    ) -> None:
        self.path = path
        self.findings: list[Finding] = [] if findings is None else findings
        self.facts = facts
        #: Only when lint succeeded far enough to build one.
        self.document: Document | None = None
        #: Inline ignores in real comments, if any.
        self.suppressions: Suppressions | None = None
        #: SHA-256 of the bytes read from disk, when the document is kept: the later steps
        #: then know the file without reading it again (None for bytes not read from it).
        self.sha256: str | None = None


class _Reporter:
    """Turns spans and hits into findings for one file."""

    def __init__(self, path: str, source: SourceText | None) -> None:
        self.path = path
        self.source = source
        self.findings: list[Finding] = []

    def add(
        self,
        code: str,
        span: Span,
        message: str,
        related: Iterable[tuple[Span, str]] = (),
    ) -> None:
        self.findings.append(
            finding(
                code,
                self.path,
                self.range(span),
                message,
                tuple(Related(*self.range(s)[:2], m) for s, m in related),
            )
        )

    def at(self, code: str, line: int, column: int, message: str) -> None:
        at = (line, column, line, column + 1)
        if self.source is not None:
            at = self.range(
                Span(self.source.offset(line, column), self.source.offset(line, column) + 1)
            )
        self.findings.append(finding(code, self.path, at, message))

    def range(self, span: Span) -> tuple[int, int, int, int]:
        if self.source is None:
            return 1, 1, 1, 2
        return text_range(self.source, span)


def text_range(source: SourceText, span: Span) -> tuple[int, int, int, int]:
    """The one place a span becomes (line, column, end_line, end_column), all 1-based.

    Columns count code points; the end is exclusive, so it may be one past the last character
    of its line, never further: a span never covers a line break (not even the carriage return of
    CRLF), never starts or ends past the last line, and a span that ends just after a line
    break ends at the end of the line before. An empty span is widened to one character when
    its line has one, so every finding has something to underline.
    """
    size = len(source.text)
    start = max(0, min(span.start, size))
    end = max(start, min(span.end, size))
    line, column = _clamped(source, start)
    if end == start:
        end_line, end_column = line, column
    else:
        end_line, end_column = _clamped(source, end)
        if end_column == 1 and end_line > line:  # just after a line break
            end_line -= 1
            end_column = len(source.line_text(end_line)) + 1
    if (end_line, end_column) <= (line, column):
        end_line = line
        end_column = min(column + 1, len(source.line_text(line)) + 1)
    return line, column, end_line, end_column


def _clamped(source: SourceText, offset: int) -> tuple[int, int]:
    """``position`` kept inside the text's lines: an offset inside a line break (CRLF) or at
    the very end after a final line break stays on the line that has text."""
    line, column = source.position(offset)
    if line > 1 and offset >= len(source.text) and column == 1:
        line -= 1
        return line, len(source.line_text(line)) + 1
    return line, min(column, len(source.line_text(line)) + 1)


def lint_bytes(data: bytes, path: str, *, max_file_size: int | None = None) -> FileResult:
    """Lint one document's bytes; ``path`` is only used to label findings."""
    all_rules()  # fill the registry before any lookup
    result = FileResult(path)
    reporter = _Reporter(path, None)
    try:
        _lint(data, path, max_file_size, reporter, result)
    except Exception as exc:  # a bug in statedoc: keep going, but say so loudly
        frame = _last_frame(exc)
        where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
        reporter.at("SD000", 1, 1, f"internal error: {type(exc).__name__}: {exc} (at {where})")
    result.findings = reporter.findings
    return result


def _lint(
    data: bytes, path: str, max_file_size: int | None, reporter: _Reporter, result: FileResult
) -> None:
    if max_file_size is not None and len(data) > max_file_size:
        reporter.at("SD007", 1, 1, f"the file has {len(data)} bytes; the limit is {max_file_size}")
        return
    foreign = foreign_encoding(data)
    if foreign is not None:
        reporter.at("SD006", 1, 1, f"the file is {foreign} encoded; save it as UTF-8")
        return
    try:
        source = decode(data)
    except DecodeError as exc:
        reporter.at("SD006", exc.line, exc.column, exc.reason)
        return
    reporter.source = source
    try:
        split = frontmatter.split(source.text)
    except frontmatter.SplitError as exc:
        reporter.add(exc.code, Span(exc.offset, exc.offset + 3), exc.message)
        return
    _yaml_line_breaks(split.yaml_text, split.yaml_offset, reporter)
    for offset, message in bidi_controls(source.text, split.body_offset):
        reporter.add("SD013", Span(offset, offset + 1), message)
    marked = suppression.MARK in source.text
    scalars = yamlload.Scalars() if marked else None
    loaded, problems = yamlload.load(split.yaml_text, split.yaml_offset, scalars=scalars)
    for problem in problems:
        reporter.add(problem.code, problem.span, problem.message, problem.related)
    if marked:
        yaml_span = Span(split.yaml_offset, split.yaml_offset + len(split.yaml_text))
        found = suppression.find(source, yaml_span, split.body_offset, scalars, REGISTRY)
        for span, code in found.unknown:
            reporter.add("SD012", span, f"{code!r} in statedoc: ignore[...] is not a rule code")
        result.suppressions = found
    if loaded is None:
        return
    _schema_stage(loaded, reporter)
    from generator.model.spec import build, usable

    schema_failed = any(f.code == "SD010" for f in reporter.findings)
    if not isinstance(loaded.value, dict) or (schema_failed and not usable(loaded.value)):
        return

    spec = build(loaded.value)
    document = Document(path, source, loaded, spec, split.body_offset)
    result.document = document
    result.facts = SpecFacts(spec.id, *text_range(source, loaded.span(("id",))))
    for rule in document_checks():
        assert rule.check is not None
        try:
            hits = list(rule.check(document))
        except Exception as exc:
            frame = _last_frame(exc)
            reporter.at(
                "SD000",
                1,
                1,
                f"internal error in {rule.code} {rule.name}: {type(exc).__name__}: {exc} "
                f"(at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})",
            )
            continue
        for hit in hits:
            reporter.add(rule.code, _hit_span(document, hit), hit.message, hit.related)


def _last_frame(exc: BaseException) -> FrameSummary:
    """Where a crash happened (traceback is imported only when something crashed)."""
    import traceback

    return traceback.extract_tb(exc.__traceback__)[-1]


_YAML11_BREAKS = {"\x85": "NEL", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}


def _yaml_line_breaks(text: str, offset: int, reporter: _Reporter) -> None:
    """libyaml reads NEL, U+2028 and U+2029 as line breaks (YAML 1.1) and folds them away, so
    the loaded text would silently differ from what the file says: report each one."""
    if not any(char in text for char in _YAML11_BREAKS):
        return
    for index, char in enumerate(text):
        name = _YAML11_BREAKS.get(char)
        if name is not None:
            reporter.add(
                "SD003",
                Span(offset + index, offset + index + 1),
                f"U+{ord(char):04X} {name} is a line break to the YAML parser and would be "
                f"changed on loading: write it as \\u{ord(char):04x} in a double-quoted string",
            )


def _hit_span(document: Document, hit: Hit) -> Span:
    if hit.span is not None:
        return hit.span
    return document.span(hit.path, key=hit.on_key)


def _schema_stage(loaded: yamlload.Loaded, reporter: _Reporter) -> None:
    from generator.load import schema

    value = loaded.value
    if not isinstance(value, dict):
        kind = "empty" if value is None else f"a {type(value).__name__}"
        reporter.add(
            "SD010", loaded.span(()), f"the front matter must be a mapping of keys, not {kind}"
        )
        return
    for key_path, key, suggestion in schema.typos(value):
        span = loaded.key_span(key_path) or loaded.span(key_path)
        reporter.add("SD011", span, f"unknown key {key!r}: did you mean {suggestion!r}?")
    if schema.fast_valid(value):
        return
    for violation in schema.violations(value):
        if violation.on_key:
            span = loaded.key_span(violation.path) or loaded.span(violation.path)
        else:
            span = loaded.span(violation.path)
        reporter.add("SD010", span, violation.message)


def project_findings(results: list[FileResult]) -> list[Finding]:
    """Cross-file rules over the documents linted together (SD204)."""
    by_id: dict[str, list[FileResult]] = {}
    for result in sorted(results, key=lambda r: r.path):
        if result.facts is not None:
            by_id.setdefault(result.facts.id, []).append(result)
    found: list[Finding] = []
    for group in by_id.values():
        first = group[0]
        assert first.facts is not None
        place = (first.path, first.facts.id_line, first.facts.id_column)
        for other in group[1:]:
            assert other.facts is not None
            found.append(duplicate_id(other.path, other.facts, place))
    return found


def duplicate_id(path: str, facts: SpecFacts, first: tuple[str, int, int]) -> Finding:
    """SD204 on the id of the document at ``path``: an earlier document (``first``: path,
    line, column of its id) has the same id."""
    all_rules()  # a run whose files all came from the cache has linted nothing yet
    rule = REGISTRY["SD204"]
    return Finding(
        path,
        facts.id_line,
        facts.id_column,
        facts.id_end_line,
        facts.id_end_column,
        rule.code,
        rule.name,
        Severity.ERROR,
        f"id {facts.id} is also used by {first[0]}:{first[1]}:{first[2]}",
    )
