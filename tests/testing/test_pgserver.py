"""The test servers themselves: started by root from a folder the server user cannot enter
(the CI case), failing starts that say why and leave nothing behind, the fixture's skip or
failure, the citext + ICU server, and servers that all say port 5432 without clashing."""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from generator.testing.pgserver import (
    LocalPostgres,
    ServerUnavailableError,
    find_bindir,
    has_contrib,
)

TESTS = Path(__file__).resolve().parents[1]
as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="only root runs the server as another user (CI runs as root)"
)


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def wheel_package() -> Path:
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the test extra's pgserver wheel is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def wheel_copy(into: Path, *, private: bool = False) -> Path:
    """The pgserver wheel as pip lays it out in a venv's site-packages, under ``into``:
    hard links or copies (no symlink, which PostgreSQL would resolve back to the original);
    ``private``: copies only their owner may read, as pip writes them under umask 077."""
    package = wheel_package()
    site = into / "site-packages"
    for name in (package.name, f"{package.name}.libs"):
        if (package.parent / name).is_dir():
            copy = shutil.copy2 if private else _link_or_copy
            shutil.copytree(package.parent / name, site / name, copy_function=copy)
    if private:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode & 0o700)
    return site / package.name / "pginstall" / "bin"


def broken_bindir(where: Path, initdb: str, postgres: str) -> Path:
    """Shell scripts standing in for ``initdb`` and ``postgres`` (``pg_isready``: no answer)."""
    bindir = where / "bin"
    bindir.mkdir(parents=True)
    for name, body in {"initdb": initdb, "postgres": postgres, "pg_isready": "exit 2"}.items():
        (bindir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bindir / name).chmod(0o755)
    return bindir


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty temp folder the server user can enter, made this process's ``tempfile``
    folder: whatever a start leaves behind shows up in it."""
    folder = Path(tempfile.mkdtemp(prefix="statedoc-pgtest-"))
    folder.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


CHILD = r"""
import json, os
from pathlib import Path
import psycopg
from generator.testing.pgserver import LocalPostgres

servers = [LocalPostgres().start(), LocalPostgres().start()]
report = []
for server in servers:
    with psycopg.connect(server.dsn) as connection:
        data_directory = connection.execute("SHOW data_directory").fetchone()[0]
    status = Path(f"/proc/{server.process.pid}/status").read_text().splitlines()
    report.append({
        "root": str(server.root),
        "data_directory": data_directory,
        "exe": os.readlink(f"/proc/{server.process.pid}/exe"),
        "uid": int(next(line for line in status if line.startswith("Uid:")).split()[1]),
        "mirror": str(server.install.mirror),
    })
