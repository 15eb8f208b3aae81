"""A throwaway PostgreSQL server for tests: ``initdb`` into a fresh folder, unix socket only.

Binaries come from ``$STATEDOC_PG_BIN``, else the ``pgserver`` wheel (a test extra: PostgreSQL
16 for manylinux/macOS, installed by ``pip install -e '.[test]'``), else ``pg_config
--bindir`` or Debian's ``/usr/lib/postgresql/*/bin``. ``LocalPostgres(contrib=True)`` takes
the first of those with the ``citext`` extension and ICU collations (the wheel has neither;
Debian's ``postgresql`` + ``postgresql-contrib`` have both).

The server does not listen on TCP (unless ``settings`` say so): ``port`` only names its socket
inside its own folder, so it cannot clash with another cluster on 5432. It runs with
``fsync=off`` (its data is thrown away) and, when started by root (which PostgreSQL refuses),
as the unprivileged ``nobody``. When ``nobody`` cannot reach the binaries (a venv inside a
0700 folder: ``mktemp -d``, ``/root``), the install is mirrored into a folder it can read
(hard links where the files allow, else copies), shared
by the servers running at the same time. :meth:`LocalPostgres.stop` kills the server and
removes its folder (and the mirror once no server uses it); it is also called at interpreter
exit, on SIGTERM and when :meth:`LocalPostgres.start` fails, so a failed start leaves nothing
behind.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

#: What :meth:`LocalPostgres.start` runs to prove a ``contrib=True`` server has both features.
CONTRIB_PROBE = (
    "BEGIN",
    "CREATE EXTENSION citext",
    "CREATE COLLATION statedoc_probe (provider = icu, locale = 'und-u-ks-level2', "
    "deterministic = false)",
    "ROLLBACK",
)


class ServerUnavailableError(RuntimeError):
    """No PostgreSQL binaries were found, or the server did not start (message says why)."""


@dataclass(frozen=True)
class Layout:
    """Where an install keeps what ``initdb`` and ``postgres`` read besides ``bindir``."""

    bindir: Path
    sharedir: Path
    pkglibdir: Path


def find_bindir(*, contrib: bool = False) -> Path | None:
    """Where ``initdb`` and ``postgres`` are (with citext and ICU when ``contrib``), or None."""
    for folder in _candidates():
        if not ((folder / "initdb").is_file() and (folder / "postgres").is_file()):
            continue
        if not contrib or has_contrib(folder):
            return folder
    return None


def _candidates() -> list[Path]:
    env = os.environ.get("STATEDOC_PG_BIN")
    candidates: list[Path] = [Path(env)] if env else []
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / "pginstall" / "bin" for p in spec.submodule_search_locations]
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = _output([pg_config, "--bindir"])
        if out:
            candidates.append(Path(out.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    return candidates


def _output(args: list[str]) -> str | None:
    """A tool's stdout, or None when it is missing or fails (a probe, never an error)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(args, capture_output=True, check=True)
        return done.stdout.decode(errors="replace")
    return None


def layout(bindir: Path) -> Layout:
    """Ask the install's own ``pg_config`` (it answers relative to where it sits)."""
    out = _output([str(bindir / "pg_config"), "--sharedir", "--pkglibdir"])
    lines = out.splitlines() if out else []
    if len(lines) == 2:
        return Layout(bindir, Path(lines[0]), Path(lines[1]))
    # A ``./configure --prefix`` build: ``share/postgresql`` unless the prefix names postgres.
    prefix = bindir.parent
    share, lib = (prefix / "share", prefix / "lib")
    if (share / "postgresql").is_dir():
        share, lib = share / "postgresql", lib / "postgresql"
    return Layout(bindir, share, lib)


def has_contrib(bindir: Path) -> bool:
    """Whether the install ships citext and was built with ICU (start() also checks it works)."""
    if not (layout(bindir).sharedir / "extension" / "citext.control").is_file():
        return False
    out = _output([str(bindir / "pg_config"), "--configure", "--version"])
    lines = out.splitlines() if out else []
    if len(lines) != 2:
        return True  # no pg_config to ask: the probe at start decides
    configure, version = lines
    if "--without-icu" in configure:
        return False
    major = re.match(r"PostgreSQL (\d+)", version)  # "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)"
    return "--with-icu" in configure or (major is not None and int(major[1]) >= 16)  # 16: default


@dataclass
class _Install:
    """The binaries a server user can run: the original install or a mirror of it."""

    bindir: Path
    env: dict[str, str] = field(default_factory=dict)
    mirror: Path | None = None
    servers: int = 0  # how many started servers use the mirror


