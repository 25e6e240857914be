"""PostgreSQL side of the gate: the row lock is ``SELECT ... FOR UPDATE`` in READ COMMITTED.

READ COMMITTED is set on the connection whatever the server's default: there a locked read
waits for the holder and then sees the row as it committed it. Under REPEATABLE READ the same
read fails with a serialization failure (SQLSTATE 40001); that is transient and retried by
the orchestration, never taken for "gate busy" (docs/guarantees.md §6).
"""

from __future__ import annotations

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
