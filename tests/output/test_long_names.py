"""Generated names and paths at and past the file system's limits (``NAME_MAX`` bytes for a
name, ``PATH_MAX`` for a path): what fits is written through its temp file like any other
file, what does not is an SD409 finding at the document's title on every run (never an
``OSError`` and exit 2), and the other documents are still generated and checked.

Everything runs the real CLI on real files in a temp folder; the limits are asked of the file
system the test runs on (``os.pathconf``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.cli import main
from generator.model.names import snake_name

SPECS = Path("specs/platform/queries")
GENERATED = Path("generated/platform/queries")
#: The titles' characters: one byte, two and three in UTF-8.
CHARACTERS = {"ascii": "l", "latin": "é", "cjk": "日"}


def title_of(char: str, size: int) -> str:
    """A title whose module name is ``size`` bytes of UTF-8: ``char`` repeated, then ASCII."""
    width = len(char.encode("utf-8"))
    title = char * (size // width) + "l" * (size % width)
    assert len(snake_name(title).encode("utf-8")) == size
    return title


def project(root: Path, targets: tuple[str, ...] = ("python",), out: str = "generated") -> None:
    listed = ", ".join(f'"{t}"' for t in targets)
    (root / "pyproject.toml").write_text(
        f'[tool.statedoc]\nspecs = "specs"\nout = "{out}"\ntargets = [{listed}]\n',
        encoding="utf-8",
    )


def add(name: str, title: str) -> Path:
    """A lint-clean spec made by ``statedoc new``."""
    path = SPECS / f"{name}.md"
    assert main(["new", path.as_posix(), "--title", title]) == 0
    return path


def title_line(path: Path) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith("title:"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]], str]:
    capsys.readouterr()
    code = main([*args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else [], err


RUNS = (["generate"], ["generate"], ["check"], ["generate", "--check"], ["build"])


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEDOC_FORMAT", raising=False)
    return tmp_path


@pytest.mark.parametrize("char", CHARACTERS.values(), ids=CHARACTERS.keys())
def test_a_name_one_byte_over_the_limit_is_a_finding_on_every_run(
    repo: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    project(repo)
    over = os.pathconf(repo, "PC_NAME_MAX") + 1
    long = add("long", title_of(char, over - len(".py")))
    add("ok", "Ok")
    for args in RUNS:
        code, findings, err = run(capsys, *args)
        assert code == 1, (args, err)
        assert "statedoc: error" not in err and "Traceback" not in err, (args, err)
        assert [(f["path"], f["code"], f["line"]) for f in findings] == [
            (long.as_posix(), "SD409", title_line(long))
        ], args
        assert f"{over} bytes" in str(findings[0]["message"]), findings
        assert (repo / GENERATED / "ok.py").is_file(), args  # the other one is generated


@pytest.mark.parametrize("char", CHARACTERS.values(), ids=CHARACTERS.keys())
@pytest.mark.parametrize(("target", "suffix"), [("python", ".py"), ("mermaid", ".mmd")])
def test_a_name_of_exactly_the_limit_is_written_and_kept_fresh(
    repo: Path, capsys: pytest.CaptureFixture[str], char: str, target: str, suffix: str
) -> None:
    """The file's own name fits; the temp file written beside it would not, unless its name is
    cut: it is, so the file is written, and no temp file is left behind."""
    project(repo, (target,))
    limit = os.pathconf(repo, "PC_NAME_MAX")
    title = title_of(char, limit - len(suffix))
    add("edge", title)
    for args in (["generate"], ["generate"], ["check"], ["build"]):
        code, findings, err = run(capsys, *args)
        assert (code, findings) == (0, []), (args, err)
    name = snake_name(title) + suffix
    assert len(name.encode("utf-8")) == limit
    written = repo / GENERATED / name
    assert written.read_bytes().split(b"\n", 1)[0].endswith(b"DO NOT EDIT.")
    assert not [n for n in os.listdir(repo / GENERATED) if n.endswith(".tmp")]


def test_a_spec_named_at_the_limit_has_its_diagram_redrawn(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Edits of a document go through a temp file beside it too."""
    project(repo)
    limit = os.pathconf(repo, "PC_NAME_MAX")
    made = add("short", "Edge")
    spec = made.with_name("s" * (limit - len(".md")) + ".md")
    os.rename(made, spec)  # `new` itself writes through a temp name of its own
    text = spec.read_text(encoding="utf-8")
    edge = next(line for line in text.splitlines(keepends=True) if "pending --> done" in line)
    spec.write_text(text.replace(edge, ""), encoding="utf-8")
    assert run(capsys, "diagram", "--check")[0] == 1
    code, findings, err = run(capsys, "diagram", "--write")
    assert (code, findings) == (0, []), err
    assert "pending --> done" in spec.read_text(encoding="utf-8")
    assert run(capsys, "diagram", "--check")[:2] == (0, [])
    assert run(capsys, "build")[:2] == (0, [])
    assert not [n for n in os.listdir(spec.parent) if n.endswith(".tmp")]


