"""Fixtures the SQL tests share, each defined once. Module-scoped ones are made once per test
module (as each file made its own before); none keeps state beyond its scope, so every
pytest-xdist worker builds its own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .audit import make_audited_project
from .cases import Case, bound_config, cases, lint_document, spec_documents, sql_hostile_spec
from .lifecycle import Lifecycle, load_lifecycle
from .migrate import Table
from .postgres import Databases, own_schemas
from .project import Project, make_bound_project


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory: pytest.TempPathFactory) -> Lifecycle:
    """The delivery spec with its generated Python module."""
    return load_lifecycle(tmp_path_factory.mktemp("modules"))


@pytest.fixture(scope="module")
def databases() -> Iterator[Databases]:
    """One scratch database per server for the module, dropped after its last test."""
    with contextlib.ExitStack() as stack:
        yield Databases(stack)


@pytest.fixture(scope="module")
def spec_cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    """Every spec of the repository plus the SQL hostile spec, each bound to its own table."""
    folder = tmp_path_factory.mktemp("cases")
    hostile = folder / "sql.md"
    hostile.write_text(sql_hostile_spec(), encoding="utf-8")
    documents = [*spec_documents(), lint_document(hostile, "specs/hostile/sql.md")]
    return cases(documents, bound_config(documents), folder / "modules")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The seed specs bound to tables, for ``db check`` (the working directory)."""
    return make_bound_project(tmp_path / "p", monkeypatch)


@pytest.fixture
def audited_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The seed specs bound for ``db audit`` (the working directory)."""
    return make_audited_project(tmp_path / "p", monkeypatch)


@pytest.fixture
def table(pg: Any, tmp_path: Path) -> Iterator[Table]:
    """The migration tests' table in its own schema of a fresh database."""
    with own_schemas(pg) as (app, generated):
        yield Table(pg, app, generated, tmp_path)
