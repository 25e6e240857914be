"""PostgreSQL capture: statement triggers write ``{p}items``; PgQ-style ticks order it.

**Triggers.** Each watched table gets one generated plpgsql function ``{p}capture_<id>``
and AFTER ... FOR EACH STATEMENT triggers with transition tables: ``_ins`` (I), ``_upd``
(U), ``_del`` and ``_trunc`` (D: a TRUNCATE is a mass delete, captured when deletes are).
A statement's records are written by one ``INSERT ... SELECT`` over its transition table;
a row trigger pays a function call and an INSERT per row, which on bulk statements costs
more than the queue insert itself (``bench/capture_insert_pg.py`` measures both), while a
single-row statement costs a few microseconds more. UPDATE pairs old and new rows by the
key (primary key, or the ``key`` of the channel file): a pair is an UPDATE, an old key
without a new partner a DELETE, a new key without an old partner an INSERT, which leaves
the final state right key by key when a statement changes keys (``SET id = id + 1``).
Within one statement records follow the database's row order (no key appears twice in a
statement); across statements, statement order. A user trigger that writes a watched
table while a statement on it runs gets its records before that outer statement's (the
inner statement ends first). TRUNCATE writes one record carrying the table's shape.
Triggers are ``ENABLE ALWAYS`` (they fire under ``session_replication_role = replica``
too) and ``SECURITY DEFINER`` with a fixed ``search_path`` (application roles need no grant
on the queue and cannot redirect the function's names). Only plain tables are captured
(see ``catalog.py``). The generator is ``sql/install/110_fn_make_capture.sql``.

**Content** is ``row_to_json`` text: column order kept, json columns verbatim, numerics with
every digit, NaN/Infinity as strings; bytea is base64 and money a plain number; timestamps
with zone are written in UTC whatever the session's TimeZone (settings that change how a
value prints are pinned for the statement when they matter, and restored). PostgreSQL text
cannot hold NUL and row_to_json keeps json text verbatim (to_jsonb would refuse a json
``\u0000``): every value of a UTF8 database has a JSON form, and a SQL_ASCII database,
whose text may not be UTF-8, is refused by ``check``.

**Positions.** ``trans_key`` is ``pg_current_xact_id()``; ``tick()`` stores a snapshot per
tick in ``{p}ticks`` (taken in READ COMMITTED after the lock on ``{p}service_context``, which
serializes tickers); a record belongs to window (after, upto] when upto's snapshot sees its
transaction and after's does not (a missing tick is an error, never an empty window).
Records are never stamped (it would double the write cost), so ``{p}items.context`` stays
NULL; ``changes`` computes each record's tick. ``Tick.guaranteed`` is min(clock, start of
the oldest transaction of this database that holds an xid), both read before the snapshot.
Prepared (two-phase) transactions are not in pg_stat_activity: their changes are still
never skipped, but the guaranteed time does not wait for them. The queue's primary key is
(tablename, trans_key, repl_key), what readers filter on; repl_key is unique by its
sequence (CACHE 1, NO CYCLE; ``check`` and ``status`` flag a sequence altered or reset).

**DDL.** The event triggers ``{p}ddl_end`` and ``{p}ddl_drop`` write CREATE/ALTER/DROP
records of this prefix's watched tables only (several prefixes coexist); ALTER regenerates
the capture function for the new shape and bumps ``version``; TRUNCATE does not change the
version. Installing needs a superuser (event triggers).

**Origin.** ``set_origin`` sets the transaction-local setting ``syncpoint.<prefix>origin``;
the triggers write it as ``dbid`` (else the location name).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import pq

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, ChangeRecord, TableShape, Tick, WatchedTableStatus
from syncpoint.errors import NotInstalled, UsageError
from syncpoint.vendors.base import Capture
from syncpoint.vendors.postgres import catalog, dialect, stream
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.objects import Objects

_SUFFIXES = {"I": ("_ins",), "U": ("_upd",), "D": ("_del", "_trunc")}


class PostgresCapture(Capture):
    vendor = "postgres"

    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.objects = Objects(prefix)

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

    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = super().check(conn, tables)
        with self._translated(None, conn):
            problems += catalog.check_location(conn, self.objects, self.location)
            problems += catalog.check_tables(conn, self.objects, tables, self.location)
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
        steps += [(s, None) for s in o.folder("install")]
        steps.append(
            (
                o.one("queries/service_upsert.sql"),
                {"stream_id": stream_id, "location": self.location},
            )
        )
        steps.append((o.one("queries/tick0.sql"), None))
        steps += [(s, kept) for s in o.render("queries/unwatch_stale.sql")]
        for t in tables:
            ref = {"schema": schema_of(t.ref), "table": t.ref.name}
            row = {**ref, "actions": t.actions, "debug": int(t.debug), "key": t.key}
            steps.append((o.one("queries/table_upsert.sql"), row))
            steps.append((o.one("queries/watch.sql"), ref))
        return steps

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
            ddl = [
                dict(
                    zip(
                        (
                            "repl_key",
                            "db_action",
                            "db_schema",
                            "tablename",
                            "version",
                            "captured_at",
                        ),
                        r,
                        strict=True,
                    )
                )
                for r in reversed(conn.execute(o.one("queries/status_ddl.sql")).fetchall())
            ]
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
        with self._translated():
            return stream.tick(conn, self.objects)

    def changes(self, conn: Any, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
        with self._translated(str(table), conn):
            return stream.changes(conn, self.objects, table, after, upto)

    def changes_query(self, table: TableName, after: int, upto: int) -> str:
        return stream.query(self.objects, table, after, upto, bound=False)

    def poll_ddl(self, conn: Any) -> int:
        return 0  # event triggers write DDL records as the DDL happens

    def purge(self, conn: Any, upto: int) -> int:
        _no_open_transaction(conn, "purge")
        with self._translated():
            return stream.purge(conn, self.objects, upto)

    def set_origin(self, conn: Any, origin: str | None) -> None:
        if conn.autocommit and conn.info.transaction_status == pq.TransactionStatus.IDLE:
            raise UsageError("set_origin() works inside an open transaction")
        with self._translated():
            conn.execute(
                self.objects.one("queries/set_origin.sql"),
                {"setting": self.objects.origin_setting, "origin": origin or ""},
            )


def catalog_missing(exc: psycopg.Error, objs: Objects) -> bool:
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
