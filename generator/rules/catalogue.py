"""Codes reported by the load stage (SD0xx): registered for ``rules`` and ``explain``."""

from __future__ import annotations

from generator.core.findings import Severity
from generator.rules import Rule, register
from generator.rules.examples import BODY, DOOR, HEADER

_GOOD = f"---\n{HEADER}{DOOR}---\n{BODY}"


def _load_rule(
    code: str,
    name: str,
    summary: str,
    why: str,
    bad: str,
    good: str = _GOOD,
    severity: Severity = Severity.ERROR,
) -> None:
    register(Rule(code, name, severity, summary, why, bad, good, scope="load"))


_load_rule(
    "SD000",
    "internal-error",
    "statedoc itself failed on this file (a bug: please report it with the file)",
    "A crash in one check must not hide the findings of the others, so it becomes a finding; "
    "the run exits 2 so CI never mistakes it for a clean result.",
    "RAW:(no example: any file that makes statedoc crash)\n",
)
_load_rule(
    "SD001",
    "no-front-matter",
    "the file does not start with a `---` front matter block",
    "A state document is YAML front matter plus Markdown; without the opening `---` line there "
    "is nothing to check, and a silent empty result would look like success.",
    "RAW:# Door\n\nstates: open, closed\n",
)
_load_rule(
    "SD002",
    "unterminated-front-matter",
    "the front matter has no closing `---`",
    "Without the closing line the body would be read as YAML (or the YAML as body).",
    f"RAW:---\n{HEADER}{DOOR}\n# Door\n",
)
_load_rule(
    "SD003",
    "yaml-syntax",
    "the YAML does not parse; also excessive nesting, explicit tags, non-string keys, "
    "or several YAML documents",
    "A parse error is reported where the parser stopped. Tags and non-string keys would let a "
    "document change types behind the schema's back; deep nesting is a denial-of-service shape.",
    f"---\n{HEADER}states:\n  - name: open\n    meaning: 'unterminated\n---\n",
)
_load_rule(
    "SD004",
    "duplicate-key",
    "a mapping repeats a key",
    "YAML loaders silently keep the last value; which one was meant is a human decision.",
    f"---\n{HEADER}{DOOR}status: active\n---\n",
)
_load_rule(
    "SD005",
    "yaml-alias",
    "an anchor or alias is used",
    "Aliases hide shared structure (and enable billion-laughs expansion); specs spell values out.",
    f"---\n{HEADER}states:\n  - &open {{name: open}}\n  - *open\ntransitions: []\n---\n",
)
_load_rule(
    "SD006",
    "encoding",
    "the file is not valid UTF-8",
    "Spec text ends up in generated code and diagrams; guessing an encoding would corrupt it.",
    "RAW:(a file containing the byte 0xff)\n",
)
_load_rule(
    "SD007",
    "file-too-large",
    "the file is larger than the configured limit (`max-file-size`, default 4 MiB)",
    "A state document is a few kilobytes; a huge file is a mistake or an attack, and parsing it "
    "would stall CI.",
    "RAW:(a 100 MiB file)\n",
)
_load_rule(
    "SD008",
    "unreadable-file",
    "the file cannot be read (permissions, a folder where a file was expected, ...)",
    "An unreadable spec is not a clean spec: CI must not pass over it in silence.",
    "RAW:(a file without read permission)\n",
)
_load_rule(
    "SD010",
    "schema",
    "the front matter violates the JSON Schema (`statedoc schema` prints it)",
    "Every later check and the generated code rely on the types and formats the schema fixes.",
    f"---\n{HEADER.replace('revision: 1', 'revision: first')}{DOOR}---\n",
)
_load_rule(
    "SD011",
    "unknown-key",
    "an extra key looks like a typo of a known key",
    "Extra keys are allowed (teams extend the format), but `tigger:` next to a missing "
    "`trigger:` is almost always a typo.",
    f"---\n{HEADER}{DOOR}invalids:\n  - {{from: open, to: open, why: no}}\n---\n",
    severity=Severity.WARNING,
)
_WEDGE = DOOR + "  - {from: open, to: open, trigger: wedge}  # statedoc: ignore[SD111]\n"
_load_rule(
    "SD012",
    "unknown-ignore-code",
    "a `statedoc: ignore[...]` comment names something that is not a rule code",
    "A misspelt code silences nothing: the finding it was meant for stays, and the comment "
    "looks as if it did its job. statedoc says so instead of passing over it.",
    _WEDGE.replace("ignore[SD111]", "ignore[SD911]"),
    _WEDGE,
    severity=Severity.WARNING,
)
_TRIGGER = DOOR.replace("trigger: close}", 'trigger: "close RLO"}')
_load_rule(
    "SD013",
    "bidi-control",
    "a raw bidirectional control character (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, "
    "U+061C) in the front matter or the diagram",
    "Bidi controls make text display in another order than a parser reads it (trojan source): "
    "a reviewer would approve a name or trigger that is not the one generated. Escape it if meant.",
    _TRIGGER.replace("RLO", "\u202e"),
    _TRIGGER.replace("RLO", "\\u202e"),
    severity=Severity.WARNING,
)


