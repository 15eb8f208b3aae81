"""statedoc's records (:mod:`generator.records`) behave as :mod:`dataclasses` does on the same
declarations: each class below is declared twice, once per decorator, and compared."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from generator import _records
from generator.diagram.model import Diagram, DiagramState, Edge
from generator.findings import Finding, Related, Severity
from generator.load.discover import SpecFile
from generator.load.source import SourceText
from generator.model.spec import TRANSITION_TEXT_FIELDS, State, Transition


def declare(dataclass: Callable[..., Any], field: Callable[..., Any]) -> dict[str, type]:
    """The same declarations, built with either implementation."""

    @dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple[str, ...] = ()

    @dataclass(frozen=True)
    class Labelled:
        name: str
        notes: list[str] = field(default_factory=list, compare=False, repr=False)
        rank: int = field(default=3, compare=False)

    @dataclass(frozen=True, order=True)
    class Ordered:
        key: str
        extra: str = field(default="", compare=False)

    @dataclass(slots=True)
    class Mutable:
        items: list[int] = field(default_factory=list)
        count: int = 0

    @dataclass(frozen=True, slots=True)
    class Derived:
        edges: tuple[tuple[str, str], ...]
        index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

        def __post_init__(self) -> None:
            built = {src: n for n, (src, _) in enumerate(self.edges)}
            object.__setattr__(self, "index", MappingProxyType(built))

    @dataclass(frozen=True)
    class Single:
        only: str

    return {c.__name__: c for c in (Point, Labelled, Ordered, Mutable, Derived, Single)}


STDLIB = declare(dataclasses.dataclass, dataclasses.field)
OURS = declare(_records.dataclass, _records.field)

ARGUMENTS: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "Point": [((1,), {}), ((1, 2), {}), ((1,), {"tags": ("a",)}), ((2, 0), {})],
    "Labelled": [(("a",), {}), (("a",), {"notes": ["x"], "rank": 9}), (("b",), {})],
    "Ordered": [(("b",), {}), (("a",), {"extra": "x"}), (("a",), {})],
    "Mutable": [((), {}), (([1],), {"count": 2}), (([1],), {})],
    "Derived": [(((("a", "b"), ("b", "c")),), {}), (((("a", "b"),),), {})],
    "Single": [(("x",), {}), (("y",), {})],
}


def pairs(name: str) -> list[tuple[Any, Any]]:
    return [(STDLIB[name](*a, **k), OURS[name](*a, **k)) for a, k in ARGUMENTS[name]]


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_repr_equality_and_hash_match_dataclasses(name: str) -> None:
    made = pairs(name)
    for theirs, ours in made:
        assert repr(ours) == repr(theirs)
        assert ours.__match_args__ == theirs.__match_args__
        if theirs.__hash__ is None:
            assert type(ours).__hash__ is None
            with pytest.raises(TypeError):
                hash(ours)
        else:
            assert hash(ours) == hash(theirs)
    for theirs_a, ours_a in made:
        for theirs_b, ours_b in made:
            assert (ours_a == ours_b) is (theirs_a == theirs_b)
            assert (ours_a != ours_b) is (theirs_a != theirs_b)
        assert ours_a != theirs_a  # another class: never equal, as two dataclasses
        assert ours_a.__eq__(object()) is NotImplemented


def test_order_matches_dataclasses() -> None:
    made = pairs("Ordered")
    theirs = sorted(range(len(made)), key=lambda n: made[n][0])
    ours = sorted(range(len(made)), key=lambda n: made[n][1])
    assert ours == theirs
    a, b = made[0][1], made[1][1]
    assert (a < b, a <= b, a > b, a >= b) == (
        made[0][0] < made[1][0],
        made[0][0] <= made[1][0],
        made[0][0] > made[1][0],
        made[0][0] >= made[1][0],
    )
    with pytest.raises(TypeError):
        _ = a < made[1][0]


@pytest.mark.parametrize("name", ["Point", "Labelled", "Ordered", "Derived", "Single"])
def test_frozen_records_refuse_assignment_and_deletion(name: str) -> None:
    for _, ours in pairs(name):
        first = dataclasses.fields(ours)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ours, first, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(ours, first)
        with pytest.raises(dataclasses.FrozenInstanceError):
            ours.unknown = 1


def test_mutable_records_assign_and_get_fresh_defaults() -> None:
    one, two = OURS["Mutable"](), OURS["Mutable"]()
    one.items.append(1)
    one.count = 5
    assert two.items == [] and one.items is not two.items and one.count == 5


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_slots_defaults_and_class_attributes_match(name: str) -> None:
    theirs, ours = STDLIB[name], OURS[name]
    assert hasattr(ours, "__slots__") == hasattr(theirs, "__slots__")
    for probe in ("y", "tags", "rank", "extra", "count", "notes", "items", "index"):
        assert hasattr(ours, probe) == hasattr(theirs, probe), probe
        if hasattr(theirs, probe) and not hasattr(theirs, "__slots__"):
            assert getattr(ours, probe) == getattr(theirs, probe)
    instance = pairs(name)[0][1]
    assert hasattr(instance, "__dict__") == hasattr(pairs(name)[0][0], "__dict__")


def outcome(action: Callable[[Any], Any], value: Any) -> Any:
    """What ``action`` returns, or the type of what it raises (records and dataclasses must
    fail alike too: a mapping proxy field cannot be copied by either)."""
    try:
        return action(value)
    except Exception as exc:
        return type(exc)


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_copy_and_the_dataclasses_functions_accept_records(name: str) -> None:
    for theirs, ours in pairs(name):
        assert dataclasses.is_dataclass(ours) and not isinstance(ours, type)
        assert [(f.name, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(ours)] == [
            (f.name, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(theirs)
        ]
        for convert in (dataclasses.asdict, _records.asdict):
            assert outcome(convert, ours) == outcome(dataclasses.asdict, theirs)
        # deepcopy rebuilds through __reduce_ex__ and __setstate__, as pickle does (these local
        # classes cannot be pickled by name; the model's records are, below)
        for clone in (copy.copy, copy.deepcopy):
            mine, stdlib = outcome(clone, ours), outcome(clone, theirs)
            assert mine == ours if isinstance(stdlib, STDLIB[name]) else mine is stdlib
        init = [f.name for f in dataclasses.fields(ours) if f.init]
        changed = dataclasses.replace(ours, **{init[-1]: getattr(ours, init[-1])})
        assert changed == ours and changed is not ours


def test_model_records_are_frozen_equal_hashable_and_pickle() -> None:
    state = State("open", None, ("states", 0))
    transition = Transition("a", "b", "go", None, (), None, None, None, ("transitions", 0))
    finding = Finding(
        "x.md", 1, 2, 1, 5, "SD001", "name", Severity.ERROR, "msg", (Related(3, 4, "there"),)
    )
    diagram = Diagram(
        "stateDiagram-v2", (DiagramState("a", "a", 1, 1),), (Edge("a", "b", "go", 2, 1),)
    )
    spec_file = SpecFile("a.md", Path("a.md"), "a.md", error="unread")
    records: tuple[Any, ...] = (state, transition, finding, spec_file, SourceText("a"))
    for record in records:
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.deepcopy(record) == record
        assert hash(copy.deepcopy(record)) == hash(record)
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.path = ("elsewhere",)
        if record is not spec_file:  # written by hand to be small: not a dataclass
            assert hash(record) == hash(dataclasses.replace(record))
    assert State("open", None, ("states", 0)) == state != State("shut", None, ("states", 0))
    assert {state, State("open", None, ("states", 0))} == {state}
    assert diagram.labels == {("a", "b"): "go"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        diagram.kind = "flowchart"  # type: ignore[misc]
    assert SpecFile("a.md", Path("a.md"), "a.md") == spec_file  # error: compare=False
    assert sorted([SpecFile("b", Path("b"), "b"), spec_file])[0] is spec_file
    assert (
        tuple(
            f.name
            for f in dataclasses.fields(Transition)
            if f.name not in ("from_state", "to_state", "path", "event", "from_index")
        )
        == TRANSITION_TEXT_FIELDS
    )
