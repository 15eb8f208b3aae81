"""Whatever is typed, the server answers: half-written YAML, a 4 MB paste, an unclosed fence,
a document whose lint takes long; stale requests are answered as LSP says; it exits with its
client; and nothing of it is on ``statedoc lint``'s import path."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from sample_documents import document

from .conftest import make_project
from .lsp_client import (
    DEADLOCK,
    ROOT,
    Client,
    client,
    expected_diagnostics,
    lint_stdin,
    seen,
)

CONTENT_MODIFIED = -32801


def test_every_prefix_of_a_document_while_it_is_typed(tmp_path: Path) -> None:
    text = document()
    project = make_project(tmp_path / "p", {})
    path = project / "specs" / "typing.md"
    with client(cwd=project) as session:
        uri = session.open(path, "")
        session.diagnostics(uri, 1)
        for cut in range(0, len(text) + 1, 7):
            version = session.replace_all(uri, text[:cut])
            expected = expected_diagnostics(text[:cut], lint_stdin(text[:cut], path, project))
            assert seen(session.diagnostics(uri, version)) == expected


@pytest.mark.parametrize(
    "body",
    [
        "lorem ipsum\n" * 349_000,  # just under the 4 MiB limit
        "lorem ipsum\n" * 350_000,  # just over: SD007
        "```mermaid\nstateDiagram-v2\n  open --> closed\n",  # an unclosed fence
        "```mermaid\n" + "  a --> b\n" * 200_000,  # unclosed, and past Mermaid's size limit
    ],
    ids=["3.9MB", "4.2MB", "unclosed-fence", "unclosed-huge"],
)
def test_large_pastes_and_unclosed_fences(repo_server: Client, body: str) -> None:
    path = ROOT / "specs" / "pasted.md"
    uri = repo_server.open(path, document())
    repo_server.diagnostics(uri, 1)
    text = repo_server.texts[uri]
    version = repo_server.edit(uri, len(text), len(text), body)
    pasted = repo_server.texts[uri]
    assert seen(repo_server.diagnostics(uri, version)) == expected_diagnostics(
        pasted, lint_stdin(pasted, path, ROOT)
    )
    repo_server.close_document(uri)


def slow_document(states: int = 30_000) -> str:
    """Many isolated states (each one initial, as nothing enters it) in a document whose
    diagram draws ``[*]``: linting it takes seconds."""
    names = "".join(f"  - name: s{i}\n" for i in range(states))
    return document().replace("initial: closed\n", "").replace("states:\n", f"states:\n{names}", 1)


def test_a_slow_lint_never_blocks_the_server(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {})
    options = {"statedoc": {"timeout": 2}}
    with client(cwd=project, options=options) as session:
        quick = session.open(project / "specs" / "quick.md", document())
        session.diagnostics(quick, 1)
        slow = session.open(project / "specs" / "slow.md", slow_document())
        # while the slow document is linted, a request on another one is answered
        hover = session.call(
            "text_document_hover_async",
            types.HoverParams(types.TextDocumentIdentifier(quick), types.Position(10, 10)),
        )
        assert hover is not None and "closed" in hover.contents.value

        def gave_up() -> bool:
            return any("took longer than 2 s" in m.message for m in session.client.log_messages)

        assert session.wait_until(gave_up)
        # the next edit is linted normally (a new analysis process serves it)
        version = session.replace_all(slow, document())
        assert seen(session.diagnostics(slow, version)) == []


def test_a_request_on_a_superseded_version_is_content_modified(tmp_path: Path) -> None:
    """A hover queued behind a slow request (code actions lint the document) is answered
    ContentModified once an edit makes its version stale."""
    project = make_project(tmp_path / "p", {})
    with client(cwd=project, options={"statedoc": {"timeout": 2}}) as session:
        uri = session.open(project / "specs" / "slow.md", slow_document())
        document_id = types.TextDocumentIdentifier(uri)
        everywhere = types.Range(types.Position(0, 0), types.Position(0, 0))

        async def requests_then_edit() -> tuple[asyncio.Task[object], asyncio.Task[object]]:
            client = session.client
            slow = asyncio.ensure_future(
                client.text_document_code_action_async(
                    types.CodeActionParams(document_id, everywhere, types.CodeActionContext([]))
                )
            )
            hover = asyncio.ensure_future(
                client.text_document_hover_async(
                    types.HoverParams(document_id, types.Position(12, 10))
                )
            )
            await asyncio.sleep(0)  # both requests are on the wire before the edit
            session.replace_all(uri, document())
            return slow, hover

        slow_task, hover_task = session.run(requests_then_edit())
        slow = asyncio.run_coroutine_threadsafe(_wait(slow_task), session.loop)
        pending = asyncio.run_coroutine_threadsafe(_wait(hover_task), session.loop)
        with pytest.raises(JsonRpcException) as stale:
            pending.result(DEADLOCK)
        assert stale.value.code == CONTENT_MODIFIED
        with contextlib.suppress(JsonRpcException):  # answered or refused, never hung
            slow.result(DEADLOCK)
        version = session.versions[uri]
        assert seen(session.diagnostics(uri, version)) == []


async def _wait(task: asyncio.Task[object]) -> object:
    return await task


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(c) for c in (task / "children").read_text().split())
    return found


def gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


def test_exit_after_shutdown_stops_both_processes(tmp_path: Path) -> None:
    session = Client(cwd=make_project(tmp_path / "p", {}))
    uri = session.open(tmp_path / "p" / "specs" / "a.md", document())
    session.diagnostics(uri, 1)
    workers = children(session.process.pid)
    assert workers  # the analysis process
    assert session.shutdown() == 0
    assert all(gone(pid) for pid in workers)


def test_the_server_exits_when_its_client_closes_the_pipe(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", {})
    server = subprocess.Popen(
        [sys.executable, "-m", "generator", "server"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None
    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
        b'{"processId":null,"rootUri":null,"capabilities":{}}}'
    )
    server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    server.stdin.flush()
    assert server.stdout is not None
    assert server.stdout.readline().startswith(b"Content-Length")
    workers = children(server.pid)
    assert workers  # the analysis workers run: the check below is not over an empty list
    server.stdin.close()  # the editor went away without shutdown/exit
    assert server.wait(DEADLOCK) == 1  # LSP: exit without shutdown is 1
    assert all(gone(pid) for pid in workers)


def test_lint_never_imports_the_server(tmp_path: Path) -> None:
    spec = ROOT / "specs" / "network" / "tcp" / "connection.md"
    code = (
        "import sys\n"
        "from generator.cli.main import main\n"
        f"main(['lint', '--no-cache', {str(spec)!r}])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', "
        "'cattrs') or m.startswith('generator.server'))\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "pygls" not in out.stderr and "generator.server" not in out.stderr
    assert "generator.lint.document" in out.stderr  # importtime did list the lint path


def test_without_the_extra_the_command_says_how_to_install_it() -> None:
    code = (
        "import sys\n"
        "class Missing:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Missing())\n"
        "from generator.cli.main import main\n"
        "sys.exit(main(['server']))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 2
    assert "pip install 'statedoc[server]'" in out.stderr
    assert "Traceback" not in out.stderr


def test_console_script_and_module_both_serve() -> None:
    script = Path(sys.executable).with_name("statedoc")
    for command in (
        [str(script), "server", "--help"],
        [sys.executable, "-m", "generator", "server", "--help"],
    ):
        out = subprocess.run(command, capture_output=True, text=True, check=True, env=os.environ)
        assert "Language Server Protocol" in out.stdout
