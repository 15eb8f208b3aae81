"""Hostile spec and config text for the SQL target, shared by the PostgreSQL and SQLite tests.

A :class:`Draft` is one spec with its ``[tool.statedoc.sql]`` settings, built straight into the
model (so lint's SD120 cannot stop a name the renderer would otherwise see): state names,
``why`` texts, the title, the source path and every identifier are drawn from
:func:`hostile_texts`, which glues together every way out of a literal, an identifier, a
dollar quote, a comment or a psql line (backslash commands, ``:variables``), line breaks,
invisible and astral characters. The draft also knows, independently of the renderer, what
generation must refuse (:meth:`Draft.refusal`) and what verdict the spec gives for a value or
a pair (:meth:`Draft.check_verdict`, :meth:`Draft.insert_verdict`, :meth:`Draft.update_verdict`).

What a database holds before and after such a file is applied is :mod:`.catalog`'s job.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from generator.model.spec import Spec, build
from generator.targets.sql.names import MAX_NAME_BYTES
from generator.targets.sql.plan import SqlPlan, build_plan
from generator.targets.sql.settings import SqlBinding, SqlSettings

from .verdicts import FORBIDDEN, NOT_INITIAL, OK, UNDECLARED, UNKNOWN

SPEC_ID = "STATE-TST-HOS-001"

#: Statements an attacker would like a generated file to run; each leaves a trace the tests
#: look for (a table ``pwned``, a file ``pwned`` in psql's working directory).
PAYLOADS: tuple[str, ...] = (
    "'; CREATE TABLE pwned (); --",
    '"; CREATE TABLE pwned (); --',
    "$statedoc$; CREATE TABLE pwned (); --",
    '$statedoc$""; CREATE TABLE pwned (); \\! touch pwned #',
    "\n\\! touch pwned\n",
    "\n\\o pwned\n",
    "\\gexec",
    "*/ CREATE TABLE pwned (); /*",
    "E'\\''; CREATE TABLE pwned (); --",
    "$statedoc_1$ $$ ; CREATE TABLE pwned (); --",
)

# fmt: off
#: Pieces that end or start a quote, comment, dollar quote or psql command, or that a naive
#: writer would mangle (line breaks, invisible, right-to-left, combining and astral).
FRAGMENTS: tuple[str, ...] = (
    "'", '"', "`", "''", '""', "$", "$$", "$tag$", "$statedoc$", "$statedoc_1$", "$statedoc_2$",
    "$statedoc", "statedoc$", "--", "/*", "*/", ";", "\\", "\\\\", "\\!", "\\gexec", "\\g",
    "\\o", "\\i", "\\;", ":foo", ":'foo'", ':"foo"', ":{?foo}", "%", "%s", "%I", "%L", "E'",
    "U&'", "\\x27", "\\u0027", "\r", "\n", "\r\n", "\t", "\x0b", "\x0c", "\x1b", "\x7f",
    "\x85", "é", "e\u0301", "ß", "İ", "😀", "\U0010fffd", "\U000e0041", "\u202e", "\u200f",
    "\u200b", "\u200d", "\ufeff", "\u2028", "\u2029", "\ufffd", "NULL", " ", "END", "COMMIT",
    "pg_catalog.", *PAYLOADS,
)
# fmt: on

#: Values of the configured schema that the database itself refuses to use for the file:
#: owned by another role (the file refuses with SDT01) or with the reserved ``pg_`` prefix.
FOREIGN_SCHEMAS = ("public", "pg_catalog", "information_schema", "pg_toast")


def hostile_texts(
    *, nul: bool = False, min_parts: int = 0, max_parts: int = 6
) -> st.SearchStrategy[str]:
    """Text glued from :data:`FRAGMENTS` and random Unicode (NUL only when ``nul``); never
    empty when ``min_parts`` > 0."""
    alphabet = st.characters(exclude_categories=["Cs"], exclude_characters=[] if nul else ["\0"])
    parts = st.sampled_from(FRAGMENTS) | st.text(alphabet, min_size=1, max_size=6)
    if nul:
        parts = parts | st.just("\0")
    return st.lists(parts, min_size=min_parts, max_size=max_parts).map("".join)


def truncate(text: str, size: int = MAX_NAME_BYTES) -> str:
    """The longest prefix of whole characters within ``size`` UTF-8 bytes."""
    return text.encode("utf-8")[:size].decode("utf-8", "ignore")


def at_limit(text: str, filler: str = "x", size: int = MAX_NAME_BYTES) -> str:
    """``text`` cut or filled (with ``filler``, then ``x``) to exactly ``size`` bytes."""
    out = truncate(text, size)
    while len((out + filler).encode("utf-8")) <= size:
        out += filler
    return out + "x" * (size - len(out.encode("utf-8")))


def identifiers() -> st.SearchStrategy[str]:
    """Names PostgreSQL can hold (1 to 63 bytes, no NUL), a fifth of them exactly 63 bytes."""
    plain = hostile_texts(min_parts=1, max_parts=4).map(truncate)
    limit = st.builds(at_limit, hostile_texts(max_parts=3), st.sampled_from("xé😀\u200b"))
    return st.one_of(plain, plain, plain, plain, limit)


def bad_identifiers() -> st.SearchStrategy[str]:
    """Names no identifier may be: empty, with NUL, or over 63 bytes."""
    return st.one_of(
        st.just(""),
        st.builds(
            lambda a, b: a + "\0" + b, hostile_texts(max_parts=2), hostile_texts(max_parts=2)
        ),
        st.builds(at_limit, hostile_texts(max_parts=3), st.sampled_from("xé😀"), st.just(64)),
        st.builds(lambda t: at_limit(t, "x") + "😀", hostile_texts(max_parts=3)),
    )


@dataclass(frozen=True)
class Draft:
    """One hostile spec, its binding and settings, and what the spec says about values."""

    states: tuple[str, ...]
    declared: tuple[tuple[str, str], ...]
    forbidden: dict[tuple[str, str], str]
    initial: tuple[str, ...]
    title: str
    schema: str
    table: str
    column: str
    table_schema: str | None = None
    in_storage: bool = True
    source: str = "specs/hostile/spec.md"
    revision: int = 1
    must_be_initial: bool = True
    sha: str | None = None  # the document's SHA-256 (default: one derived from the draft)

    def replace(self, **changes: Any) -> Draft:
        return replace(self, **changes)

    def front_matter(self) -> dict[str, Any]:
        front: dict[str, Any] = {
            "id": SPEC_ID,
            "title": self.title,
            "object": "DOM-TST-HOS-001",
            "product_area": "testing",
            "module": "hostile",
            "revision": self.revision,
            "status": "draft",
            "initial": list(self.initial),
            "states": [{"name": name} for name in self.states],
            "transitions": [
                {"from": a, "to": b, "trigger": f"go {i}"} for i, (a, b) in enumerate(self.declared)
            ],
            "invalid": [{"from": a, "to": b, "why": why} for (a, b), why in self.forbidden.items()],
        }
        if self.in_storage:
            storage = {"table": self.table, "column": self.column}
            front["storage"] = (
                storage if self.table_schema is None else {**storage, "schema": self.table_schema}
            )
        return front

    @property
    def spec(self) -> Spec:
        return build(self.front_matter())

    @property
    def settings(self) -> SqlSettings:
        binding = SqlBinding(self.table, self.column, self.table_schema)
        bindings = {} if self.in_storage else {SPEC_ID: binding}
        return SqlSettings(self.schema, bindings, self.must_be_initial)

    @property
    def sha256(self) -> str:
        return self.sha or hashlib.sha256(repr(self).encode("utf-8")).hexdigest()

    def plan(self) -> SqlPlan:
        """The plan generation builds (raises ``SqlError`` when it must refuse)."""
        return build_plan(self.spec, self.settings, source=self.source, sha256=self.sha256)

    def refusal(self, *, sqlite: bool = False) -> str | None:
        """Why generation must refuse this draft with ``SqlError``, or None. The SQLite file
        names only the table and column (SQLite has no schemas to create or qualify)."""
        if any("\0" in name for name in self.states):
            return "a state name holds NUL, which database text cannot hold"
        written = (self.table, self.column)
        for name in written if sqlite else (self.schema, self.table_schema, *written):
            if name is not None and (
                not name or "\0" in name or len(name.encode("utf-8")) > MAX_NAME_BYTES
            ):
                return f"{name!r} cannot be an identifier (empty, NUL or over 63 bytes)"
        return None

    # -- what the spec says, computed from the draft alone ---------------------------------

    def check_verdict(self, old: str | None, new: str | None) -> str | None:
        """The SQLSTATE of ``check(old, new)`` (None: the pair is declared)."""
        if old not in self.states or new not in self.states:
            return UNKNOWN
        if (old, new) in self.declared:
            return OK
        return FORBIDDEN if (old, new) in self.forbidden else UNDECLARED

    def update_verdict(self, old: str | None, new: str | None) -> str | None:
        """An UPDATE that changes nothing passes; anything else is :meth:`check_verdict`."""
        return OK if old == new else self.check_verdict(old, new)

    def insert_verdict(self, new: str | None) -> str | None:
        if new not in self.states:
            return UNKNOWN
        if self.must_be_initial and new not in self.initial:
            return NOT_INITIAL
        return OK

    def probes(self) -> list[str | None]:
        """Every state, then values that are not states: NULL and near misses of a state."""
        first = self.states[0]
        near = [
            None,
            first + " ",
            first.upper(),
            unicodedata.normalize("NFD", first),
            first + "\u200b",
            "not a state",
        ]
        extra = [v for v in dict.fromkeys(near) if v not in self.states]
        return [*self.states, *extra[:4]]


#: The texts :func:`drafts` may spoil: a state name, or one of the identifiers.
SPOILABLE = ("column", "schema", "state", "table_schema", "table")


@st.composite
def drafts(draw: st.DrawFn, *, spoil: tuple[str, ...] = SPOILABLE) -> Draft:
    """A hostile draft; about one in ten has one of the ``spoil`` texts replaced by one that
    generation must refuse (a NUL in a state name, a bad identifier)."""
    texts = hostile_texts(min_parts=1, max_parts=4)
    names = texts.map(lambda t: truncate(t, 200))
    states = tuple(draw(st.lists(names, min_size=1, max_size=4, unique=True)))
    pairs = [(a, b) for a in states for b in states]
    declared = tuple(draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))))
    rest = [p for p in pairs if p not in declared]
    invalid = draw(st.lists(st.sampled_from(rest), unique=True)) if rest else []
    forbidden = {pair: draw(hostile_texts(nul=True)) for pair in invalid}
    initial = tuple(draw(st.lists(st.sampled_from(states), min_size=1, unique=True)))
    title = draw(hostile_texts() | st.text(min_size=40, max_size=90))
    special = st.sampled_from(("statedoc", *FOREIGN_SCHEMAS, "pg_hostile"))
    schema = draw(st.one_of(identifiers(), identifiers(), identifiers(), special))
    table = draw(identifiers())
    table_schema = draw(st.none() | identifiers() | st.sampled_from((schema, "public")))
    draft = Draft(
        states=states,
        declared=declared,
        forbidden=forbidden,
        initial=initial,
        title=title,
        schema=schema,
        table=table,
        column=draw(identifiers()),
        table_schema=table_schema,
        in_storage=draw(st.booleans()),
        source=draw(hostile_texts(nul=True)),
        revision=draw(st.integers(1, 5)),
        must_be_initial=draw(st.booleans()),
    )
    if spoil and draw(st.integers(0, 15)) in (4, 9):  # not a bound: Hypothesis favours those
        return _spoiled(draw, draft, draw(st.sampled_from(spoil)))
    return draft


def _spoiled(draw: st.DrawFn, draft: Draft, where: str) -> Draft:
    """``draft`` with the text ``where`` names replaced by one generation must refuse."""
    if where == "state":  # rename the first state, in every pair too
        old, new = draft.states[0], draft.states[0] + "\0" + draw(hostile_texts(max_parts=2))

        def name(state: str) -> str:
            return new if state == old else state

        return draft.replace(
            states=tuple(map(name, draft.states)),
            declared=tuple((name(a), name(b)) for a, b in draft.declared),
            forbidden={(name(a), name(b)): why for (a, b), why in draft.forbidden.items()},
            initial=tuple(map(name, draft.initial)),
        )
    return draft.replace(**{where: draw(bad_identifiers())})
