"""A private MariaDB server with the binary log on, for log capture's tests and bench (the
shared server on 3306 must not be reconfigured).

``mariadb-install-db`` into a temporary directory, ``mariadbd`` on a free port of
127.0.0.1 with ``log_bin``, ``binlog_format=ROW``, ``binlog_row_image=FULL``,
``binlog_row_metadata=FULL``, a ``server_id`` and GTIDs (always on in MariaDB); run as the
``mysql`` user when we are root (mariadbd refuses root). Stopped (SIGTERM, then SIGKILL)
and removed when the ``with`` block ends. Everything it needs comes with the
``mariadb-server`` package the shared server already uses.

    with private_mariadb() as admin_url:   # "mysql://root@127.0.0.1:<port>/"
        ...

``log_maria`` is the session fixture (one server per test process); ``log_maria_db`` a
database with a unique name on it per test (``make_log_maria_db`` for more than one);
``east_maria`` one more per test process, its system time zone 5h30 ahead of UTC.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

MARIADBD = os.environ.get("MARIADBD", "/usr/sbin/mariadbd")
INSTALL_DB = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"
SETTINGS = {
    "binlog-format": "ROW",
    "binlog-row-image": "FULL",
    "binlog-row-metadata": "FULL",
    "server-id": "4242",
    "gtid-strict-mode": "ON",
    # small: a test server holds little
    "innodb-buffer-pool-size": "64M",
    "innodb-log-file-size": "16M",
    "max-connections": "200",
    "character-set-server": "utf8mb4",
    "collation-server": "utf8mb4_general_ci",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "mysql", "--", *cmd] if os.geteuid() == 0 else cmd


def _ready(port: int, proc: subprocess.Popen[bytes], err: Path, timeout: float = 60.0) -> None:
    import pymysql

    deadline = time.monotonic() + timeout
    while True:
        try:
            pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
            return
        except pymysql.err.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = err.read_text(errors="replace")[-2000:] if err.exists() else ""
                raise RuntimeError(f"the private MariaDB did not start:\n{tail}") from None
            time.sleep(0.2)


@contextmanager
def private_mariadb(
    settings: Mapping[str, str] | None = None, tz: str | None = None
) -> Iterator[str]:
    """Yields the admin URL (user root, no password, no database) of a fresh MariaDB server
    with the binary log on; ``settings`` are added to (or replace) ``SETTINGS``; ``tz``: the
    server's system time zone (its TZ)."""
    if not Path(MARIADBD).exists():
        raise RuntimeError(f"no {MARIADBD} (the mariadb-server package; set MARIADBD)")
    root = Path(tempfile.mkdtemp(prefix="sp_maria_log_"))
    data = root / "data"
    tmp = root / "tmp"  # its own: a shared /tmp may be cleaned under a running server
    tmp.mkdir()
    if os.geteuid() == 0:
        pw = pwd.getpwnam("mysql")
        for d in (root, tmp):
            os.chown(d, pw.pw_uid, pw.pw_gid)
    port = free_port()
    proc: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            # its own tmpdir for the bootstrap too: a server starting up deletes every
            # "#sql*" file in its tmpdir, and in a shared /tmp those are the live temporary
            # tables of the machine's other MariaDB (which then crashes)
            _as_server_user([INSTALL_DB, "--no-defaults", f"--datadir={data}",
                             "--auth-root-authentication-method=normal", "--skip-test-db",
                             "--innodb-log-file-size=16M", f"--tmpdir={tmp}"]),
            check=True, capture_output=True, env={**os.environ, "TMPDIR": str(tmp)},
        )  # fmt: skip
        conf = {**SETTINGS, **(settings or {})}
        args = [f"--{k}={v}" for k, v in conf.items()]
        proc = subprocess.Popen(
            _as_server_user([MARIADBD, "--no-defaults", f"--datadir={data}",
                             f"--socket={root / 'sock'}", f"--port={port}",
                             "--bind-address=127.0.0.1", f"--pid-file={root / 'pid'}",
                             f"--log-bin={data / 'binlog'}", f"--log-error={root / 'err.log'}",
                             f"--tmpdir={tmp}",
                             *args]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, **({"TZ": tz} if tz else {})},
        )  # fmt: skip
        _ready(port, proc, root / "err.log")
        yield f"mysql://root@127.0.0.1:{port}/"
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # runuser passes it on to mariadbd
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                _kill_server(root)
                proc.kill()
                proc.wait()
        _kill_server(root)
        shutil.rmtree(root, ignore_errors=True)


