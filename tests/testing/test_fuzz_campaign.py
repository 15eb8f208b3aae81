"""The fuzzing campaign of issue 18 as a repeatable suite: mutated seeds through lint and diagram.

Inputs are the committed specs in ``specs/`` mutated by Hypothesis (byte flips; deleted,
duplicated and swapped lines; YAML-aware edits: a state renamed in one place or everywhere, a
key dropped, indentation changed, a quote, colon or hash inserted; Mermaid-aware edits: a node
renamed, edges added or removed, labels, ``[*]`` edges, alias ids such as ``s2``; line breaks,
BOM and unusual characters), plus raw text. Each input goes through the real CLI in-process
(``main(argv)`` on a temporary project, no subprocess) and must keep these properties:

* ``lint`` exits 0 or 1, with no traceback and no SD000;
* every finding's positions are inside the text: 1 <= line <= end_line <= line count, columns
  within their lines in code points (so a CRLF span never includes the ``\\r``);
* ``diagram --write`` never crashes, and never adds a finding other than the drift it
  repairs; after a write that was not blocked, ``diagram --check`` is clean and a second write
  changes nothing;
* ``lint --fix`` never crashes, never writes a file that lints worse (a new code, more errors)
  and a second fix changes nothing; neither rewrite ever changes the front matter block.

``STATEDOC_FUZZ_EXAMPLES`` sets the number of inputs (default: the Hypothesis profile's
``max_examples``, 50 locally and 250 under ``HYPOTHESIS_PROFILE=ci``); e.g.
``STATEDOC_FUZZ_EXAMPLES=100000 pytest tests/testing/test_fuzz_campaign.py`` for a long campaign.
Each failure class found by a campaign keeps its minimal reproducer in ``tests/fixtures/fuzz/``
(the file name says the class), replayed by ``test_reproducer``. ``benchmarks/bench_fuzz.py``
runs the same checks without stopping at the first failure and times the inputs.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import fuzz_examples

from generator.cli import main
from generator.load.source import DecodeError, decode

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "specs").rglob("*.md"))}
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fuzz"
EXAMPLES = fuzz_examples(settings().max_examples)
#: Where the input is written, relative to the project folder the CLI runs in.
SPEC = "specs/fuzz.md"
_BREAK = re.compile(r"\r\n|\r|\n")
_QUOTED_CHAR = re.compile(r"unacceptable character #x([0-9a-fA-F]{4,6})")
_INTERNAL = re.compile(r"statedoc: internal error: (\w+): (.*)")
_OWN = re.compile(r"the diagram statedoc would write is rejected by (SD30[1345])")


# --- running the CLI in-process ----------------------------------------------------------------


def call(*args: str) -> tuple[int, str, str]:
    """``statedoc ARGS`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def lint_json(project: Path) -> tuple[int, list[dict[str, object]], str]:
    code, out, err = call("lint", "--no-cache", "-j", "1", "--format", "json", SPEC)
    try:
        findings = json.loads(out) if out.strip() else []
    except json.JSONDecodeError:
        findings = []
    return code, findings, err


def crash_class(err: str) -> str:
    """``Type: message`` of an internal error, quoted names and numbers blanked (the class)."""
    match = _INTERNAL.search(err)
    if match is None:
        return "no message: " + (err.strip().splitlines() or ["(empty)"])[-1][:80]
    message = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", match[2])
    return f"{match[1]}: {message[:100]}"


def position_failures(data: bytes, findings: list[dict[str, object]]) -> list[str]:
    """One entry per finding whose positions are outside the text (``position:CODE:what``)."""
    try:
        lines = _BREAK.split(decode(data).text)
    except DecodeError:
        lines = None  # positions of an undecodable file are only checked to be >= 1
    failures: list[str] = []
    for finding in findings:
        code = finding["code"]
        line, column = int(finding["line"]), int(finding["column"])  # type: ignore[call-overload]
        end_line = int(finding["end_line"])  # type: ignore[call-overload]
        end_column = int(finding["end_column"])  # type: ignore[call-overload]
        points = [(line, column, "start"), (end_line, end_column, "end")] + [
            (int(r["line"]), int(r["column"]), "related")  # type: ignore[index]
            for r in finding.get("related", [])  # type: ignore[attr-defined]
        ]
        if (line, column) > (end_line, end_column):
            failures.append(f"position:{code}:end before start")
        for at_line, at_column, what in points:
            if at_line < 1 or at_column < 1:
                failures.append(f"position:{code}:{what} below 1")
            elif lines is not None and at_line > len(lines):
                failures.append(f"position:{code}:{what} line past the last line")
            elif lines is not None and at_column > len(lines[at_line - 1]) + 1:
                failures.append(f"position:{code}:{what} column past the line")
        quoted = _QUOTED_CHAR.search(str(finding["message"]))
        if (
            quoted  # the span starts at the character the message names
            and lines is not None
            and 1 <= line <= len(lines)
            and lines[line - 1][column - 1 : column] != chr(int(quoted[1], 16))
        ):
            failures.append(f"position:{code}:not at the character it names")
    return failures


def campaign_failures(project: Path, data: bytes) -> list[str]:
    """Every property the input breaks, as ``class: detail`` strings (empty: all hold)."""
    spec = project / SPEC
    spec.write_bytes(data)
    code, before, err = lint_json(project)
    if code not in (0, 1) or "Traceback" in err:
        return [f"lint-crash: {crash_class(err)}"]
    failures = [f"lint-SD000: {f['message']}" for f in before if f["code"] == "SD000"]
    failures += position_failures(data, before)
    code, out, err = call("diagram", "--write", "-q", "--no-cache", "-j", "1", SPEC)
    if code not in (0, 1) or "Traceback" in err:
        return [*failures, f"write-crash: {crash_class(err)}"]
    # The planner draws from the spec: a drawing its own drift check rejects is its bug.
    failures += [f"write-rejects-own-diagram: {c}" for c in sorted(set(_OWN.findall(out)))]
    written = spec.read_bytes()
    if written != data:
        _, after, _ = lint_json(project)
        added = Counter(str(f["code"]) for f in after) - Counter(str(f["code"]) for f in before)
        failures += [f"write-adds-finding: {c}" for c in sorted(added)]
        failures += position_failures(written, after)
        failures += kept_front_matter("write", data, written)
    if code == 0:  # the write was not blocked by lint errors nor refused
        check, _, err = call("diagram", "--check", "-q", "--no-cache", "-j", "1", SPEC)
        if check != 0:
            failures.append(f"check-after-write: exit {check}: {crash_class(err)}")
        again, _, err = call("diagram", "--write", "-q", "--no-cache", "-j", "1", SPEC)
        if again not in (0, 1):
            failures.append(f"write-crash: {crash_class(err)} (second write)")
        elif spec.read_bytes() != written:
            failures.append("write-not-idempotent: the second write changed the file")
    return failures + fix_failures(project, data, before)


def fix_failures(project: Path, data: bytes, before: list[dict[str, object]]) -> list[str]:
    """``lint --fix`` on the original input: no crash, never a file that lints worse (a new
    code or more errors) nor one whose front matter changed, and a second fix is a no-op."""
    spec = project / SPEC
    spec.write_bytes(data)
    code, _, err = call("lint", "--fix", "-q", "--no-cache", "-j", "1", SPEC)
    if code not in (0, 1) or "Traceback" in err:
        return [f"fix-crash: {crash_class(err)}"]
    fixed = spec.read_bytes()
    if fixed == data:
        return []
    _, after, _ = lint_json(project)
    added = Counter(str(f["code"]) for f in after) - Counter(str(f["code"]) for f in before)
    failures = [f"fix-adds-finding: {c}" for c in sorted(added)]
    if _errors(after) > _errors(before):
        failures.append("fix-lints-worse: more errors after the fix")
    failures += position_failures(fixed, after)
    failures += kept_front_matter("fix", data, fixed)
    code, _, err = call("lint", "--fix", "-q", "--no-cache", "-j", "1", SPEC)
    if code not in (0, 1) or "Traceback" in err:
        failures.append(f"fix-crash: {crash_class(err)} (second fix)")
    elif spec.read_bytes() != fixed:
        failures.append("fix-not-idempotent: the second fix changed the file")
    return failures


def _errors(findings: list[dict[str, object]]) -> int:
    return sum(1 for f in findings if f["severity"] == "error")


def kept_front_matter(what: str, old: bytes, new: bytes) -> list[str]:
    """A rewrite of the diagram must leave the front matter block (its lines, up to and
    including the closing ``---``) exactly as it was: the data-corruption class where the
    inserted block was glued to a final ``---`` without a line break."""
    try:
        old_lines, new_lines = _BREAK.split(decode(old).text), _BREAK.split(decode(new).text)
    except DecodeError:
        return []
    if not old_lines or old_lines[0] != "---":
        return []
    close = next((i for i in range(1, len(old_lines)) if old_lines[i].rstrip() == "---"), None)
    if close is None or new_lines[: close + 1] == old_lines[: close + 1]:
        return []
    return [f"{what}-corrupts-front-matter"]


def failure_class(failure: str) -> str:
    """The class of a failure string: what comes before the first ``: `` detail."""
    kind = failure.partition(": ")[0]
    if kind in ("check-after-write", "write-not-idempotent", "fix-not-idempotent"):
        return kind
    return failure.removesuffix(" (second write)")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    (tmp_path / "specs").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


# --- mutations ---------------------------------------------------------------------------------

Lines = list[str]
Mutation = Callable[[st.DrawFn, Lines], Lines]

# fmt: off
NEW_NAMES = st.sampled_from([
    "errored", "s2", "s0", "[*]", "on hold", "état", "x:y", "😀", "state", "end", "note", "-->",
    "q#1", "a'b", '"q"', "", " ", "𝔸", "a\u0301", "s2 --> s3", "::: c",
]) | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
INSERTS = st.sampled_from([
    "'", '"', ":", ": ", "#", " #", "&a", "*a", "!", "|", ">", "- ", "\t", "\x00", "\x85",
    "\u2028", "\ufeff", "😀", "\u202e", "[*]", "-->", "%%", "```", "\r", "\\", "{", "}",
])
# fmt: on


