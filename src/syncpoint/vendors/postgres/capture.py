"""PostgreSQL capture: statement triggers with transition tables write ``{p}items``; ticks
store a snapshot each (``{p}ticks``), and a record's tick is computed when it is read; event
triggers write DDL records. ``set_origin`` is a transaction-local setting the triggers read.
How and why: docs/internals.md, "Capture on PostgreSQL".
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import pq

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import (
    CaptureStatus,
    ChangeRecord,
    TableShape,
    Tick,
    WatchedTableStatus,
    WindowStats,
)
from syncpoint.errors import NotInstalled, UsageError
from syncpoint.vendors.base import Capture
from syncpoint.vendors.postgres import catalog, ddlpoll, dialect, privileges, stream
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.names import Names

# the most transactions of one table's large window a round's survey steps through by the
# queue's index (two probes each) before it reads the window's records instead
SPAN_MOST = 256
_SUFFIXES = {"I": ("_ins",), "U": ("_upd",), "D": ("_del", "_trunc")}


class PostgresCapture(Capture):
    vendor = "postgres"

    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.objects = Names(prefix)

    # -- connections and catalog -------------------------------------------------------
    def connect(self, autocommit: bool = False) -> Any:
        return dialect.connect(self.url, location=self.location, autocommit=autocommit)

    @contextmanager
    def _translated(self, table: str | None = None, conn: Any = None) -> Iterator[None]:
        """Driver errors become syncpoint's; with ``conn``, a read transaction this call
        opened on a non-autocommit connection is closed again (no snapshot stays held)."""
        idle = conn is not None and conn.info.transaction_status == pq.TransactionStatus.IDLE
        try:
            yield
            if idle and not conn.autocommit:
                conn.commit()
        except (psycopg.errors.UndefinedTable, psycopg.errors.UndefinedFunction) as exc:
            if catalog_missing(exc, self.objects):
                raise NotInstalled(
                    f"capture of prefix {self.prefix} is not installed (run syncpoint install)",
                    location=self.location,
                ) from exc
            raise dialect.translate(exc, self.location, table) from exc
        except psycopg.Error as exc:
            raise dialect.translate(exc, self.location, table) from exc

    def describe(self, conn: Any, table: TableName) -> TableShape | None:
        with self._translated(str(table), conn):
            found = catalog.describe(conn, self.objects, table)
        return None if found is None else found[1]

    def describe_many(self, conn: Any, tables: list[TableName]) -> dict[str, TableShape | None]:
        with self._translated(None, conn):
            return catalog.describe_many(conn, self.objects, tables)

    def own_types(self, conn: Any, table: TableName) -> list[Any]:
        from syncpoint.vendors.postgres import owntypes
        from syncpoint.vendors.postgres.snapshot import qualified

        with self._translated(str(table)):
            return owntypes.used(conn, qualified(table))

    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = super().check(conn, tables)
        with self._translated(None, conn):
            problems += catalog.check_location(conn, self.objects, self.location)
            problems += catalog.check_tables(conn, self.objects, tables, self.location)
            problems += privileges.capture(
                conn, self.objects.schema, tables, self.location, log=False
            )
        return problems

    # -- install -----------------------------------------------------------------------
    def _install_steps(
        self, conn: Any, tables: list[TableConfig]
    ) -> list[tuple[str, dict[str, Any] | None]]:
        o = self.objects
        stream_id = self._existing_stream(conn) or uuid.uuid4().hex
        refs = [t.ref for t in tables]
        kept = {"schemas": [schema_of(r) for r in refs], "names": [r.name for r in refs]}
        steps: list[tuple[str, dict[str, Any] | None]] = [
            (o.one("queries/lock_timeout.sql"), None),
            (o.one("queries/lock.sql"), {"key": f"syncpoint:{o.schema}.{self.prefix}"}),
        ]
        steps += [(s, None) for s in self._objects(conn)]
        steps.append(
            (
                o.one("queries/service_upsert.sql"),
                {"stream_id": stream_id, "location": self.location},
            )
        )
        steps += self._stream_steps(conn)
        steps.append((o.one("queries/tick0.sql"), None))
        steps += [(s, kept) for s in o.render(self._UNWATCH)]
        for t in tables:
            ref = {"schema": schema_of(t.ref), "table": t.ref.name}
            row = {**ref, "actions": t.actions, "debug": int(t.debug), "key": t.key}
            steps.append((o.one("queries/table_upsert.sql"), row))
            steps += [(s, ref) for s in o.render(self._WATCH)]
        return steps + self._publish_steps(conn, refs)

    # what a capture kind installs besides the queue's rows (the log capture's differ)
    _UNWATCH = "queries/unwatch_stale.sql"
    _WATCH = "queries/watch.sql"

    def _objects(self, conn: Any) -> list[str]:
        """The statements making this capture's objects."""
        out: list[str] = []
        event_triggers = catalog.superuser(conn)
        for rel in self.objects.sql.listing("install"):
            # only a superuser may create event triggers; without them DDL is polled
            # (ddlpoll.py), so a table owner without superuser installs all the rest
            if rel.endswith("_event_triggers.sql") and not event_triggers:
                continue
            out += self.objects.render(rel)
        return out

    def _stream_steps(self, conn: Any) -> list[tuple[str, dict[str, Any] | None]]:
        return []  # the log capture's read position

    def _publish_steps(
        self, conn: Any, refs: list[TableName]
    ) -> list[tuple[str, dict[str, Any] | None]]:
        return []  # the log capture's publication

    def _existing_stream(self, conn: Any) -> str | None:
        if not catalog.installed(conn, self.objects):
            return None
        row = conn.execute(self.objects.one("queries/service_read.sql")).fetchone()
        return None if row is None else str(row[0])

    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with self._translated(None, conn):
            steps = self._install_steps(conn, tables)
            cur = psycopg.ClientCursor(conn)
            return [s if p is None else cur.mogrify(s, p) for s, p in steps]

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        _no_open_transaction(conn, "install")
        current = ""
        try:
            with conn.transaction():
                for stmt, params in self._install_steps(conn, tables):
                    current = str(params.get("table", "")) if params else ""
                    conn.execute(stmt, params)
                current = ""
                self.empty_at_install = self.empty_tables(conn, tables)
        except psycopg.Error as exc:
            raise dialect.translate(exc, self.location, current or None) from exc

    def uninstall(self, conn: Any) -> None:
        _no_open_transaction(conn, "uninstall")
        o = self.objects
        with self._translated(), conn.transaction():
            conn.execute(o.one("queries/lock_timeout.sql"))
            conn.execute(o.one("queries/lock.sql"), {"key": f"syncpoint:{o.schema}.{self.prefix}"})
            for stmt in o.folder("uninstall"):
                conn.execute(stmt)

    def uninstall_plan(self, conn: Any) -> list[str]:
        with self._translated(None, conn):
            return list(self.objects.folder("uninstall"))

    def status(self, conn: Any) -> CaptureStatus:
        o = self.objects
        with self._translated(None, conn):
            if not catalog.installed(conn, o):
                return CaptureStatus(installed=False)
            sid, _loc, ctx, *_ = conn.execute(o.one("queries/service_read.sql")).fetchone()
            pending = {
                (s, n): int(c) for s, n, c in conn.execute(o.one("queries/status_pending.sql"))
            }
            rows = conn.execute(o.one("queries/status_tables.sql"), {"schema": o.schema})
            tables = [_table_status(r, pending) for r in rows.fetchall()]
            ddl = ddl_events(conn, o)
            problems = catalog.check_sequence(conn, o)
        return CaptureStatus(
            installed=True,
            stream_id=sid,
            context=int(ctx),
            pending=sum(pending.values()),
            tables=tables,
            ddl_events=ddl,
            problems=problems,
        )

    # -- the stream --------------------------------------------------------------------
    def stream_id(self, conn: Any) -> str:
        with self._translated(None, conn):
            row = conn.execute(self.objects.one("queries/service_read.sql")).fetchone()
        if row is None:
            raise NotInstalled("capture has no service context row", location=self.location)
        return str(row[0])

    def tick(self, conn: Any) -> Tick:
        _no_open_transaction(conn, "tick")
        self.poll_ddl(conn)  # where event triggers are missing, DDL first (ddlpoll.py)
        with self._translated():
            return stream.tick(conn, self.objects)

    def changes(self, conn: Any, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
        with self._translated(str(table), conn):
            return stream.changes(conn, self.objects, table, after, upto)

    def changes_query(self, table: TableName, after: int, upto: int) -> str:
        return stream.query(self.objects, table, after, upto, bound=False)

    def backlog_query(self, table: TableName, after: int) -> str | None:
        return self._backlog([table], after)

    def tables_query(self, tables: Sequence[TableName], after: int, upto: int) -> str | None:
        return stream.query_many(self.objects, tables, after, upto)

    def tables_backlog_query(self, tables: Sequence[TableName], after: int) -> str | None:
        return self._backlog(tables, after)

    def round_survey(
        self, conn: Any, tables: Sequence[TableName], after: int, upto: int, exact: int
    ) -> dict[str, WindowStats]:
        """The survey of at most ``exact`` + 1 records; a window of more gets its bounds
        from the queue's index and its DDL count from the DDL log (``window_span.sql``), a
        few probes instead of a read of every record (which was most of a large round's
        plan). A table whose window spans more than ``SPAN_MOST`` transactions is surveyed
        as before."""
        if not tables or upto <= after:
            return {}
        query = self.tables_query(tables, after, upto)
        if query is None:
            return self.survey(conn, tables, after, upto)
        first = self.window.one("first", raw={"query": query, "n": str(int(exact) + 1)})
        found = self._survey(conn, tables, first, after, upto)
        if sum(s.records for s in {id(s): s for s in found.values()}.values()) <= exact:
            return found  # every record counted
        spans = self._spans(conn, tables, after, upto)
        return spans if spans is not None else self.survey(conn, tables, after, upto)

    def _spans(
        self, conn: Any, tables: Sequence[TableName], after: int, upto: int
    ) -> dict[str, WindowStats] | None:
        """``window_span.sql`` of ``tables``: each table's covering bounds, ``hi - lo + 1``
        for its count, its DDL count; None where a table's window has too many
        transactions to step through."""
        a, u = stream.window_ticks(after, upto)
        raw = {"after": str(a), "upto": str(u), "most": str(SPAN_MOST)}
        by_name: dict[tuple[str, str], list[str]] = {}
        for t in tables:
            by_name.setdefault(self.queue_name(t), []).append(str(t))
        params = {"schemas": [s for s, _ in by_name], "names": [n for _, n in by_name]}
        with self._translated(None, conn):
            rows = conn.execute(self.objects.one("queries/window_span.sql", raw=raw), params)
            rows = rows.fetchall()
        out: dict[str, WindowStats] = {}
        for schema, name, many, lo, hi, ddl in rows:
            if many:
                return None
            if lo is not None:
                stats = WindowStats(int(lo), int(hi), int(hi) - int(lo) + 1, None, int(ddl))
                out.update(dict.fromkeys(by_name[(str(schema), str(name))], stats))
        return out

    def _backlog(self, tables: Sequence[TableName], after: int) -> str:
        names, schemas = stream.literal_lists(tables)
        raw = {"after": str(int(after)), "table": names, "schema": schemas}
        return self.objects.sql.one("queries/backlog.sql", raw=raw, comments=False)

    def queue_name(self, table: TableName) -> tuple[str, str]:
        return (schema_of(table), table.name)

    def poll_ddl(self, conn: Any) -> int:
        """0 where event triggers write DDL records as the DDL happens; else the poll's
        records (``ddlpoll.py``), committed in a transaction of their own."""
        _no_open_transaction(conn, "poll_ddl")
        with self._translated():
            polls = catalog.installed(conn, self.objects) and ddlpoll.polling(conn, self.objects)
            conn.rollback()  # the read ends: the poll's transaction is its own
            if not polls:
                return 0
            with conn.transaction():
                return ddlpoll.poll(conn, self.objects)

    def notes(self, conn: Any) -> list[str]:
        """How DDL of the watched tables will be seen here, and why."""
        with self._translated(None, conn):
            installed = catalog.installed(conn, self.objects)
            polls = ddlpoll.polling(conn, self.objects) if installed else None
            user, superuser = catalog.user(conn)
        if polls is False or (polls is None and superuser):
            return [
                "DDL of watched tables is seen by event triggers as it happens"
                + (f" (user {user!r} is a superuser)" if superuser else "")
            ]
        return [
            "DDL of watched tables is found by polling the catalog at each tick, not by "
            + (
                f"event triggers: user {user!r} is not a superuser, and only a superuser can "
                "create event triggers"
                if not superuser
                else "event triggers: capture was installed without them (by a user who was "
                "not a superuser); install again as a superuser to have them"
            )
        ]

    def purge(self, conn: Any, upto: int) -> int:
        _no_open_transaction(conn, "purge")
        with self._translated():
            return stream.purge(conn, self.objects, upto)

    def key_sql(self, column: str, key: Sequence[str]) -> str:
        # json keeps a value's text as the capture wrote it (one text per value), and is
        # cheaper to take apart than jsonb; the array's text is the key's one string
        items = ", ".join(f"({column}::json -> {dialect.literal(k)})" for k in key)
        return f"json_build_array({items})::text"

    def set_origin(self, conn: Any, origin: str | None) -> None:
        if conn.autocommit and conn.info.transaction_status == pq.TransactionStatus.IDLE:
            raise UsageError("set_origin() works inside an open transaction")
        with self._translated():
            conn.execute(
                self.objects.one("queries/set_origin.sql"),
                {"setting": self.objects.origin_setting, "origin": origin or ""},
            )


_DDL_FIELDS = ("repl_key", "db_action", "db_schema", "tablename", "version", "captured_at")


def ddl_events(conn: Any, objs: Names) -> list[dict[str, Any]]:
    """The recent DDL records ``status`` lists, oldest first (both capture kinds)."""
    rows = conn.execute(objs.one("queries/status_ddl.sql")).fetchall()
    return [dict(zip(_DDL_FIELDS, r, strict=True)) for r in reversed(rows)]


def catalog_missing(exc: psycopg.Error, objs: Names) -> bool:
    """Whether a missing table/function error is about this prefix's own objects."""
    text = str(exc)
    return any(objs.name(t) in text for t in ("items", "service", "ticks", "tables", "fn_tick"))


def _table_status(row: Any, pending: dict[tuple[str, str], int]) -> WatchedTableStatus:
    schema, name, status, actions, trigger, debug, reason, _version, triggers = row
    if status == "OK":
        present = dict(t.split(":", 1) for t in triggers)
        wanted = [f"{trigger}{s}" for a in (actions or "IUD") for s in _SUFFIXES[a]]
        if any(w not in present for w in wanted):
            status = "TRIGGER MISSING"
        elif any(present[w] in ("D", "R") for w in wanted):
            status = "TRIGGER DISABLED"
    elif reason:
        status = f"{status}: {reason}"
    return WatchedTableStatus(
        table=f"{schema}.{name}",
        status=status,
        actions=actions,
        trigger_name=trigger,
        pending=pending.get((schema, name), 0),
        debug=int(debug),
    )


def _no_open_transaction(conn: Any, what: str) -> None:
    if conn.info.transaction_status != pq.TransactionStatus.IDLE:
        raise UsageError(f"{what}() needs a connection without an open transaction (it commits)")
