"""Helpers shared by the MariaDB capture tests (no tests of its own).

``Cap`` wraps a ``MariadbCapture`` on a throwaway database with the few steps every test
repeats: install, run a transaction as an application would, tick and read a window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import ChangeRecord
from syncpoint.vendors.mariadb.capture import MariadbCapture


def listing(db: Any) -> dict[str, list[tuple[Any, ...]]]:
    """What the catalog holds for the database: tables (and sequences), views, columns,
    indexes, triggers and routines, with their definitions."""
    q = {
        "tables": "SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES"
        " WHERE TABLE_SCHEMA = %s ORDER BY 1",
        "views": "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS"
        " WHERE TABLE_SCHEMA = %s ORDER BY 1",
        "columns": "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, ORDINAL_POSITION"
        " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s ORDER BY 1, 4",
        "indexes": "SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME"
        " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %s ORDER BY 1, 2, 3",
        "triggers": "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, EVENT_MANIPULATION,"
        " ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = %s"
        " ORDER BY 1",
        "routines": "SELECT ROUTINE_NAME, ROUTINE_TYPE, ROUTINE_DEFINITION"
        " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = %s ORDER BY 1",
        "sequences": "SELECT TABLE_NAME FROM information_schema.TABLES"
        " WHERE TABLE_SCHEMA = %s AND TABLE_TYPE = 'SEQUENCE' ORDER BY 1",
    }
    return {k: db.query(sql, (db.name,)) for k, sql in q.items()}


@dataclass
class Cap:
    db: Any
    cap: MariadbCapture
    table: str = "t"

    @property
    def ref(self) -> TableName:
        return TableName(name=self.table)

    def conn(self) -> Any:
        return self.cap.connect()

    def tick(self) -> int:
        conn = self.conn()
        try:
            return self.cap.tick(conn).context
        finally:
            conn.close()

    def window(self, after: int, table: str | None = None) -> tuple[int, list[ChangeRecord]]:
        conn = self.conn()
        try:
            upto = self.cap.tick(conn).context
            ref = TableName(name=table) if table else self.ref
            return upto, self.cap.changes(conn, ref, after, upto)
        finally:
            conn.close()

    def poll(self) -> int:
        conn = self.conn()
        try:
            return self.cap.poll_ddl(conn)
        finally:
            conn.close()

    def tx(self, *statements: str, rollback: bool = False, params: Any = None) -> None:
        """One transaction on a fresh connection (autocommit off), as an application runs it."""
        conn = self.db.connect(autocommit=False)
        try:
            cur = conn.cursor()
            for s in statements:
                cur.execute(s, params) if params is not None else cur.execute(s)
            conn.rollback() if rollback else conn.commit()
        finally:
            conn.close()


def install(
    db: Any,
    *tables: TableConfig | str,
    prefix: str = "repl_",
    location: str = "dec01",
) -> Cap:
    cfgs = [t if isinstance(t, TableConfig) else TableConfig(name=t) for t in tables]
    cap = MariadbCapture(location, db.url, prefix)
    conn = cap.connect()
    try:
        cap.install(conn, cfgs)
    finally:
        conn.close()
    return Cap(db, cap, cfgs[0].ref.name if cfgs else "t")


def rows(recs: list[ChangeRecord]) -> list[tuple[str, Any, Any]]:
    return [(r.db_action, r.row, r.old) for r in recs]
