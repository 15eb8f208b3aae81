"""The server's handle on its analysis process (:mod:`generator.server.worker`).

Calls are answered through asyncio futures, so the protocol loop never waits on a lint. A
job that runs past the timeout, or a diagnostics run that a newer edit of the same document
made pointless and that is slow, is stopped by killing the process; a new one is started and
the server replays the open buffers into it (:attr:`Worker.on_restart`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from generator.server.worker import read_frame, write_frame

#: A diagnostics run older than this is stopped when an edit of its document supersedes it.
SUPERSEDE_AFTER = 0.25


class WorkerGoneError(Exception):
    """The analysis process stopped (killed for a newer edit, or crashed) before answering."""


class JobFailedError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "stale", "refused", "internal" or "timeout"
        self.message = message


class _Job:
    __slots__ = ("future", "key", "name", "started")

    def __init__(self, future: asyncio.Future[Any], name: str, key: str | None) -> None:
        self.future = future
        self.name = name
        self.key = key
        self.started: float | None = None


class Worker:
    def __init__(self, loop: asyncio.AbstractEventLoop, log: Callable[[str], None]) -> None:
        self.loop = loop
        self.log = log
        self.timeout = 20.0
        self.on_restart: Callable[[], None] = lambda: None
        self._numbers = itertools.count(1)
        self._jobs: dict[int, _Job] = {}
        self._current: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._outbox: queue.Queue[object] | None = None
        self._generation = 0
        self._closing = False
        self._overdue: set[int] = set()
        self._watchdog: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Start a process (the old one, if any, is already gone)."""
        self._generation += 1
        generation = self._generation
        process = subprocess.Popen(
            [sys.executable, "-m", "generator.server.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._process = process
        outbox: queue.Queue[object] = queue.Queue()
        self._outbox = outbox
        threading.Thread(target=self._write, args=(process, outbox), daemon=True).start()
        threading.Thread(target=self._read, args=(process, generation), daemon=True).start()
        self._arm()

    def _write(self, process: subprocess.Popen[bytes], outbox: queue.Queue[object]) -> None:
        stream = process.stdin
        assert stream is not None
        while True:
            message = outbox.get()
            if message is None:
                break
            try:
                write_frame(stream, message)
            except (BrokenPipeError, OSError, ValueError):
                break
        with contextlib.suppress(OSError):
            stream.close()

    def _read(self, process: subprocess.Popen[bytes], generation: int) -> None:
        stream = process.stdout
        assert stream is not None
        while True:
            try:
                message = read_frame(stream)
            except Exception:  # a torn frame from a killed process
                message = None
            if message is None:
                break
            if not self._tell(self._received, generation, message):
                return
        process.wait()
        self._tell(self._exited, generation)

    def _tell(self, callback: Callable[..., None], *args: object) -> bool:
        """Hand a message to the loop; False once the loop is gone (the server is exiting)."""
        try:
            self.loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the event loop is closed
            return False
        return True

    def send(self, *message: object) -> None:
        """A state message (applied by the process before any job that follows it)."""
        if self._outbox is not None:
            self._outbox.put(message)

    async def call(self, name: str, *args: object, key: str | None = None) -> Any:
        if self._outbox is None:
            raise WorkerGoneError("the analysis process is not running")
        number = next(self._numbers)
        future: asyncio.Future[Any] = self.loop.create_future()
        self._jobs[number] = _Job(future, name, key)
        self._outbox.put(("job", number, name, args))
        try:
            return await future
        finally:
            self._jobs.pop(number, None)

    def _received(self, generation: int, message: tuple[Any, ...]) -> None:
        if generation != self._generation:
            return
        kind, number = message[0], message[1]
        job = self._jobs.get(number)
        if kind == "started":
            self._current = number
            if job is not None:
                job.started = time.monotonic()
            return
        if self._current == number:
            self._current = None
        if job is None or job.future.done():
            return
        if kind == "done":
            job.future.set_result(message[2])
        else:
            job.future.set_exception(JobFailedError(message[2], message[3]))

    def _exited(self, generation: int) -> None:
        if generation != self._generation:
            return
        self._current = None
        for number, job in list(self._jobs.items()):
            if not job.future.done():
                if number in self._overdue:
                    job.future.set_exception(
                        JobFailedError("timeout", f"gave up after {self.timeout:g} s")
                    )
                else:
                    job.future.set_exception(WorkerGoneError("the analysis process stopped"))
        self._jobs.clear()
        self._overdue.clear()
        if self._outbox is not None:
            self._outbox.put(None)
        self._outbox = None
        if not self._closing:
            self.start()
            self.on_restart()

    def _kill(self, reason: str) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            self.log(f"statedoc: restarting the analysis process ({reason})")
            process.kill()

    def running(self) -> _Job | None:
        return self._jobs.get(self._current) if self._current is not None else None

    def supersede(self, key: str) -> None:
        """An edit of ``key`` arrived: stop its diagnostics run if that one is slow."""
        job = self.running()
        if (
            job is not None
            and job.key == key
            and job.name == "diagnose"
            and job.started is not None
            and time.monotonic() - job.started > SUPERSEDE_AFTER
        ):
            self._kill("a newer edit replaces a slow lint")

    def _arm(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        if not self._closing:
            self._watchdog = self.loop.call_later(0.1, self._check)

    def _check(self) -> None:
        job = self.running()
        started = job.started if job is not None else None
        current = self._current
        late = started is not None and time.monotonic() - started > self.timeout
        if job is not None and current is not None and late:
            self._overdue.add(current)
            self._kill(f"a {job.name} job took longer than {self.timeout:g} s")
        self._arm()

    def close(self) -> None:
        self._closing = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._outbox is not None:
            self._outbox.put(None)
        process = self._process
        if process is not None and process.poll() is None:
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
