"""A throwaway PostgreSQL server for tests: ``initdb`` into a fresh folder, unix socket only.

Binaries come from ``$STATEDOC_PG_BIN``, else the ``pgserver`` wheel (a test extra: PostgreSQL
16 for manylinux/macOS, installed by ``pip install -e '.[test]'``), else ``pg_config
--bindir`` or Debian's ``/usr/lib/postgresql/*/bin``. The server never listens on TCP, runs
with ``fsync=off`` (its data is thrown away) and, when started by root (which PostgreSQL
refuses), as the unprivileged ``nobody``. :meth:`LocalPostgres.stop` kills it and removes the
folder; it is also called at interpreter exit and on SIGTERM.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import FrameType


class ServerUnavailableError(RuntimeError):
    """No PostgreSQL binaries were found, or the server did not start (message says why)."""


def find_bindir() -> Path | None:
    """Where ``initdb`` and ``postgres`` are, or None."""
    env = os.environ.get("STATEDOC_PG_BIN")
    candidates: list[Path] = [Path(env)] if env else []
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / "pginstall" / "bin" for p in spec.submodule_search_locations]
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, check=True)
            candidates.append(Path(out.stdout.decode().strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    return None


class LocalPostgres:
    """One server; :attr:`dsn` connects as superuser ``postgres`` over the socket."""

    def __init__(self, max_connections: int = 40) -> None:
        self.bindir = find_bindir()
        if self.bindir is None:
            raise ServerUnavailableError(
                "no PostgreSQL binaries: install the test extra (pgserver) or set STATEDOC_PG_BIN"
            )
        self.max_connections = max_connections
        self.root = Path(tempfile.mkdtemp(prefix="statedoc-pg-"))
        self.process: subprocess.Popen[bytes] | None = None
        self._user: str | None = "nobody" if os.geteuid() == 0 else None

    @property
    def dsn(self) -> str:
        return f"host={self.root} port=5432 user=postgres dbname=postgres"

    def _run(self, *args: str) -> None:
        done = subprocess.run(args, capture_output=True, user=self._user, check=False)
        if done.returncode != 0:
            raise ServerUnavailableError(
                f"{args[0]} failed: {done.stderr.decode(errors='replace')}"
            )

    def start(self) -> LocalPostgres:
        assert self.bindir is not None
        if self._user is not None:
            os.chown(self.root, *_ids(self._user))
        data = self.root / "data"
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        log = open(self.root / "server.log", "wb")  # noqa: SIM115 - the child keeps it
        settings = {
            "listen_addresses": "",
            "unix_socket_directories": str(self.root),
            "port": "5432",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": str(self.max_connections),
            "shared_buffers": "64MB",
        }
        flags = [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]
        self.process = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(data), *flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            user=self._user,
            start_new_session=True,  # a Ctrl-C meant for pytest does not kill it mid-test
        )
        log.close()
        atexit.register(self.stop)
        _stop_on_sigterm(self)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        assert self.bindir is not None and self.process is not None
        for _ in range(600):
            if self.process.poll() is not None:
                text = (self.root / "server.log").read_text(errors="replace")
                raise ServerUnavailableError(f"postgres exited: {text[-2000:]}")
            ready = subprocess.run(
                [str(self.bindir / "pg_isready"), "-h", str(self.root), "-p", "5432", "-q"],
                check=False,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        self.stop()
        raise ServerUnavailableError("postgres did not accept connections within 30 s")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its folder; safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def _ids(user: str) -> tuple[int, int]:
    import pwd

    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def _stop_on_sigterm(server: LocalPostgres) -> None:
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: FrameType | None) -> None:
        server.stop()
        if callable(previous):
            previous(signum, frame)
        else:
            raise SystemExit(128 + signum)

    with contextlib.suppress(ValueError):  # not the main thread: atexit still stops it
        signal.signal(signal.SIGTERM, handler)
