"""MariaDB side of the gate: the row lock is ``SELECT ... FOR UPDATE`` in READ COMMITTED.

The decision is made on the locking read only: in REPEATABLE READ a plain SELECT earlier in
the transaction would show the snapshot's (stale) state, while a locking read always reads
the latest committed row. READ COMMITTED also keeps InnoDB from taking gap locks on the
absent row of a new gate. Deadlocks (1213) and lock wait timeouts (1205) are transient.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, ClassVar

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
