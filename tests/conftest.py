"""Shared fixtures: real PostgreSQL, MariaDB and SQLite databases made per test, and one
SparkSession per test run.

Each database fixture creates a database with a unique name and drops it afterwards. Under
CI (``CI=true``) a service that cannot be reached is a failure, not a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# the private servers of the log capture tests, one each per test process: PostgreSQL at
# wal_level = logical (fixtures log_db, log_pg), MariaDB with the binary log on (log_maria,
# log_maria_db)
pytest_plugins = ["tests.logpg", "tests.private_mariadb"]

# Every Spark driver JVM the tests start (the test process's session and each command's
# own) compiles with the client compiler alone. Most of them live for seconds: at startup
# the server compiler's threads compete for the machine's two cores with everything else,
# and a small snapshot command took 2.4 times as long with them (a JIT setting, not one of
# syncpoint's: what the commands do is the same). spark-submit adds it to the driver's Java
# options without a word on its output (JAVA_TOOL_OPTIONS would print a note). A caller's
# own setting stands.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1")

PG_ADMIN = os.environ.get("SYNCPOINT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
MY_ADMIN = os.environ.get("SYNCPOINT_TEST_MARIADB", "mysql://root@127.0.0.1:3306/")
VENDORS = ("postgres", "mariadb", "sqlite")


def _unavailable(what: str, exc: Exception) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} is not reachable under CI: {exc}")
    pytest.skip(f"{what} is not reachable: {exc}")


@dataclass
class Db:
    """A throwaway database: its vendor, URL, and a way to run setup SQL."""

    vendor: str
    url: str
    name: str

    def connect(self, autocommit: bool = True) -> Any:
        from syncpoint.vendors import connect

        return connect(self.url, autocommit=autocommit)

    def execute(self, *statements: str, params: Any = None) -> None:
        conn = self.connect(autocommit=True)
        try:
            cur = conn.cursor()
            for s in statements:
                cur.execute(s, params) if params is not None else cur.execute(s)
        finally:
            conn.close()

    def query(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        conn = self.connect(autocommit=True)
        try:
            cur = conn.cursor()
            cur.execute(sql, params) if params is not None else cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        finally:
            conn.close()


def make_pg() -> Iterator[Db]:
    import psycopg

    name = f"sp_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True)
    except psycopg.OperationalError as exc:
        _unavailable("PostgreSQL", exc)
        raise
    admin.execute(f'CREATE DATABASE "{name}"')
    admin.close()
    try:
        yield Db("postgres", PG_ADMIN.rsplit("/", 1)[0] + "/" + name, name)
    finally:
        admin = psycopg.connect(PG_ADMIN, autocommit=True)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _my_admin() -> Any:
    from syncpoint.vendors.mariadb.dialect import Connection  # PyMySQL's, one TLS context

    return Connection(host="127.0.0.1", port=3306, user="root", password="", autocommit=True)


def make_mariadb() -> Iterator[Db]:
    import pymysql

    name = f"sp_{uuid.uuid4().hex[:12]}"
    try:
        admin = _my_admin()
    except pymysql.err.OperationalError as exc:
        _unavailable("MariaDB", exc)
        raise
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    admin.close()
    try:
        yield Db("mariadb", MY_ADMIN.rstrip("/") + "/" + name, name)
    finally:
        admin = _my_admin()
        with admin.cursor() as cur:
            # a test that failed with a transaction open must not hang the whole run here
            cur.execute("SET SESSION lock_wait_timeout = 60")
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        admin.close()


def make_sqlite(tmp: Path) -> Iterator[Db]:
    name = f"sp_{uuid.uuid4().hex[:12]}"
    path = tmp / f"{name}.db"
    yield Db("sqlite", f"sqlite:///{path}", name)


@pytest.fixture
def pg_db() -> Iterator[Db]:
    yield from make_pg()


@pytest.fixture
def maria_db() -> Iterator[Db]:
    yield from make_mariadb()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Db]:
    yield from make_sqlite(tmp_path)


@pytest.fixture(params=VENDORS)
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Db]:
    """The same test on PostgreSQL, MariaDB and SQLite."""
    if request.param == "postgres":
        yield from make_pg()
    elif request.param == "mariadb":
        yield from make_mariadb()
    else:
        yield from make_sqlite(tmp_path)


@pytest.fixture(scope="session")
def spark() -> Any:
    """One local SparkSession for the whole run (local[2], no UI)."""
    from syncpoint.config import SparkConfig
    from syncpoint.ops.session import get_session

    return get_session(SparkConfig(master="local[2]", conf={"spark.sql.shuffle.partitions": "2"}))


# -- the order of the two test processes' work -----------------------------------------------
# pytest-xdist's worksteal scheduler gives each process a contiguous share of the collection
# (the first N // n items to one, and so on) and an idle process takes the last half of
# another's queue. A test of several minutes that comes late in a share runs alone at the
# end while the other process has nothing left. So the tests marked ``long(seconds)`` (about
# how long each takes alone on a loaded machine) go first, dealt longest first to the share
# that has the least of them so far; the other tests keep their order behind them. Nothing
# changes without xdist. The order only decides when a test runs, never what it does.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if workers < 2 or len(items) < 2 * workers:
        return
    items[:] = share_out(items, workers, long_seconds)


def long_seconds(item: pytest.Item) -> float:
    """The test's ``long`` mark: ``long(seconds)``, or per parameter id
    ``long(seconds, **{"mariadb": 170})`` where one case takes much longer than the others."""
    mark = item.get_closest_marker("long")
    if mark is None:
        return 0.0
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.id in mark.kwargs:
        return float(mark.kwargs[callspec.id])
    return float(mark.args[0]) if mark.args else 60.0


def share_out(items: list[Any], workers: int, weight: Any) -> list[Any]:
    """``items`` laid out as ``workers`` consecutive shares of the sizes the scheduler cuts
    (``len // workers`` for the first, then what remains divided again), each share its
    weighted items first, heaviest first, dealt greedily to the lightest share."""
    sizes, left = [], len(items)
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    heavy = sorted((it for it in items if weight(it) > 0), key=weight, reverse=True)
    rest = [it for it in items if weight(it) <= 0]
    shares: list[list[Any]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for it in heavy:
        i = min(
            (i for i in range(workers) if len(shares[i]) < sizes[i]), key=lambda i: (load[i], i)
        )
        shares[i].append(it)
        load[i] += weight(it)
    out: list[Any] = []
    for share, size in zip(shares, sizes, strict=True):
        take = size - len(share)
        out += share + rest[:take]
        rest = rest[take:]
    return out
