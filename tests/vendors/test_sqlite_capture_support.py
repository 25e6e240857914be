"""Helpers for the SQLite capture tests: a capture on a throwaway database file, application
transactions on fresh connections, and the catalog listing install/uninstall are compared by."""

from __future__ import annotations

import sqlite3
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import ChangeRecord
from syncpoint.vendors.sqlite import catalog, dialect
from syncpoint.vendors.sqlite.capture import SqliteCapture


def app_conn(db: Any) -> sqlite3.Connection:
    """A connection as an application would open it: the plain sqlite3 module, no pragmas
    set by syncpoint (foreign keys on, as most applications that declare them do)."""
    conn = sqlite3.connect(dialect.path_of(db.url), timeout=30, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def tx(db: Any, *statements: str, rollback: bool = False, params: Any = None) -> None:
    """One application transaction on a fresh connection."""
    conn = app_conn(db)
    try:
        conn.execute("BEGIN")
        for s in statements:
            conn.execute(s, params) if params is not None else conn.execute(s)
        conn.execute("ROLLBACK" if rollback else "COMMIT")
    finally:
        conn.close()


def listing(db: Any, include_internal: bool = False) -> list[tuple[str, str, str, str]]:
    conn = sqlite3.connect(dialect.path_of(db.url))
    try:
        return catalog.listing(conn, include_internal=include_internal)
    finally:
        conn.close()


class Sl:
    """A SQLite capture location ``dec01`` under one prefix."""

    def __init__(self, db: Any, prefix: str = "repl_", location: str = "dec01"):
        self.db = db
        self.cap = SqliteCapture(location, db.url, prefix)

    def call(self, method: str, *args: Any) -> Any:
        conn = self.cap.connect()
        try:
            return getattr(self.cap, method)(conn, *args)
        finally:
            conn.close()

    def install(self, *tables: str | TableConfig) -> None:
        self.call(
            "install", [t if isinstance(t, TableConfig) else TableConfig(name=t) for t in tables]
        )

    def uninstall(self) -> None:
        self.call("uninstall")

    def tick(self) -> int:
        return int(self.call("tick").context)

    def poll(self) -> int:
        return int(self.call("poll_ddl"))

    def changes(self, table: str, after: int, upto: int) -> list[ChangeRecord]:
        return list(self.call("changes", TableName(name=table), after, upto))

    def window(self, table: str, after: int) -> tuple[int, list[ChangeRecord]]:
        upto = self.tick()
        return upto, self.changes(table, after, upto)

    def rows(self, table: str, after: int) -> list[tuple[str, Any, Any]]:
        """(action, row, old) of the next window's records, as JSON-decoded values."""
        return [(r.db_action, r.row, r.old) for r in self.window(table, after)[1]]

    def status(self) -> Any:
        return self.call("status")