# --- the output stage (SD4xx): reported by generate, diagram, build and check -------------


def _output_rule(code: str, name: str, summary: str, why: str, bad: str, good: str) -> None:
    """Not selectable away: stale or refused output fails CI unless ``--exit-zero``."""
    register(
        Rule(
            code,
            name,
            Severity.ERROR,
            summary,
            why,
            f"RAW:({bad})\n",
            f"RAW:({good})\n",
            scope="output",
        )
    )


_WHY_STALE = "A generated file that differs from its spec ships behaviour nobody reviewed."
_output_rule(
    "SD401",
    "stale-output",
    "a generated file differs from what its document generates",
    _WHY_STALE + " Reported by `check` and `generate --check`, with the diff.",
    "door.md changed; generated/example/doors/door.py still has the old table",
    "run `statedoc build` (or `generate`) and commit the result",
)
_output_rule(
    "SD402",
    "missing-output",
    "a file `generate` writes is missing",
    _WHY_STALE + " A missing module fails only at import time, in production.",
    "generated/example/doors/door.py was never generated",
    "run `statedoc build`",
)
_output_rule(
    "SD403",
    "left-over-output",
    "a file with statedoc's header that no document generates any more",
    "A module of a deleted or renamed spec keeps being importable and used.",
    "specs/door.md was deleted; generated/example/doors/door.py is still there",
    "run `statedoc build`: it deletes files it generated and no document produces",
)
_output_rule(
    "SD404",
    "foreign-file",
    "a file statedoc did not write is where it would write",
    "A file without statedoc's header line is the user's: it is never replaced or "
    "deleted, so the document's output cannot be written.",
    "tests/test_example_doors_door.py is hand-written and `generate --tests tests` "
    "would write that name",
    "move or rename the hand-written file",
)
_output_rule(
    "SD405",
    "unsafe-output-path",
    "an output path goes through a symlink, escapes the output folder, or meets a "
    "file where a folder belongs (or the reverse)",
    "Writing through a symlink or outside the output folder could replace any file.",
    "generated/example is a symlink to /etc",
    "make generated/example a real folder",
)
_output_rule(
    "SD406",
    "output-collision",
    "two documents would write the same module",
    "Neither may silently overwrite the other (paths compare case-insensitively, as "
    "on macOS and Windows checkouts).",
    "specs/a.md and specs/b.md both have title Door in module doors",
    "give the documents distinct titles",
)
_output_rule(
    "SD407",
    "diagram-drift",
    "the document's Mermaid block is not what `diagram --write` would write",
    "A diagram that disagrees with the front matter misleads every reader of the "
    "document. Reported by `check` and `diagram --check`, with the diff.",
    "a transition was added to the front matter but not to the diagram",
    "run `statedoc diagram --write` (or `build`)",
)
_output_rule(
    "SD408",
    "write-failed",
    "a file could not be read or written (permissions, a read-only spec, a file "
    "that changed while statedoc ran)",
    "Each failure is reported and the other files are still written. A read-only "
    "spec is respected unless `--force` is given.",
    "chmod 0444 specs/door.md, then `statedoc diagram --write`",
    "make the file writable, or pass --force",
)
_output_rule(
    "SD409",
    "output-refused",
    "statedoc cannot produce this document's output (the diagram block is unclosed "
    "or cannot be redrawn exactly, the document cannot be rendered, or a generated file's "
    "name or path is too long for the file system)",
    "statedoc never writes what it cannot produce faithfully: a person must decide.",
    "the mermaid block of `## The Lifecycle` is never closed",
    "close the block, or fix what the message names",
)
_WHY_FOLDERS = (
    "Each output folder is cleaned of the stale files of the targets writing there; folders "
    "that nest or hold the specs would lose other files that way, so nothing is generated "
    "until the configuration is fixed."
)
_output_rule(
    "SD410",
    "output-folder-invalid",
    "a target's `out` or `tests` in pyproject.toml is not a folder path (a non-empty string)",
    "A folder statedoc cannot use must not silently send the files somewhere else.",
    '[tool.statedoc.typescript] out = ["web/src"]',
    '[tool.statedoc.typescript] out = "web/src/lifecycle"',
)
_output_rule(
    "SD411",
    "output-folders-nested",
    "two targets' output folders nest, one inside the other",
    _WHY_FOLDERS + " Two targets may share one folder.",
    'out = "generated" and [tool.statedoc.typescript] out = "generated/ts"',
    'out = "generated" and [tool.statedoc.typescript] out = "web/src/lifecycle"',
)
_output_rule(
    "SD412",
    "output-folder-overlaps-specs",
    "a target's output folder overlaps a specs folder or holds the project root",
    _WHY_FOLDERS,
    '[tool.statedoc.sql] out = "specs/migrations"',
    '[tool.statedoc.sql] out = "migrations"',
)
_output_rule(
    "SD413",
    "tests-folder-too-deep",
    "a configured tests folder lies two or more folders deep in an output folder",
    "Generated test modules there sit where generated modules would and would be deleted "
    "as stale by the next `generate`. " + _WHY_FOLDERS,
    'out = "generated" and tests = "generated/platform/tests"',
    'out = "generated" and tests = "tests/generated"',
)
_output_rule(
    "SD414",
    "tests-folder-unused",
    "`tests` is set for a target that generates no tests",
    "Only the python and typescript targets generate tests: the setting would do nothing, "
    "and a CI job would believe generated tests are checked.",
    '[tool.statedoc.mermaid] tests = "tests"',
    '[tool.statedoc.python] tests = "tests/generated"',
)


