"""The ``vectors`` target: every verdict of a spec in one file, its bytes, its JSON Schema
(``statedoc schema --vectors``), reading it back, and the names that are no state."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from jsonschema import Draft202012Validator
from profiles import scaled

from generator.lint.document import lint_bytes
from generator.model.spec import Spec
from generator.model.verdicts import (
    ALLOWED,
    FORBIDDEN,
    NOT_A_STATE,
    SCHEMA_FILE,
    UNDECLARED,
    VectorsError,
    load_vectors,
    state_lookalikes,
    vectors_of_spec,
)
from generator.render.environment import has_header
from generator.targets.registry import get_target
from generator.targets.vectors import render_vectors
from generator.testing.strategies import spec_documents

from .test_generate_support import ROOT, run_cli

SEED = ROOT / "specs/platform/tenant-lifecycle/provisioning-attempt.md"
TCP = ROOT / "specs/network/tcp/connection.md"


def spec_of(text: str | bytes) -> Spec:
    data = text.encode("utf-8") if isinstance(text, str) else text
    result = lint_bytes(data, "specs/random.md")
    assert result.document is not None
    return result.document.spec


@settings(max_examples=scaled(150, 20))
@given(text=spec_documents(max_states=7))
def test_every_pair_gets_the_verdict_the_spec_gives_it(text: str) -> None:
    spec = spec_of(text)
    vectors = vectors_of_spec(spec, source="specs/random.md", sha256="0" * 64)
    assert [(v.from_state, v.to_state) for v in vectors.pairs] == [
        (a, b) for a in spec.state_names for b in spec.state_names
    ]
    listed = {i.pair: i.why for i in spec.invalid}
    for v in vectors.pairs:
        pair = (v.from_state, v.to_state)
        if pair in spec.transition_pairs:
            assert (v.verdict, v.why) == (ALLOWED, None)
        elif pair in listed:
            assert (v.verdict, v.why) == (FORBIDDEN, listed[pair])
        else:
            assert (v.verdict, v.why) == (UNDECLARED, None)
    names = {n.name for n in vectors.not_states}
    assert not names & set(spec.state_names)
    assert vectors.verdict(spec.state_names[0], "no such state") == NOT_A_STATE
    written = render_vectors(vectors)
    assert written.isascii() and has_header(written.split("\n", 1)[0])
    read = load_vectors(written.encode("ascii"))
    assert read.table() == vectors.table() and read.spec == vectors.spec
    assert render_vectors(read) == written  # the bytes are a function of the verdicts


def test_events_get_a_verdict_from_every_state() -> None:
    spec = spec_of(TCP.read_bytes())
    vectors = vectors_of_spec(spec, source="x.md", sha256="0" * 64)
    assert len(vectors.fires) == len(spec.state_names) * len(spec.events)
    declared: dict[tuple[str, str], str] = {}
    for t in spec.transitions:
        if t.event is not None:
            declared.setdefault((t.from_state, t.event), t.to_state)
    for v in vectors.fires:
        want = declared.get((v.from_state, v.event))
        assert (v.verdict, v.to_state) == ((ALLOWED, want) if want else (UNDECLARED, None))
    not_events = {n.name for n in vectors.not_events}
    assert "CLOSE" in not_events and "close " in not_events and not not_events & set(spec.events)


@pytest.mark.parametrize("name", ["pending", "SYN-SENT", "in_progress", "café", "状态"])
def test_every_state_has_case_width_padding_and_normalisation_variants(name: str) -> None:
    found = {(n.name, n.variant) for n in state_lookalikes([name, "other"]) if n.of == name}
    kinds = {variant for _, variant in found}
    assert {"padding", "control"} <= kinds
    if any(c.isascii() and c.isalpha() for c in name) or unicodedata.normalize("NFD", name) != name:
        assert "normalisation" in kinds  # (no variant exists for 状态: nothing folds to it)
    if name.isascii():
        assert {"case", "width"} <= kinds
    if "-" in name or "_" in name:
        assert "separator" in kinds
    for variant_name, kind in found:
        assert variant_name != name
        if kind in ("width", "normalisation"):
            assert unicodedata.normalize("NFKC", variant_name) == unicodedata.normalize(
                "NFKC", name
            )
        if kind == "case":
            assert variant_name.casefold() == name.casefold()
        if kind == "padding":
            assert variant_name.strip("\u200b").strip() == name


def test_the_schema_is_valid_and_published(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "schema", "--target", "vectors")
    assert code == 0 and out == SCHEMA_FILE.read_text(encoding="utf-8")
    schema = json.loads(out)
    Draft202012Validator.check_schema(schema)
    written = render_vectors(
        vectors_of_spec(spec_of(SEED.read_bytes()), source="s", sha256="0" * 64)
    )
    assert not list(Draft202012Validator(schema).iter_errors(json.loads(written)))


def _file() -> dict[str, object]:
    spec = spec_of(SEED.read_bytes())
    data: dict[str, object] = json.loads(
        render_vectors(vectors_of_spec(spec, source="s.md", sha256="a" * 64))
    )
    return data


def _broken(change: str) -> bytes:
    data = _file()
    pairs = data["pairs"]
    assert isinstance(pairs, list)
    if change == "format":
        data["format"] = 2
    elif change == "why":
        forbidden = next(p for p in pairs if p["verdict"] == "forbidden")
        del forbidden["why"]
    elif change == "verdict":
        pairs[0]["verdict"] = "maybe"
    elif change == "extra":
        data["extra"] = 1
    elif change == "order":
        pairs.reverse()
    return json.dumps(data).encode("ascii")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("format", "vectors format 2; this statedoc reads format 1"),
        ("why", "'why' is a required property"),
        ("verdict", "'maybe' is not one of"),
        ("extra", "Additional properties are not allowed"),
        ("order", "pairs must list states x states in order"),
    ],
)
def test_a_file_that_is_not_format_1_is_refused_saying_why(change: str, says: str) -> None:
    with pytest.raises(VectorsError, match=None) as caught:
        load_vectors(_broken(change))
    assert says in str(caught.value)
    with pytest.raises(VectorsError, match="is not JSON"):
        load_vectors(b"{")


def test_the_target_writes_one_file_per_spec_that_it_owns(tmp_path: Path) -> None:
    from generator.run.config import load_config

    config = load_config(ROOT)
    target = get_target("vectors", config)
    result = lint_bytes(
        SEED.read_bytes(), "specs/platform/tenant-lifecycle/provisioning-attempt.md"
    )
    assert result.document is not None
    files = target.files(result.document, config)
    (path, data), *rest = files.items()
    assert not rest and path == "platform/tenant_lifecycle/provisioning_attempt.vectors.json"
    first = data.split(b"\n", 1)[0].decode()
    assert first == (
        '{"$comment": "Code generated by statedoc from '
        'specs/platform/tenant-lifecycle/provisioning-attempt.md. DO NOT EDIT.",'
    )
    assert target.owns(path, first) and has_header(first)
    assert not target.owns("platform/x/y.json", first)
    assert not target.owns(path, '{"format": 1,')
    assert load_vectors(data).spec is not None
    assert target.files(result.document, config) == files  # deterministic


def test_the_target_refuses_a_spec_no_target_may_generate() -> None:
    """What every target refuses whatever lint ignores (a transition declared twice, an event
    with two targets from one state) gets no vectors file either: its verdicts would be
    whichever transition came first."""
    from generator.render.environment import RenderError
    from generator.run.config import load_config

    target = get_target("vectors", load_config(ROOT))
    seed = lint_bytes(SEED.read_bytes(), "specs/platform/tenant-lifecycle/provisioning-attempt.md")
    tcp = lint_bytes(TCP.read_bytes(), "specs/network/tcp/connection.md")
    assert seed.document is not None and tcp.document is not None
    spec = seed.document.spec
    twice = seed.document._replace(
        spec=spec._replace(transitions=(*spec.transitions, spec.transitions[0]))
    )
    with pytest.raises(RenderError, match=r"declared twice \(SD105\)"):
        target.files(twice, load_config(ROOT))
    spec = tcp.document.spec
    first = next(t for t in spec.transitions if t.event is not None)
    twin = first._replace(to_state=next(s for s in spec.state_names if s != first.to_state))
    split = tcp.document._replace(spec=spec._replace(transitions=(*spec.transitions, twin)))
    with pytest.raises(RenderError, match=r"two targets \(SD115\)"):
        target.files(split, load_config(ROOT))
