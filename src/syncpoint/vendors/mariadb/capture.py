"""MariaDB capture (``vendors/base.py::Capture``): row triggers (``triggers.py``,
``encode.py``), a queue stamped by ticks (``stream.py``), DDL by polling (``ddl.py``) and the
traps ``check`` refuses (``catalog.py``). ``set_origin`` is the session variable
``@{prefix}origin``, read by the triggers. How and why: docs/internals.md, "Capture on
MariaDB".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, ChangeRecord, TableShape, Tick, WatchedTableStatus
from syncpoint.errors import ConfigError, NotInstalled
from syncpoint.vendors.base import Capture
from syncpoint.vendors.mariadb import catalog, ddl, dialect, objects, privileges, stream
from syncpoint.vendors.mariadb.dialect import json_path
from syncpoint.vendors.mariadb.names import Names, render
from syncpoint.vendors.mariadb.state import Site, watched


class MariadbCapture(Capture):
    vendor: ClassVar[str] = "mariadb"
    kind: ClassVar[str] = "trigger"  # log/capture.py's subclass: "log"
    unseen_cascades: ClassVar[bool] = True  # InnoDB's cascades fire no trigger, log no row

    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.names = Names(prefix)

    # -- connections and catalog -------------------------------------------------------
    def connect(self, autocommit: bool = False) -> Any:
        return dialect.connect(self.url, location=self.location, autocommit=autocommit)

    def _site(self, conn: Any) -> Site:
        return Site(self.names, self.location, catalog.database(conn.cursor()))

    def describe(self, conn: Any, table: TableName) -> TableShape | None:
        with dialect.translated(self.location, str(table)):
            cur = conn.cursor()
            schema = table.schema_ or catalog.database(cur)
            return catalog.shape(schema, table.name, catalog.columns(cur, schema, table.name))

    def cascades(self, conn: Any) -> list[Any]:
        with dialect.translated(self.location):
            cur = conn.cursor()
            return catalog.cascades(cur, catalog.database(cur))

    def unfollowable(self, fk: Any, watched: set[str]) -> str | None:
        return catalog.unfollowable(fk, watched)

    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = super().check(conn, tables)
        with dialect.translated(self.location):
            cur = conn.cursor()
            problems += catalog.problems(cur, self.location, tables, log=self.kind == "log")
            if catalog.server_problem(cur) is None:
                problems += privileges.capture(
                    cur, self.names, self.location, triggers=self.kind != "log"
                )
            db = catalog.database(cur)
            for t in tables:
                schema = catalog.schema_of(t.ref, db)
                exists = self.describe(conn, t.ref) is not None
                if schema and exists and catalog.facts(cur, schema, t.ref.name) is None:
                    problems.append(f"table {t.name}: is a view, not a table, at {self.location}")
        return problems

    # -- install -----------------------------------------------------------------------
    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with dialect.translated(self.location):
            return objects.plan(conn.cursor(), self._site(conn), tables)

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        problems = self.check(conn, tables)
        if problems:
            raise ConfigError(
                f"capture cannot be installed at location {self.location}",
                [f"{self.location}: {p}" for p in problems],
            )
        with dialect.translated(self.location):
            site = self._site(conn)
            objects.install(conn, site, tables, lambda c: ddl.poll(c, site))
            # after the triggers' DDL (committed): a fresh read
            conn.rollback()
            self.empty_at_install = self.empty_tables(conn, tables)
            conn.rollback()

    def uninstall(self, conn: Any) -> None:
        with dialect.translated(self.location):
            objects.uninstall(conn, self._site(conn))

    def uninstall_plan(self, conn: Any) -> list[str]:
        with dialect.translated(self.location):
            stmts = objects.uninstall_statements(conn.cursor(), self._site(conn))
            conn.rollback()
            return stmts

    def status(self, conn: Any) -> CaptureStatus:
        with dialect.translated(self.location):
            cur = conn.cursor()
            present = objects.present(cur, self.names)
            if self.names.obj("service_context") not in present:
                return CaptureStatus(installed=False)
            cur.execute(render("queries/service_read.sql", self.names))
            row = cur.fetchone()
            if row is None:
                return CaptureStatus(installed=False)
            cur.execute(render("queries/pending.sql", self.names))
            pending = {str(t): int(n) for t, n in cur.fetchall()}
            tables = [
                WatchedTableStatus(
                    table=w.table,
                    status=w.status if not w.reason else f"{w.status}: {w.reason}",
                    actions=w.actions,
                    trigger_name=w.trigger_name,
                    pending=pending.get(w.table, 0),
                    debug=int(w.debug),
                )
                for w in watched(cur, self.names)
            ]
            cur.execute(render("queries/ddl_log_recent.sql", self.names))
            events = [
                {
                    "repl_key": int(k),
                    "tablename": t,
                    "db_action": a,
                    "version": int(v),
                    "captured_at": dialect.py_time(at),
                    "detail": d,
                }
                for k, t, a, v, at, d in reversed(cur.fetchall())
            ]
            st = CaptureStatus(
                installed=True,
                stream_id=row[1],
                context=int(row[0]),
                pending=sum(pending.values()),
                tables=tables,
                ddl_events=events,
            )
            keys = catalog.key_problem(cur)
            if keys:
                st.problems.append(f"location {self.location}: {keys}")
            if self.names.obj("tick_holes") not in present:
                # status writes nothing: the tables come with the next tick, purge or install
                st.problems.append(
                    "capture was installed by an earlier version of syncpoint: its tick "
                    "ranges are made by the next round, purge or `syncpoint install` at "
                    f"location {self.location}; until then the backlog cannot be counted"
                )
            return st

    # -- the stream --------------------------------------------------------------------
    def stream_id(self, conn: Any) -> str:
        st = self.status(conn)
        if not st.installed or st.stream_id is None:
            raise NotInstalled("capture is not installed", location=self.location)
        return st.stream_id

    def tick(self, conn: Any) -> Tick:
        with dialect.translated(self.location):
            return stream.tick(conn, self._site(conn))

    def changes(self, conn: Any, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
        with dialect.translated(self.location, str(table)):
            return stream.changes(conn, self._site(conn), table, after, upto)

    def changes_query(self, table: TableName, after: int, upto: int) -> str:
        return stream.changes_query(self._url_site(), [table], after, upto)

    def backlog_query(self, table: TableName, after: int) -> str | None:
        return stream.backlog_query(self._url_site(), [table], after)

    def tables_query(self, tables: Sequence[TableName], after: int, upto: int) -> str | None:
        return stream.changes_query(self._url_site(), tables, after, upto)

    def tables_backlog_query(self, tables: Sequence[TableName], after: int) -> str | None:
        return stream.backlog_query(self._url_site(), tables, after)

    def queue_name(self, table: TableName) -> tuple[str, str]:
        return stream.queue_name(self._url_site(), table)

    def _url_site(self) -> Site:
        """The site as the URL names its database (the window texts need no connection)."""
        return Site(self.names, self.location, dialect.parts(self.url)["database"] or "")

    def poll_ddl(self, conn: Any) -> int:
        with dialect.translated(self.location):
            return ddl.poll(conn, self._site(conn))

    def purge(self, conn: Any, upto: int) -> int:
        with dialect.translated(self.location):
            return stream.purge(conn, self._site(conn), upto)

    def key_sql(self, column: str, key: Sequence[str]) -> str:
        items = ", ".join(f"JSON_EXTRACT({column}, {dialect.literal(json_path(k))})" for k in key)
        return f"JSON_ARRAY({items})"

    def set_origin(self, conn: Any, origin: str | None) -> None:
        with dialect.translated(self.location):
            origin_var = {"origin": self.names.origin_var}
            sql = render("queries/set_origin.sql", self.names, raw=origin_var)
            conn.cursor().execute(sql.strip(), {"origin": origin})
