"""SQLite side of the gate: the row lock is the database write lock of ``BEGIN IMMEDIATE``.

The connection runs in driver autocommit (``isolation_level=None``), so the transaction is
opened explicitly, with the write lock taken before the row is read: a deferred ``BEGIN``
that read first could not upgrade once another connection committed. The wait for the lock
is the busy timeout. When a holder dies, the operating system drops its file locks.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

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