_INSTALLS: dict[tuple[Path, str], _Install] = {}
_INSTALLS_LOCK = threading.Lock()


def acquire_install(bindir: Path, user: str) -> _Install:
    """``bindir`` when ``user`` can run it, else a mirror it can: made for the first server
    that needs it and shared by those running at the same time (see :func:`release_install`).
    """
    key = (bindir.resolve(), user)
    with _INSTALLS_LOCK:
        install = _INSTALLS.get(key) or _reachable_install(bindir, user)
        _INSTALLS[key] = install
        install.servers += 1
        return install


def release_install(install: _Install) -> None:
    """The last server using a mirror has stopped: remove it."""
    with _INSTALLS_LOCK:
        install.servers -= 1
        if install.servers > 0 or install.mirror is None:
            return
        shutil.rmtree(install.mirror, ignore_errors=True)
        for key, value in list(_INSTALLS.items()):
            if value is install:
                del _INSTALLS[key]


def _reachable_install(bindir: Path, user: str) -> _Install:
    # Real paths: PostgreSQL finds share/ and lib/ from its own resolved location, and the
    # mirror keeps every piece at its place relative to their common folder.
    bindir = bindir.resolve()
    found = layout(bindir)
    dirs = [found.bindir, found.sharedir.resolve(), found.pkglibdir.resolve()]
    dirs = [d for d in dirs if d.is_dir()]  # a broken install: initdb will say what is missing
    executables = [bindir / "initdb", bindir / "postgres"]
    libraries = _shared_libraries(executables)
    closed = _unreachable(user, dirs + executables, libraries)
    if not closed:
        return _Install(bindir)
    hidden = [lib for lib in libraries if lib in closed]
    base = Path(os.path.commonpath([*dirs, *(lib.parent for lib in hidden)]))
    mirror = Path(tempfile.mkdtemp(prefix="statedoc-pg-bin-"))
    try:
        for source in dirs:
            _mirror_tree(source, mirror / source.relative_to(base))
        for lib in hidden:
            _mirror_file(lib, mirror / lib.relative_to(base))
        _open_dirs(mirror)
        install = _Install(mirror / bindir.relative_to(base), mirror=mirror)
        lib_dirs = list(dict.fromkeys(str(mirror / lib.parent.relative_to(base)) for lib in hidden))
        if lib_dirs:  # also found when the original's RPATH is absolute
            old = os.environ.get("LD_LIBRARY_PATH")
            install.env["LD_LIBRARY_PATH"] = os.pathsep.join(lib_dirs + ([old] if old else []))
        if _unreachable(user, [mirror / p.relative_to(base) for p in dirs + executables], []):
            raise ServerUnavailableError(
                f"{user} cannot reach {bindir} nor a copy of it in {mirror.parent}: "
                "set TMPDIR to a folder it can enter"
            )
    except BaseException:
        shutil.rmtree(mirror, ignore_errors=True)
        raise
    return install


def _shared_libraries(executables: Iterable[Path]) -> list[Path]:
    """The libraries the loader picks for them (``ldd``; none when it is missing)."""
    found: dict[Path, None] = {}
    for exe in executables:
        for line in (_output(["ldd", str(exe)]) or "").splitlines():
            _, arrow, rest = line.partition("=>")
            target = rest.split("(")[0].strip()
            if arrow and target.startswith("/"):
                found[Path(target).resolve()] = None
    return list(found)


def _unreachable(user: str, runnable: list[Path], readable: list[Path]) -> list[Path]:
    """Which paths ``user`` cannot use, asked as that user (modes, ACLs, everything)."""
    script = (
        'for p do case $p in x:*) p=${p#x:}; [ -r "$p" ] && [ -x "$p" ] || printf "%s\\0" "$p";;'
        ' *) p=${p#r:}; [ -r "$p" ] || printf "%s\\0" "$p";; esac; done'
    )
    args = [f"x:{p}" for p in runnable] + [f"r:{p}" for p in readable]
    done = subprocess.run(
        ["/bin/sh", "-c", script, "sh", *args], capture_output=True, user=user, cwd="/", check=False
    )
    if done.returncode != 0:
        raise ServerUnavailableError(f"could not run a shell as {user}: {done.stderr.decode()}")
    return [Path(p) for p in done.stdout.decode(errors="surrogateescape").split("\0") if p]


def _mirror_tree(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, copy_function=_link_or_copy, dirs_exist_ok=True)


def _mirror_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    _link_or_copy(str(source), str(target))


