"""Stopping on SIGINT/SIGTERM without orphans: the parent turns SIGTERM into an exception
(as Python already does for SIGINT), so ``finally`` blocks run, temp files are removed and the
worker pool is torn down; workers ignore SIGINT (a Ctrl-C reaches the whole process group, and
only the parent should decide), die with their parent, and finish the file at hand first."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # a one-document lint must not pay for importing multiprocessing
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
R = TypeVar("R")


#: The signals that stop a run (SIGHUP: the terminal went away); Windows has no SIGHUP.
_STOPS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """A termination signal arrived; ``exit_code`` is the shell's ``128 + signal``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def exit_code(exc: KeyboardInterrupt) -> int:
    """130 for a plain Ctrl-C, ``128 + N`` for signal N."""
    return exc.exit_code if isinstance(exc, Interrupted) else 128 + signal.SIGINT


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """While inside, SIGTERM (and SIGHUP) raise :class:`Interrupted` in the main thread."""
    if sys.platform == "win32":  # pragma: no cover - no SIGTERM semantics to map
        yield
        return
    previous = {sig: signal.signal(sig, _raise) for sig in _STOPS if sig != signal.SIGINT}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


_state = {"busy": False, "stop": 0}


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Hold back the stop signals (they stay pending, then arrive): a process forked inside
    inherits the mask, so it cannot be stopped by the parent's handlers before it sets its own,
    and the parent cannot be stopped between starting a worker and recording it."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_signal(signum: int, frame: FrameType | None) -> None:
    """Idle: end now. Busy: finish the file at hand first, since unwinding from an arbitrary
    point can strand a temp file (inside ``tempfile.mkstemp``, say); one file takes
    milliseconds, and the parent's SIGKILL after its grace period bounds the wait."""
    if not _state["busy"]:
        os._exit(128 + signum)  # nothing to clean up, and no traceback to print
    _state["stop"] = signum


def _die_with(parent: int) -> None:
    """Ask Linux to SIGTERM this worker when its parent dies, even by SIGKILL."""
    if not sys.platform.startswith("linux"):
        return
    if os.getppid() != parent:
        return  # started through a fork server (or the parent is gone): see stop_workers
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(128 + signal.SIGTERM)


def worker_init(parent: int) -> None:
    """Initializer for pool workers (forked with the parent's handlers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in _STOPS:
        if sig != signal.SIGINT:
            signal.signal(sig, _worker_signal)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    _die_with(parent)


def in_worker(work: Callable[[T], R], item: T) -> R:
    """Run one task; a stop signal that came during it ends the worker right after."""
    _state["busy"] = True
    try:
        return work(item)
    finally:
        _state["busy"] = False
        if _state["stop"]:
            os._exit(128 + _state["stop"])


def stop_workers(children: Sequence[BaseProcess], grace: float = 1.0) -> None:
    """SIGTERM each worker, wait up to ``grace`` seconds, then SIGKILL the rest: none may
    outlive us holding our stdout/stderr (the caller would wait for EOF for ever)."""
    import time

    for child in children:
        with contextlib.suppress(OSError):
            child.terminate()
    deadline = time.monotonic() + grace
    for child in children:
        if child.pid is not None:
            child.join(max(0.0, deadline - time.monotonic()))
    for child in children:
        if child.pid is not None and child.is_alive():
            with contextlib.suppress(OSError):
                child.kill()
            child.join()


def await_signal(grace: float = 0.5) -> None:
    """A worker died: if a signal to us is on its way (the group got it), let its handler
    raise :class:`Interrupted` before the caller reports a broken pool."""
    import time

    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        time.sleep(0.02)
