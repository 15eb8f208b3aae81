"""Documents that use none of the event keys (``event``, a list ``from``, a URL ``source``)
generate byte-identical modules, diagrams and test modules to before events existed.

The committed ``generated/`` files of both seeds were written before the change; the test
modules were captured from that commit in ``tests/fixtures/seed_test_modules``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import main
from targets.test_generate_support import PYPROJECT, ROOT, SEED_MODULES, SEEDS

GOLDEN = ROOT / "tests/fixtures/seed_test_modules"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("seeds")
    (project / "pyproject.toml").write_text(PYPROJECT)
    for seed in SEEDS.values():
        target = project / seed.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seed, target)
    mp = pytest.MonkeyPatch()
    mp.chdir(project)
    try:
        assert main(["generate", "-q", "--no-cache", "--tests", "seed_tests"]) == 0
    finally:
        mp.undo()
    return project


@pytest.mark.parametrize("key", sorted(SEED_MODULES))
@pytest.mark.parametrize("suffix", [".py", ".mmd"])
def test_seed_module_and_diagram_are_byte_identical(
    regenerated: Path, key: str, suffix: str
) -> None:
    relative = f"generated/{SEED_MODULES[key]}{suffix}"
    assert (regenerated / relative).read_bytes() == (ROOT / relative).read_bytes()


def test_seed_test_modules_are_byte_identical(regenerated: Path) -> None:
    written = sorted((regenerated / "seed_tests").glob("test_*.py"))
    golden = sorted(GOLDEN.glob("test_*.py.golden"))
    assert [p.name for p in written] == [p.name.removesuffix(".golden") for p in golden]
    for path, expected in zip(written, golden, strict=True):
        assert path.read_bytes() == expected.read_bytes(), path.name


def test_the_seeds_use_no_event_keys() -> None:
    """The comparison above means something only while the seeds stay without events."""
    from generator.lint.document import lint_bytes

    for seed in SEEDS.values():
        document = lint_bytes(seed.read_bytes(), str(seed)).document
        assert document is not None
        spec = document.spec
        assert not spec.events
        assert all(t.from_index is None for t in spec.transitions)
