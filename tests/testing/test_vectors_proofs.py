"""The Python proofs read the spec's verdict vectors: a vectors file that disagrees with the
module (one verdict flipped) fails ``check_module`` naming the pair, the committed files pass,
the vectors alone catch a module whose tables and behaviour are wrong together, and the test
module ``generate --tests`` writes reads the file when it is there."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest
from profiles import downstream_conftest

from generator.lint.document import lint_bytes
from generator.model.verdicts import load_vectors, vectors_of_spec
from generator.targets.python import document_sha256, render_module
from generator.targets.tests import render_test_module
from generator.targets.vectors import render_vectors
from generator.testing import check_module, import_generated

from .repos import ROOT, SEEDS

pytest_plugins = ["pytester"]

MODULE_FILE = ROOT / "generated/platform/tenant_lifecycle/provisioning_attempt.py"
VECTORS_FILE = MODULE_FILE.with_suffix(".vectors.json")


def flipped(data: bytes, index: int, verdict: str, why: str | None = None) -> bytes:
    """The vectors file with pair ``index`` given another verdict."""
    parsed = json.loads(data)
    pair = parsed["pairs"][index]
    pair["verdict"] = verdict
    pair.pop("why", None)
    if why is not None:
        pair["why"] = why
    return json.dumps(parsed).encode("ascii")


def test_the_committed_vectors_are_the_specs_and_the_module_passes_them() -> None:
    module = import_generated(MODULE_FILE)
    check_module(module, ROOT / SEEDS["attempt"], vectors=VECTORS_FILE)
    check_module(module, vectors=VECTORS_FILE)  # the module's tables held to the file


@pytest.mark.parametrize(
    ("index", "verdict", "why", "pair"),
    [
        (1, "undeclared", None, "'pending' -> 'running'"),  # allowed in the spec
        (2, "allowed", None, "'pending' -> 'succeeded'"),  # undeclared in the spec
        (9, "forbidden", "another why", "'succeeded' -> 'running'"),  # the why changed
    ],
)
def test_a_vectors_file_that_disagrees_fails_the_proof(
    tmp_path: Path, index: int, verdict: str, why: str | None, pair: str
) -> None:
    path = tmp_path / "attempt.vectors.json"
    path.write_bytes(flipped(VECTORS_FILE.read_bytes(), index, verdict, why))
    module = import_generated(MODULE_FILE)
    for spec in (ROOT / SEEDS["attempt"], None):
        with pytest.raises(AssertionError) as caught:
            check_module(module, spec, vectors=path)
        message = str(caught.value)
        assert pair in message, message
        if spec is not None:
            assert (
                f"the vectors file disagrees with the spec {spec.as_posix()}: pair {pair}"
                in message
            )


def wrong_module(tmp_path: Path) -> types.ModuleType:
    """A module generated from an edited model: one more declared transition, in its tables
    and its behaviour alike, so its own tables cannot tell."""
    document = lint_bytes((ROOT / SEEDS["attempt"]).read_bytes(), SEEDS["attempt"]).document
    assert document is not None
    spec = document.spec
    extra = spec.transitions[0]._replace(from_state="succeeded", to_state="pending")
    edited = spec._replace(transitions=(*spec.transitions, extra))
    source = render_module(
        edited, relative=SEEDS["attempt"], sha256=document_sha256(document.source), module="a"
    )
    path = tmp_path / "wrong_attempt.py"
    path.write_text(source, encoding="utf-8")
    return import_generated(path)


def test_the_vectors_catch_a_module_whose_tables_are_wrong_too(tmp_path: Path) -> None:
    module = wrong_module(tmp_path)
    check_module(module)  # consistent with itself
    with pytest.raises(AssertionError, match="'succeeded' -> 'pending'"):
        check_module(module, vectors=VECTORS_FILE)


def test_a_file_that_is_no_vectors_file_fails_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "x.vectors.json"
    path.write_text('{"format": 7}', encoding="utf-8")
    with pytest.raises(AssertionError, match="vectors format 7; this statedoc reads format 1"):
        check_module(import_generated(MODULE_FILE), vectors=path)


def test_the_vectors_file_is_what_the_vectors_target_writes() -> None:
    document = lint_bytes((ROOT / SEEDS["attempt"]).read_bytes(), SEEDS["attempt"]).document
    assert document is not None
    vectors = vectors_of_spec(
        document.spec, source=SEEDS["attempt"], sha256=document_sha256(document.source)
    )
    assert VECTORS_FILE.read_text(encoding="ascii") == render_vectors(vectors)
    assert load_vectors(VECTORS_FILE).table() == vectors.table()


def test_the_generated_test_module_reads_the_vectors_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CI", "HYPOTHESIS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyprojecttoml('[tool.statedoc]\nspecs = "specs"\nout = "generated"\n')
    spec = pytester.path / SEEDS["attempt"]
    spec.parent.mkdir(parents=True)
    spec.write_bytes((ROOT / SEEDS["attempt"]).read_bytes())
    vectors = pytester.path / "vectors/attempt.vectors.json"
    vectors.parent.mkdir()
    module = "generated.platform.tenant_lifecycle.provisioning_attempt"
    text = render_test_module(module, SEEDS["attempt"], "vectors/attempt.vectors.json")
    assert 'vectors="vectors/attempt.vectors.json"' in text
    (pytester.path / "test_attempt.py").write_text(text, encoding="utf-8")
    pytester.makeconftest(downstream_conftest())
    args = ("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning")
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=2)  # no file: the spec's
    vectors.write_bytes(VECTORS_FILE.read_bytes())
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=2)
    vectors.write_bytes(flipped(VECTORS_FILE.read_bytes(), 1, "undeclared"))
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*the vectors file disagrees with the spec*'pending' -> 'running'*"]
    )
