"""A progress bar on stderr for long runs, shown only to a person watching a terminal.

Never on a pipe or file, with ``-q``, for the machine formats (their readers are CI systems)
or when ``CI`` is set (CI logs keep every redraw); and only once a run has taken longer than
``delay`` seconds, so quick runs print nothing extra. The line is erased when done.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

DELAY = 1.0
_EVERY = 0.1  # seconds between redraws


def wanted(stream: TextIO, *, quiet: bool, fmt: str, environ: Mapping[str, str]) -> bool:
    """Whether a bar may be drawn on ``stream`` at all."""
    if quiet or fmt != "text" or environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


class Progress:
    """Call with the number of files just finished; :meth:`close` erases the bar."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        *,
        delay: float = DELAY,
        clock: Callable[[], float] = time.monotonic,
        width: int = 30,
    ) -> None:
        self.total, self.stream, self.delay, self.clock, self.width = (
            total,
            stream,
            delay,
            clock,
            width,
        )
        self.start = clock()
        self.done = 0
        self.drawn = 0  # length of the line on screen
        self.last = float("-inf")

    def __call__(self, finished: int) -> None:
        self.done = min(self.total, self.done + finished)
        now = self.clock()
        if now - self.start < self.delay or now - self.last < _EVERY:
            return
        self.last = now
        filled = self.width * self.done // max(1, self.total)
        bar = "=" * filled + (">" if filled < self.width else "") + " " * (self.width - filled - 1)
        line = f"[{bar[: self.width]}] {self.done}/{self.total} files"
        self.stream.write("\r" + line + " " * max(0, self.drawn - len(line)))
        self.stream.flush()
        self.drawn = len(line)

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0
