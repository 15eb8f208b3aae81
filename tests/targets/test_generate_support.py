"""Shared pieces of the ``test_generate_*`` files (imported by them), and checks of the pieces.

Specs are written as real Markdown files with YAML front matter and go through the real
pipeline (discover -> lint -> render -> write): nothing is stubbed. Strings are written as
YAML double-quoted scalars with every character that YAML would fold, strip or reject
escaped, so any text reaches the model exactly.
"""

from __future__ import annotations

import importlib.util
import itertools
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generator.cli import main
from generator.lint.document import lint_bytes

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {
    "queries": ROOT / "specs/platform/queries/workspace-export-delivery.md",
    "tenant": ROOT / "specs/platform/tenant-lifecycle/provisioning-attempt.md",
}
SEED_MODULES = {
    "queries": "platform/queries/workspace_export_delivery",
    "tenant": "platform/tenant_lifecycle/provisioning_attempt",
}
PYPROJECT = '[tool.statedoc]\nspecs = "specs"\nout = "generated"\n'

_counter = itertools.count()


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar that loads back as exactly ``text``."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F or (
            code > 0x9F and char.isprintable() and char not in "\u2028\u2029\ufeff"
        ):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _yaml(value: Any, indent: str) -> list[str]:
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, Mapping):
            lines.append(f"{indent}{key}:")
            lines.extend(_yaml(item, indent + "  "))
        elif isinstance(item, list) and item and isinstance(item[0], Mapping):
            lines.append(f"{indent}{key}:")
            for entry in item:
                inner = _yaml(entry, indent + "    ")
                lines.append(f"{indent}  - {inner[0].lstrip()}")
                lines.extend(inner[1:])
        elif isinstance(item, list):
            lines.append(f"{indent}{key}: [{', '.join(yaml_str(i) for i in item)}]")
        elif isinstance(item, bool | int):
            lines.append(f"{indent}{key}: {str(item).lower()}")
        else:
            lines.append(f"{indent}{key}: {yaml_str(item)}")
    return lines


