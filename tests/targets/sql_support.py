"""Shared pieces of the SQL target tests: documents, bindings, generated Python models, and
running the generated SQL on real servers (PostgreSQL via psycopg, SQLite from the stdlib)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from generator.lint.document import lint_bytes
from generator.load.config import Config
from generator.model.document import Document
from generator.model.names import snake_name
from generator.run.config import load_config
from generator.targets.python import document_sha256, render_module
from generator.targets.registry import get_target
from generator.targets.sql.settings import sql_settings
from targets.test_generate_support import ROOT, hostile_project, load_module, spec_text

#: State names and whys that try every way out of a literal or a dollar quote.
SQL_HOSTILE_STATES = [
    "it's",
    'say "hi"',
    "back\\slash\\",
    "$statedoc$",
    "$$",
    "line\nbreak",
    "tab\tcr\r",
    "NULL",
    "é ü 状态 😀",
    "-- comment",
    "/* open",
    "') OR true; --",
    "\u2028sep\u2029",
    "z" * 200,
]


def sql_hostile_spec() -> str:
    states = SQL_HOSTILE_STATES
    transitions = [
        {"from": a, "to": b, "trigger": f"go {i}"}
        for i, (a, b) in enumerate(itertools.pairwise(states))
    ]
    invalid = [
        {"from": states[-1], "to": states[0], "why": "why: it's $statedoc$ \\ \" \x00 nul\n--x"},
        {"from": states[3], "to": states[1], "why": "E'\\x27' $$ ; DROP TABLE t; --"},
    ]
    return spec_text(
        states,
        transitions,
        invalid,
        title="SQL hostile ' \" $statedoc$ \\ 😀",
        spec_id="STATE-TST-SQL-001",
        area="testing",
        module="sqlhostile",
        initial=states[0],
    )


@dataclass(frozen=True)
class Case:
    """One spec, bound to its own table, with its generated SQL and Python module."""

    document: Document
    table: str
    postgresql: str
    sqlite: str | None
    module: ModuleType

    @property
    def spec(self) -> Any:
        return self.document.spec


def lint_document(path: Path, display: str) -> Document:
    result = lint_bytes(path.read_bytes(), display)
    assert result.document is not None, result.findings
    errors = [f for f in result.findings if f.severity.value == "error"]
    assert not errors, errors
    return result.document


def spec_documents() -> list[Document]:
    """Every spec in the repository's ``specs/``."""
    paths = sorted((ROOT / "specs").rglob("*.md"))
    assert paths
    return [lint_document(p, p.relative_to(ROOT).as_posix()) for p in paths]


def hostile_documents(folder: Path) -> list[Document]:
    """The Python target's hostile specs plus SQL-specific hostile names and whys."""
    project = hostile_project(folder)
    (project / "specs/hostile/sql.md").write_text(sql_hostile_spec(), encoding="utf-8")
    paths = sorted((project / "specs/hostile").rglob("*.md"))
    return [lint_document(p, p.relative_to(project).as_posix()) for p in paths]


def bound_config(documents: list[Document], **sql: Any) -> Config:
    """The repository's config with every document bound to table ``t<n>``, column ``state``
    (``sql``: more keys of ``[tool.statedoc.sql]``)."""
    bindings = {d.spec.id: {"table": f"t{i}", "column": "state"} for i, d in enumerate(documents)}
    base = load_config(ROOT)
    return base._replace(target_tables={**base.target_tables, "sql": {"bindings": bindings, **sql}})


def python_module(document: Document, folder: Path) -> ModuleType:
    name = snake_name(document.spec.title)
    source = render_module(
        document.spec, relative=document.path, sha256=document_sha256(document.source), module=name
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}_{abs(hash(document.spec.id))}.py"
    path.write_text(source, encoding="utf-8")
    return load_module(path)


def cases(documents: list[Document], config: Config, folder: Path) -> list[Case]:
    target = get_target("sql", config)
    bindings = sql_settings(config).bindings
    out = []
    for document in documents:
        files = target.files(document, config)
        pg = next(v for k, v in files.items() if k.endswith(".postgresql.sql"))
        lite = next((v for k, v in files.items() if k.endswith(".sqlite.sql")), None)
        binding = bindings[document.spec.id]
        out.append(
            Case(
                document,
                binding.table,
                pg.decode("utf-8"),
                None if lite is None else lite.decode("utf-8"),
                python_module(document, folder),
            )
        )
    return out


# --- expected outcome of one UPDATE, from the generated Python module ---------------------

FORBIDDEN, UNDECLARED, UNKNOWN, NOT_INITIAL, OK = "SDF01", "SDU01", "SDS01", "SDI01", None


def expected_update(module: ModuleType, old: str | None, new: str | None) -> str | None:
    """The SQLSTATE an UPDATE from ``old`` to ``new`` must raise (None: it passes)."""
    if old == new:
        return OK
    names = {s.value for s in module.State}
    if old not in names or new not in names:
        return UNKNOWN
    try:
        module.check(old, new)
    except module.ForbiddenTransition:
        return FORBIDDEN
    except module.UndeclaredTransition:
        return UNDECLARED
    return OK


def expected_insert(
    module: ModuleType, new: str | None, must_be_initial: bool = True
) -> str | None:
    names = {s.value for s in module.State}
    if new not in names:
        return UNKNOWN
    allowed = {s.value for s in module.INITIAL} if must_be_initial else names
    return OK if new in allowed else NOT_INITIAL


def probe_names(module: ModuleType) -> list[str | None]:
    """Every state, plus names that are not states (NULL, a near miss, case-changed)."""
    states = [s.value for s in module.State]
    extra: list[str | None] = [None, "not a state", states[0] + " ", states[0].upper() + "X"]
    return states + [e for e in extra if e not in states]


# --- SQLite --------------------------------------------------------------------------------


def sqlite_connection() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    return connection


def sqlite_setup(
    connection: sqlite3.Connection, case: Case, rows: Mapping[int, str | None]
) -> None:
    """Create the table, insert ``rows`` (before the triggers exist), apply the SQL."""
    assert case.sqlite is not None
    connection.execute(f'CREATE TABLE "{case.table}" (id INTEGER PRIMARY KEY, state TEXT)')
    connection.executemany(
        f'INSERT INTO "{case.table}" (id, state) VALUES (?, ?)', list(rows.items())
    )
    connection.executescript(case.sqlite)


def all_pairs(names: list[str | None]) -> Iterator[tuple[str | None, str | None]]:
    for a in names:
        for b in names:
            yield a, b
