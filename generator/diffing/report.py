"""Renderings of a semantic diff: text grouped by spec, JSON, and Markdown for a PR comment.

Pure functions of a :class:`DiffReport`. Only specs with changes, or with a side that could
not be read, are shown; the counts cover every change. Every change carries its class and
the categories of those it breaks. Texts from a spec or a path are data in every format: one
escaped line of text (control and bidi characters shown as escapes), JSON strings, Markdown
without markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from generator.diffing.categories import CATEGORIES, Category, spelled
from generator.diffing.changes import Change, ChangeClass
from generator.diffing.matching import SpecDiff
from generator.report import json_text, printable

MARKER = "<!-- statedoc-diff -->"  # lets a bot find and update its earlier comment


@dataclass(frozen=True)
class DiffReport:
    diffs: Sequence[SpecDiff]  # every spec compared, changed or not
    against: str | None = None  # the git ref, or None for two files

    @property
    def shown(self) -> list[SpecDiff]:
        return [d for d in self.diffs if d.reportable]

    @property
    def changes(self) -> list[tuple[SpecDiff, Change]]:
        return [(d, c) for d in self.diffs for c in d.changes]

    def count(self, change_class: ChangeClass) -> int:
        return sum(1 for _, c in self.changes if c.change_class is change_class)

    def count_in(self, category: Category) -> int:
        """Changes in ``category`` (a change in two categories counts in both)."""
        return sum(1 for _, c in self.changes if category in c.categories)

    @property
    def breaking(self) -> bool:
        return self.count(ChangeClass.BREAKING) > 0

    @property
    def unreadable_new(self) -> list[SpecDiff]:
        """Specs whose new version cannot be compared: the diff is incomplete (exit 2)."""
        return [d for d in self.diffs if d.status == "new-unreadable"]


def render(fmt: str, report: DiffReport) -> str:
    if fmt == "text":
        return render_text(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    raise ValueError(f"unknown diff format {fmt!r}")


# --- shared wording ------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(report: DiffReport) -> str:
    """One line for people: what changed, out of how much."""
    compared = _plural(len(report.diffs), "spec") + " compared"
    if report.against is not None:
        compared += f" against {report.against}"
    changed = [d for d in report.diffs if d.changes]
    if not report.changes:
        text = f"No changes ({compared})."
    else:
        counts = [f"{report.count(k)} {k.value}" for k in ChangeClass if report.count(k)]
        listed = ", ".join(counts[:-1]) + " and " + counts[-1] if len(counts) > 1 else counts[0]
        noun = "change" if len(report.changes) == 1 else "changes"
        text = f"{listed} {noun} in {_plural(len(changed), 'spec')} ({compared})."
        breaks = [f"{report.count_in(c)} {c.value}" for c in CATEGORIES if report.count_in(c)]
        if breaks:
            text += f" By category: {', '.join(breaks)}."
    unreadable = [d for d in report.diffs if d.status.endswith("unreadable")]
    if unreadable:
        text += f" {_plural(len(unreadable), 'document')} could not be compared."
    return text


def _where(diff: SpecDiff) -> str:
    """The spec's place: new path, and where it was (moved, deleted)."""
    if diff.new is None:
        return f"{diff.path} (deleted)"
    if diff.old is None:
        return f"{diff.path} (added)"
    if diff.moved:
        return f"{diff.path} (moved from {diff.old.path})"
    if diff.old.path != diff.path:
        return f"{diff.path} (against {diff.old.path})"
    return diff.path


def _revision(diff: SpecDiff) -> str:
    old = diff.old.spec if diff.old is not None else None
    new = diff.new.spec if diff.new is not None else None
    if old is not None and new is not None:
        return f"revision {old.revision}" + (
            f" -> {new.revision}" if new.revision != old.revision else ""
        )
    spec = new or old
    return f"revision {spec.revision}" if spec is not None else ""


def _problem(diff: SpecDiff, against: str | None) -> str | None:
    """Why a spec could not be compared, or None."""
    at = f" at {against}" if against else ""
    if diff.status == "new-unreadable":
        assert diff.new is not None
        return (
            f"the new version does not get past the schema stage, so it cannot be compared "
            f"(`statedoc lint` shows why): {diff.new.problem}"
        )
    if diff.status == "old-unreadable":
        assert diff.old is not None
        return (
            f"the old version{at} does not get past the schema stage, so it was not compared: "
            f"{diff.old.problem}"
        )
    return None


def _one_line(text: str) -> str:
    """One line for a terminal or a log, whatever a spec or a file name holds."""
    return printable(text)


# --- text ----------------------------------------------------------------------------------


