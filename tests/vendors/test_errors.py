"""Driver errors become syncpoint's typed errors at the vendor boundary, by code (SQLSTATE,
MariaDB error number, SQLite result code): a duplicate key, a missing table and a lock wait
that ran out, provoked for real on each vendor."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint import vendors
from syncpoint.errors import (
    DuplicateKey,
    LocationError,
    LockTimeout,
    MissingObject,
    TransientError,
)

# How a session bounds its lock waits to about a second (the test's own vendor SQL).
SHORT_LOCK_WAIT = {
    "postgres": "SET lock_timeout = '200ms'",
    "mariadb": "SET SESSION innodb_lock_wait_timeout = 1",
    "sqlite": "PRAGMA busy_timeout = 200",
}
# A statement that needs the row lock (SQLite: the database write lock) held by the other.
WRITE = {
    "postgres": "UPDATE t SET v = 3 WHERE k = 1",
    "mariadb": "UPDATE t SET v = 3 WHERE k = 1",
    "sqlite": "BEGIN IMMEDIATE",
}


def _run(db: Any, conn: Any, sql: str) -> None:
    with vendors.get(db.vendor).dialect.translated("here", "t"):
        conn.cursor().execute(sql)


def test_duplicate_key(any_db: Any) -> None:
    any_db.execute(
        "CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO t VALUES (1, 1)"
    )
    conn = any_db.connect()
    try:
        with pytest.raises(DuplicateKey) as err:
            _run(any_db, conn, "INSERT INTO t VALUES (1, 2)")
    finally:
        conn.close()
    assert isinstance(err.value, LocationError) and not isinstance(err.value, TransientError)
    assert err.value.code == "location" and err.value.location == "here"


def test_unique_index(any_db: Any) -> None:
    any_db.execute(
        "CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)",
        "CREATE UNIQUE INDEX t_v ON t (v)",
        "INSERT INTO t VALUES (1, 1)",
    )
    conn = any_db.connect()
    try:
        with pytest.raises(DuplicateKey):
            _run(any_db, conn, "INSERT INTO t VALUES (2, 1)")
    finally:
        conn.close()


def test_missing_table(any_db: Any) -> None:
    conn = any_db.connect()
    try:
        with pytest.raises(MissingObject) as err:
            _run(any_db, conn, "SELECT * FROM no_such_table")
    finally:
        conn.close()
    assert err.value.table == "t" and err.value.code == "location"


def test_other_refusal_is_plain(any_db: Any) -> None:
    any_db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    conn = any_db.connect()
    try:
        with pytest.raises(LocationError) as err:
            _run(any_db, conn, "INSERT INTO t VALUES (1, NULL)")
    finally:
        conn.close()
    assert type(err.value) is LocationError


def test_lock_timeout(any_db: Any) -> None:
    any_db.execute(
        "CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO t VALUES (1, 1)"
    )
    holder, waiter = any_db.connect(autocommit=False), any_db.connect(autocommit=True)
    try:
        _run(any_db, holder, WRITE[any_db.vendor].replace("v = 3", "v = 2"))
        _run(any_db, waiter, SHORT_LOCK_WAIT[any_db.vendor])
        with pytest.raises(LockTimeout) as err:
            _run(any_db, waiter, WRITE[any_db.vendor])
    finally:
        holder.rollback()
        waiter.close()
        holder.close()
    assert isinstance(err.value, TransientError) and err.value.code == "transient"


def test_a_size_limit_is_terminal(pg_db: Any) -> None:
    """psycopg files SQLSTATE class 54 (a program limit) under OperationalError, as it does a
    lost connection; a row too large for an index never goes in by retrying."""
    pg_db.execute("CREATE TABLE t (k int PRIMARY KEY, v text)", "CREATE INDEX t_v ON t (v)")
    conn = pg_db.connect()
    try:
        with pytest.raises(LocationError) as err:
            _run(
                pg_db,
                conn,
                "INSERT INTO t SELECT 1, string_agg(md5(g::text), '') "
                "FROM generate_series(1, 400) g",
            )
    finally:
        conn.close()
    assert not isinstance(err.value, TransientError), err.value
    assert "54000" in err.value.message and "index row" in err.value.message
