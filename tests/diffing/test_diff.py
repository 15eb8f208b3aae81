"""``statedoc diff OLD NEW``: how each edit of a spec is classified, and the exit status."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from generator.diffing.changes import KINDS, ChangeClass

from .support import Doc, Edit, Run, base, edited, kinds, render, set_at, two


def _rename_open(d: Doc) -> None:
    d["states"][1]["name"] = "ajar"
    d["transitions"][0]["to"] = "ajar"
    d["transitions"][1]["from"] = "ajar"
    d["invalid"][0]["to"] = "ajar"


BREAKING: dict[str, tuple[Edit, list[str]]] = {
    "state removed": (
        lambda d: (
            d["states"].pop(2),
            d["transitions"].pop(3),
            d["transitions"].pop(2),
            d.pop("invalid"),
        ),
        ["state-removed", "transition-removed", "transition-removed", "invalid-removed"],
    ),
    "state renamed": (
        _rename_open,
        [
            "state-removed",
            "transition-removed",
            "transition-removed",
            "invalid-added",
            "state-added",
            "transition-added",
            "transition-added",
            "invalid-removed",
        ],
    ),
    "transition removed": (
        lambda d: d["transitions"].pop(3),
        ["transition-removed", "terminal-state-added"],
    ),
    "initial state added": (
        lambda d: d.update(initial=["closed", "open"]),
        ["initial-state-added"],
    ),
    "initial state removed": (
        lambda d: d.update(initial="open"),
        ["initial-state-removed", "initial-state-added"],
    ),
    "invalid pair listed": (
        lambda d: d["invalid"].append({"from": "open", "to": "locked", "why": "Close it first."}),
        ["invalid-added"],
    ),
    "id changed": (lambda d: d.update(id="STATE-EX-DOR-002"), ["id-changed"]),
}


@pytest.mark.parametrize("name", list(BREAKING))
def test_breaking_changes_exit_1(tmp_path: Path, run: Run, name: str) -> None:
    edit, expected = BREAKING[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == expected
    assert KINDS[found[0]] is ChangeClass.BREAKING
    assert code == 1


def test_allow_breaking_exits_0(tmp_path: Path, run: Run) -> None:
    code, found, _ = two(
        tmp_path, run, base(), edited(lambda d: d["transitions"].pop(3)), "--allow-breaking"
    )
    assert "transition-removed" in found
    assert code == 0


def test_initial_states_compare_inferred_and_declared(tmp_path: Path, run: Run) -> None:
    # Without ``initial`` the initial states are those nothing enters: declaring the same set
    # is no change; a new state nothing enters becomes an initial state (breaking).
    plain = base()
    del plain["initial"]
    del plain["transitions"][3]  # locked -> closed
    del plain["transitions"][1]  # open -> closed: nothing enters "closed" now
    declared = copy.deepcopy(plain)
    declared["initial"] = "closed"
    code, found, _ = two(tmp_path, run, plain, declared)
    assert (code, found) == (0, [])
    grown = copy.deepcopy(plain)
    grown["states"].append({"name": "new"})
    grown["transitions"].append({"from": "new", "to": "closed", "trigger": "install"})
    code, found, _ = two(tmp_path, run, plain, grown)
    assert found == [
        "initial-state-removed",
        "initial-state-added",
        "state-added",
        "transition-added",
    ]
    assert code == 1


COMPATIBLE: dict[str, tuple[Edit, list[str]]] = {
    "state and transition added": (
        lambda d: (
            d["states"].append({"name": "broken"}),
            d["transitions"].append({"from": "locked", "to": "broken", "trigger": "kick"}),
        ),
        ["state-added", "transition-added"],
    ),
    "transition added": (
        lambda d: d["transitions"].append({"from": "open", "to": "locked", "trigger": "slam"}),
        ["transition-added"],
    ),
    "invalid pair removed": (lambda d: d.pop("invalid"), ["invalid-removed"]),
}


@pytest.mark.parametrize("name", list(COMPATIBLE))
def test_compatible_changes_exit_0(tmp_path: Path, run: Run, name: str) -> None:
    edit, expected = COMPATIBLE[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == expected
    assert all(KINDS[k] is ChangeClass.COMPATIBLE for k in found)
    assert code == 0


def test_terminal_state_leaving_is_reported(tmp_path: Path, run: Run) -> None:
    old = edited(lambda d: d["transitions"].pop(3))  # "locked" is terminal here
    code, found, _ = two(tmp_path, run, old, base())
    assert (code, found) == (0, ["transition-added", "terminal-state-removed"])


WORDING: dict[str, tuple[Edit, str]] = {
    "meaning": (set_at(("states", 0, "meaning"), "Closed, not latched."), "state-meaning-changed"),
    "meaning dropped": (set_at(("states", 1, "meaning"), None), "state-meaning-changed"),
    "trigger": (set_at(("transitions", 0, "trigger"), "shove"), "transition-trigger-changed"),
    "guard": (set_at(("transitions", 0, "guard"), "unlatched"), "transition-guard-changed"),
    "side effects": (
        set_at(("transitions", 0, "side_effects"), ["a draught", "a creak"]),
        "transition-side-effects-changed",
    ),
    "who": (set_at(("transitions", 0, "who"), "the cat"), "transition-who-changed"),
    "provenance": (
        set_at(("transitions", 0, "provenance"), "inferred"),
        "transition-provenance-changed",
    ),
    "source": (set_at(("transitions", 0, "source"), "house:hinge.py"), "transition-source-changed"),
    "why": (set_at(("invalid", 0, "why"), "Use the key."), "invalid-why-changed"),
    "title": (set_at(("title",), "Front door"), "title-changed"),
    "status": (set_at(("status",), "active"), "status-changed"),
    "object": (set_at(("object",), "DOM-EX-DOR-002"), "object-changed"),
    "concurrency": (set_at(("concurrency",), "Two writers."), "concurrency-changed"),
    "design intent": (set_at(("design_intent",), "confirmed"), "design-intent-changed"),
    "evidence": (set_at(("evidence",), ["seen twice"]), "evidence-changed"),
    "source sha": (set_at(("source_sha", "house"), "b" * 40), "source-sha-changed"),
    "invariants": (set_at(("invariants",), ["INV-DOM-EX-DOR-001-1"]), "invariants-changed"),
    "revision": (set_at(("revision",), 2), "revision-changed"),
    "extension key": (set_at(("owner",), "team-doors"), "extension-changed"),
}


@pytest.mark.parametrize("name", list(WORDING))
def test_wording_only_edits_are_wording(tmp_path: Path, run: Run, name: str) -> None:
    edit, kind = WORDING[name]
    code, found, _ = two(tmp_path, run, base(), edited(edit))
    assert found == [kind]
    assert KINDS[kind] is ChangeClass.WORDING
    assert code == 0


def test_identical_documents_have_no_changes(tmp_path: Path, run: Run) -> None:
    (tmp_path / "a.md").write_text(render(base()))
    code, out, err = run("diff", str(tmp_path / "a.md"), str(tmp_path / "a.md"))
    assert (code, out) == (0, "")
    assert "No changes (1 spec compared)." in err


def test_every_kind_has_a_class_and_is_kebab_case() -> None:
    assert all(k == k.lower() and " " not in k and "_" not in k for k in KINDS)
    assert {KINDS[k] for k in KINDS} == set(ChangeClass)


# --- real documents, unreadable sides, quiet -----------------------------------------------

SEED = Path(__file__).parents[2] / "specs/platform/queries/workspace-export-delivery.md"


def test_a_real_spec_wording_and_breaking_edits(tmp_path: Path, run: Run) -> None:
    text = SEED.read_text(encoding="utf-8")
    (tmp_path / "old.md").write_text(text, encoding="utf-8")
    new = tmp_path / "new.md"
    new.write_text(
        text.replace(
            "trigger: The failure helper is called.",
            'trigger: "The failure helper is called: it says so."',
        )
    )
    code, out, _ = run("diff", str(tmp_path / "old.md"), str(new), "--format", "json")
    assert (code, kinds(out)) == (0, ["transition-trigger-changed"])
    start = text.index("  - from: failed\n    to: superseded")
    end = text.index("invalid:\n")
    new.write_text(text[:start] + text[end:])
    code, out, _ = run("diff", str(tmp_path / "old.md"), str(new))
    assert code == 1
    assert out.splitlines() == [
        f"STATE-PFM-QRY-011 {new.as_posix()} (against {(tmp_path / 'old.md').as_posix()}), "
        "revision 1",
        "  breaking    code,data  transition-removed   transition 'failed' -> 'superseded' removed",
        "  breaking    code       initial-state-added  'superseded' is now an initial state",
    ]


def test_two_files_with_an_unreadable_side(tmp_path: Path, run: Run) -> None:
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(render(base()))
    bad.write_text("no front matter\n")
    code, out, _ = run("diff", str(bad), str(good))
    assert code == 0
    assert "note: the old version does not get past the schema stage" in out
    assert "SD001" in out
    code, out, err = run("diff", str(good), str(bad))
    assert code == 2
    assert "error: the new version does not get past the schema stage" in out
    assert "cannot compare" in err
