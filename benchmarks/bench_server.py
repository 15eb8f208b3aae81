"""Language server latency: diagnostics after one keystroke, next to a cold ``lint -``.

    python benchmarks/bench_server.py [--keystrokes 200] [--cold 10]

For each seed document (``specs/**/*.md``) a warm ``statedoc server`` (a real LSP client over
stdio) gets one-character edits inside a state's meaning, alternately typed and deleted, and
the time from sending ``didChange`` to receiving that version's ``publishDiagnostics`` is
measured (wall clock: latency is what a user waits). In the same run ``statedoc lint
--stdin-filename PATH -`` lints the same text in a new process each time. Goals: p95 at or
under 10 ms, and the cold process at least 5x slower than the warm p95.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from lsprotocol import types  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def warm(paths: list[Path], keystrokes: int) -> dict[Path, list[float]]:
    """Per document, the seconds from each keystroke to its diagnostics."""
    arrived: dict[tuple[str, int | None], float] = {}
    waiting: dict[tuple[str, int | None], asyncio.Future[float]] = {}

    def publish(ls: Any, params: types.PublishDiagnosticsParams) -> None:
        key = (params.uri, params.version)
        arrived[key] = time.perf_counter()
        future = waiting.pop(key, None)
        if future is not None and not future.done():
            future.set_result(arrived[key])

    def register(ls: Any, params: types.RegistrationParams) -> None:
        return None

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
        },
    )
    await client.start_io(sys.executable, "-m", "generator", "server", cwd=str(ROOT))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=ROOT.as_uri()
        )
    )

    async def diagnostics(uri: str, version: int) -> float:
        key = (uri, version)
        if key in arrived:
            return arrived[key]
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        waiting[key] = future
        return await future

    results: dict[Path, list[float]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
            )
        )
        await diagnostics(uri, 1)
        line = next(i for i, t in enumerate(text.splitlines()) if "meaning:" in t)
        column = text.splitlines()[line].index("meaning:") + len("meaning: ")
        at = types.Position(line, column)
        times = []
        for version in range(2, keystrokes + 2):
            typed = version % 2 == 0
            end = at if typed else types.Position(line, column + 1)
            change = types.TextDocumentContentChangePartial(
                range=types.Range(at, end), text="x" if typed else ""
            )
            start = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]
                )
            )
            times.append(await diagnostics(uri, version) - start)
        results[path] = times
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
        )
    await client.shutdown_session()
    await client.stop()
    return results


def cold(path: Path, runs: int) -> list[float]:
    """Seconds for ``statedoc lint --stdin-filename PATH -`` in a new process, each run."""
    data = path.read_bytes()
    command = [sys.executable, "-m", "generator", "lint", "--stdin-filename", str(path), "-"]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, input=data, cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keystrokes", type=int, default=200)
    parser.add_argument("--cold", type=int, default=10, help="cold lint - runs per document")
    args = parser.parse_args()
    paths = sorted((ROOT / "specs").rglob("*.md"))
    latencies = asyncio.run(warm(paths, args.keystrokes))
    every: list[float] = []
    every_cold: list[float] = []
    print(f"{'document':56} {'median':>8} {'p95':>8} {'cold lint -':>12} {'cold/p95':>9}")
    for path in paths:
        times = latencies[path]
        cold_times = cold(path, args.cold)
        every += times
        every_cold += cold_times
        ratio = statistics.median(cold_times) / p95(times)
        print(
            f"{path.relative_to(ROOT).as_posix():56} {statistics.median(times) * 1e3:7.2f}ms "
            f"{p95(times) * 1e3:7.2f}ms {statistics.median(cold_times) * 1e3:10.1f}ms "
            f"{ratio:8.1f}x"
        )
    overall = p95(every)
    ratio = statistics.median(every_cold) / overall
    print(
        f"{'all':56} {statistics.median(every) * 1e3:7.2f}ms {overall * 1e3:7.2f}ms "
        f"{statistics.median(every_cold) * 1e3:10.1f}ms {ratio:8.1f}x"
    )
    print(
        f"goal: p95 <= 10 ms ({'met' if overall <= 0.010 else 'NOT met'}), "
        f"cold lint - >= 5x the warm p95 ({'met' if ratio >= 5 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