def _kill_server(root: Path) -> None:
    """SIGKILL the server by its pid file, if it still runs (runuser already went)."""
    try:
        pid = int((root / "pid").read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _session_server(tz: str | None = None) -> Iterator[str]:
    try:
        with private_mariadb(tz=tz) as url:
            yield url
    except RuntimeError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def log_maria() -> Iterator[str]:
    """The admin URL of this test process's private MariaDB with the binary log on."""
    yield from _session_server()


@pytest.fixture(scope="session")
def east_maria() -> Iterator[str]:
    """The admin URL of this test process's private MariaDB whose system time zone is
    5h30 ahead of UTC (Asia/Kolkata), started on first use; each test makes its own
    database there (``make_log_maria_db``)."""
    yield from _session_server("Asia/Kolkata")


def make_log_maria_db(admin_url: str) -> Iterator[object]:
    """A database with a unique name on the private server at ``admin_url`` (a
    ``tests.conftest.Db``), dropped when the generator is resumed; for a test that needs
    more than one (``log_maria_db`` is the fixture for one)."""
    import pymysql

    from tests.conftest import Db

    port = int(admin_url.rsplit(":", 1)[1].strip("/"))
    name = f"sp_{uuid.uuid4().hex[:12]}"

    def admin() -> pymysql.Connection:  # type: ignore[type-arg]
        return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)

    conn = admin()
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    conn.close()
    try:
        yield Db("mariadb", admin_url + name, name)
    finally:
        conn = admin()
        with conn.cursor() as cur:
            cur.execute("SET SESSION lock_wait_timeout = 60")
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


@pytest.fixture
def log_maria_db(log_maria: str) -> Iterator[object]:
    """A database with a unique name on the private server (a ``tests.conftest.Db``)."""
    yield from make_log_maria_db(log_maria)


def binlog_head(admin: object) -> tuple[str, int]:
    """The binary log's current file and offset (``SHOW MASTER STATUS``), on a pymysql
    connection of a user with BINLOG MONITOR."""
    cur = admin.cursor()  # type: ignore[attr-defined]
    cur.execute("SHOW MASTER STATUS")
    file, pos = cur.fetchone()[:2]
    return str(file), int(pos)


def tables_logged(admin: object, schema: str, since: tuple[str, int]) -> dict[str, int]:
    """The tables of ``schema`` whose rows the binary log holds events of from ``since`` (a
    ``binlog_head``) on, read back by the server (``SHOW BINLOG EVENTS``): table -> number
    of table maps (one per table and transaction)."""
    cur = admin.cursor()  # type: ignore[attr-defined]
    cur.execute("SHOW BINARY LOGS")
    files = [str(r[0]) for r in cur.fetchall()]
    found: dict[str, int] = {}
    for f in files[files.index(since[0]) :]:
        if f == since[0]:
            cur.execute(f"SHOW BINLOG EVENTS IN '{f}' FROM {since[1]}")
        else:
            cur.execute(f"SHOW BINLOG EVENTS IN '{f}'")
        for _log, _pos, kind, _sid, _end, info in cur.fetchall():
            # Info of a table map: "table_id: 41 (db.table)"
            if kind == "Table_map" and f"({schema}." in str(info):
                table = str(info).split(f"({schema}.", 1)[1].rstrip(")")
                found[table] = found.get(table, 0) + 1
    return found
