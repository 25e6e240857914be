"""PostgreSQL side of the gate: the row lock is ``SELECT ... FOR UPDATE`` in READ COMMITTED.

READ COMMITTED is set on the connection whatever the server's default: there a locked read
waits for the holder and then sees the row as it committed it. Under REPEATABLE READ the same
read fails with a serialization failure (SQLSTATE 40001); that is transient and retried by
the orchestration, never taken for "gate busy" (reliability.md S34).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, ClassVar

import psycopg

from syncpoint.vendors.gatestore import GateStore
from syncpoint.vendors.postgres import dialect as _dialect


class PostgresGateStore(GateStore):
    vendor = "postgres"
    dialect: ClassVar[Any] = _dialect
    ISOLATION: ClassVar[psycopg.IsolationLevel] = psycopg.IsolationLevel.READ_COMMITTED

    def _setup(self) -> None:
        self.conn.isolation_level = self.ISOLATION

    def _begin_locking(self, timeout_s: float) -> None:
        # psycopg opens the transaction with this first statement; the setting is local to it.
        self._exec("lock_timeout", (f"{max(1, int(timeout_s * 1000))}ms",))

    def _time(self, value: Any) -> datetime | None:
        return value  # type: ignore[no-any-return]  # timestamptz arrives aware


# -- transport tables (``syncpoint/ops/transport.py``) ----------------------------------------
PARAM = "%s"
_TYPES = {
    "bool": "boolean",
    "int": "bigint",
    "float": "double precision",
    "timestamptz": "timestamp with time zone",
    "timestamp": "timestamp",
    "date": "date",
    "time": "time",
    "bytes": "bytea",
    "json": "jsonb",
    "uuid": "uuid",
    "text": "text",
}


def transport_type(family: str, args: tuple[int, ...]) -> str:
    """The column type for a value family read from another vendor."""
    if family == "decimal":
        return "numeric(" + ",".join(map(str, args)) + ")" if args else "numeric"
    if family == "varchar":
        return f"varchar({args[0]})" if args else "text"
    return _TYPES[family]


def adapt(value: Any, family: str) -> Any:
    """A value read from any vendor, as psycopg must send it for a column of ``family``
    (strings go untyped, so PostgreSQL parses dates, JSON and numbers written as text)."""
    if value is None:
        return None
    if isinstance(value, dict | list):
        return json.dumps(value)
    if family == "bool" and isinstance(value, int):
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
