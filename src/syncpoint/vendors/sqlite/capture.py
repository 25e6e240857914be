"""SQLite capture: row triggers into ``{prefix}items``, ticks by stamping, DDL by polling.

Writers are serialized, so ``repl_key`` order is commit order; ``tick()`` takes the write
lock (``BEGIN IMMEDIATE``), polls DDL, stamps the unstamped records with the new tick and
commits. ``trans_key`` is the tick that will stamp the record. A migration that drops a
column runs through ``run_ddl`` (SQLite refuses to drop a column a trigger names). Why:
docs/internals.md, "Capture on SQLite".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, ChangeRecord, TableShape, Tick, WatchedTableStatus
from syncpoint.errors import LocationError, NotInstalled, UsageError
from syncpoint.vendors.base import Capture
from syncpoint.vendors.sqlite import catalog, ddl, dialect, encode, objects
from syncpoint.vendors.sqlite.names import Names

FINISH_BATCH = 2000


def _time(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)


class SqliteCapture(Capture):
    vendor = "sqlite"

    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.names = Names(prefix)
        self.ctx = objects.Ctx(self.names, location, catalog.catalog_name(dialect.path_of(url)))

    # -- connections and catalog -------------------------------------------------------
    def connect(self, autocommit: bool = False) -> Any:
        return dialect.connect(self.url, location=self.location, autocommit=autocommit)

    def describe(self, conn: Any, table: TableName) -> TableShape | None:
        with dialect.translated(self.location, str(table)):
            return catalog.describe(conn, table)

    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with dialect.translated(self.location):
            problems = self._engine_problems(conn)
            for t in tables:
                problems += objects.table_problems(conn, self.names, t)
        return problems

    def _engine_problems(self, conn: Any) -> list[str]:
        version = tuple(
            int(x) for x in conn.execute("SELECT sqlite_version()").fetchone()[0].split(".")
        )
        if version < (3, 37, 0):
            return [
                f"SQLite {'.'.join(map(str, version))} is too old: capture needs 3.37+ "
                "(JSON functions, pragma table functions)"
            ]
        if not conn.execute("PRAGMA trusted_schema").fetchone()[0]:
            # A connection with trusted_schema=OFF refuses triggers that call JSON or pragma
            # functions: every write to a captured table would fail.
            return [
                "connections start with trusted_schema=OFF here: SQLite then refuses the "
                "capture triggers (they call json_object() and pragma functions), so every "
                "write to a captured table would fail; writers need PRAGMA trusted_schema=ON"
            ]
        return []

    # -- install -----------------------------------------------------------------------
    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        """The DDL ``install`` would run now (the triggers as they would be written)."""
        with dialect.translated(self.location):
            conn.execute("BEGIN IMMEDIATE")
            try:
                ran: list[str] = []
                ctx = objects.Ctx(self.names, self.location, self.ctx.catalog, ran=ran)
                self._install(conn, ctx, tables)
                return ran
            finally:
                conn.execute("ROLLBACK")

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        with dialect.translated(self.location):
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._install(conn, self.ctx, tables)
                self.empty_at_install = self.empty_tables(conn, tables)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _install(self, conn: Any, ctx: objects.Ctx, tables: list[TableConfig]) -> None:
        fresh = not objects.installed(conn, self.names)
        objects.create_objects(conn, ctx)
        if not fresh:
            ddl.poll(conn, ctx)
        objects.register(conn, ctx, tables)
        objects.sync_triggers(conn, ctx)

    def uninstall(self, conn: Any) -> None:
        with dialect.translated(self.location):
            conn.execute("BEGIN IMMEDIATE")
            try:
                objects.drop_objects(conn, self.names)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def uninstall_plan(self, conn: Any) -> list[str]:
        with dialect.translated(self.location):
            return objects.drop_statements(conn, self.names)

    def status(self, conn: Any) -> CaptureStatus:
        with dialect.translated(self.location):
            if not objects.installed(conn, self.names):
                return CaptureStatus(installed=False)
            context, stream, _, _, _ = self._service(conn)
            counts = dict(self.ctx.run(conn, "queries/pending_counts.sql"))
            tables = [
                WatchedTableStatus(
                    table=r["tablename"],
                    status=r["status"] + (f": {r['reason']}" if r["reason"] else ""),
                    actions=r["actions"],
                    trigger_name=r["trigger_name"],
                    pending=int(counts.get(r["tablename"], 0)),
                    debug=int(r["debug"]),
                )
                for r in objects.watched(conn, self.ctx)
            ]
            keys = ("repl_key", "context", "tablename", "db_action", "version", "captured_at")
            events = [
                dict(zip(keys, r, strict=True))
                for r in self.ctx.run(conn, "queries/ddl_events.sql")
            ]
            problems = [
                f"a set_origin() row (origin {dbid!r}) was committed: every change captured "
                f"since is attributed to {dbid!r}; the applying transaction must call "
                f"set_origin(conn, None) before COMMIT (empty the table "
                f"{self.names.of('origin')} to stop it)"
                for (dbid,) in self.ctx.run(conn, "queries/origin_rows.sql")
            ]
            return CaptureStatus(
                installed=True,
                stream_id=stream,
                context=context,
                pending=sum(int(v) for v in counts.values()),
                tables=tables,
                ddl_events=list(reversed(events)),
                problems=problems,
            )

    # -- the stream --------------------------------------------------------------------
    def _service(self, conn: Any) -> tuple[Any, ...]:
        rows = self.ctx.run(conn, "queries/service_context.sql")
        if not rows:
            raise NotInstalled(
                f"capture with prefix {self.prefix!r} is not installed (run `syncpoint install`)",
                location=self.location,
            )
        return rows[0]

    def _require(self, conn: Any) -> None:
        if not objects.installed(conn, self.names):
            raise NotInstalled(
                f"capture with prefix {self.prefix!r} is not installed (run `syncpoint install`)",
                location=self.location,
            )

    def stream_id(self, conn: Any) -> str:
        with dialect.translated(self.location):
            self._require(conn)
            return str(self._service(conn)[1])

    def tick(self, conn: Any) -> Tick:
        tick = self._tick(conn, poll=True)
        assert tick is not None
        return tick

    def status_tick(self, conn: Any) -> Tick | None:
        """No tick while a shape change waits for its poll (a run's tick polls it first)."""
        return self._tick(conn, poll=False)

    def _tick(self, conn: Any, poll: bool) -> Tick | None:
        with dialect.translated(self.location):
            self._require(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                clock = str(self.ctx.run(conn, "queries/clock.sql")[0][0])
                n = int(self._service(conn)[0]) + 1
                # DDL first, in the same transaction: records the old triggers wrote after a
                # column change never become readable without the ALTER record and the rows
                # captured again after it (ddl.py)
                if poll:
                    ddl.poll(conn, self.ctx)
                elif ddl.pending(conn, self.ctx):
                    conn.execute("ROLLBACK")
                    return None
                self._finish_raw(conn)
                self.ctx.run(conn, "queries/tick_stamp.sql", (n,))
                self.ctx.run(conn, "queries/tick_context.sql", (n, clock))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        guaranteed = _time(clock)
        assert guaranteed is not None
        # no writer can be open under BEGIN IMMEDIATE: the tick never races with capture
        return Tick(context=n, guaranteed=guaranteed, sampled_at=guaranteed)

    def _finish_raw(self, conn: Any) -> None:
        """Give REAL and BLOB values their final form before the records become readable
        (in batches, so a large backlog is never held in memory at once)."""
        last = 0
        while rows := self.ctx.run(conn, "queries/tick_raw.sql", (last, FINISH_BATCH)):
            last = int(rows[-1][0])
            self._finish_batch(conn, rows)

    def _finish_batch(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        fixed = []
        for key, content, old, fix in rows:
            try:
                new_content, new_old = encode.finish_record(content, old, fix)
            except (ValueError, KeyError, TypeError) as exc:
                raise LocationError(
                    f"change record {key} of {self.prefix}items cannot be finished ({exc}); "
                    "the tick was rolled back",
                    location=self.location,
                ) from exc
            fixed.append((new_content, new_old, key))
        if fixed:
            conn.executemany(self.ctx.sql("queries/tick_finish.sql"), fixed)

    def changes(self, conn: Any, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
        with dialect.translated(self.location, str(table)):
            rows = self.ctx.run(conn, "queries/changes.sql", (table.name, int(after), int(upto)))
        return [ChangeRecord.from_row(r, _time(r[9])) for r in rows]

    def changes_query(self, table: TableName, after: int, upto: int) -> str:
        return self.tables_query([table], after, upto)

    def backlog_query(self, table: TableName, after: int) -> str | None:
        return self.tables_backlog_query([table], after)

    def tables_query(self, tables: Sequence[TableName], after: int, upto: int) -> str:
        return self.ctx.files.text(
            "queries/changes_query.sql",
            raw={"after": str(int(after)), "upto": str(int(upto)), "tables": _names(tables)},
        ).strip()

    def tables_backlog_query(self, tables: Sequence[TableName], after: int) -> str:
        return self.ctx.files.text(
            "queries/backlog_query.sql",
            raw={"after": str(int(after)), "tables": _names(tables)},
        ).strip()

    def queue_name(self, table: TableName) -> tuple[str, str]:
        return ("", table.name)  # one schema: see window/survey.sql

    def poll_ddl(self, conn: Any) -> int:
        with dialect.translated(self.location):
            if not objects.installed(conn, self.names):
                return 0
            if conn.in_transaction:
                return ddl.poll(conn, self.ctx)
            conn.execute("BEGIN IMMEDIATE")
            try:
                n = ddl.poll(conn, self.ctx)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return n

    def run_ddl(self, conn: Any, statements: list[str]) -> int:
        """Run DDL on watched tables safely: in one transaction, drop this prefix's triggers
        (SQLite refuses to drop a column they use), run ``statements``, then poll (DDL records,
        triggers regenerated). No write can happen in between. Returns the records written."""
        with dialect.translated(self.location):
            self._require(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                objects.drop_triggers(conn, self.names)
                for s in statements:
                    conn.execute(s)
                written = ddl.poll(conn, self.ctx, triggers_expected_missing=True)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return written

    def purge(self, conn: Any, upto: int) -> int:
        with dialect.translated(self.location):
            self._require(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                top = self.ctx.run(conn, "queries/max_context_key.sql", (int(upto),))[0][0]
                n = conn.execute(self.ctx.sql("queries/purge.sql"), (int(upto),)).rowcount
                if top is not None:
                    self.ctx.run(conn, "queries/purge_debug.sql", (top,))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return int(n)

    def key_sql(self, column: str, key: Sequence[str]) -> str:
        # json_each addresses any key name (paths cannot hold '"'); SQLite sources hold
        # numbers as INTEGER or REAL, so the decoded value is as exact as the stored one.
        items = ", ".join(
            self.window.one("key_item", raw={"source": column, "keyname": dialect.literal(k)})
            for k in key
        )
        return f"json_array({items})"

    def set_origin(self, conn: Any, origin: str | None) -> None:
        if not conn.in_transaction:
            raise UsageError(
                "set_origin() needs an open transaction (BEGIN IMMEDIATE first): outside one "
                "the origin would stay set for every later writer",
                location=self.location,
            )
        with dialect.translated(self.location):
            self.ctx.run(conn, "queries/origin_clear.sql")
            if origin is not None:
                self.ctx.run(conn, "queries/origin_set.sql", (origin,))


__all__ = ["SqliteCapture"]


def _names(tables: Sequence[TableName]) -> str:
    """The tables' names as a list of SQL literals."""
    return ", ".join(dialect.literal(n) for n in dict.fromkeys(t.name for t in tables))