# SD140-SD146: what `statedoc db audit` finds in a live database (generator/targets/sql/audit*).
_AUDITED = (
    f"---\n{HEADER}{DOOR}storage:\n  table: doors\n  column: state\n  history: true\n---\n{BODY}"
)


def _audit_rule(
    code: str, name: str, summary: str, why: str, bad: str, severity: Severity = Severity.ERROR
) -> None:
    register(
        Rule(
            code, name, severity, summary, why, f"{_AUDITED}\n({bad})\n", _AUDITED, scope="database"
        )
    )


_audit_rule(
    "SD140",
    "db-audit-unreadable",
    "`db audit`: a bound table or its history could not be read (missing, no privilege, or "
    "locked or slow past `--timeout`)",
    "An audit that skips a table in silence reads as a clean one. The audit needs SELECT on the "
    "bound table and its history (and USAGE on their schemas), nothing more; every statement "
    "has a statement and lock timeout, so a table locked by a migration ends its reads with this "
    "finding instead of a hang, and the other specs are still audited.",
    "the doors table is locked ACCESS EXCLUSIVE longer than --timeout",
)
_audit_rule(
    "SD141",
    "db-audit-unknown-state",
    "`db audit`: rows hold a value that is no state of the repository's revision (NULL included)",
    "Rows written before the triggers were applied, with the triggers disabled, or left by a "
    "state a later revision removed can never move again: every trigger refuses them. The "
    "finding names the value, its row count and the first keys; retire the state with a `to` "
    "(the next revision's SQL moves them) or repair the rows.",
    "INSERT INTO doors (id, state) VALUES (7, 'ajar') while the triggers were disabled",
)
_audit_rule(
    "SD142",
    "db-audit-undeclared-change",
    "`db audit`: the history records a change the spec does not allow (an undeclared or "
    "forbidden pair, or an INSERT in a state an INSERT may not use)",
    "The history is written by the database for every change of state; a pair there that the "
    "spec does not declare happened behind the triggers (disabled, or before they were "
    "applied), or under a revision that still allowed it. Each pair is reported with its count, "
    "the revisions that recorded it and example row keys.",
    "history row open -> locked, written while the guard trigger was disabled",
)
_audit_rule(
    "SD143",
    "db-audit-planned-performed",
    "`db audit`: a transition the spec calls `provenance: planned` happens in production",
    "`planned` says no code performs the transition yet; the history says production does. "
    "The spec's claim is out of date: say `observed` and where it is implemented.",
    "provenance: planned on open -> closed, and the history records it 40 times",
    Severity.WARNING,
)
_audit_rule(
    "SD144",
    "db-audit-not-implemented-moves",
    "`db audit`: the spec's `implementation_evidence` says `not-implemented`, yet its rows "
    "change state in production",
    "A spec that says nothing implements it while the history records its rows moving "
    "misleads every reader deciding whether a change is safe. Update implementation_evidence.",
    "implementation_evidence: not-implemented, and the history records 12 changes",
    Severity.WARNING,
)
_audit_rule(
    "SD145",
    "db-audit-observed-unseen",
    "`db audit`: a transition the spec calls `provenance: observed` never happened in the "
    "history window (`--since`)",
    "`observed` claims production performs the transition. When the history of the window "
    "never records it, the code path may be gone, or the claim was never true; check it, and "
    "say `documented` or `inferred` when it was not seen.",
    "provenance: observed on closed -> open, never recorded in the last 30 days",
    Severity.WARNING,
)
_audit_rule(
    "SD146",
    "db-audit-coverage-under",
    "`db audit --fail-under`: production transition coverage is below the given percentage",
    "Like `--statedoc-fail-under` for tests: covered declared transitions over all declared "
    "transitions of every spec with history. With no history read at all there is nothing "
    "to measure, and that fails too, rather than passing as 100%.",
    "statedoc db audit --fail-under 90, and 2 of 3 declared transitions happened",
)
