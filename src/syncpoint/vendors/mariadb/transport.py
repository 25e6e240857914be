"""MariaDB's end of a transport table's copy (``syncpoint/ops/transport.py``): how a value
read from any vendor is bound here, how rows are streamed from here, how the write
transaction begins. The SQL is in ``sql/transport/``; column types come from ``types.py``.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pymysql

from syncpoint.core.types import NType


def adapt(value: Any, t: NType) -> Any:
    """A value read from any vendor, as PyMySQL must send it: aware times in UTC without
    their zone (DATETIME has none), JSON and UUIDs as text."""
    if value is None:
        return None
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, dict | list):
        return json.dumps(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def stream(conn: Any, sql: str) -> Any:
    """An unbuffered cursor over ``sql`` (rows are not all held in memory)."""
    cur = conn.cursor(pymysql.cursors.SSCursor)
    cur.execute(sql)
    return cur


def begin_write(conn: Any) -> None:
    """With autocommit off, the first statement opens the transaction."""
