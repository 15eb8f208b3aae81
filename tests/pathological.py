"""Bodies that made the Markdown scanner or the Mermaid reader super-linear (issue 18 item 4).

Each maker returns a document body of about ``size`` characters; shared by
``tests/diagram/test_diagram_pathological.py`` (does it finish, with the right finding) and
``benchmarks/bench_pathological.py`` (its cost relative to plain text of the same size).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["BODIES", "EXPECTED", "plain"]

FENCE = "```"
_HEAD = "\n# Door\n\n## The Lifecycle\n\n"


def _mermaid(content: str) -> str:
    return f"{_HEAD}{FENCE}mermaid\nstateDiagram-v2\n{content}\n{FENCE}\n"


def plain(size: int) -> str:
    """Ordinary prose of ``size`` characters under the title heading: the baseline."""
    return "\n# Door\n\n" + ("Some plain words here.\n" * (size // 23 + 1))[:size]


BODIES: dict[str, Callable[[int], str]] = {
    # A heading of spaces with a closing-hash look-alike: two space runs that both match.
    "heading of spaces": lambda n: "\n# x" + " " * n + "#x\n",
    # An opening fence whose info string is spaces then a backtick.
    "fence info of spaces": lambda n: "\n# Door\n\n" + FENCE + " " * n + "`\n",
    "line of backticks": lambda n: "\n# Door\n\n" + "`" * n + "\n",
    "backticks in a fence": lambda n: f"\n# Door\n\n{FENCE}\n" + "`" * n + f"\n{FENCE}\n",
    "blank lines in the diagram": lambda n: _mermaid("\n" * n + "a --> b;"),
    "blanks before a comment": lambda n: _mermaid(" " * n + "a"),
    "two-word state names": lambda n: _mermaid("state " + "ab cd " * (n // 6)),
    "tokens on one line": lambda n: _mermaid("a " * (n // 2)),
    "tokens, then direction": lambda n: _mermaid("a " * (n // 2) + "direction x"),
    "unclosed tags": lambda n: _mermaid("<a" * (n // 2)),
    "long label that fails": lambda n: _mermaid("a --> b : " + "ab " * (n // 3) + '"'),
    "style lines with colons": lambda n: _mermaid("style " + ":" * n + " #;"),
    "note with blank lines": lambda n: _mermaid("note left of a\n" + "\n" * n + "x"),
}

#: The finding each body must produce at 64 KB: the Markdown ones their own, every Mermaid
#: one SD302 (past maxTextSize, reported without parsing).
EXPECTED: dict[str, str] = {
    "heading of spaces": "SD206",
    "fence info of spaces": "SD301",
    "line of backticks": "SD301",
    "backticks in a fence": "SD301",
}
EXPECTED |= {name: "SD302" for name in BODIES if name not in EXPECTED}
