"""Fuzzing ``statedoc lint`` in-process: arbitrary bytes, YAML and Markdown.

Whatever the file holds, lint must answer with findings: exit 0 or 1, never 2 (usage or
internal error), never a traceback, never SD000 (statedoc's own crash, reported as a finding),
and every report format must stay parseable (JSON, SARIF, JUnit XML, GitHub commands).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import fuzz_examples
from sample_documents import DOOR, HEADER

from generator.cli import main
from generator.testing.strategies import TRICKY_TEXT, spec_documents, texts

#: slow: property runs, scaled by the Hypothesis profile (tests/conftest.py).
pytestmark = pytest.mark.slow

FORMATS = ("text", "json", "github", "sarif", "junit")
#: The fixtures are set up once per test and reused by every example: the spec file is
#: overwritten and capsys drained each time, so sharing them between examples is safe.
FUZZ = settings(
    max_examples=fuzz_examples(settings().max_examples),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    deadline=None,
)

Lint = Callable[[bytes, str], None]


@pytest.fixture
def lint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Lint:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    spec = tmp_path / "specs" / "fuzz.md"
    spec.parent.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)

    def run(data: bytes, fmt: str) -> None:
        spec.write_bytes(data)
        capsys.readouterr()
        code = main(["lint", "--no-cache", "-j", "1", "--format", fmt])
        out, err = capsys.readouterr()
        report = f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
        assert code in (0, 1), report
        assert "Traceback" not in out + err, report
        assert "SD000" not in reported_codes(fmt, out), report

    return run


_TEXT_LINE = re.compile(r"specs/fuzz\.md:\d+:\d+: (?:(SD\d{3}) |note: )")
_CODE = re.compile(r"\b(SD\d{3})\b")


def reported_codes(fmt: str, out: str) -> list[str]:
    """The codes a report holds; also checks that the report is well-formed for its format."""
    if fmt == "json":
        findings = json.loads(out)
        for finding in findings:
            assert {"path", "line", "column", "code", "severity", "message"} <= set(finding)
            assert finding["line"] >= 1 and finding["column"] >= 1, finding
        return [f["code"] for f in findings]
    if fmt == "sarif":
        log = json.loads(out)
        assert log["version"] == "2.1.0"
        return [r["ruleId"] for run in log["runs"] for r in run.get("results", [])]
    if fmt == "junit":
        root = ET.fromstring(out.encode("utf-8"))
        return [f.get("type", "") for f in root.iter("failure")] + [
            code for f in root.iter("failure") for code in _CODE.findall(f.text or "")
        ]
    codes: list[str] = []
    for line in out.splitlines():
        if fmt == "github":
            assert line.startswith("::"), line
            codes += re.findall(r"title=(SD\d{3})", line)
        else:
            match = _TEXT_LINE.match(line)
            assert match is not None, line
            codes += [match[1]] if match[1] else []
    return codes


def formats() -> st.SearchStrategy[str]:
    return st.sampled_from(FORMATS)


# -- arbitrary bytes -------------------------------------------------------------------------


def framed(inner: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """``inner`` inside a front matter block, so the fuzz gets past the first check."""
    return st.tuples(inner, st.binary(max_size=200)).map(
        lambda parts: b"---\n" + parts[0] + b"\n---\n" + parts[1]
    )


@FUZZ
@given(data=st.binary(max_size=2000) | framed(st.binary(max_size=1000)), fmt=formats())
def test_lint_survives_arbitrary_bytes(lint: Lint, data: bytes, fmt: str) -> None:
    lint(data, fmt)


@FUZZ
@given(
    text=st.text(max_size=500) | st.text(max_size=300).map(lambda t: f"---\n{t}\n---\n"),
    encoding=st.sampled_from(("utf-8", "utf-8-sig", "utf-16", "latin-1")),
    fmt=formats(),
)
def test_lint_survives_arbitrary_text(lint: Lint, text: str, encoding: str, fmt: str) -> None:
    lint(text.encode(encoding, errors="replace"), fmt)


# -- arbitrary YAML --------------------------------------------------------------------------

YAML_TOKENS = (
    "-", "- ", ":", ": ", "?", "? ", "[", "]", "{", "}", ",", "&a ", "*a", "&b ", "*b", "!tag ",
    "!!str ", "!!python/name:os.system ", "|", "|-", ">", ">+", "#", " # c", '"', "'", "\\",
    "%YAML 1.2\n", "%TAG ! tag:x,2000:\n", "---", "...", "\n", "\n  ", "\n    ", "\t", " ",
    "id", "states", "transitions", "invalid", "initial", "name", "from", "to", "trigger",
    "why", "revision", "on", "no", "null", "~", "1", "0o17", "1e3", ".inf", "-.5", "0x1F",
    "<<", "=", "@", "`", "STATE-X-1", "DOM-X-1", "2026-10-09", "12:30:00", "\ufeff", "\x85",
    "\u2028", "\x00",
)  # fmt: skip

YAML_DOOR = HEADER + DOOR + "invalid:\n  - {from: open, to: open, why: already}\n"


def token_soup(tokens: tuple[str, ...], max_size: int = 60) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(tokens) | texts(6), max_size=max_size).map("".join)


@st.composite
def dumped_values(draw: st.DrawFn) -> str:
    """Random values through PyYAML, aliases and all (a value repeated by identity)."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        texts(10),
        st.sampled_from(TRICKY_TEXT),
    )
    values = st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(8), inner, max_size=4),
        max_leaves=20,
    )
    shared = draw(st.lists(st.integers(), max_size=3))
    value = draw(st.dictionaries(texts(8), values | st.just(shared), max_size=6))
    if draw(st.booleans()):
        value["again"] = shared
    return yaml.dump(
        value,
        allow_unicode=draw(st.booleans()),
        default_flow_style=draw(st.sampled_from((False, True, None))),
        default_style=draw(st.sampled_from((None, "'", '"', "|", ">"))),
        canonical=draw(st.booleans()),
        width=draw(st.sampled_from((20, 80, 1000))),
    )


