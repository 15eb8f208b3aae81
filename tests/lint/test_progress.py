"""The progress bar: on a real terminal only, never for -q, machine formats or CI."""

from __future__ import annotations

import io
import os
import pty
from collections.abc import Iterator
from pathlib import Path

import pytest
from sample_documents import DOOR, document

from generator.cli import main
from generator.run import progress
from generator.run.progress import Progress, wanted


class Terminal:
    """A real pseudo-terminal: ``stream`` writes to it, :meth:`read` gets what was shown."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        self.stream = open(slave, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def read(self) -> str:
        self.stream.flush()
        chunks = []
        os.set_blocking(self.master, False)
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode()

    def close(self) -> None:
        self.stream.close()
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    yield term
    term.close()


def test_wanted_only_for_people_at_a_terminal(terminal: Terminal) -> None:
    assert wanted(terminal.stream, quiet=False, fmt="text", environ={})
    assert wanted(terminal.stream, quiet=False, fmt="text", environ={"CI": "false"})
    assert not wanted(terminal.stream, quiet=True, fmt="text", environ={})
    assert not wanted(terminal.stream, quiet=False, fmt="text", environ={"CI": "true"})
    for fmt in ("json", "github", "sarif", "junit"):
        assert not wanted(terminal.stream, quiet=False, fmt=fmt, environ={})
    read, write = os.pipe()
    with open(write, "w") as pipe:
        assert not wanted(pipe, quiet=False, fmt="text", environ={})
    os.close(read)
    assert not wanted(io.StringIO(), quiet=False, fmt="text", environ={})


def test_nothing_before_the_delay_then_a_bar_then_erased(terminal: Terminal) -> None:
    now = [0.0]
    bar = Progress(10, terminal.stream, delay=1.0, clock=lambda: now[0], width=10)
    now[0] = 0.5
    bar(3)
    assert terminal.read() == ""  # a quick run prints nothing extra
    now[0] = 1.5
    bar(2)
    shown = terminal.read()
    assert shown == "\r[=====>    ] 5/10 files"
    now[0] = 1.55
    bar(1)
    assert terminal.read() == ""  # no redraw more often than every 0.1 s
    now[0] = 2.0
    bar(4)
    assert terminal.read() == "\r[==========] 10/10 files"
    bar.close()
    assert terminal.read() == "\r" + " " * len("[==========] 10/10 files") + "\r"


@pytest.fixture
def many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.statedoc]\nspecs = "specs"\n')
    specs = tmp_path / "specs"
    specs.mkdir()
    for n in range(60):  # enough for worker processes (-j2)
        (specs / f"d{n}.md").write_text(document(DOOR).replace("DOR-001", f"DOR-{n:03d}"))
    monkeypatch.chdir(tmp_path)
    for var in ("CI", "STATEDOC_FORMAT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(progress, "DELAY", 0.0)  # show it at once: no test waits a second
    return tmp_path


def _lint(terminal: Terminal, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.setattr("sys.stderr", terminal.stream)
    code = main(["lint", "--no-cache", "-j2", *args])
    return code, terminal.read()


def test_lint_draws_and_erases_the_bar(
    many: Path, terminal: Terminal, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, shown = _lint(terminal, monkeypatch)
    assert code == 0
    assert "/60 files" in shown and shown.startswith("\r[")
    bar = shown.replace("\r\n", "\n").split("\r")  # the terminal shows "\n" as "\r\n"
    assert bar[-2].strip() == "" and bar[-1] == "All clean: 60 files checked.\n"  # erased first


@pytest.mark.parametrize(
    ("args", "env"), [(("-q",), {}), (("--format", "json"), {}), ((), {"CI": "true"})]
)
def test_lint_without_a_bar(
    many: Path,
    terminal: Terminal,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    env: dict[str, str],
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code, shown = _lint(terminal, monkeypatch, *args)
    assert code == 0 and "/60 files" not in shown and "\r[" not in shown
