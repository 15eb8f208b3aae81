"""``statedoc new PATH``: a lint-clean scaffold named by its path and its neighbours."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import main
from generator.cli.commands.new import derive_code, next_free
from generator.lint.document import lint_bytes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of this repository's specs, with the same [tool.statedoc] layout."""
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\nout = "gen"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


def front(path: Path, key: str) -> str:
    result = lint_bytes(path.read_bytes(), str(path))
    assert result.document is not None, result.findings
    return str(getattr(result.document.spec, key))


def all_ids(project: Path) -> list[str]:
    return [front(p, "id") for p in sorted((project / "specs").rglob("*.md"))]


def test_a_spec_next_to_siblings_reuses_their_codes_and_takes_the_next_number(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "specs/platform/tenant-lifecycle/tenant-deletion.md"
    assert main(["new", "specs/platform/tenant-lifecycle/tenant-deletion.md"]) == 0
    assert "created specs/platform/tenant-lifecycle/tenant-deletion.md" in capsys.readouterr().out
    result = lint_bytes(path.read_bytes(), "tenant-deletion.md")
    assert result.findings == []
    assert result.document is not None
    spec = result.document.spec
    # the sibling is STATE-PFM-TNL-002 / DOM-PFM-TNL-002
    assert (spec.id, spec.object) == ("STATE-PFM-TNL-003", "DOM-PFM-TNL-003")
    assert (spec.product_area, spec.module, spec.title) == (
        "platform",
        "tenant-lifecycle",
        "Tenant deletion",
    )
    assert "\n# Tenant deletion\n" in path.read_text()
    ids = all_ids(project)
    assert len(ids) == len(set(ids)) == len(all_ids(ROOT)) + 1


def test_the_number_follows_the_highest_in_the_module(project: Path) -> None:
    # the sibling in queries is STATE-PFM-QRY-011 with object DOM-PFM-QRY-004
    assert main(["new", "specs/platform/queries/export-cleanup.md"]) == 0
    path = project / "specs/platform/queries/export-cleanup.md"
    assert front(path, "id") == "STATE-PFM-QRY-012"
    assert front(path, "object") == "DOM-PFM-QRY-005"


def test_the_scaffold_lints_builds_and_checks_clean_with_the_rest(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "specs/commerce/orders/order-refund.md"]) == 0
    assert main(["new", "specs/commerce/orders/order-capture.md"]) == 0
    assert main(["new", "specs/commerce/payments/card-authorisation.md"]) == 0
    capsys.readouterr()
    assert main(["lint"]) == 0  # in-process, all specs together: SD204 sees every id
    assert main(["diagram", "--check", "-q"]) == 0  # the diagram is drawn in sync already
    refund = project / "specs/commerce/orders/order-refund.md"
    before = refund.read_bytes()
    assert main(["build", "-q"]) == 0
    assert refund.read_bytes() == before  # build had nothing to redraw
    assert (project / "gen/commerce/orders/order_refund.py").is_file()
    assert (project / "gen/commerce/payments/card_authorisation.py").is_file()
    assert main(["check", "-q"]) == 0
    ids = all_ids(project)
    assert len(ids) == len(set(ids)) == len(all_ids(ROOT)) + 3
    assert front(refund, "id") == "STATE-CMM-ORD-001"
    assert front(project / "specs/commerce/orders/order-capture.md", "id") == "STATE-CMM-ORD-002"
    assert front(project / "specs/commerce/payments/card-authorisation.md", "id") == (
        "STATE-CMM-PYM-001"
    )


def test_a_derived_code_that_another_area_uses_gets_a_suffix(project: Path) -> None:
    assert derive_code("planning") == derive_code("plain") == "PLN"
    assert main(["new", "specs/planning/jobs/a-job.md"]) == 0
    assert main(["new", "specs/plain/jobs/b-job.md"]) == 0
    assert front(project / "specs/planning/jobs/a-job.md", "id") == "STATE-PLN-JBS-001"
    assert front(project / "specs/plain/jobs/b-job.md", "id") == "STATE-PLN2-JBS-001"
    assert main(["lint", "-q"]) == 0


