"""``generator.patterns.lazy`` answers as ``re.compile`` does, compiling on first use only."""

from __future__ import annotations

import re

from generator.patterns import lazy

TEXTS = ["", "abc", "a-b a--b", "A_B\nc", "xyz 123"]
PATTERNS = [(r"(\w)-+(\w)", 0), (r"^[a-z]+$", re.MULTILINE), (r"a|b", re.IGNORECASE)]


def test_lazy_patterns_answer_as_compiled_ones() -> None:
    for source, flags in PATTERNS:
        pattern, compiled = lazy(source, flags), re.compile(source, flags)
        assert (pattern.pattern, pattern.flags, pattern.groups) == (
            compiled.pattern,
            compiled.flags,
            compiled.groups,
        )
        for text in TEXTS:
            for method in ("match", "fullmatch", "search"):
                mine, theirs = getattr(pattern, method)(text), getattr(compiled, method)(text)
                assert (mine and mine.span(), mine and mine.groups()) == (
                    theirs and theirs.span(),
                    theirs and theirs.groups(),
                )
            assert pattern.findall(text) == compiled.findall(text)
            assert [m.span() for m in pattern.finditer(text)] == [
                m.span() for m in compiled.finditer(text)
            ]
            assert pattern.sub("_", text) == compiled.sub("_", text)
            assert pattern.subn("_", text) == compiled.subn("_", text)
            assert pattern.split(text) == compiled.split(text)


def test_a_lazy_pattern_compiles_once_on_first_use() -> None:
    pattern = lazy(r"x(?P<tail>y+)")
    assert "_compiled" not in vars(pattern)
    assert pattern.search("axyy") is not None
    compiled = vars(pattern)["_compiled"]
    assert isinstance(compiled, re.Pattern)
    assert vars(pattern)["search"] == compiled.search  # later calls skip __getattr__
    assert pattern.groupindex == {"tail": 1} and vars(pattern)["_compiled"] is compiled
