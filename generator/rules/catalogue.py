"""Codes reported by the load stage (SD0xx): registered for ``rules`` and ``explain``."""

from __future__ import annotations

from generator.findings import Severity
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