def _front(lines: Lines) -> range:
    """Indices of the front matter lines (between the first two ``---`` lines)."""
    if not lines or lines[0] != "---":
        return range(0)
    end = next((i for i in range(1, len(lines)) if lines[i] == "---"), len(lines))
    return range(1, end)


def _mermaid(lines: Lines) -> range:
    """Indices of the lines inside the first ``mermaid`` fence."""
    start = next((i for i, line in enumerate(lines) if line.startswith("```mermaid")), None)
    if start is None:
        return range(0)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("```")), len(lines))
    return range(start + 1, end)


def _pick(draw: st.DrawFn, where: range | list[int]) -> int | None:
    return draw(st.sampled_from(list(where))) if len(where) else None


def _states(lines: Lines) -> list[str]:
    found = [re.match(r"\s*- name: (.+)", lines[i]) for i in _front(lines)]
    return [m[1] for m in found if m] or ["pending"]


def delete_line(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, range(len(lines)))
    return lines if i is None else lines[:i] + lines[i + 1 :]


def duplicate_line(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, range(len(lines)))
    return lines if i is None else lines[: i + 1] + lines[i:]


def swap_lines(draw: st.DrawFn, lines: Lines) -> Lines:
    i, j = _pick(draw, range(len(lines))), _pick(draw, range(len(lines)))
    if i is None or j is None:
        return lines
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


