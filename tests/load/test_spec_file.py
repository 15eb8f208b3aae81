"""A discovered spec is small (a run keeps one per document to its end) and behaves as the
frozen, ordered record it replaced."""

from __future__ import annotations

import copy
import dataclasses
import gc
import itertools
import os
import pickle
import sys
import tracemalloc
from pathlib import Path

import pytest

from generator.load.discover import SpecFile, _spec_file, discover
from generator.run.config import load_config


@dataclasses.dataclass(frozen=True, order=True)
class Declared:
    """``SpecFile`` as it was declared before it was written by hand."""

    display: str
    path: Path
    relative: str
    error: str = dataclasses.field(default="", compare=False)


CASES = [
    ("a.md", Path("/work/a.md"), "a.md", ""),
    ("a.md", Path("/work/a.md"), "a.md", "cannot read the folder"),  # error not compared
    ("a.md", Path("/other/a.md"), "a.md", ""),
    ("a.md", Path("/work/a.md"), "specs/a.md", ""),
    ("a.md", Path("a.md"), "a.md", ""),  # path is display
    ("a.md", Path("/elsewhere/b.md"), "a.md", ""),  # path not ending in display
    ("x", Path("/a/b-c/x"), "x", ""),  # by string "/a/b-c/x" < "/a/b/c/x"; by parts after
    ("x", Path("/a/b/c/x"), "x", ""),
    ("x", Path("/a/b/x"), "x", ""),
    ("/abs/y.md", Path("/abs/y.md"), "/abs/y.md", ""),
    ("-", Path("/work") / "-", "-", ""),  # lint - (stdin)
    ("b.md", Path("/work/b.md"), "b.md", ""),
    ("é.md", Path("/work/é.md"), "é.md", ""),
    ("a", Path("/a"), "a", ""),  # directly under the root folder
]


def test_a_spec_file_compares_orders_and_hashes_as_the_declared_record() -> None:
    mine = [SpecFile(*case) for case in CASES]
    theirs = [Declared(*case) for case in CASES]
    for (a, old_a), (b, old_b) in itertools.product(zip(mine, theirs, strict=True), repeat=2):
        assert (a == b) is (old_a == old_b)
        assert (a != b) is (old_a != old_b)
        assert (a < b) is (old_a < old_b)
        assert (a <= b) is (old_a <= old_b)
        assert (a > b) is (old_a > old_b)
        assert (a >= b) is (old_a >= old_b)
        if a == b:
            assert hash(a) == hash(b)
    order = sorted(range(len(CASES)), key=lambda i: mine[i])
    assert [mine[i] for i in order] == sorted(mine)
    assert [CASES[i] for i in order] == [CASES[i] for i in sorted(order, key=lambda i: theirs[i])]
    assert len(set(mine)) == len(set(theirs))
    assert mine[0] != "a.md" and mine[0] != theirs[0]


def test_a_spec_file_keeps_its_attributes_frozen_and_through_pickle() -> None:
    for case in CASES:
        spec = SpecFile(*case)
        for again in (spec, pickle.loads(pickle.dumps(spec)), copy.deepcopy(spec)):
            assert (again.display, again.path, again.relative, again.error) == case
            assert isinstance(again.path, Path) and again == spec and hash(again) == hash(spec)
        with pytest.raises(dataclasses.FrozenInstanceError):
            spec.display = "b.md"  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del spec.error
        match spec:
            case SpecFile(display, path, relative, error):
                assert (display, path, relative, error) == case
    assert repr(SpecFile("a.md", Path("/w/a.md"), "a.md")) == repr(
        Declared("a.md", Path("/w/a.md"), "a.md")
    ).replace("Declared", "SpecFile")


TOML = '[tool.statedoc]\nspecs = ["specs"]\n'


def _tree(top: Path, count: int) -> None:
    for index in range(count):
        folder = top / "specs" / f"area{index % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"spec-{index:05d}.md").write_bytes(b"")


@pytest.mark.parametrize("where", ["root", "inside", "outside"])
def test_the_walk_finds_what_the_path_route_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Discovery builds specs from path strings; each is the one :class:`Path` gives."""
    project = tmp_path / "project"
    _tree(project, 30)
    (project / "specs" / "area1" / "deep" / "er").mkdir(parents=True)
    (project / "specs" / "area1" / "deep" / "er" / "z.md").write_bytes(b"")
    (project / "pyproject.toml").write_text(TOML)
    cwd = {"root": project, "inside": project / "specs", "outside": tmp_path}[where]
    monkeypatch.chdir(cwd)
    config = load_config(project)
    found = discover([], config)
    assert len(found) == 31
    for spec in found:
        again = _spec_file(spec.path, config, cwd.resolve())
        assert (spec.display, spec.path, spec.relative) == (
            again.display,
            again.path,
            again.relative,
        )
    assert found == sorted(_spec_file(s.path, config, cwd.resolve()) for s in found)


def test_a_discovered_spec_holds_little_more_than_its_display_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What discovery keeps per spec, counted by tracemalloc, is within 1.5x of its floor:
    the spec object, its display string (what findings print), ``relative`` when it is a
    string of its own, and the list slot. A record holding a :class:`Path` (its parts list,
    part strings and cached string, an instance dict) was 2.5-4x."""
    count = 2000
    _tree(tmp_path, count)
    (tmp_path / "pyproject.toml").write_text(TOML)
    monkeypatch.chdir(tmp_path)
    config = load_config(tmp_path)
    discover([], config)  # imports and caches first: not per spec
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        found = discover([], config)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(found) == count
    floor = sum(
        sys.getsizeof(spec)
        + sys.getsizeof(spec.display)
        + (0 if spec.relative is spec.display else sys.getsizeof(spec.relative))
        + 8
        for spec in found
    )
    assert held <= 1.5 * floor, f"{held / count:.0f} B per spec, floor {floor / count:.0f} B"
    assert os.fspath(found[0].path).endswith(found[0].display)
