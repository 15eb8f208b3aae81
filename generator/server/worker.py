"""The analysis process: ``python -m generator.server.worker``, started by the server.

Every lint, fix and lookup runs here, never in the process that speaks LSP, so a document
that takes long to lint (a 4 MB paste) delays only its own answers: the server kills this
process when its job is superseded or overdue and starts another. Frames on stdin/stdout are
a 4-byte length and a pickle (between the two halves of one program, over private pipes).
State messages (``open``, ``change`` ...) are applied as soon as they are read, jobs are run
one at a time in order; each job is announced (``started``) and answered (``done``/``error``).
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

_HEADER = struct.Struct(">I")


def write_frame(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _handlers() -> dict[str, Callable[..., Any]]:
    from generator.server import actions, completion, jobs, navigation, rename, symbols

    return {
        "diagnose": jobs.diagnose,
        "warm": jobs.warm,
        "hover": navigation.hover,
        "definition": navigation.definition,
        "references": navigation.references,
        "prepare_rename": rename.prepare_rename,
        "rename": rename.rename,
        "completion": completion.complete,
        "symbols": symbols.document_symbols,
        "code_actions": actions.code_actions,
    }


def _apply(session: Any, message: tuple[Any, ...]) -> None:
    kind = message[0]
    if kind == "open":
        session.open(*message[1:])
    elif kind == "change":
        session.change(*message[1:])
    elif kind == "close":
        session.close(*message[1:])
    elif kind == "files":
        session.files_changed()
    elif kind == "configure":
        session.configure(message[1])
    elif kind == "client":
        session.encoding, session.document_changes = message[1], message[2]


def main() -> None:
    """Serve jobs until stdin closes (the server went away: so does this process)."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must never corrupt a frame
    from generator.server.session import RefusedError, Session, StaleError

    session = Session(Path.cwd())
    jobs: queue.Queue[tuple[Any, ...] | None] = queue.Queue()

    def read() -> None:
        while True:
            message = read_frame(stdin)
            if message is None:
                jobs.put(None)
                return
            if message[0] == "job":
                jobs.put(message)
            else:  # applied at once: a job reads one snapshot of a buffer (a tuple)
                _apply(session, message)

    threading.Thread(target=read, daemon=True).start()
    handlers = _handlers()
    while True:
        job = jobs.get()
        if job is None:
            break
        _, number, name, args = job
        write_frame(stdout, ("started", number))
        try:
            result = handlers[name](session, *args)
        except StaleError as exc:
            write_frame(stdout, ("error", number, "stale", str(exc)))
        except RefusedError as exc:
            write_frame(stdout, ("error", number, "refused", str(exc)))
        except Exception as exc:  # a bug: answer it, keep serving
            import traceback

            traceback.print_exc(file=sys.stderr)
            write_frame(stdout, ("error", number, "internal", f"{type(exc).__name__}: {exc}"))
        else:
            write_frame(stdout, ("done", number, result))
    os._exit(0)  # the reader thread may still be blocked on stdin


if __name__ == "__main__":
    main()
