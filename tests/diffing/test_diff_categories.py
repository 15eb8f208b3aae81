"""``statedoc diff`` files every change under who it breaks: code, data, wording (or no one).

Each edit below is run through the real command (two files, or a real git repository) and
the expected categories are written out per edit, so a wrong entry in the table fails here.
Together the edits produce every change kind (a test checks the union against ``KINDS``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.diffing.categories import CATEGORIES, PLACEMENTS, Category
from generator.diffing.changes import KINDS, ChangeClass, placement_table

from .support import Doc, Edit, Repo, Run, base, diff_json, edited, gate, render, set_at

CODE, DATA, WORDING = ["code"], ["data"], ["wording"]
BOTH: list[str] = ["code", "data"]
NONE: list[str] = []


def _rename_open_retired(d: Doc) -> None:
    d["states"][1]["name"] = "ajar"
    d["transitions"][0]["to"] = "ajar"
    d["transitions"][1]["from"] = "ajar"
    d["invalid"][0]["to"] = "ajar"
    d["retired"] = [{"state": "open", "to": "ajar", "why": "Renamed."}]


def _drop_locked(d: Doc) -> None:
    d["states"].pop(2)
    d["transitions"].pop(3)
    d["transitions"].pop(2)
    d.pop("invalid")


def _with_events(d: Doc) -> None:
    d["transitions"][0]["event"] = "push"
    d["transitions"][2]["event"] = "lock"


def _swap_events(d: Doc) -> None:
    _with_events(d)
    d["transitions"][0]["event"], d["transitions"][2]["event"] = "lock", "push"


def _retired(**entry: str) -> Edit:
    return lambda d: d.update(retired=[{"state": "gone", "why": "Merged long ago.", **entry}])


STORAGE = {"table": "doors", "column": "state"}

#: edit name -> (old edit, new edit, expected [(kind, categories)] in report order)
CASES: dict[str, tuple[Edit | None, Edit, list[tuple[str, list[str]]]]] = {
    "id": (None, lambda d: d.update(id="STATE-EX-DOR-002"), [("id-changed", BOTH)]),
    "state removed": (
        None,
        _drop_locked,
        [
            ("state-removed", BOTH),
            ("transition-removed", BOTH),
            ("transition-removed", BOTH),
            ("invalid-removed", NONE),
        ],
    ),
    "state renamed, retired to the new name": (
        None,
        _rename_open_retired,
        [
            ("state-retired", BOTH),
            ("transition-removed", BOTH),
            ("transition-removed", BOTH),
            ("invalid-added", BOTH),
            ("state-added", NONE),
            ("transition-added", NONE),
            ("transition-added", NONE),
            ("invalid-removed", NONE),
        ],
    ),
    "state retired without destination": (
        None,
        lambda d: (_drop_locked(d), d.update(retired=[{"state": "locked", "why": "Gone."}])),
        [
            ("state-retired", BOTH),
            ("transition-removed", BOTH),
            ("transition-removed", BOTH),
            ("invalid-removed", NONE),
        ],
    ),
    "transition removed": (
        None,
        lambda d: d["transitions"].pop(3),
        [("transition-removed", BOTH), ("terminal-state-added", NONE)],
    ),
    "transition added back": (
        lambda d: d["transitions"].pop(3),
        lambda d: None,
        [("transition-added", NONE), ("terminal-state-removed", NONE)],
    ),
    "state added": (
        None,
        lambda d: (
            d["states"].append({"name": "broken"}),
            d["transitions"].append({"from": "locked", "to": "broken", "trigger": "kick"}),
        ),
        [("state-added", NONE), ("transition-added", NONE)],
    ),
    "event removed": (
        _with_events,
        lambda d: (_with_events(d), d["transitions"][0].update(event="shove")),
        [("event-removed", CODE), ("event-added", NONE)],
    ),
    "event retargeted": (
        _with_events,
        _swap_events,
        [("event-retargeted", CODE), ("event-retargeted", CODE)],
    ),
    "initial moved": (
        None,
        lambda d: d.update(initial="open"),
        [("initial-state-removed", BOTH), ("initial-state-added", CODE)],
    ),
    "invalid listed": (
        None,
        lambda d: d["invalid"].append({"from": "open", "to": "locked", "why": "Close it."}),
        [("invalid-added", BOTH)],
    ),
    "retirement added": (None, _retired(to="closed"), [("retirement-added", NONE)]),
    "retirement removed": (_retired(to="closed"), lambda d: None, [("retirement-removed", DATA)]),
    "retirement destination changed": (
        _retired(to="closed"),
        _retired(to="open"),
        [("retirement-destination-changed", DATA)],
    ),
    "retirement destination dropped": (
        _retired(to="closed"),
        _retired(),
        [("retirement-destination-changed", DATA)],
    ),
    "retirement destination added": (
        _retired(),
        _retired(to="closed"),
        [("retirement-destination-added", NONE)],
    ),
    "retirement why": (
        _retired(to="closed"),
        lambda d: d.update(retired=[{"state": "gone", "to": "closed", "why": "Other."}]),
        [("retirement-why-changed", WORDING)],
    ),
    "title": (None, set_at(("title",), "Front door"), [("title-changed", BOTH)]),
    "product area": (None, set_at(("product_area",), "house"), [("product-area-changed", CODE)]),
    "module": (None, set_at(("module",), "gates"), [("module-changed", CODE)]),
    "storage added": (None, lambda d: d.update(storage=STORAGE), [("storage-changed", DATA)]),
    "storage column": (
        lambda d: d.update(storage=STORAGE),
        lambda d: d.update(storage={**STORAGE, "column": "status"}),
        [("storage-changed", DATA)],
    ),
    "storage history": (
        lambda d: d.update(storage=STORAGE),
        lambda d: d.update(storage={**STORAGE, "history": True}),
        [("storage-changed", DATA)],
    ),
}

WORDING_EDITS: dict[str, tuple[Edit, str]] = {
    "meaning": (set_at(("states", 0, "meaning"), "Shut tight."), "state-meaning-changed"),
    "trigger": (set_at(("transitions", 0, "trigger"), "shove"), "transition-trigger-changed"),
    "guard": (set_at(("transitions", 0, "guard"), "unlatched"), "transition-guard-changed"),
    "side effects": (
        set_at(("transitions", 0, "side_effects"), ["a creak"]),
        "transition-side-effects-changed",
    ),
    "who": (set_at(("transitions", 0, "who"), "the cat"), "transition-who-changed"),
    "provenance": (
        set_at(("transitions", 0, "provenance"), "inferred"),
        "transition-provenance-changed",
    ),
    "source": (set_at(("transitions", 0, "source"), "house:x.py"), "transition-source-changed"),
    "why": (set_at(("invalid", 0, "why"), "Use the key."), "invalid-why-changed"),
    "object": (set_at(("object",), "DOM-EX-DOR-002"), "object-changed"),
    "status": (set_at(("status",), "active"), "status-changed"),
    "revision": (set_at(("revision",), 2), "revision-changed"),
    "design intent": (set_at(("design_intent",), "confirmed"), "design-intent-changed"),
    "evidence text": (
        set_at(("implementation_evidence",), "tests"),
        "implementation-evidence-changed",
    ),
    "origin": (set_at(("origin",), "an incident"), "origin-changed"),
    "concurrency": (set_at(("concurrency",), "Two writers."), "concurrency-changed"),
    "source sha": (set_at(("source_sha", "house"), "b" * 40), "source-sha-changed"),
    "invariants": (set_at(("invariants",), ["INV-DOM-EX-DOR-001-1"]), "invariants-changed"),
    "evidence": (set_at(("evidence",), ["seen twice"]), "evidence-changed"),
    "extension": (set_at(("owner",), "team-doors"), "extension-changed"),
}


def _json_two(tmp_path: Path, run: Run, old: Doc, new: Doc, *extra: str) -> tuple[int, Any]:
    (tmp_path / "old.md").write_text(render(old), encoding="utf-8")
    (tmp_path / "new.md").write_text(render(new), encoding="utf-8")
    code, out, _ = run(
        "diff", str(tmp_path / "old.md"), str(tmp_path / "new.md"), "--format", "json", *extra
    )
    return code, json.loads(out)


def _placed(data: Any) -> list[tuple[str, list[str]]]:
    return [(c["kind"], c["categories"]) for c in data["changes"]]


@pytest.mark.parametrize("name", list(CASES))
def test_each_change_lands_in_its_categories(tmp_path: Path, run: Run, name: str) -> None:
    old_edit, new_edit, expected = CASES[name]
    old = edited(old_edit) if old_edit is not None else base()
    new = edited(new_edit)
    code, data = _json_two(tmp_path, run, old, new)
    assert _placed(data) == expected
    assert code == (1 if any(KINDS[k] is ChangeClass.BREAKING for k, _ in expected) else 0)


@pytest.mark.parametrize("name", list(WORDING_EDITS))
def test_texts_only_are_wording(tmp_path: Path, run: Run, name: str) -> None:
    edit, kind = WORDING_EDITS[name]
    code, data = _json_two(tmp_path, run, base(), edited(edit))
    assert (code, _placed(data)) == (0, [(kind, WORDING)])


def test_specs_added_deleted_and_moved(repo: Repo, run: Run) -> None:
    repo.write("specs/gate.md", gate())
    repo.commit("gate")
    repo.remove("specs/gate.md")
    repo.move("specs/door.md", "specs/house/door.md")
    repo.write("specs/yard.md", gate(id="STATE-EX-YRD-001", title="Yard"))
    code, data = diff_json(run)
    assert code == 1
    assert sorted(_placed(data)) == [
        ("spec-added", NONE),
        ("spec-deleted", CODE),
        ("spec-moved", WORDING),
    ]


def test_the_edits_cover_every_kind(tmp_path: Path, run: Run) -> None:
    """Run every edit again and collect the kinds: each kind of the vocabulary is produced
    (and so tested above) at least once."""
    seen = {"spec-added", "spec-deleted", "spec-moved"}  # test_specs_added_deleted_and_moved
    for old_edit, new_edit, _ in CASES.values():
        old = edited(old_edit) if old_edit is not None else base()
        _, data = _json_two(tmp_path, run, old, edited(new_edit))
        seen |= {c["kind"] for c in data["changes"]}
    for edit, _ in WORDING_EDITS.values():
        _, data = _json_two(tmp_path, run, base(), edited(edit))
        seen |= {c["kind"] for c in data["changes"]}
    assert seen == set(KINDS)


def test_the_table_places_every_kind_once() -> None:
    assert set(PLACEMENTS) == set(KINDS)
    for kind, placement in PLACEMENTS.items():
        assert placement.rule.strip(), kind
        assert len(set(placement.categories)) == len(placement.categories), kind
        if KINDS[kind] is ChangeClass.BREAKING:
            # the default gate fails exactly on these: each breaks callers or data
            assert set(placement.categories) & {Category.CODE, Category.DATA}, kind
        if KINDS[kind] is ChangeClass.COMPATIBLE:
            assert placement.categories == (), kind
        if Category.WORDING in placement.categories:
            assert placement.categories == (Category.WORDING,), kind  # texts only


# --- --fail-on -----------------------------------------------------------------------------


def _exit(tmp_path: Path, run: Run, edit: Edit, *extra: str) -> tuple[int, str]:
    (tmp_path / "old.md").write_text(render(base()), encoding="utf-8")
    (tmp_path / "new.md").write_text(render(edited(edit)), encoding="utf-8")
    code, _, err = run("diff", str(tmp_path / "old.md"), str(tmp_path / "new.md"), *extra)
    return code, err


EVENT_REMOVED = (_with_events, lambda d: (_with_events(d), d["transitions"][0].update(event="x")))


@pytest.mark.parametrize(
    ("edit", "fail_on", "expected"),
    [
        (set_at(("transitions", 0, "trigger"), "shove"), [], 0),  # default: breaking only
        (set_at(("transitions", 0, "trigger"), "shove"), ["--fail-on", "wording"], 1),
        (set_at(("transitions", 0, "trigger"), "shove"), ["--fail-on", "code,data"], 0),
        (lambda d: d["transitions"].pop(3), ["--fail-on", "data"], 1),
        (lambda d: d["transitions"].pop(3), ["--fail-on", "wording"], 0),
        (lambda d: d.update(initial=["closed", "open"]), [], 1),  # initial-state-added: code
        (lambda d: d.update(initial=["closed", "open"]), ["--fail-on", "data"], 0),
        (lambda d: d.update(initial=["closed", "open"]), ["--fail-on", "code"], 1),
        (lambda d: d.update(initial=["closed", "open"]), ["--fail-on", "wording,data"], 0),
        (
            lambda d: d.update(initial=["closed", "open"]),
            ["--fail-on", "data", "--fail-on", "code"],
            1,
        ),
        (lambda d: d.pop("invalid"), ["--fail-on", "wording,code,data"], 0),  # compatible
        (set_at(("title",), "Front door"), [], 0),  # wording class: the default passes
        (set_at(("title",), "Front door"), ["--fail-on", "code"], 1),
        (set_at(("title",), "Front door"), ["--fail-on", " data , "], 1),
    ],
)
def test_fail_on_exit_status(
    tmp_path: Path, run: Run, edit: Edit, fail_on: list[str], expected: int
) -> None:
    assert _exit(tmp_path, run, edit, *fail_on)[0] == expected


def test_fail_on_for_an_event_only_change(tmp_path: Path, run: Run) -> None:
    old_edit, new_edit = EVENT_REMOVED
    old, new = edited(old_edit), edited(new_edit)
    assert _json_two(tmp_path, run, old, new, "--fail-on", "data")[0] == 0
    assert _json_two(tmp_path, run, old, new, "--fail-on", "code")[0] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-on", "dta"], "--fail-on 'dta': not a category; choose from wording, code, data"),
        (["--fail-on", "Code"], "did you mean 'code'?"),
        (["--fail-on", ","], "names no category"),
        (["--fail-on", "code", "--allow-breaking"], "do not combine"),
    ],
)
def test_fail_on_usage_errors_exit_2(
    tmp_path: Path, run: Run, args: list[str], message: str
) -> None:
    code, err = _exit(tmp_path, run, lambda d: None, *args)
    assert code == 2
    assert message in err


def test_an_unreadable_new_version_exits_2_whatever_the_gate(tmp_path: Path, run: Run) -> None:
    (tmp_path / "old.md").write_text(render(base()), encoding="utf-8")
    (tmp_path / "new.md").write_text("no front matter\n", encoding="utf-8")
    code, _, err = run(
        "diff", str(tmp_path / "old.md"), str(tmp_path / "new.md"), "--fail-on", "wording"
    )
    assert code == 2
    assert "cannot compare" in err


# --- every format carries the categories --------------------------------------------------


def test_json_counts_categories_per_change_spec_and_run(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(lambda d: (d["transitions"].pop(3), d.update(title="D"))))
    code, data = diff_json(run)
    assert code == 1
    assert _placed(data) == [
        ("transition-removed", BOTH),
        ("terminal-state-added", NONE),
        ("title-changed", BOTH),
    ]
    assert data["categories"] == {"wording": 0, "code": 2, "data": 2}
    assert data["counts"] == {"breaking": 1, "compatible": 1, "wording": 1}
    [spec] = data["specs"]
    assert spec["categories"] == ["code", "data"]
    assert list(data["categories"]) == [c.value for c in CATEGORIES]


def test_text_and_markdown_show_the_categories(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(set_at(("transitions", 0, "trigger"), "shove")))
    repo.write("specs/gate.md", gate())
    code, out, err = run("diff", "--against", "HEAD")
    assert code == 0
    assert out.splitlines()[1].split()[:3] == ["wording", "wording", "transition-trigger-changed"]
    assert out.splitlines()[4].split()[:3] == ["compatible", "-", "spec-added"]
    assert "By category: 1 wording." in err
    code, out, _ = run("diff", "--against", "HEAD", "--format", "markdown")
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows.count("| class | category | change | details |") == 2  # a table per spec
    cells = [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]
    assert [(c[0], c[1], c[2]) for c in cells if c[0] not in ("class", "---")] == [
        ("wording", "wording", "`transition-trigger-changed`"),
        ("compatible", "-", "`spec-added`"),
    ]


# --- retired states against a git ref -----------------------------------------------------


def test_a_rename_with_a_retirement_is_not_an_unretired_removal(repo: Repo, run: Run) -> None:
    repo.write("specs/door.md", edited(_rename_open_retired))
    code, data = diff_json(run)
    assert code == 1
    retired = [c for c in data["changes"] if c["kind"] == "state-retired"]
    assert [(c["subject"], c["message"], c["categories"]) for c in retired] == [
        ("open", "state 'open' retired: its rows move to 'ajar'", BOTH)
    ]
    assert "state-removed" not in [c["kind"] for c in data["changes"]]
    added = next(c for c in data["changes"] if c["kind"] == "state-added")
    assert added["message"] == "state 'ajar' added (rows of 'open' move to it)"
    # Without the entry the same edit is an unretired removal, hinted as a rename.
    repo.write("specs/door.md", edited(lambda d: (_rename_open_retired(d), d.pop("retired"))))
    code, data = diff_json(run)
    removed = next(c for c in data["changes"] if c["kind"] == "state-removed")
    assert removed["message"] == "state 'open' removed (renamed to 'ajar'?)"
    assert "state-retired" not in [c["kind"] for c in data["changes"]]


def test_the_readme_table_has_a_row_per_kind_in_report_order() -> None:
    rows = placement_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("| `") for row in rows] == list(KINDS)
    assert "| `state-retired` | breaking | code, data | a removed state with" in placement_table()
    assert "| `state-added` | compatible | no one |" in placement_table()
