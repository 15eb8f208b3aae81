"""Fixtures: one server for the repository's own project (started once per session), and
servers for throwaway projects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .lsp_client import ROOT, Client


@pytest.fixture(scope="session")
def repo_server() -> Iterator[Client]:
    """A server whose working directory is this repository (its ``[tool.statedoc]``)."""
    session = Client(cwd=ROOT)
    yield session
    session.shutdown()


def make_project(root: Path, documents: dict[str, str], table: str = "") -> Path:
    """A project with ``[tool.statedoc]`` (specs in ``specs/``) and ``documents`` in it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "x"\n\n[tool.statedoc]\nspecs = "specs"\n{table}', encoding="utf-8"
    )
    for name, text in documents.items():
        path = root / "specs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root
