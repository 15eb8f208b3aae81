"""A FIFO or a device where a generated file belongs is refused, never read: reading a FIFO
with no writer blocks forever (``generate``, ``check`` and ``build`` hung on one), a device
may never end. The special file is left in place."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from guarded_child import statedoc_json
from targets.test_generate_support import SEED_MODULES

MODULE = f"generated/{SEED_MODULES['queries']}.py"


@pytest.mark.parametrize("command", [["generate"], ["check"], ["build"], ["generate", "--check"]])
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "cached"])
def test_a_fifo_in_place_of_a_generated_file_is_refused(
    repo: Path, command: list[str], warm: bool
) -> None:
    if warm:  # the caches name the file: serving it must not read it either
        assert statedoc_json(repo, "build")[0] == 0
    module = repo / MODULE
    module.unlink(missing_ok=True)
    module.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(module)
    code, findings = statedoc_json(repo, *command)
    assert code == 1
    refused = [f for f in findings if f["code"] == "SD405"]
    assert len(refused) == 1, findings
    assert "not a regular file" in str(refused[0]["message"])
    assert Path(str(refused[0]["path"])) == Path(MODULE)
    assert module.is_fifo()
