"""SQLite's end of a transport table's copy (``syncpoint/ops/transport.py``): how a value
read from any vendor is bound here, how rows are streamed from here, how the write
transaction begins. The SQL is in ``sql/transport/``; column types come from ``types.py``.
"""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from syncpoint.core.types import NType
from syncpoint.vendors.sqlfiles import SqlFiles


def adapt(value: Any, t: NType) -> Any:
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
    conn.execute(SqlFiles("sqlite", "transport").one("begin"))
