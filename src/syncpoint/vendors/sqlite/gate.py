"""SQLite side of the gate: the row lock is the database write lock of ``BEGIN IMMEDIATE``.

The connection runs in driver autocommit (``isolation_level=None``), so the transaction is
opened explicitly, with the write lock taken before the row is read: a deferred ``BEGIN``
that read first could not upgrade once another connection committed. The wait for the lock
is the busy timeout. When a holder dies, the operating system drops its file locks.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any, ClassVar

from syncpoint.vendors.gatestore import GateStore
from syncpoint.vendors.sqlite import dialect as _dialect


class SqliteGateStore(GateStore):
    vendor = "sqlite"
    dialect: ClassVar[Any] = _dialect
    DRIVER_ERROR = sqlite3.Error

    def _begin_locking(self, timeout_s: float) -> None:
        self._exec("lock_timeout", raw={"ms": str(max(1, int(timeout_s * 1000)))})
        self._exec("begin")

    def _is_missing_table(self, exc: Exception) -> bool:
        return "no such table" in str(exc)

    def _is_lock_timeout(self, exc: Exception) -> bool:
        text = str(exc)
        return "locked" in text or "busy" in text

    def _is_creation_race(self, exc: Exception) -> bool:
        return self._is_lock_timeout(exc)

    def _time(self, value: Any) -> datetime | None:
        if value is None:
            return None
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)