def filler(size: int) -> str:
    """A relative path of exactly ``size`` bytes, in names of at most 202 bytes."""
    parts = []
    while size > 202:
        parts.append("d" * 200)
        size -= 201
    return "/".join([*parts, "d" * size])


def _deep_out(root: Path, room: int) -> str:
    """An output folder (relative to ``root``) that leaves ``room`` bytes for a module's name
    in ``<out>/platform/queries/`` below ``PATH_MAX`` (a path must be shorter than it)."""
    below = len("/platform/queries/")
    out = filler(os.pathconf(root, "PC_PATH_MAX") - 1 - room - below - len(os.fsencode(root)) - 1)
    assert len(os.fsencode(root / out / "platform/queries")) + 1 + room == (
        os.pathconf(root, "PC_PATH_MAX") - 1
    )
    return out


def test_a_path_of_path_max_is_refused_one_byte_shorter_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    room = 200  # bytes of the module's name: far more than its temp file's needs
    out = _deep_out(repo, room)
    project(repo, out=out)
    fits = add("fits", title_of("l", room - len(".py")))
    over = add("over", title_of("é", room + 1 - len(".py")))
    for args in RUNS:
        code, findings, err = run(capsys, *args)
        assert code == 1 and "statedoc: error" not in err, (args, err)
        assert [(f["path"], f["code"], f["line"]) for f in findings] == [
            (over.as_posix(), "SD409", title_line(over))
        ], args
        assert "in a path" in str(findings[0]["message"])
    module = repo / out / "platform/queries" / (snake_name(title_of("l", room - 3)) + ".py")
    assert len(os.fsencode(module)) == os.pathconf(repo, "PC_PATH_MAX") - 1
    assert module.is_file() and fits.is_file()


def test_a_project_whose_cache_folder_is_past_path_max_still_lints_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``.statedoc_cache/v3`` (and every cache entry and the signature index in it) lies past
    ``PATH_MAX`` while ``pyproject.toml`` and the spec do not: the caches are off, silently,
    and the generated module that cannot be written is a finding."""
    want = os.pathconf(tmp_path, "PC_PATH_MAX") - len("/.statedoc_cache/v3")  # then PATH_MAX
    root = os.path.join(tmp_path, filler(want - len(os.fsencode(tmp_path)) - 1))
    assert len(os.fsencode(root)) == want
    os.makedirs(root)
    (Path(root) / "s").mkdir()
    monkeypatch.chdir(root)
    Path("pyproject.toml").write_text('[tool.statedoc]\nspecs = "s"\n', encoding="utf-8")
    source = tmp_path / "made"
    source.mkdir()
    with monkeypatch.context() as inner:  # a spec made elsewhere, moved in
        inner.chdir(source)
        project(source)
        made = add("a", "A")
        os.rename(source / made, Path(root) / "s" / "a.md")
    assert run(capsys, "lint")[:2] == (0, [])
    for args in RUNS:
        code, findings, err = run(capsys, *args)
        assert code == 1 and "statedoc: error" not in err, (args, err)
        assert {f["code"] for f in findings} == {"SD409"}, args
        # the document at its title; the package files of the output folder at their paths
        spec = [f["line"] for f in findings if f["path"] == "s/a.md"]
        assert spec == [title_line(Path("s/a.md"))], args
        others = [str(f["path"]) for f in findings if f["path"] != "s/a.md"]
        assert all(path.startswith("generated/") for path in others), args
