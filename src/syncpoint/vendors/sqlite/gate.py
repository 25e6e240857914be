"""SQLite side of the gate: the row lock is the database write lock of ``BEGIN IMMEDIATE``.

The connection runs in driver autocommit (``isolation_level=None``), so the transaction is
opened explicitly, with the write lock taken before the row is read: a deferred ``BEGIN``
that read first could not upgrade once another connection committed. The wait for the lock
is the busy timeout. When a holder dies, the operating system drops its file locks.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, ClassVar

from syncpoint.vendors import sqlfiles
from syncpoint.vendors.gatestore import GateStore
from syncpoint.vendors.sqlite import dialect as _dialect


class SqliteGateStore(GateStore):
    vendor = "sqlite"
    dialect: ClassVar[Any] = _dialect

    def _begin_locking(self, timeout_s: float) -> None:
        self._exec("lock_timeout", raw={"ms": str(max(1, int(timeout_s * 1000)))})
        self._exec("begin")

    def _time(self, value: Any) -> datetime | None:
        if value is None:
            return None
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


# -- transport tables (``syncpoint/ops/transport.py``) ----------------------------------------
PARAM = "?"
_TYPES = {
    "bool": "integer",
    "int": "integer",
    "decimal": "numeric",
    "float": "real",
    "bytes": "blob",
}


def transport_type(family: str, args: tuple[int, ...]) -> str:
    """The column type for a value family read from another vendor: times, JSON and UUIDs
    are text in SQLite."""
    return _TYPES.get(family, "text")


def adapt(value: Any, family: str) -> Any:
    """A value read from any vendor, as sqlite3 can bind it: decimals as text (exact digits),
    times in ISO 8601, JSON as text."""
    if value is None or isinstance(value, int | float | str | bytes):
        return value
    if isinstance(value, Decimal | uuid.UUID | timedelta):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value)
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    return str(value)


def stream(conn: Any, sql: str) -> Any:
    """sqlite3 cursors step through the result as rows are fetched."""
    return conn.execute(sql)


def begin_write(conn: Any) -> None:
    """Take the write lock first (the connection is in driver autocommit)."""
    conn.execute(sqlfiles.load("sqlite", "gate/begin.sql"))
