"""Findings of a ``sql`` generation run over many documents: SD121, SD122, and SD130 for a
configured binding whose history has no usable key (front matter ``storage`` gets SD130 from
the lint rule).

Cross-document, so not a lint rule: the pipeline asks the ``sql`` target for them with the
documents it generates (bindings may come from the configuration).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from generator.core.findings import Finding
from generator.targets.sql.plan import Names, binding_for, history_key_problem

if TYPE_CHECKING:
    from generator.load.strict_yaml import Path
    from generator.model.document import Document
    from generator.targets.sql.settings import SqlSettings


def finding_at(document: Document, code: str, path: Path, message: str) -> Finding:
    """A finding of rule ``code`` at the front matter node ``path`` of ``document``."""
    from generator.rules import finding

    span = document.span(path)
    start = document.source.position(span.start)
    end = document.source.position(max(span.end, span.start + 1))
    return finding(code, document.path, (*start, *end), message)


def target_findings(documents: Sequence[Document], settings: SqlSettings) -> list[Finding]:
    """SD121 for every document after the first that shares an object name or a bound
    column with an earlier one (by path); SD122 for each document without a binding."""
    found: list[Finding] = []
    claimed: dict[tuple[str, ...], Document] = {}
    for document in sorted(documents, key=lambda d: d.path):
        spec = document.spec
        names = Names.for_spec(spec)
        binding = binding_for(spec, settings)
        keys: list[tuple[tuple[str, ...], str, Path]] = [
            (("object", settings.schema, name), f"the SQL object {name!r}", ("title",))
            for name in (names.domain, names.check, names.trigger_function)
        ]
        if binding is None:
            found.append(
                finding_at(
                    document,
                    "SD122",
                    ("id",),
                    f"{spec.id}: no SQLite triggers without a binding: add `storage` (table, "
                    "column) or [tool.statedoc.sql.bindings] for this id",
                )
            )
        else:
            problem = None if spec.storage is not None else history_key_problem(binding)
            if problem is not None:
                found.append(
                    finding_at(
                        document,
                        "SD130",
                        ("id",),
                        f"{spec.id}: [tool.statedoc.sql.bindings] key: {problem}",
                    )
                )
            where = ("storage",) if spec.storage is not None else ("id",)
            column = (binding.schema or "", binding.table, binding.column)
            keys.append((("column", *column), f"the column {'.'.join(column[1:])}", where))
        for key, what, path in keys:
            first = claimed.setdefault(key, document)
            if first is not document:
                found.append(
                    finding_at(
                        document,
                        "SD121",
                        path,
                        f"{what} is also generated for {first.spec.id} ({first.path}): give "
                        "the specs distinct titles or bindings",
                    )
                )
    return found
