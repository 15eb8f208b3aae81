"""The specs the SQL tests run: the repository's ``specs/``, the hostile ones, each bound to
its own table and rendered by the SQL target, with its generated Python module as the oracle
of what every statement must do (:mod:`.verdicts`)."""

from __future__ import annotations

import itertools
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

from ..test_generate_support import ROOT, hostile_project, load_module, spec_text

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
