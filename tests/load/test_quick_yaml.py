"""The quick YAML path (values first, spans from marks on demand) gives exactly the builder's.

``load(..., scalars=Scalars())`` always runs ``strict_yaml._Builder``, so loading one text both
ways compares the two: values, spans and key spans (contents and order), problems. Where the
quick path declines (a tag, anchor, alias, duplicate or non-string key, collection key, second
document, the depth cap, a syntax error, a huge integer) the answer must still be the builder's,
and changing the loaded values before the spans are read must not change what they say."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path as FilePath
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.load.frontmatter import SplitError, split
from generator.load.plain_yaml import quick_load
from generator.load.source import Span
from generator.load.strict_yaml import MAX_DEPTH, Loaded, Path, Problem, Scalars, load
from generator.rules import all_rules
from generator.rules.examples import DOOR, HEADER, document

ROOT = FilePath(__file__).resolve().parents[2]

TRICKY = [
    "",
    " ",
    "'",
    '"',
    "it's",
    'say "hi"',
    "a: b",
    "a:b",
    ": x",
    "- x",
    "#",
    "a #b",
    "a# b",
    "x\ny",
    "x\n\ny\n",
    "  lead",
    "trail  ",
    "\t",
    "é",
    "日本",
    "😀",
    "\u2028",
    "\x85",
    "\ufeff",
    "1",
    "-1",
    "0755",
    "0x1F",
    "0o17",
    "1e3",
    "1.5",
    ".inf",
    ".nan",
    "~",
    "null",
    "true",
    "yes",
    "on",
    "2024-01-01",
    "[a]",
    "{a}",
    "&a",
    "*a",
    "!t",
    "%",
    "@",
    "`",
    "|",
    ">",
    "---",
    "...",
    "?",
    "a,b",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(TRICKY),
)
KEYS = st.one_of(st.text(max_size=6), st.sampled_from(TRICKY), st.sampled_from(["a", "b", "id"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)
MAPPINGS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=5)
ROOTS = MAPPINGS | st.lists(VALUES, min_size=1, max_size=4)


@st.composite
def dumped(draw: st.DrawFn, values: st.SearchStrategy[object] = ROOTS) -> str:
    """``yaml.safe_dump`` in a drawn style, then with drawn line breaks."""
    value = draw(values)
    text = yaml.safe_dump(
        value,
        default_flow_style=draw(st.sampled_from([False, True, None])),
        default_style=draw(st.sampled_from([None, None, "'", '"', "|", ">"])),
        indent=draw(st.sampled_from([2, 3, 4, 8])),
        width=draw(st.sampled_from([80, 20, 1000])),
        allow_unicode=draw(st.booleans()),
        explicit_start=draw(st.booleans()),
        explicit_end=draw(st.booleans()),
        sort_keys=False,
    )
    return _line_breaks(text, draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"])))


def _line_breaks(text: str, style: str) -> str:
    if style == "mixed":  # every other line break a CRLF
        parts = text.split("\n")
        return (
            "".join(p + ("\r\n" if i % 2 else "\n") for i, p in enumerate(parts[:-1])) + parts[-1]
        )
    return text.replace("\n", style)


def _ordered(spans: dict[Path, Span]) -> list[tuple[Path, Span]]:
    return list(spans.items())  # order matters: findings are reported in this order


def _shape(result: tuple[Loaded | None, list[Problem]]) -> object:
    loaded, problems = result
    values = None
    if loaded is not None:  # repr: NaN is not equal to itself
        values = (repr(loaded.value), _ordered(loaded.spans), _ordered(loaded.key_spans))
    return values, problems


def _builder(
    text: str, offset: int, max_depth: int = MAX_DEPTH
) -> tuple[Loaded | None, list[Problem]]:
    return load(text, offset, max_depth, scalars=Scalars())


def _agree(text: str, offset: int = 0, max_depth: int = MAX_DEPTH) -> bool:
    """Assert both paths agree; True when the quick path answered (not the builder)."""
    quick = load(text, offset, max_depth)
    expected = _builder(text, offset, max_depth)
    answered = quick_load(text, offset, max_depth) is not None
    if answered:
        loaded = quick[0]
        assert loaded is not None, text
        built = expected[0]
        assert built is not None, text
        # Before the spans are filled in, the top level is read from the quick load's own.
        for path in [(), *((key,) for key in _keys(built.value))]:
            assert loaded.span(path) == built.span(path), (text, path)
        for path in built.spans:  # the first deep read fills them from the marks
            assert loaded.span(path) == built.span(path), (text, path)
    assert _shape(quick) == _shape(expected), text
    return answered


def _keys(value: object) -> list[str | int]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return list(range(len(value)))
    return []


def _front_matters() -> list[tuple[str, str, int]]:
    """Every front matter in the repository's specs and fixtures, and in every rule's examples."""
    paths = [
        *sorted((ROOT / "specs").rglob("*.md")),
        *sorted((ROOT / "tests" / "fixtures").rglob("*.md")),
    ]
    found = []
    for path in paths:
        text = path.read_bytes().decode("utf-8", "replace").removeprefix("\ufeff")
        try:
            part = split(text)
        except SplitError:
            continue
        found.append((str(path.relative_to(ROOT)), part.yaml_text, part.yaml_offset))
    found.append(("rules/examples DOOR", HEADER + DOOR, 4))
    for rule in all_rules():  # every rule's failing and passing example
        for kind, snippet in (("bad", rule.bad), ("good", rule.good)):
            try:
                part = split(document(snippet))
            except SplitError:
                continue
            found.append((f"{rule.code} {kind}", part.yaml_text, part.yaml_offset))
    return found


def test_every_front_matter_in_the_repository_loads_the_same_both_ways() -> None:
    front_matters = _front_matters()
    assert len(front_matters) >= 50
    answered = 0
    for name, text, offset in front_matters:
        for variant in (text, text.replace("\r\n", "\n").replace("\n", "\r\n")):
            for at in (offset, 0, 1000):
                try:
                    answered += _agree(variant, at)
                except AssertionError as exc:
                    raise AssertionError(f"{name} at offset {at}") from exc
    assert answered >= 400  # the quick path really answers for most of them


@given(dumped(), st.integers(0, 200))
def test_both_paths_agree_on_dumped_values(text: str, offset: int) -> None:
    _agree(text, offset)


@settings(max_examples=30)
@given(dumped(), st.integers(1, 6))
def test_both_paths_agree_under_a_low_depth_cap(text: str, max_depth: int) -> None:
    _agree(text, 3, max_depth)


def test_the_quick_path_answers_for_plain_front_matter() -> None:
    text = "a: 1\nb:\n  - x\n  - {c: 'd', e: [1, 2.5, ~]}\nf: |\n  text\n"
    assert _agree(text, 4)
    assert _agree(text.replace("\n", "\r\n"), 4)
    assert _agree("- a\n- b: c\n", 0)


# --------------------------------------------------------------------------
# Where the quick path must give up: the builder decides, with the same result.

TRIGGERS = [
    "!!str 1",
    "! x",
    "!foo x",
    "!!int 3",
    "!!map {a: 1}",
    "!!seq [1]",
    "!!python/name:os.system ''",
    "&a 1",
    "&a [1, 2]",
    "&a {x: 1}",
    "*a",
    "{a: 1, a: 2}",
    "{a: 1, b: {c: 2, c: 3}}",
    "{1: x}",
    "{null: x}",
    "{true: x}",
    "{1.5: x}",
    "{~: x}",
    "{[a]: 1}",
    "{{a: b}: 1}",
    "[{a: 1, a: 1}]",
    "1" + "0" * 4000,
    "1" + "0" * 3999,  # 4000 digits: still fine, but both must say so
    "-" + "9" * 4001,
    "[" * MAX_DEPTH + "x" + "]" * MAX_DEPTH,  # one past the cap below a key
    "[a",
    "{a: 1",
    "'x",
    '"x',
    "a: b: c",
    "\x01",
    "`x",
    "@x",
    "%x",
]
FALLBACK_TEXTS = [
    "a: 1\na: 2\n",
    "a: 1\nb:\n  c: 1\n  c: 2\n",
    "? [x]\n: 1\nb: c\n",
    "? {a: b}\n: 1\n",
    "[a, b]: 1\n",
    "a: &x 1\nb: *x\n",
    "&r {a: 1}\n",
    "!!map {a: 1}\n",
    "--- !!map\na: 1\n",
    "a: !!str 1\n",
    "1: a\nnull: b\n'': c\n",
    "true: x\n",
    "a: 1\n---\nb: 2\n",
    "a: 1\n...\n---\nb: 2\n",
    "--- a: 1\n--- b\n",
    "a: 1\n--- \n",
    "hello\n",
    "42\n",
    "",
    "# only a comment\n",
    "---\n",
    "a: [1\n",
    "a:\n\t- x\n",
    "a: b: c\n",
    "a: 'x\n",
    "a: 1 #x\nb: {c: d #e\n}\n",
    "a: \x01\n",
    "\ufeffa: 1\n",
    "a: 1\n\ufeffb: 2\n",
    "a: " + "1" * 4001 + "\n",
    "a:\n  b:\n    c:\n      d: [[[x]]]\n",
]


def test_every_fallback_trigger_gives_the_builders_result() -> None:
    for text in FALLBACK_TEXTS:
        for variant in (text, text.replace("\n", "\r\n")):
            _agree(variant, 7)
            _agree(variant, 7, 3)
    for trigger in TRIGGERS:
        for text in (f"a: {trigger}\n", f"a: [x, {trigger}]\n", f"- {trigger}\n"):
            assert quick_load(text, 0, MAX_DEPTH) is None or "0" * 3999 in text, text
            _agree(text, 5)


def test_the_depth_cap_is_judged_by_the_builder() -> None:
    for depth in range(1, 8):
        text = "[" * depth + "x" + "]" * depth + "\n"
        block = "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "v\n"
        for max_depth in range(1, 8):
            for variant in (text, block):
                assert _agree(variant, 2, max_depth) == (depth <= max_depth), (variant, max_depth)


@st.composite
def with_trigger(draw: st.DrawFn) -> str:
    """A dumped document with one leaf replaced by a trigger, anywhere in it."""
    value = draw(MAPPINGS)
    leaves = _leaves(value, ())
    leaf = draw(st.sampled_from(leaves)) if leaves else None
    if leaf is not None:
        _set(value, leaf, "TRIGGERX")
    else:
        value["k"] = "TRIGGERX"
    text = yaml.safe_dump(
        value,
        default_flow_style=draw(st.sampled_from([False, True, None])),
        allow_unicode=True,
        sort_keys=False,
        width=1000,
    )
    assert "TRIGGERX" in text
    text = text.replace("TRIGGERX", draw(st.sampled_from(TRIGGERS)), 1)
    return _line_breaks(text, draw(st.sampled_from(["\n", "\r\n"])))


def _leaves(value: object, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    if isinstance(value, dict):
        return [leaf for key, child in value.items() for leaf in _leaves(child, (*path, key))]
    if isinstance(value, list):
        return [leaf for i, child in enumerate(value) for leaf in _leaves(child, (*path, i))]
    return [path]


def _set(value: object, path: tuple[str | int, ...], new: object) -> None:
    for step in path[:-1]:
        value = value[step]  # type: ignore[index]
    value[path[-1]] = new  # type: ignore[index]


@given(with_trigger(), st.integers(0, 50))
def test_a_trigger_anywhere_gives_the_builders_result(text: str, offset: int) -> None:
    _agree(text, offset)
    _agree(text + "---\nz: 1\n", offset)  # and a second document after it


# --------------------------------------------------------------------------
# Changed values: the spans still describe the text as it was loaded.

MUTATIONS = ["add", "remove", "replace-scalar", "append", "pop", "clear", "wrap"]


def _mutate(value: object, path: tuple[str | int, ...], how: str) -> bool:
    """Change the collection at ``path`` in place; False when ``how`` does not apply."""
    target = value
    for step in path:
        target = target[step]  # type: ignore[index]
    if isinstance(target, dict):
        keys = list(target)
        if how == "add":
            target["\x00new"] = {"deeper": [1]}
        elif how == "remove" and keys:
            del target[keys[0]]
        elif how == "replace-scalar" and keys:
            target[keys[-1]] = "changed"
        elif how == "clear" and keys:
            target.clear()
        elif how == "wrap" and keys:
            target[keys[0]] = [target[keys[0]]]
        else:
            return False
        return True
    if isinstance(target, list):
        if how in ("add", "append"):
            target.append("new")
        elif how in ("remove", "pop") and target:
            target.pop(0)
        elif how == "replace-scalar" and target:
            target[-1] = "changed"
        elif how == "clear" and target:
            target.clear()
        elif how == "wrap" and target:
            target[0] = {"w": target[0]}
        else:
            return False
        return True
    return False


def _collections(value: object, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    found = [path] if isinstance(value, dict | list) else []
    for key in _keys(value):
        found += _collections(value[key], (*path, key))  # type: ignore[index]
    return found


@given(dumped(MAPPINGS), st.data())
def test_changed_values_keep_the_spans_of_the_loaded_text(text: str, data: st.DataObject) -> None:
    loaded, problems = load(text, 9)
    built, _ = _builder(text, 9)
    if loaded is None or built is None or quick_load(text, 9, MAX_DEPTH) is None:
        return
    original = copy.deepcopy(loaded.value)
    path = data.draw(st.sampled_from(_collections(loaded.value, ())))
    how = data.draw(st.sampled_from(MUTATIONS))
    if not _mutate(loaded.value, path, how):
        return
    if repr(loaded.value) == repr(original):
        return  # e.g. a reorder of equal items: nothing changed
    assert _ordered(loaded.spans) == _ordered(built.spans), (text, path, how)
    assert _ordered(loaded.key_spans) == _ordered(built.key_spans), (text, path, how)
    assert problems == []


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("a: [1, 2]\nb: 3\n", lambda v: v["a"].pop()),  # fewer nodes
        ("a: [1, 2]\nb: 3\n", lambda v: v["a"].append(3)),  # more nodes
        ("a: {x: 1, y: [2]}\n", lambda v: v["a"].pop("x")),
        ("a: {x: 1}\nb: 2\n", lambda v: v.clear()),
        ("a: {x: 1}\n", lambda v: v.__setitem__("a", [{"x": 1}])),
        ("- a\n- b\n", lambda v: v.__setitem__(0, "c")),  # the same paths
        # As many nodes as before, but other paths: spans placed on the loaded values would
        # name paths the text does not have.
        ("a:\n  x: 1\nb: 2\n", lambda v: v.__setitem__("a", [1, 2])),
        ("a: [1, 2]\nb: 2\n", lambda v: v.__setitem__("a", {"y": 1})),
        ("a: 1\nb: 2\n", lambda v: v.update({"c": v.pop("a")})),  # renamed
        ("a: {x: 1, y: 2}\n", lambda v: v["a"].update({"x": v["a"].pop("x")})),  # reordered
        ("a: [[1], {}]\n", lambda v: v["a"].reverse()),
    ],
)
def test_a_change_to_the_values_keeps_the_loaded_spans(
    text: str, change: Callable[[Any], None]
) -> None:
    loaded, _ = load(text, 3)
    built, _ = _builder(text, 3)
    assert loaded is not None and built is not None
    change(loaded.value)
    assert _ordered(loaded.spans) == _ordered(built.spans), text
    assert _ordered(loaded.key_spans) == _ordered(built.key_spans), text


def test_reading_spans_twice_gives_the_same_dicts() -> None:
    loaded, _ = load("a: {b: [1, 2]}\n", 4)
    assert loaded is not None
    first = loaded.spans
    loaded.value["a"]["b"].append(3)  # type: ignore[index]
    assert loaded.spans is first  # filled once: later changes are not re-read