def _replace_word(line: str, old: str, new: str, count: int = 0) -> str:
    return re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", lambda _: new, line, count=count)


def rename_state_once(draw: st.DrawFn, lines: Lines) -> Lines:
    old = draw(st.sampled_from(_states(lines)))
    where = [i for i, line in enumerate(lines) if old in line]
    i = _pick(draw, where)
    if i is None:
        return lines
    return [*lines[:i], _replace_word(lines[i], old, draw(NEW_NAMES), 1), *lines[i + 1 :]]


def rename_state_in_front_matter(draw: st.DrawFn, lines: Lines) -> Lines:
    """A routine rename: every mention in the front matter, the diagram left as it was."""
    old, new = draw(st.sampled_from(_states(lines))), draw(NEW_NAMES)
    front = _front(lines)
    return [_replace_word(line, old, new) if i in front else line for i, line in enumerate(lines)]


def drop_key(draw: st.DrawFn, lines: Lines) -> Lines:
    keys = [i for i in _front(lines) if re.match(r"\s*(- )?[a-z_]+:", lines[i])]
    i = _pick(draw, keys)
    return lines if i is None else lines[:i] + lines[i + 1 :]


def reindent(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, _front(lines))
    if i is None:
        return lines
    line = lines[i]
    if draw(st.booleans()):
        line = draw(st.sampled_from([" ", "  ", "    ", "\t"])) + line
    else:
        line = line[min(len(line) - len(line.lstrip(" ")), draw(st.integers(1, 4))) :]
    return [*lines[:i], line, *lines[i + 1 :]]


def insert_text(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, range(len(lines)))
    if i is None:
        return lines
    at = draw(st.integers(0, len(lines[i])))
    line = lines[i][:at] + draw(INSERTS) + lines[i][at:]
    return [*lines[:i], line, *lines[i + 1 :]]


def _edges(lines: Lines) -> list[int]:
    return [i for i in _mermaid(lines) if "-->" in lines[i]]


def rename_node(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, _edges(lines))
    if i is None:
        return lines
    ends = [e.strip() for e in re.split(r"-->|:", lines[i])[:2]]
    old = draw(st.sampled_from(ends))
    return [*lines[:i], lines[i].replace(old, draw(NEW_NAMES), 1), *lines[i + 1 :]]