def test_an_existing_file_is_never_overwritten(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = project / "specs/platform/queries/workspace-export-delivery.md"
    before = spec.read_bytes()
    capsys.readouterr()
    assert main(["new", str(spec.relative_to(project))]) == 2
    assert "already exists" in capsys.readouterr().err
    assert spec.read_bytes() == before
    dangling = project / "specs/platform/queries/link.md"
    dangling.symlink_to(project / "nowhere.md")
    assert main(["new", "specs/platform/queries/link.md"]) == 2
    assert dangling.is_symlink() and not (project / "nowhere.md").exists()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("specs/Commerce/orders/refund.md", "lower-case slug"),
        ("specs/commerce/orders/refund.txt", "Markdown"),
        ("specs/refund.md", "not at <specs folder>"),
        ("docs/commerce/orders/refund.md", "not at <specs folder>"),
    ],
)
def test_a_path_that_names_no_area_and_module_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], path: str, says: str
) -> None:
    assert main(["new", path]) == 2
    assert says in capsys.readouterr().err
    assert not (project / path).exists()


def test_next_free_and_derive_code() -> None:
    assert next_free("STATE-A-B", ["STATE-A-B-009", "STATE-A-B-010", "STATE-A-BC-099"]) == (
        "STATE-A-B-011"
    )
    assert next_free("STATE-A-B", []) == "STATE-A-B-001"
    assert derive_code("tenant-lifecycle") == "TL"
    assert derive_code("queries") == "QRS"
    assert derive_code("io") == "IO"


def test_a_title_that_needs_quoting_is_quoted_and_one_lint_rejects_is_not_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "specs/commerce/orders/partial.md"
    assert main(["new", "--title", "Refund: partial #2 'late'", str(path)]) == 0
    assert front(path, "title") == "Refund: partial #2 'late'"
    assert lint_bytes(path.read_bytes(), "partial.md").findings == []
    broken = project / "specs/commerce/orders/broken.md"
    capsys.readouterr()
    assert main(["new", "--title", "Two\nlines", str(broken)]) == 2
    assert "would not lint clean" in capsys.readouterr().err
    assert not broken.exists()
    assert not list(broken.parent.glob(".*.tmp"))


def test_an_excluded_path_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.statedoc]\nspecs = "specs"\nout = "gen"\nexclude = ["specs/drafts"]\n'
    )
    assert main(["new", "specs/drafts/orders/refund.md"]) == 2
    assert "exclude" in capsys.readouterr().err
    assert not (project / "specs/drafts").exists()


def test_the_id_of_a_broken_sibling_is_not_handed_out_again(project: Path) -> None:
    broken = project / "specs/platform/tenant-lifecycle/broken.md"
    broken.write_text("---\nid: STATE-PFM-TNL-007\nobject: DOM-PFM-TNL-009\nstates: [\n---\n")
    assert lint_bytes(broken.read_bytes(), "broken.md").document is None
    assert main(["new", "specs/platform/tenant-lifecycle/tenant-deletion.md"]) == 0
    path = project / "specs/platform/tenant-lifecycle/tenant-deletion.md"
    assert front(path, "id") == "STATE-PFM-TNL-008"
    assert front(path, "object") == "DOM-PFM-TNL-010"


@pytest.mark.parametrize("length", [250, 255, 256])
def test_a_name_near_the_file_system_limit_is_created_or_refused_cleanly(
    project: Path, capsys: pytest.CaptureFixture[str], length: int
) -> None:
    """The temp file beside it had the name in it: a 250-byte name raised a raw OSError
    (exit 2 with a traceback); a name the file system cannot hold is a usage error."""
    name = "a" * (length - len(".md")) + ".md"
    capsys.readouterr()
    code = main(["new", f"specs/platform/queries/{name}"])
    err = capsys.readouterr().err
    created = project / "specs/platform/queries" / name
    if length <= 255:
        assert code == 0, err
        assert created.is_file()
    else:
        assert code == 2
        assert "cannot create it" in err and "Traceback" not in err
    leftovers = [p.name for p in (project / "specs/platform/queries").iterdir()]
    assert not [n for n in leftovers if n.endswith(".tmp")]