def spec_text(
    states: Sequence[str] = ("open", "closed"),
    transitions: Sequence[Mapping[str, Any]] = (
        {"from": "closed", "to": "open", "trigger": "open it"},
        {"from": "open", "to": "closed", "trigger": "close it"},
    ),
    invalid: Sequence[Mapping[str, Any]] = (),
    *,
    title: str = "Door",
    spec_id: str = "STATE-TST-GEN-001",
    area: str = "testing",
    module: str = "doors",
    revision: int = 1,
    initial: str | list[str] | None = "closed",
    meanings: Mapping[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """A spec document (front matter only, no diagram: SD301 is a warning)."""
    data: dict[str, Any] = {
        "id": spec_id,
        "title": title,
        "object": "DOM-TST-GEN-001",
        "product_area": area,
        "module": module,
        "revision": revision,
        "status": "draft",
    }
    if initial is not None:
        data["initial"] = initial
    data.update(extra or {})
    data["states"] = [
        {"name": s, **({"meaning": meanings[s]} if meanings and s in meanings else {})}
        for s in states
    ]
    data["transitions"] = [dict(t) for t in transitions]
    if invalid:
        data["invalid"] = [dict(i) for i in invalid]
    return "---\n" + "\n".join(_yaml(data, "")) + "\n---\n\n# Door\n"


def lint_errors(text: str) -> list[str]:
    result = lint_bytes(text.encode("utf-8"), "spec.md")
    return [f"{f.code} {f.message}" for f in result.findings if f.severity.value == "error"]


def make_project(root: Path, specs: Mapping[str, str] | None = None, *, seeds: bool = True) -> Path:
    """A project folder: ``pyproject.toml``, ``specs/`` with the seeds and ``specs``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    if seeds:
        for path in SEEDS.values():
            target = root / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    for relative, text in (specs or {}).items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    return root


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def load_module(path: Path) -> ModuleType:
    """Import a generated module from its file under a fresh, unique name."""
    name = f"statedoc_test_generated_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (no caches) by POSIX path."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def pairs(module: ModuleType) -> Iterator[tuple[Any, Any]]:
    return itertools.product(module.State, repeat=2)


# --- hostile specs -----------------------------------------------------------------------

HOSTILE_TEXT = [
    "quotes ' \" ''' \"\"\" end\\",
    "back\\slash \\n \\x00 \\u2028 \\",
    "template {{ State }} {% raise %} {# x #} ${x} %s {0}",
    "nul \x00 controls \x01\x1b\x7f c1 \x80\x9f",
    "lines\nnext\r\nwindows\rold mac\n",
    "separators \u2028 \u2029 nel \x85 vt \x0b ff \x0c",
    "emoji 😀👍🏽 rtl \u202e zwsp \u200b bom \ufeff",
    '"""\nimport os\nos.system("boom")\n"""',
    "  leading and trailing spaces  ",
    "",
]

HOSTILE_STATES = [
    "class",
    "None",
    "match",
    "case",
    "type",
    "_",
    "2fa",
    "in-progress",
    "on hold",
    "état",
    "状态",
    "__init__",
    "name",
    "value",
    "mro",
    "😀",
    "../../x",
    "a" * 120,
]


def hostile_project(root: Path) -> Path:
    """The seeds plus specs with hostile text, names and titles (all lint clean)."""
    hostile_transitions = [
        {"from": a, "to": b, "trigger": f"{a} -> {b}"}
        for a, b in itertools.pairwise(HOSTILE_STATES)
    ]
    specs = {
        "specs/hostile/text.md": spec_text(
            ["start", "middle", "end"],
            [
                {
                    "from": "start",
                    "to": "middle",
                    "trigger": HOSTILE_TEXT[0],
                    "guard": HOSTILE_TEXT[1],
                    "side_effects": HOSTILE_TEXT,
                    "who": HOSTILE_TEXT[2],
                    "provenance": "observed",
                    "source": "repo:" + HOSTILE_TEXT[3],
                },
                {"from": "middle", "to": "end", "trigger": HOSTILE_TEXT[7]},
            ],
            [{"from": "end", "to": "start", "why": text} for text in HOSTILE_TEXT[4:5]]
            + [{"from": "middle", "to": "start", "why": "".join(HOSTILE_TEXT)}],
            title="Hostile \"\"\" title ''' {{ x }} \\ \x00 \u2028 😀",
            spec_id="STATE-TST-HOS-001",
            initial="start",
            module="text",
            meanings={"start": "".join(HOSTILE_TEXT), "middle": HOSTILE_TEXT[7]},
            extra={"source_sha": {"repo": "0123456789" * 4}},
        ),
        "specs/hostile/names.md": spec_text(
            HOSTILE_STATES,
            hostile_transitions,
            [{"from": HOSTILE_STATES[-1], "to": HOSTILE_STATES[0], "why": "no way back"}],
            title="../../x",
            spec_id="STATE-TST-HOS-002",
            initial=HOSTILE_STATES[0],
            module="names",
            meanings=dict(zip(HOSTILE_STATES[::2], HOSTILE_TEXT, strict=False)),
        ),
        "specs/hostile/cycle.md": spec_text(
            ["a", "b", "c", "d"],
            [
                {"from": "a", "to": "b", "trigger": "t1"},
                {"from": "b", "to": "c", "trigger": "t2"},
                {"from": "c", "to": "a", "trigger": "t3"},
                {"from": "b", "to": "d", "trigger": "t4"},
                {"from": "d", "to": "a", "trigger": "t5"},
                {"from": "c", "to": "c", "trigger": "stay"},
            ],
            [
                {"from": "c", "to": "b", "why": "no going back from c"},
                {"from": "a", "to": "d", "why": "d only after b"},
            ],
            title="Cycle",
            spec_id="STATE-TST-HOS-003",
            initial="a",
            module="cycle",
        ),
        "specs/hostile/two-starts.md": spec_text(
            ["x", "y", "z"],
            [{"from": "x", "to": "z", "trigger": "go"}, {"from": "y", "to": "z", "trigger": "go"}],
            title="State",
            spec_id="STATE-TST-HOS-004",
            initial=None,
            module="starts",
        ),
        "specs/hostile/unicode-title.md": spec_text(
            title="État du système",
            spec_id="STATE-TST-HOS-005",
            module="unicode",
        ),
        "specs/hostile/keyword-title.md": spec_text(
            title="class",
            spec_id="STATE-TST-HOS-006",
            module="keyword",
        ),
        "specs/hostile/machine-title.md": spec_text(
            title="Machine",
            spec_id="STATE-TST-HOS-007",
            module="machine",
        ),
        "specs/hostile/builtin-title.md": spec_text(
            title="Value error",
            spec_id="STATE-TST-HOS-008",
            module="builtin",
        ),
    }
    for relative, text in specs.items():
        assert lint_errors(text) == [], relative
    make_project(root, specs)
    return root


# --- checks of the pieces above -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "",
        'q"uote\\',
        "nul\x00 nel\x85 ls\u2028 ps\u2029 bom\ufeff",
        "tab\t cr\r lf\n",
        "😀 état 状态",
        "\x7f\x80\x9f\xa0",
        "  lead and trail  ",
    ],
)
def test_yaml_str_round_trips(text: str) -> None:
    from generator.load import strict_yaml as yamlload

    loaded, problems = yamlload.load(f"k: {yaml_str(text)}\n", 0)
    assert problems == [] and loaded is not None
    assert loaded.value == {"k": text}


def test_spec_text_lints_clean() -> None:
    assert lint_errors(spec_text()) == []


def test_seeds_are_the_committed_specs() -> None:
    for path in SEEDS.values():
        assert lint_errors(path.read_text(encoding="utf-8")) == []