servers[0].stop()
print(json.dumps({"servers": report, "kept": Path(report[1]["mirror"]).is_dir()}))
"""  # the second server is left running: interpreter exit must stop it and clean up


@as_root
def test_root_starts_the_wheel_from_a_folder_the_server_user_cannot_enter(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    bindir = wheel_copy(closed)
    env = {**os.environ, "STATEDOC_PG_BIN": str(bindir)}
    done = subprocess.run(  # from inside the closed folder, as CI runs from its clone
        [sys.executable, "-c", CHILD],
        cwd=closed,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    first, second = result["servers"]
    nobody = pwd.getpwnam("nobody").pw_uid
    for server in (first, second):
        assert server["data_directory"] == str(Path(server["root"]) / "data")
        assert server["uid"] == nobody
        assert Path(server["exe"]).is_relative_to(server["mirror"])
        assert not Path(server["mirror"]).is_relative_to(closed)
    assert first["mirror"] == second["mirror"], "one mirror for the servers of a process"
    assert result["kept"], "the first server's stop removed the mirror the second runs from"
    leftovers = [p for s in (first, second) for p in (s["root"], s["mirror"]) if Path(p).exists()]
    assert not leftovers


@as_root
def test_root_starts_from_files_only_their_owner_may_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = wheel_copy(tmp_path, private=True)
    monkeypatch.setenv("STATEDOC_PG_BIN", str(bindir))
    server = LocalPostgres()
    try:
        server.start()
        mirror = server.install.mirror
        assert mirror is not None
        exe = Path(os.readlink(f"/proc/{server.process.pid}/exe") if server.process else "")
        assert exe.is_relative_to(mirror)
        assert not exe.samefile(bindir / "postgres"), "a link would keep the owner-only mode"
        with psycopg.connect(server.dsn) as connection:
            assert connection.execute("SELECT current_user").fetchone() == ("postgres",)
    finally:
        server.stop()
    assert not mirror.exists() and not server.root.exists()


@pytest.mark.parametrize(
    ("initdb", "postgres", "reason"),
    [
        ('echo "initdb: broken on purpose" >&2; exit 1', "exit 1", "initdb: broken on purpose"),
        ("exit 0", 'echo "postgres: broken on purpose"; exit 1', "postgres: broken on purpose"),
    ],
    ids=["initdb-fails", "postgres-exits"],
)
def test_a_failed_start_says_why_and_leaves_no_folder(
    tmp_path: Path,
    scratch: Path,
    monkeypatch: pytest.MonkeyPatch,
    initdb: str,
    postgres: str,
    reason: str,
) -> None:
    # Under tmp_path, so a root run also mirrors the scripts first (and must remove that).
    monkeypatch.setenv("STATEDOC_PG_BIN", str(broken_bindir(tmp_path, initdb, postgres)))
    server = LocalPostgres()
    with pytest.raises(ServerUnavailableError, match=reason):
        server.start()
    assert server.process is None
    assert not list(scratch.iterdir())


@pytest.mark.parametrize("ci", [False, True], ids=["local", "ci"])
def test_the_fixture_skips_with_the_reason_locally_and_fails_under_ci(
    tmp_path: Path, scratch: Path, ci: bool
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from postgres_fixtures import pg_dsn  # noqa: F401\n"
    )
    (project / "test_needs_postgres.py").write_text("def test_it(pg_dsn):\n    pass\n")
    bindir = broken_bindir(tmp_path / "pg", 'echo "initdb: broken on purpose" >&2; exit 1', "")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env |= {"STATEDOC_PG_BIN": str(bindir), "TMPDIR": str(scratch)}
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "-c", "pytest.ini"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "initdb: broken on purpose" in done.stdout, done.stdout
    if ci:
        assert done.returncode == 1 and "1 error" in done.stdout, done.stdout
        assert "PostgreSQL is required under CI" in done.stdout
    else:
        assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout
        assert "SKIPPED" in done.stdout and "no PostgreSQL server" in done.stdout
    assert not list(scratch.iterdir())


def test_the_contrib_server_has_citext_and_a_nondeterministic_icu_collation(
    pg_contrib: Any,
) -> None:
    pg_contrib.execute("CREATE EXTENSION citext")
    pg_contrib.execute(
        "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
    )
    kind = pg_contrib.execute(
        "SELECT collprovider, collisdeterministic FROM pg_collation WHERE collname = 'ci'"
    ).fetchone()
    assert kind == ("i", False)
    pg_contrib.execute("CREATE TABLE people (email citext UNIQUE, name text COLLATE ci UNIQUE)")
    pg_contrib.execute("INSERT INTO people VALUES ('Ana@Example.org', 'Zoë')")
    for email, name in [("ana@example.ORG", "Other"), ("bo@example.org", "ZOË")]:
        with pytest.raises(psycopg.errors.UniqueViolation):
            pg_contrib.execute("INSERT INTO people VALUES (%s, %s)", (email, name))
    # Level 2: case is ignored, accents are not.
    pg_contrib.execute("INSERT INTO people VALUES ('cy@example.org', 'Zoe')")
    assert pg_contrib.execute("SELECT count(*) FROM people WHERE name = 'zoë'").fetchone() == (1,)


def test_a_pg_contrib_database_is_fresh_and_dropped_afterwards(pg_contrib_dsn: str) -> None:
    import postgres_fixtures

    databases = postgres_fixtures._fresh_database(pg_contrib_dsn)
    connection = next(databases)
    name = connection.info.dbname
    assert name != "postgres"
    assert connection.execute(
        "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND "
        "relnamespace = 'public'::regnamespace"
    ).fetchone() == (0,)
    databases.close()
    assert connection.closed
    with psycopg.connect(pg_contrib_dsn) as admin:
        query = "SELECT count(*) FROM pg_database WHERE datname = %s"
        assert admin.execute(query, (name,)).fetchone() == (0,)


def test_the_wheel_is_never_taken_for_the_contrib_server() -> None:
    bindir = wheel_package() / "pginstall" / "bin"
    assert not has_contrib(bindir)  # built --without-icu, and no citext
    assert find_bindir(contrib=True) != bindir


def test_a_contrib_server_without_citext_fails_its_probe_and_leaves_no_folder(
    tmp_path: Path, scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wheel (no ICU, no citext) with a citext.control and no pg_config to tell on it:
    # the static check lets it through, the probe on the running server must not.
    bindir = wheel_copy(tmp_path)
    (bindir / "pg_config").unlink()
    (bindir.parent / "share" / "postgresql" / "extension" / "citext.control").write_text(
        "default_version = '1.6'\nmodule_pathname = '$libdir/citext'\nrelocatable = true\n"
    )
    monkeypatch.setenv("STATEDOC_PG_BIN", str(bindir))
    server = LocalPostgres(contrib=True)
    assert server.bindir == bindir
    with pytest.raises(ServerUnavailableError, match="lacks citext or ICU"):
        server.start()
    assert not list(scratch.iterdir())


def _port_taken(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_servers_that_all_say_port_5432_answer_on_their_own_sockets(
    pg_dsn: str, pg_contrib_dsn: str
) -> None:
    # Debian's package may start a cluster on TCP 5432; without one, stand one in for it.
    tcp = None
    if not _port_taken(5432):
        try:
            tcp = LocalPostgres(settings={"listen_addresses": "127.0.0.1"}).start()
        except ServerUnavailableError:
            assert _port_taken(5432), "5432 was free, yet a server could not listen on it"
    fresh = None
    try:
        assert _port_taken(5432)
        fresh = LocalPostgres().start()  # started while 5432 is taken
        dsns = [pg_dsn, pg_contrib_dsn, fresh.dsn] + ([tcp.dsn] if tcp else [])
        for dsn in dsns:
            host = dict(part.split("=", 1) for part in dsn.split())["host"]
            with psycopg.connect(dsn) as connection:
                shown = connection.execute("SHOW data_directory").fetchone()
            assert shown == (str(Path(host) / "data"),)
    finally:
        for server in (fresh, tcp):
            if server is not None:
                server.stop()
