"""A small process pool for linting, built to stop cleanly.

``concurrent.futures`` and ``multiprocessing.Pool`` keep feeder and manager threads and
shared queues that can block interpreter exit once workers have been killed (a cancelled
future then gets an exception set on it, a feeder thread waits on a full pipe), and the caller
waits on our stdout for ever. Here each worker has one duplex pipe and a strict rhythm
(chunk in, results out), so there is nothing to drain: stopping is terminate, join, close.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Generic, TypeVar

from generator.lint.document import FileResult
from generator.lint.files import PARALLEL_MIN
from generator.load.discover import SpecFile
from generator.run.interrupt import (
    await_signal,
    held_signals,
    in_worker,
    stop_workers,
    worker_init,
)

T = TypeVar("T")
R = TypeVar("R")


class WorkerDiedError(RuntimeError):
    """A worker ended without being asked to (killed from outside, out of memory)."""


def _serve(conn: Connection, work: Callable[[T], R], parent: int, siblings: list[int]) -> None:
    worker_init(parent)
    for fd in siblings:  # forked copies of the parent's ends of earlier workers' pipes
        with contextlib.suppress(OSError):
            os.close(fd)
    while True:
        try:
            chunk: list[T] | None = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        conn.send([in_worker(work, item) for item in chunk])


class _Worker(Generic[T]):
    def __init__(self, process: multiprocessing.process.BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.start = 0  # where the chunk it is working on starts in ``items``


def run_parallel(
    work: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    chunk: int,
    tick: Callable[[int], None],
) -> list[R]:
    """``[work(item) for item in items]`` in ``workers`` processes (see :func:`iter_parallel`)."""
    with contextlib.closing(iter_parallel(work, items, workers, chunk, tick)) as results:
        return list(results)


def iter_parallel(
    work: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    chunk: int,
    tick: Callable[[int], None],
) -> Generator[R, None, None]:
    """``work(item)`` for each item, in ``workers`` processes ``chunk`` items at a time, yielded
    in the order of ``items`` as soon as each is ready (a result that comes early waits only
    for those before it, so the caller can stream); ``tick(n)`` after each ``n`` results. On
    any way out but success (Ctrl-C, SIGTERM, a worker that died, the caller closing the
    iterator) every worker is terminated before the exception goes on."""
    # A chunk is sent as a slice alone: the parent remembers where each worker's chunk
    # starts, so neither side builds or pickles an index per item.
    todo: Iterator[tuple[int, list[T]]] = (
        (start, list(items[start : start + chunk])) for start in range(0, len(items), chunk)
    )
    early: dict[int, list[R]] = {}  # results of later chunks by start, waiting for earlier ones
    following_index = 0
    pool: dict[Connection, _Worker[T]] = {}
    finished = False
    forking = multiprocessing.get_start_method() == "fork"
    try:
        for _ in range(min(workers, -(-len(items) // chunk))):
            ours, theirs = multiprocessing.Pipe(duplex=True)
            # A forked worker holding the parent's end of another worker's pipe would keep that
            # worker waiting for work after the parent died: close them (fork only: under
            # spawn those descriptor numbers mean nothing in the child).
            siblings = [c.fileno() for c in pool] if forking else []
            process = multiprocessing.Process(
                target=_serve, args=(theirs, work, os.getpid(), siblings), daemon=True
            )
            with held_signals():  # the worker starts with them held until its handlers are set
                process.start()
                pool[ours] = _Worker(process, ours)
            theirs.close()
            pool[ours].start, first = next(todo)
            ours.send(first)
        busy = set(pool)
        while busy:
            for ready in wait(list(busy)):
                assert isinstance(ready, Connection)
                try:
                    done: list[R] = ready.recv()
                except EOFError:
                    await_signal()  # killed by the signal that is also on its way to us?
                    code = pool[ready].process.exitcode
                    message = f"a lint worker ended unexpectedly (exit code {code})"
                    raise WorkerDiedError(message) from None
                tick(len(done))
                early[pool[ready].start] = done
                following = next(todo, None)  # keep the worker busy before yielding
                if following is None:
                    ready.send(None)
                    busy.discard(ready)
                else:
                    pool[ready].start, next_chunk = following
                    ready.send(next_chunk)
                while following_index in early:
                    results = early.pop(following_index)
                    following_index += len(results)
                    yield from results
        finished = True
    finally:
        if not finished:
            stop_workers([w.process for w in pool.values()])
        for worker in pool.values():
            if finished:
                worker.process.join()
            worker.conn.close()


def lint_in_pool(
    work: Callable[[SpecFile], FileResult],
    todo: list[SpecFile],
    jobs: int,
    tick: Callable[[int], None],
) -> Generator[FileResult, None, None]:
    """Lint ``todo`` in worker processes, in order (stopped cleanly on Ctrl-C or SIGTERM):
    the :data:`~generator.lint.files.Pool` every command passes to the lint driver."""
    workers = max(2, min(jobs, len(todo) // (PARALLEL_MIN // 2)))
    chunk = max(1, min(64, len(todo) // (workers * 4)))  # small enough for a live progress bar
    return iter_parallel(work, todo, workers, chunk, tick)