def _link_or_copy(source: str, target: str) -> None:
    """A hard link when others may read (and run) the file, else a copy they may."""
    mode = os.stat(source).st_mode
    wanted = 0o005 if mode & 0o100 else 0o004
    if mode & wanted == wanted:
        with contextlib.suppress(OSError):  # another file system: copy
            os.link(source, target)
            return
    shutil.copyfile(source, target)
    os.chmod(target, mode & 0o777 | 0o444 | (0o111 if mode & 0o100 else 0))


def _open_dirs(root: Path) -> None:
    for folder, _, _ in os.walk(root):
        os.chmod(folder, 0o755)


class LocalPostgres:
    """One server; :attr:`dsn` connects as superuser ``postgres`` over the socket.

    ``contrib=True`` asks for binaries with citext and ICU; ``settings`` adds or overrides
    server settings (``-c key=value``).
    """

    def __init__(
        self,
        max_connections: int = 40,
        *,
        contrib: bool = False,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.contrib = contrib
        self.bindir = find_bindir(contrib=contrib)
        if self.bindir is None:
            raise ServerUnavailableError(
                "no PostgreSQL with the citext extension and ICU: install Debian's postgresql "
                "and postgresql-contrib, or set STATEDOC_PG_BIN to such a bindir"
                if contrib
                else "no PostgreSQL binaries: install the test extra (pgserver) or set "
                "STATEDOC_PG_BIN"
            )
        self.max_connections = max_connections
        self.settings = dict(settings or {})
        self.process: subprocess.Popen[bytes] | None = None
        self.install = _Install(self.bindir)
        self._acquired = False
        self._root: Path | None = None
        self._user: str | None = "nobody" if os.geteuid() == 0 else None

    @property
    def root(self) -> Path:
        """The server's folder (data, socket, log), made by :meth:`start`."""
        if self._root is None:
            raise RuntimeError("the server has not been started")
        return self._root

    @property
    def dsn(self) -> str:
        return f"host={self.root} port=5432 user=postgres dbname=postgres"

    def _run(self, *args: str) -> None:
        """Run as the server user, from its folder (the caller's may be closed to it)."""
        done = subprocess.run(
            args, capture_output=True, user=self._user, cwd=self._root, env=self._env(), check=False
        )
        if done.returncode != 0:
            raise ServerUnavailableError(
                f"{args[0]} failed: {done.stderr.decode(errors='replace')}"
            )

    def _env(self) -> dict[str, str] | None:
        return {**os.environ, **self.install.env} if self.install.env else None

    def start(self) -> LocalPostgres:
        """Start it; on any failure stop, clean up and raise :class:`ServerUnavailableError`."""
        if self.process is not None:
            return self
        try:
            self._start()
        except (OSError, subprocess.SubprocessError) as exc:
            self.stop()
            raise ServerUnavailableError(f"could not start {self.bindir}/postgres: {exc}") from exc
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        assert self.bindir is not None
        self._root = Path(tempfile.mkdtemp(prefix="statedoc-pg-"))
        if self._user is not None:
            try:
                os.chown(self.root, *_ids(self._user))
            except KeyError:
                raise ServerUnavailableError(
                    f"PostgreSQL refuses to run as root and there is no user {self._user!r}"
                ) from None
            self.install = acquire_install(self.bindir, self._user)
            self._acquired = True
        atexit.register(self.stop)  # start() stops it on any failure before this
        data = self.root / "data"
        self._run(
            str(self.install.bindir / "initdb"),
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
            **self.settings,
        }
        flags = [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]
        with log:
            self.process = subprocess.Popen(
                [str(self.install.bindir / "postgres"), "-D", str(data), *flags],
                stdout=log,
                stderr=subprocess.STDOUT,
                user=self._user,
                cwd=self._root,
                env=self._env(),
                start_new_session=True,  # a Ctrl-C meant for pytest does not kill it mid-test
            )
        _stop_on_sigterm(self)
        self._wait_ready()
        if self.contrib:
            self._check_contrib()

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
        raise ServerUnavailableError("postgres did not accept connections within 30 s")

    def _check_contrib(self) -> None:
        """Prove citext and a nondeterministic ICU collation work (the static check guesses)."""
        assert self.bindir is not None
        commands = [arg for sql in CONTRIB_PROBE for arg in ("-c", sql)]
        done = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", self.dsn, *commands],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            raise ServerUnavailableError(
                f"{self.bindir} lacks citext or ICU: {done.stderr.decode(errors='replace')}"
            )

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
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
        if self._acquired:
            self._acquired = False
            release_install(self.install)


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
