"""PostgreSQL side of the gate: the row lock is ``SELECT ... FOR UPDATE`` in READ COMMITTED.

READ COMMITTED is set on the connection whatever the server's default: there a locked read
waits for the holder and then sees the row as it committed it. Under REPEATABLE READ the same
read fails with a serialization failure (SQLSTATE 40001); that is transient and retried by
the orchestration, never taken for "gate busy" (reliability.md S34).
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
    DRIVER_ERROR = psycopg.Error
    ISOLATION: ClassVar[psycopg.IsolationLevel] = psycopg.IsolationLevel.READ_COMMITTED

    def _setup(self) -> None:
        self.conn.isolation_level = self.ISOLATION

    def _begin_locking(self, timeout_s: float) -> None:
        # psycopg opens the transaction with this first statement; the setting is local to it.
        self._exec("lock_timeout", (f"{max(1, int(timeout_s * 1000))}ms",))

    def _is_missing_table(self, exc: Exception) -> bool:
        return getattr(exc, "sqlstate", None) == "42P01"

    def _is_lock_timeout(self, exc: Exception) -> bool:
        return getattr(exc, "sqlstate", None) == "55P03"

    def _is_creation_race(self, exc: Exception) -> bool:
        # Concurrent CREATE TABLE IF NOT EXISTS can collide on the catalog's unique index
        # (pg_type); serialization failures and deadlocks are retried as well.
        return getattr(exc, "sqlstate", None) in ("23505", "42P07", "42710", "40001", "40P01")

    def _time(self, value: Any) -> datetime | None:
        return value  # type: ignore[no-any-return]  # timestamptz arrives aware
