"""MariaDB side of the gate: the row lock is ``SELECT ... FOR UPDATE`` in READ COMMITTED.

The decision is made on the locking read only: in REPEATABLE READ a plain SELECT earlier in
the transaction would show the snapshot's (stale) state, while a locking read always reads
the latest committed row. READ COMMITTED also keeps InnoDB from taking gap locks on the
absent row of a new gate. Deadlocks (1213) and lock wait timeouts (1205) are transient.
"""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

import pymysql

from syncpoint.vendors.gatestore import GateStore, utc
from syncpoint.vendors.mariadb import dialect as _dialect


class MariadbGateStore(GateStore):
    vendor = "mariadb"
    dialect: ClassVar[Any] = _dialect
    ISOLATION: ClassVar[str] = "READ COMMITTED"
    _LEVELS = ("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")

    def _setup(self) -> None:
        if self.ISOLATION not in self._LEVELS:
            raise ValueError(f"unknown isolation level {self.ISOLATION!r}")
        self._exec("session", raw={"level": self.ISOLATION})
        self.conn.commit()

    def _begin_locking(self, timeout_s: float) -> None:
        self._exec("lock_timeout", (max(1, math.ceil(timeout_s)),))
        self._exec("begin")

    def _time(self, value: Any) -> datetime | None:
        return utc(value)  # DATETIME(6) holding UTC arrives naive


# -- transport tables (``syncpoint/ops/transport.py``) ----------------------------------------
PARAM = "%s"
_TYPES = {
    "bool": "boolean",
    "int": "bigint",
    "float": "double",
    "timestamptz": "datetime(6)",  # UTC (the session time zone is +00:00)
    "timestamp": "datetime(6)",
    "date": "date",
    "time": "time(6)",
    "bytes": "longblob",
    "json": "json",
    "uuid": "char(36)",
    "text": "longtext",
}


def transport_type(family: str, args: tuple[int, ...]) -> str:
    """The column type for a value family read from another vendor."""
    if family == "decimal":
        p, s = (args + (0,))[:2] if args else (65, 30)
        return f"decimal({min(p, 65)},{min(s, 30)})"
    if family == "varchar":
        return f"varchar({args[0]})" if args and args[0] <= 16383 else "longtext"
    return _TYPES[family]


def adapt(value: Any, family: str) -> Any:
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
