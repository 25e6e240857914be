"""The contract every vendor's capture side fulfils (``vendors/<vendor>/capture.py``).

Positions (``context``) are *ticks*: every change record of a transaction that committed
before a tick is at or below it, every later one above. Readers take the records after one
tick and at or before a later one, in ``repl_key`` order. ``content``/``oldcontent`` are
JSON objects of column name to value, written by the rules in docs/internals.md, "Change
records" (exact numbers, base64 binary, ISO times, JSON columns as their text).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, ChangeRecord, TableShape, Tick, WindowStats
from syncpoint.vendors.sqlfiles import SqlFiles


class Capture(ABC):
    """Capture objects of one prefix at one location."""

    vendor: ClassVar[str]

    def __init__(self, location: str, url: str, prefix: str):
        self.location = location
        self.url = url
        self.prefix = prefix
        # the tables the last ``install`` found empty once their triggers were in place
        self.empty_at_install: list[str] = []
        # comment lines go: the window reads wrap ``changes_query`` and Spark wraps them
        self.window = SqlFiles(self.vendor, "window", comments=False, location=location)

    # -- connections and catalog -------------------------------------------------------
    @abstractmethod
    def connect(self, autocommit: bool = False) -> Any:
        """A new DB-API connection; driver errors become ``LocationError``."""

    @abstractmethod
    def describe(self, conn: Any, table: TableName) -> TableShape | None:
        """The table's columns and primary key, or None when it does not exist."""

    def describe_many(self, conn: Any, tables: list[TableName]) -> dict[str, TableShape | None]:
        """``describe`` of each table (keyed by ``str(table)``); vendors that can read
        them all in one query do."""
        return {str(t): self.describe(conn, t) for t in tables}

    # whether ``cascades`` can find foreign keys whose changes the capture does not see
    unseen_cascades: ClassVar[bool] = False

    def cascades(self, conn: Any) -> list[Any]:
        """The foreign keys of the location whose cascades the capture cannot see
        (``core.cascade.Cascade``; rounds make their changes at the target). None by default:
        PostgreSQL and SQLite capture the rows a cascade changes like any other."""
        return []

    def unfollowable(self, fk: Any, watched: set[str]) -> str | None:
        """Why rounds cannot make the cascades of ``fk`` (one of ``cascades``) at the
        target, its child being replicated with the tables ``watched``; None when they can."""
        return None

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

    def own_types(self, conn: Any, table: TableName) -> list[Any]:
        """The types the source defined itself that the table's columns need, with what
        creates them at a target of this vendor (read in the caller's transaction); none
        where the vendor has no such types."""
        return []

    def empty_tables(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        """The tables holding no row, read in the caller's transaction: install's, after
        the tables' triggers were created (PostgreSQL, SQLite: under the lock that took; MariaDB
        right after, each trigger's creation having waited for every transaction that wrote
        the table). Every row such a table holds later was written with its trigger in
        place, so its change records hold all of it: it needs no snapshot."""
        from syncpoint import vendors
        from syncpoint.vendors.snapshotbase import sql

        mod = vendors.get(self.vendor).snapshot
        out = []
        for t in tables:
            cur = conn.cursor()
            cur.execute(sql(self.vendor, "empty", table=mod.qualified(t.ref)))
            if not int(cur.fetchone()[0]):
                out.append(str(t.ref))
        return out

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

    def backlog_query(self, table: TableName, after: int) -> str | None:
        """One SELECT of ``table``'s records after tick ``after`` that are committed now,
        ticked or not yet (its columns include ``repl_key`` and ``captured_at``): what
        ``status`` counts as the backlog while writing nothing. None where the vendor cannot
        tell without a tick (status then counts up to the newest tick)."""
        return None

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

    # -- reading a window (what a round asks of its capture locations) -------------------
    # ``query`` is this capture's ``changes_query`` for the window; each read ends the read
    # transaction a driver opened, so no snapshot stays held at the application's database.
    def window_stats(self, conn: Any, query: str) -> tuple[int, int, int, Any]:
        """(lowest repl_key, highest, count, oldest captured_at) of a window."""
        row = self._read(conn, "stats", query=query).fetchone()
        _idle(conn)
        lo, hi, n, oldest = row
        return (int(lo or 0), int(hi or 0), int(n or 0), oldest)

    # -- many tables at once (a round or status over a channel of hundreds of tables) -----
    def tables_query(self, tables: Sequence[TableName], after: int, upto: int) -> str | None:
        """The records of all ``tables`` in the window (after, upto] as one SELECT, with at
        least the columns ``db_schema``, ``tablename``, ``repl_key``, ``db_action`` and
        ``captured_at``; None where the vendor has none (``survey`` then reads each table)."""
        return None

    def tables_backlog_query(self, tables: Sequence[TableName], after: int) -> str | None:
        """The same as ``backlog_query`` for all ``tables`` in one SELECT, with the columns
        of ``tables_query``; None where the vendor cannot tell without a tick."""
        return None

    def queue_name(self, table: TableName) -> tuple[str, str]:
        """(db_schema, tablename) as this capture writes them in its records of ``table``."""
        return (table.schema_ or "", table.name)

    def survey(
        self, conn: Any, tables: Sequence[TableName], after: int, upto: int
    ) -> dict[str, WindowStats]:
        """What the window (after, upto] holds for each of ``tables`` that has records in
        it, keyed by ``str(table)``; a table not in the answer has none. One query for all
        of them where the vendor gives ``tables_query``, so a round costs the same whether
        the other tables of its group are idle or not there at all."""
        if not tables or upto <= after:
            return {}
        return self._survey(conn, tables, self.tables_query(tables, after, upto), after, upto)

    def round_survey(
        self, conn: Any, tables: Sequence[TableName], after: int, upto: int, exact: int
    ) -> dict[str, WindowStats]:
        """``survey`` for a round, whose counts matter only up to ``exact`` records in all
        (the most the driver nets): where the window holds more, a vendor may answer with
        bounds that cover each table's records (wider, never narrower), a count that is at
        least theirs (``hi - lo + 1``), no oldest time, and the DDL count exact, without
        reading every record. A table not in the answer still has none."""
        return self.survey(conn, tables, after, upto)

    def backlog_survey(
        self, conn: Any, tables: Sequence[TableName], after: int
    ) -> dict[str, WindowStats] | None:
        """``survey`` of the backlog after ``after`` (``backlog_query``'s records, committed
        now, ticked or not); None where the vendor cannot tell without a tick."""
        if not tables:
            return {}
        if self.backlog_query(tables[0], after) is None:
            return None
        return self._survey(conn, tables, self.tables_backlog_query(tables, after), after, None)

    def _survey(
        self,
        conn: Any,
        tables: Sequence[TableName],
        query: str | None,
        after: int,
        upto: int | None,
    ) -> dict[str, WindowStats]:
        out: dict[str, WindowStats] = {}
        if query is None:  # the vendor reads table by table
            for t in tables:
                q = self.backlog_query(t, after) if upto is None else None
                q = q or self.changes_query(t, after, int(upto or after))
                lo, hi, n, oldest = self.window_stats(conn, q)
                if n:
                    ddl = len(self.window_ddl(conn, q)) if upto is not None else 0
                    out[str(t)] = WindowStats(lo, hi, n, oldest, ddl)
            return out
        # two names of one table (``t`` and ``public.t``) both get its records
        wanted: dict[tuple[str, str], list[str]] = {}
        for t in tables:
            wanted.setdefault(self.queue_name(t), []).append(str(t))
        rows = self._read(conn, "survey", query=query).fetchall()
        _idle(conn)
        for schema, name, lo, hi, n, oldest, ddl in rows:
            if not int(n or 0):
                continue
            for key in wanted.get((str(schema), str(name)), []):
                out[key] = WindowStats(int(lo), int(hi), int(n), oldest, int(ddl or 0))
        return out

    def window_bounds(self, conn: Any, query: str) -> tuple[int, int, int]:
        """(lowest repl_key, highest, count) of a window (a round's read)."""
        row = self._read(conn, "bounds", query=query).fetchone()
        _idle(conn)
        lo, hi, n = row
        return (int(lo or 0), int(hi or 0), int(n or 0))

    def window_count(self, conn: Any, query: str) -> int:
        """How many rows a SELECT (``read_query``) returns."""
        row = self._read(conn, "count", query=query).fetchone()
        _idle(conn)
        return int(row[0])

    def window_ddl(self, conn: Any, query: str) -> list[tuple[int, str, Any, Any]]:
        """The DDL records of a window: (repl_key, action, content, oldcontent)."""
        rows = self._read(conn, "ddl", query=query).fetchall()
        _idle(conn)
        return [(int(rk), str(a), c, o) for rk, a, c, o in rows]

    def window_has(self, conn: Any, query: str, repl_key: int) -> bool:
        """Whether the window holds the record ``repl_key``."""
        row = self._read(conn, "has", query=query, repl_key=str(int(repl_key))).fetchone()
        _idle(conn)
        return bool(row[0])

    def read_rows(self, conn: Any, query: str) -> list[tuple[Any, ...]]:
        """Every row of ``query`` (a ``read_query``), for a round small enough to be netted
        by the driver."""
        cur = conn.cursor()
        with self.window.dialect.translated(self.location):
            cur.execute(query)
            rows = cur.fetchall()
        _idle(conn)
        return [tuple(r) for r in rows]

    def read_query(
        self, query: str, key: Sequence[str], rows_after: int, origins: Sequence[str]
    ) -> str:
        """The SELECT Spark reads a window with (see ``spark/read.py``): the row records of
        changes first made at one of ``origins`` (the capture location read, and those it
        forwards to the reader)."""
        literal = self.window.dialect.literal
        return self.window.one(
            "read",
            raw={
                "query": query,
                "key": self.key_sql("q.content", key),
                "old_key": self.key_sql("q.oldcontent", key),
                "rows_after": str(int(rows_after)),
                "origin": "AND q.dbid IN (" + ", ".join(literal(o) for o in origins) + ")",
            },
        )

    @abstractmethod
    def key_sql(self, column: str, key: Sequence[str]) -> str:
        """SQL making the JSON text of the key columns' values in ``column`` (this database
        writes one value the same way every time: the key's one string)."""

    def jdbc(self) -> tuple[str, dict[str, str]]:
        """JDBC URL and properties for Spark's reads here."""
        url, props = self.window.dialect.spark_jdbc(self.url)
        return str(url), dict(props)

    def _read(self, conn: Any, name: str, **raw: str) -> Any:
        return self.window.run(conn, name, raw=raw)


def _idle(conn: Any) -> None:
    """End the read transaction a driver opened (a dead connection rolled back already)."""
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 - a lost connection shows at the next statement
        pass
