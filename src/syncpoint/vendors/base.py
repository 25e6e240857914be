"""The contract every vendor's capture side fulfils (``vendors/<vendor>/capture.py``).

Positions (``context``) are *ticks*: every change record of a transaction that committed
before a tick is at or below it, every later one above. Readers take the records after one
tick and at or before a later one, in ``repl_key`` order. ``content``/``oldcontent`` are
JSON objects of column name to value, written by the rules in docs/internals.md, "Change
records" (exact numbers, base64 binary, ISO times, JSON columns as their text).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, ChangeRecord, TableShape, Tick


class Capture(ABC):
    """Capture objects of one prefix at one location."""

    vendor: ClassVar[str]

    def __init__(self, location: str, url: str, prefix: str):
        self.location = location
        self.url = url
        self.prefix = prefix

    # -- connections and catalog -------------------------------------------------------
    @abstractmethod
    def connect(self, autocommit: bool = False) -> Any:
        """A new DB-API connection; driver errors become ``LocationError``."""

    @abstractmethod
    def describe(self, conn: Any, table: TableName) -> TableShape | None:
        """The table's columns and primary key, or None when it does not exist."""

    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        """Problems that make capture of these tables unsafe (``validate``, ``install``).

        The default checks existence, key columns and a key; vendors add their traps.
        """
        problems: list[str] = []
        for t in tables:
            shape = self.describe(conn, t.ref)
            if shape is None:
                problems.append(f"table {t.name}: does not exist at location {self.location}")
                continue
            for col in t.key or []:
                if shape.column(col) is None:
                    problems.append(
                        f"table {t.name}: key column {col!r} does not exist at {self.location}"
                    )
            if not shape.primary_key and not t.key:
                problems.append(
                    f"table {t.name}: has no primary key at {self.location}; "
                    "name one in its entry (key: [col, ...])"
                )
        return problems

    # -- install -----------------------------------------------------------------------
    @abstractmethod
    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        """The SQL ``install`` would run now, rendered; changes nothing."""

    @abstractmethod
    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        """Create every object of the prefix (idempotent). All or nothing: on failure,
        objects created by this call are removed again before the error is raised."""

    @abstractmethod
    def uninstall(self, conn: Any) -> None:
        """Remove every object of this prefix; other prefixes are untouched (idempotent)."""

    @abstractmethod
    def uninstall_plan(self, conn: Any) -> list[str]:
        """The SQL ``uninstall`` would run now, rendered; changes nothing."""

    @abstractmethod
    def status(self, conn: Any) -> CaptureStatus:
        """Installed or not, watched tables with status, pending change records."""

    # -- the stream --------------------------------------------------------------------
    @abstractmethod
    def stream_id(self, conn: Any) -> str:
        """Identity of this capture stream: changes when capture is reinstalled."""

    @abstractmethod
    def tick(self, conn: Any) -> Tick:
        """Make and commit a new commit-ordered position (see the module docstring)."""

    @abstractmethod
    def changes(self, conn: Any, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
        """Change records of ``table`` after tick ``after`` and at or before ``upto``,
        in ``repl_key`` order (row and DDL records alike)."""

    @abstractmethod
    def changes_query(self, table: TableName, after: int, upto: int) -> str:
        """The same as ``changes`` as one SELECT text for Spark's JDBC reader (``after`` and
        ``upto`` are ints rendered as literals; names are quoted). Its columns are those of
        ``ChangeRecord`` with ``captured_at`` and ``content`` as text."""

    @abstractmethod
    def poll_ddl(self, conn: Any) -> int:
        """Where DDL has no event triggers: compare ``{prefix}cols_view`` with
        ``{prefix}cols_snapshot``, write DDL change records, regenerate triggers; return how
        many records were written. Vendors with event triggers return 0."""

    def status_tick(self, conn: Any) -> Tick | None:
        """The tick ``status`` makes so that its backlog counts every change committed
        before it was asked: the same as a run's, and nothing else (no DDL polled, no trigger
        touched). None when the vendor cannot tick without that (then status counts up to
        the newest tick a run made)."""
        return self.tick(conn)

    def run_ddl(self, conn: Any, statements: list[str]) -> int:
        """Run an application's migration (``syncpoint migrate``), then poll DDL; return the
        DDL records written. Where capture already follows plain DDL (PostgreSQL's event
        triggers, MariaDB's polled triggers) this only runs the statements in one transaction
        where the vendor's DDL is transactional; SQLite overrides it (its DROP COLUMN needs
        the triggers out of the way)."""
        cur = conn.cursor()
        try:
            for s in statements:
                cur.execute(s)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        return self.poll_ddl(conn)

    @abstractmethod
    def purge(self, conn: Any, upto: int) -> int:
        """Delete change records at or before tick ``upto``; return how many."""

    @abstractmethod
    def set_origin(self, conn: Any, origin: str | None) -> None:
        """Inside the caller's open transaction: changes captured from now until commit (or
        until ``set_origin(conn, None)``) carry ``dbid = origin`` instead of this location."""