def _node(draw: st.DrawFn, lines: Lines) -> str:
    return draw(st.sampled_from(_states(lines)) | st.just("[*]") | NEW_NAMES)


def add_edge(draw: st.DrawFn, lines: Lines) -> Lines:
    where = _mermaid(lines)
    at = where.stop if len(where) else len(lines)
    label = draw(st.sampled_from(["", ": a label", ": x --> y", ":", ": [*]"]))
    edge = f"  {_node(draw, lines)} --> {_node(draw, lines)}{label}"
    return [*lines[:at], edge, *lines[at:]]


def remove_edge(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, _edges(lines))
    return lines if i is None else lines[:i] + lines[i + 1 :]


def relabel(draw: st.DrawFn, lines: Lines) -> Lines:
    i = _pick(draw, _edges(lines))
    if i is None:
        return lines
    bare = lines[i].split(":", 1)[0].rstrip()
    label = draw(st.sampled_from(["", ": paid", ": a: b", ": 😀", ": %% not a comment"]))
    return [*lines[:i], bare + label, *lines[i + 1 :]]


def alias(draw: st.DrawFn, lines: Lines) -> Lines:
    """``state "x" as s2`` and some edges using ``s2`` (or a clashing alias)."""
    where = _mermaid(lines)
    if not len(where):
        return lines
    name, short = draw(st.sampled_from(_states(lines))), draw(st.sampled_from(["s2", "s0", "a"]))
    out = [*lines[: where.start], f'  state "{name}" as {short}', *lines[where.start :]]
    every = draw(st.booleans())
    return [
        _replace_word(line, name, short)
        if "-->" in line and (every or draw(st.booleans()))
        else line
        for line in out
    ]


def star_edge(draw: st.DrawFn, lines: Lines) -> Lines:
    where = _mermaid(lines)
    at = where.stop if len(where) else len(lines)
    node = _node(draw, lines)
    edge = f"  [*] --> {node}" if draw(st.booleans()) else f"  {node} --> [*]"
    return [*lines[:at], edge, *lines[at:]]


def drop_diagram(draw: st.DrawFn, lines: Lines) -> Lines:
    """The whole Mermaid block gone (``diagram --write`` inserts one), maybe its heading too."""
    where = _mermaid(lines)
    if not len(where):
        return lines
    start, stop = where.start - 1, min(where.stop + 1, len(lines))
    if draw(st.booleans()):
        start = next((i for i in range(start, -1, -1) if lines[i].startswith("## ")), start)
    return lines[:start] + lines[stop:]


def edit_heading(draw: st.DrawFn, lines: Lines) -> Lines:
    """A Markdown heading deleted, retitled or re-levelled."""
    i = _pick(draw, [i for i, line in enumerate(lines) if line.startswith("#")])
    if i is None:
        return lines
    how = draw(st.sampled_from(["delete", "retitle", "level"]))
    if how == "delete":
        return lines[:i] + lines[i + 1 :]
    marks, _, title = lines[i].partition(" ")
    line = f"{marks} {draw(NEW_NAMES)}" if how == "retitle" else f"#{marks} {title}"
    return [*lines[:i], line, *lines[i + 1 :]]


def truncate(draw: st.DrawFn, lines: Lines) -> Lines:
    """The document cut short: often all that is left is the front matter and a line or two."""
    end = _front(lines).stop
    return lines[
        : draw(st.integers(max(end - 2, 0), min(end + 3, len(lines))) | st.integers(0, len(lines)))
    ]


def known_shapes(draw: st.DrawFn, lines: Lines) -> Lines:
    """The shapes of the failure classes found so far, made directly rather than waited for:
    a labelled edge whose state vanished from the front matter, an alias id used by edges,
    an astral-plane character in a name or label, and the document cut right after the
    closing ``---`` (no final line break; ``mutated`` varies CRLF and lone CR line breaks)."""
    shape = draw(st.sampled_from(["vanished-label", "alias", "astral", "cut-after-front"]))
    if shape == "vanished-label":
        i = _pick(draw, _edges(lines))
        if i is not None and ":" not in lines[i]:
            lines = [*lines[:i], lines[i] + ": a label", *lines[i + 1 :]]
        old = draw(st.sampled_from(_states(lines)))
        new = draw(st.sampled_from(["errored", "s2", "[*]", "𝔸 b"]))
        front = _front(lines)
        return [_replace_word(s, old, new) if j in front else s for j, s in enumerate(lines)]
    if shape == "alias":
        return alias(draw, lines)
    if shape == "astral":
        i = _pick(draw, [*_front(lines), *_edges(lines)])
        if i is None:
            return lines
        at = draw(st.integers(0, len(lines[i])))
        char = draw(st.sampled_from(["😀", "𝔸", "\U0001f600\u0301", "𐍈"]))
        return [*lines[:i], lines[i][:at] + char + lines[i][at:], *lines[i + 1 :]]
    return lines[: _front(lines).stop + 1]


