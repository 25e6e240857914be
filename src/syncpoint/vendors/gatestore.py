"""The gate's state table ``{prefix}load_state`` driven through one vendor's SQL files.

``GateStore`` runs the statements of ``vendors/<vendor>/sql/gate/*.sql`` on one DB-API
connection; each vendor's ``gate.py`` subclasses it with what really differs: how a
transaction that locks the row begins (``SELECT ... FOR UPDATE`` in READ COMMITTED, or
SQLite's ``BEGIN IMMEDIATE``) and how a lock wait is bounded. Driver errors arrive
translated by the vendor's dialect: ``MissingObject`` is "table missing", ``LockTimeout``
"lock wait timed out", ``DuplicateKey`` or another transient error "another process created
it first".

The rules (which state leads where) are in ``core/gate.py``; the orchestration (retry,
wait, purge, holder) in ``syncpoint/ops/gate.py``. This module only reads and writes the row.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, ClassVar

from syncpoint.config import parse_table_name
from syncpoint.core.gate import INITIAL, GateRow, Holder, State
from syncpoint.errors import (
    DuplicateKey,
    LocationError,
    LockTimeout,
    MissingObject,
    RowLockTimeout,
    TransientError,
)
from syncpoint.vendors.sqlfiles import SqlFiles

TABLE = "load_state"
_ENSURE_ATTEMPTS = 8


class GateStore(ABC):
    """``{prefix}load_state`` at one location, on one connection (not thread-safe)."""

    vendor: ClassVar[str]
    dialect: ClassVar[Any]  # the vendor's dialect module

    def __init__(self, url: str, prefix: str, location: str | None = None):
        self.url = url
        self.prefix = prefix
        self.location = location
        self.table = prefix + TABLE
        self.sql = SqlFiles(self.vendor, "gate", {"table": self.table}, location=location)
        self.conn: Any = None

    # -- connection --------------------------------------------------------------------
    def connect(self) -> None:
        self.conn = self.dialect.connect(self.url, location=self.location, autocommit=False)
        with self.translated():
            self._setup()

    def _setup(self) -> None:  # noqa: B027 - most vendors need no session settings
        """Session settings made once per connection."""

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001 - closing a dead connection must not mask
                pass
            self.conn = None

    @contextmanager
    def translated(self, table: str | None = None) -> Iterator[None]:
        with self.dialect.translated(self.location, table or self.table):
            yield

    def _exec(
        self, name: str, params: tuple[Any, ...] = (), raw: dict[str, str] | None = None
    ) -> Any:
        cur = self.conn.cursor()
        cur.execute(self.sql.one(name, raw=raw), params)
        return cur

    def commit(self) -> None:
        with self.translated():
            self.conn.commit()

    def rollback(self) -> None:
        if self.conn is None:
            return
        try:
            with self.translated():
                self.conn.rollback()
        except LocationError:
            pass  # the connection is gone: the database rolls back on its side

    # -- what differs per vendor --------------------------------------------------------
    @abstractmethod
    def _begin_locking(self, timeout_s: float) -> None:
        """Open the transaction in which the row lock is taken, lock waits bounded."""

    @abstractmethod
    def _time(self, value: Any) -> datetime | None: ...

    # -- the row -------------------------------------------------------------------------
    def lock(self, name: str, timeout_s: float) -> GateRow | None:
        """Begin a transaction and lock the row of gate ``name``; None (transaction rolled
        back) when the table or the row does not exist yet."""
        try:
            with self.translated():
                self._begin_locking(timeout_s)
                row = self._exec("lock", (name,)).fetchone()
        except LocationError as exc:
            self.rollback()
            if isinstance(exc, MissingObject):
                return None
            if isinstance(exc, LockTimeout):
                raise RowLockTimeout(
                    f"the row of gate {name!r} stayed locked by another session for "
                    f"{timeout_s:g} s",
                    location=self.location,
                    table=self.table,
                ) from exc
            raise
        if row is None:
            self.rollback()
            return None
        return self._row(row)

    def set_state(self, name: str, state: State, holder: Holder) -> None:
        """Inside the locking transaction: the new state with who set it and when."""
        with self.translated():
            self._exec(
                "set_state",
                (str(state), holder.host, holder.pid, holder.command[:1000], holder.token, name),
            )

    def purge(self, table: str) -> int:
        """Inside the locking transaction: delete every row of transport table ``table``."""
        ref = parse_table_name(table)
        parts = [ref.schema_, ref.name] if ref.schema_ else [ref.name]
        quoted = ".".join(self.dialect.quote(p) for p in parts)
        with self.translated(table):
            return int(self._exec("purge", raw={"target": quoted}).rowcount or 0)

    def ensure(self, name: str, holder: Holder) -> None:
        """Create the table and the gate's row (state ``WarehouseLoaded``) if missing.

        Many processes may do this at once on a fresh database; each statement is
        race-safe (IF NOT EXISTS, insert-or-ignore) and a lost race is retried."""
        for attempt in range(_ENSURE_ATTEMPTS):
            try:
                with self.translated():
                    self._exec("create")
                    self.conn.commit()
                    params = (name, str(INITIAL), holder.host, holder.pid, holder.command[:1000])
                    self._exec("insert_default", (*params, holder.token))
                    self.conn.commit()
                return
            except LocationError as exc:
                self.rollback()
                # a lost race: a duplicate name or row, or a lock wait / deadlock meanwhile
                race = isinstance(exc, DuplicateKey | TransientError)
                if attempt + 1 == _ENSURE_ATTEMPTS or not race:
                    raise
                time.sleep(0.02 * (attempt + 1))

    def read(self, name: str) -> GateRow | None:
        """The row without a lock (for ``gate status``); None when missing."""
        rows = self._read("read", (name,))
        return rows[0] if rows else None

    def read_all(self) -> list[GateRow]:
        return self._read("read_all", ())

    def _read(self, sql: str, params: tuple[Any, ...]) -> list[GateRow]:
        try:
            with self.translated():
                rows = self._exec(sql, params).fetchall()
                self.conn.commit()
        except MissingObject:
            self.rollback()
            return []
        except LocationError:
            self.rollback()
            raise
        return [self._row(r) for r in rows]

    def _row(self, r: Any) -> GateRow:
        try:
            state = State(r[1])
        except ValueError:
            raise LocationError(
                f"gate {r[0]!r} holds an unknown state {r[1]!r}; repair it with "
                f"`syncpoint gate reset {r[0]} --to STATE`",
                location=self.location,
                table=self.table,
            ) from None
        return GateRow(
            name=r[0],
            state=state,
            changed_at=self._time(r[2]),
            host=r[3],
            pid=int(r[4]) if r[4] is not None else None,
            command=r[5],
            token=r[6],
            turns=int(r[7] or 0),
            read_at=self._time(r[8]),
        )


def utc(value: datetime | None) -> datetime | None:
    """A naive datetime read from a column that holds UTC, made aware."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value
