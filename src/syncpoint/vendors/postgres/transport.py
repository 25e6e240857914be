"""PostgreSQL's end of a transport table's copy (``syncpoint/ops/transport.py``): how a value
read from any vendor is bound here, how rows are streamed from here, how the write
transaction begins. The SQL is in ``sql/transport/``; column types come from ``types.py``.
"""

from __future__ import annotations

import json
from typing import Any

from syncpoint.core.types import NType


def adapt(value: Any, t: NType) -> Any:
    """A value read from any vendor, as psycopg must send it for a column of type ``t``
    (strings go untyped, so PostgreSQL parses dates, JSON and numbers written as text)."""
    if value is None:
        return None
    if isinstance(value, dict | list):
        return json.dumps(value)
    if t.kind == "bool" and isinstance(value, int):
        return bool(value)
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def stream(conn: Any, sql: str) -> Any:
    """A server-side cursor over ``sql`` (rows are fetched in batches, not all at once)."""
    cur = conn.cursor(name="syncpoint_transport")
    cur.execute(sql)
    return cur


def begin_write(conn: Any) -> None:
    """psycopg opens the transaction with the first statement."""