MUTATIONS: tuple[Mutation, ...] = (
    known_shapes,
    truncate,
    drop_diagram,
    edit_heading,
    delete_line,
    duplicate_line,
    swap_lines,
    rename_state_once,
    rename_state_in_front_matter,
    drop_key,
    reindent,
    insert_text,
    rename_node,
    add_edge,
    remove_edge,
    relabel,
    alias,
    star_edge,
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A seed after one to four mutations, with its line breaks, BOM and bytes varied."""
    lines = draw(st.sampled_from(list(SEEDS.values()))).split("\n")
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4)):
        lines = mutation(draw, lines)
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = newline.join(lines)
    data = (draw(st.sampled_from(["", "", "\ufeff"])) + text).encode("utf-8")
    flips = draw(st.lists(st.tuples(st.integers(0, max(len(data) - 1, 0)), st.integers(0, 255))))
    buffer = bytearray(data)
    for at, value in flips[:3]:
        if buffer:
            buffer[at] = value
    return bytes(buffer)


def raw() -> st.SearchStrategy[bytes]:
    """Raw text, bare or inside a front matter block, and raw bytes."""
    text = st.text(max_size=400)
    return (
        text.map(lambda t: t.encode("utf-8", "surrogatepass"))
        | text.map(lambda t: f"---\n{t}\n---\n# T\n".encode("utf-8", "surrogatepass"))
        | st.binary(max_size=400)
    )


def inputs() -> st.SearchStrategy[bytes]:
    return mutated() | mutated() | mutated() | raw()


CAMPAIGN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# --- the suite ---------------------------------------------------------------------------------


@CAMPAIGN
@given(data=inputs())
def test_campaign(project: Path, data: bytes) -> None:
    assert campaign_failures(project, data) == []


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seeds_keep_every_property(project: Path, name: str) -> None:
    """The unmutated seeds are clean (so a failure above is the mutation's doing)."""
    data = SEEDS[name].encode("utf-8")
    assert campaign_failures(project, data) == []
    assert call("lint", "--no-cache", SPEC)[0] == 0


@pytest.mark.parametrize("crlf", [False, True])
def test_position_check_catches_a_span_past_the_line(crlf: bool) -> None:
    """The position property itself: a span that ends on the ``\\r`` of a CRLF line fails."""
    data = b"ab\r\ncd\r\n" if crlf else b"ab\ncd\n"
    finding = {
        "code": "SD999",
        "line": 1,
        "column": 1,
        "end_line": 1,
        "end_column": 3,
        "message": "",
    }
    assert position_failures(data, [finding]) == []
    assert position_failures(data, [{**finding, "end_column": 4}]) == [
        "position:SD999:end column past the line"
    ]
    assert position_failures(data, [{**finding, "end_line": 4}]) == [
        "position:SD999:end line past the last line"
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("command", [("diagram", "--write"), ("lint", "--fix")])
def test_diagram_goes_on_its_own_line_after_a_final_front_matter_fence(
    project: Path, newline: str, command: tuple[str, str]
) -> None:
    """A spec that is only front matter ending in ``---`` with no line break: the block is
    written after a line break of the file's style (once ``---```mermaid``: the fence glued to
    the closing ``---``, which the planner then refused as SD301 forever)."""
    seed = (FIXTURES / "write-breaks-front-matter-no-final-newline.md").read_text()
    old = newline.join(seed.split("\n"))
    assert old.endswith("---") and "```" not in old
    (project / SPEC).write_bytes(old.encode())
    code, _, err = call(*command, "-q", "--no-cache", "-j", "1", SPEC)
    new = (project / SPEC).read_bytes().decode()
    assert code == 0, err
    assert new.startswith(old + newline + "```mermaid" + newline)
    assert call("diagram", "--check", "-q", "--no-cache", SPEC)[0] == 0
    assert lint_json(project)[1] == []


REPRODUCERS = sorted(FIXTURES.glob("*")) if FIXTURES.is_dir() else []


@pytest.mark.parametrize("path", REPRODUCERS, ids=[p.name for p in REPRODUCERS])
def test_reproducer(project: Path, path: Path) -> None:
    """Each failure class a campaign found, minimised: it must keep every property."""
    assert campaign_failures(project, path.read_bytes()) == []