def render_text(report: DiffReport) -> str:
    lines: list[str] = []
    shown = report.shown
    kind_width = max((len(c.kind) for d in shown for c in d.changes), default=0)
    category_width = max((len(spelled(c.categories)) for d in shown for c in d.changes), default=0)
    for diff in shown:
        if lines:
            lines.append("")
        head = " ".join(x for x in (diff.id or "", _where(diff)) if x)
        revision = _revision(diff)
        lines.append(_one_line(f"{head}, {revision}" if revision else head))
        problem = _problem(diff, report.against)
        if problem:
            lines.append(
                _one_line(
                    f"  error: {problem}"
                    if diff.status == "new-unreadable"
                    else f"  note: {problem}"
                )
            )
        for c in diff.changes:
            categories = spelled(c.categories)
            lines.append(
                _one_line(
                    f"  {c.change_class.value:<10}  {categories:<{category_width}}  "
                    f"{c.kind:<{kind_width}}  {c.message}"
                )
            )
    return "".join(line + "\n" for line in lines)


# --- JSON ----------------------------------------------------------------------------------


def render_json(report: DiffReport) -> str:
    specs = []
    for diff in report.shown:
        old = diff.old.spec if diff.old is not None else None
        new = diff.new.spec if diff.new is not None else None
        specs.append(
            {
                "id": diff.id,
                "old_id": old.id
                if old is not None and new is not None and old.id != new.id
                else None,
                "title": diff.spec.title if diff.spec is not None else None,
                "path": diff.new.path if diff.new is not None else None,
                "old_path": diff.old_path,
                "status": diff.status,
                "old_revision": old.revision if old is not None else None,
                "new_revision": new.revision if new is not None else None,
                "breaking": diff.breaking,
                "categories": _names(c for change in diff.changes for c in change.categories),
                "problem": _problem(diff, report.against),
            }
        )
    changes = [
        {
            "spec_id": diff.id,
            "path": diff.new.path if diff.new is not None else None,
            "old_path": diff.old_path,
            "kind": c.kind,
            "class": c.change_class.value,
            "categories": _names(c.categories),
            "subject": c.subject,
            "message": c.message,
        }
        for diff, c in report.changes
    ]
    data = {
        "against": report.against,
        "breaking": report.breaking,
        "counts": {k.value: report.count(k) for k in ChangeClass},
        "categories": {c.value: report.count_in(c) for c in CATEGORIES},
        "compared": len(report.diffs),
        "specs": specs,
        "changes": changes,
    }
    return json_text(data)


def _names(categories: Iterable[Category]) -> list[str]:
    """Category names in report order, each once."""
    chosen = set(categories)
    return [c.value for c in CATEGORIES if c in chosen]


# --- Markdown ------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<|~&$])")
_BADGE = {
    ChangeClass.BREAKING: "**breaking**",
    ChangeClass.COMPATIBLE: "compatible",
    ChangeClass.WORDING: "wording",
}


def md_text(text: str) -> str:
    """Literal text inside a GFM table cell or paragraph: no markup, HTML, math or @mentions."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    escaped = "<br>".join(_MD_SPECIAL.sub(r"\\\1", printable(line)) for line in lines)
    return escaped.replace("@", "@&#8203;")  # as Dependabot does: no notifications


def md_code(text: str) -> str:
    """``text`` as an inline code span that survives backticks and table pipes."""
    text = printable(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def _md_categories(c: Change) -> str:
    return ", ".join(_names(c.categories)) or "-"


def render_markdown(report: DiffReport) -> str:
    against = f" against {md_code(report.against)}" if report.against else ""
    out = [MARKER, f"### statedoc diff{against}", ""]
    verdict = (
        "**Breaking changes** to generated state machines."
        if report.breaking
        else "No breaking changes."
    )
    out += [f"{verdict} {md_text(summary(report))}", ""]
    for diff in report.shown:
        title = diff.spec.title if diff.spec is not None else None
        name = md_code(diff.id) if diff.id else md_code(diff.path)
        out.append(f"#### {name}" + (f" {md_text(title)}" if title else ""))
        where = md_code(diff.path)
        if diff.new is None:
            where += " (deleted)"
        elif diff.old is None:
            where += " (added)"
        elif diff.moved:
            where += f" (moved from {md_code(diff.old.path)})"
        elif diff.old.path != diff.path:
            where += f" (against {md_code(diff.old.path)})"
        revision = _revision(diff)
        out += [where + (f" · {md_text(revision)}" if revision else ""), ""]
        problem = _problem(diff, report.against)
        if problem:
            label = "**Error:**" if diff.status == "new-unreadable" else "**Note:**"
            out += [f"> {label} {md_text(problem)}", ""]
        if diff.changes:
            out += ["| class | category | change | details |", "| --- | --- | --- | --- |"]
            out += [
                f"| {_BADGE[c.change_class]} | {_md_categories(c)} | {md_code(c.kind)} "
                f"| {md_text(c.message)} |"
                for c in diff.changes
            ]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
