"""The project most output tests run in: the seeds under ``specs/``, the working directory set
to it. A module that needs another project defines its own ``repo``."""

from __future__ import annotations

from pathlib import Path

import pytest
from targets.test_generate_support import make_project


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path
