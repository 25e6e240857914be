"""Helpers shared by the PostgreSQL capture tests (no tests of its own).

``Pg`` wraps a ``PostgresCapture`` on a throwaway database with the steps every test
repeats: install, run a transaction as an application would, tick and read a window.
``listing`` is the catalog as a user would compare it before and after (names only: OIDs
and the numbered toast tables change when objects are re-created).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import ChangeRecord
from syncpoint.vendors.postgres.capture import PostgresCapture

_LISTING = {
    "pg_class": "SELECT n.nspname, c.relname, c.relkind FROM pg_class c"
    " JOIN pg_namespace n ON n.oid = c.relnamespace"
    " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"
    " AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'",
    "pg_proc": "SELECT n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)"
    " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
    " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')",
    "pg_trigger": "SELECT tgrelid::regclass::text, tgname, tgenabled FROM pg_trigger",
    "pg_event_trigger": "SELECT evtname, evtevent, evtenabled FROM pg_event_trigger",
    "pg_type": "SELECT n.nspname, t.typname FROM pg_type t"
    " JOIN pg_namespace n ON n.oid = t.typnamespace"
    " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')",
}


def listing(db: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Names in pg_class, pg_proc, pg_trigger, pg_event_trigger and pg_type, sorted."""
    return {k: sorted(db.query(q)) for k, q in _LISTING.items()}


@dataclass
class Pg:
    db: Any
    prefix: str = "repl_"
    location: str = "dec01"
    cap: PostgresCapture = field(init=False)

    def __post_init__(self) -> None:
        self.cap = PostgresCapture(self.location, self.db.url, self.prefix)

    def conn(self) -> Any:
        return self.cap.connect()

    def install(self, *tables: TableConfig | str) -> None:
        conf = [TableConfig(name=t) if isinstance(t, str) else t for t in tables]
        conn = self.conn()
        try:
            self.cap.install(conn, conf)
        finally:
            conn.close()

    def uninstall(self) -> None:
        conn = self.conn()
        try:
            self.cap.uninstall(conn)
        finally:
            conn.close()

    def tick(self) -> int:
        conn = self.conn()
        try:
            return self.cap.tick(conn).context
        finally:
            conn.close()

    def changes(self, table: str, after: int, upto: int) -> list[ChangeRecord]:
        conn = self.conn()
        try:
            return self.cap.changes(conn, TableConfig(name=table).ref, after, upto)
        finally:
            conn.close()

    def window(self, table: str, after: int) -> tuple[int, list[ChangeRecord]]:
        upto = self.tick()
        return upto, self.changes(table, after, upto)

    def status(self) -> Any:
        conn = self.conn()
        try:
            return self.cap.status(conn)
        finally:
            conn.close()

    def check(self, *tables: TableConfig | str) -> list[str]:
        conf = [TableConfig(name=t) if isinstance(t, str) else t for t in tables]
        conn = self.conn()
        try:
            return self.cap.check(conn, conf)
        finally:
            conn.close()


def tx(db: Any, *statements: str, rollback: bool = False) -> None:
    """One transaction on a fresh connection, as an application would run it."""
    conn = db.connect(autocommit=False)
    try:
        for s in statements:
            conn.execute(s)
        conn.rollback() if rollback else conn.commit()
    finally:
        conn.close()


def rows(records: list[ChangeRecord]) -> list[tuple[str, Any, Any]]:
    return [(r.db_action, r.row, r.old) for r in records]


def ref(name: str) -> TableName:
    return TableConfig(name=name).ref