@st.composite
def edited_lines(draw: st.DrawFn, text: str) -> str:
    """``text`` with a few lines deleted, duplicated, re-indented or replaced by soup."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(("delete", "duplicate", "indent", "dedent", "soup")))
        if how == "delete":
            del lines[at]
        elif how == "duplicate":
            lines.insert(at, lines[at])
        elif how == "indent":
            lines[at] = draw(st.sampled_from((" ", "  ", "\t", "    "))) + lines[at]
        elif how == "dedent":
            lines[at] = lines[at].lstrip()
        else:
            lines[at] = draw(token_soup(YAML_TOKENS, 8)) + "\n"
    return "".join(lines)


def yaml_texts() -> st.SearchStrategy[str]:
    return st.one_of(
        dumped_values(),
        token_soup(YAML_TOKENS),
        edited_lines(YAML_DOOR),
        st.sampled_from(("", "\n", "[]", "null", "'x'", "- a\n- b\n", "a: " + "[" * 200)),
    )


@FUZZ
@given(front=yaml_texts(), fmt=formats())
def test_lint_survives_arbitrary_yaml(lint: Lint, front: str, fmt: str) -> None:
    lint(f"---\n{front}\n---\n\n# Door\n".encode(), fmt)


# -- arbitrary Markdown ----------------------------------------------------------------------

MARKDOWN_TOKENS = (
    "\n", "\n\n", "# ", "## ", "## The Lifecycle\n", "### ", "```", "```mermaid\n", "~~~",
    "~~~mermaid\n", "````", "    ", "> ", "- ", "* ", "1. ", "<!--", "-->", "<div>", "</div>",
    "[x](y)", "`code`", "***", "---\n", "___", "|a|b|\n", "\\", "&amp;", "&#35;", "\t",
    "stateDiagram-v2\n", "stateDiagram\n", "flowchart LR\n", "[*]", " --> ", "-->", " : ",
    ":", "state ", '"x" as ', "as ", "{", "}", "note ", "end note", "left of ", "%%", "%%{",
    "direction LR", "class ", "classDef ", "<<fork>>", "<<choice>>", "--", "||", "open",
    "closed", "ajar", "s0", "#59;", "#35;", "\x00", "\u2028", "\ufeff", "\r", "\r\n",
)  # fmt: skip

DIAGRAM_LINES = (
    "[*] --> closed", "open --> closed", "closed --> open", "closed --> [*]", "open --> [*]",
    'state "open" as s0', 'state "closed" as s1', "s0 --> s1", "s1 --> s0 : go", "[*] --> s1",
    "state open {", "}", "note right of open : hi", "open --> ajar", "--> closed", "open -->",
    "state", 'state "unterminated', "%% comment", "direction TB", "open : label", "[*] --> [*]",
    "classDef x fill:#f00", "class open x", "state fork_state <<fork>>", "open --> open",
)  # fmt: skip


@st.composite
def mermaid_blocks(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(DIAGRAM_LINES) | token_soup(MARKDOWN_TOKENS, 6)))
    indent = draw(st.sampled_from(("", "  ", "\t")))
    fence = draw(st.sampled_from(("```", "~~~", "````")))
    header = draw(st.sampled_from(("stateDiagram-v2", "stateDiagram", "flowchart", "")))
    closing = draw(st.sampled_from((fence, "", "```")))
    body = "".join(f"{indent}{line}\n" for line in lines)
    return f"{fence}mermaid\n{header}\n{body}{closing}\n"


def markdown_bodies() -> st.SearchStrategy[str]:
    blocks = st.lists(
        st.one_of(
            token_soup(MARKDOWN_TOKENS, 20),
            mermaid_blocks(),
            st.just("## The Lifecycle\n\n"),
            texts(40),
        ),
        max_size=5,
    )
    return blocks.map("\n".join)


@FUZZ
@given(body=markdown_bodies(), fmt=formats())
def test_lint_survives_arbitrary_markdown(lint: Lint, body: str, fmt: str) -> None:
    lint(f"---\n{YAML_DOOR}---\n{body}".encode(), fmt)


@FUZZ
@given(document=spec_documents(max_states=4), body=markdown_bodies(), fmt=formats())
def test_lint_survives_random_bodies_under_random_specs(
    lint: Lint, document: str, body: str, fmt: str
) -> None:
    head, _, _ = document.partition("\n---\n")
    lint(f"{head}\n---\n{body}".encode(), fmt)


# -- damaged valid documents -----------------------------------------------------------------


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A valid document with a few random byte-level edits (cuts, inserts, swaps)."""
    data = bytearray(draw(spec_documents(max_states=4)).encode("utf-8"))
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(("cut", "insert", "replace")))
        size = draw(st.integers(1, 20))
        if how == "cut":
            del data[at : at + size]
        elif how == "insert":
            data[at:at] = draw(
                st.sampled_from(YAML_TOKENS + MARKDOWN_TOKENS).map(str.encode)
                | st.binary(max_size=4)
            )
        else:
            data[at : at + 1] = draw(st.binary(min_size=1, max_size=1))
    return bytes(data)


@FUZZ
@given(data=damaged(), fmt=formats())
def test_lint_survives_damaged_valid_documents(lint: Lint, data: bytes, fmt: str) -> None:
    lint(data, fmt)


# -- regressions found by this fuzzing (minimal reproducers; they fail until fixed) ----------


def test_undeclared_initial_state_with_a_diagram(lint: Lint) -> None:
    """SD305 crashes (SD000, exit 2) when ``initial`` names an undeclared state and the
    diagram draws ``[*]`` edges: ``sorted(wanted - drawn, key=state_names.index)``."""
    document = (
        YAML_DOOR.replace("initial: closed", "initial: [closed, ghost]")
        + "---\n\n# Door\n\n## The Lifecycle\n\n```mermaid\nstateDiagram-v2\n"
        "  [*] --> closed\n  open --> closed\n  closed --> open\n```\n"
    )
    lint(f"---\n{document}".encode(), "text")
