"""Conflict resolution at a SQLite site (``vendors/cdrbase.py`` has the design): the
bookkeeping ``cdr add`` puts on a table and the dialect of the apply.

SQLite triggers cannot change the row being written, so AFTER INSERT and AFTER UPDATE
triggers stamp the key version and the versions with an UPDATE of the row (only when a
column of some group changed, so the stamp does not stamp itself), on local writes: the
origin table ``{p}origin`` is empty. An AFTER DELETE trigger writes the tombstone. Capture
then records the application's write and the stamp as two records, and the stamp's must
come second: SQLite fires the most recently created trigger first, so ``cdr add`` and
``cdr remove`` create capture's triggers again after their own (``objects.sync_triggers``),
in the same transaction as the ALTERs (capture's DDL polling ignores the bookkeeping
columns). The apply converts values in Python, as the plain apply does, and decides in SQL.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from syncpoint.config import TableName
from syncpoint.vendors.cdrbase import MADE, CdrSite, CdrTable, Purged, column_names
from syncpoint.vendors.integratebase import Params
from syncpoint.vendors.sqlite import catalog, dialect, objects
from syncpoint.vendors.sqlite.integrate import decode, dumps
from syncpoint.vendors.sqlite.names import Names

_NAMED = re.compile(r"(?<![\w:]):[a-z_]+")


class SqliteCdr(CdrSite):
    vendor = "sqlite"
    PARAM = ":{}"
    STAMP_SEP = ", "  # the SETs of the stamping UPDATE
    TYPES: ClassVar[dict[str, str]] = {
        "int": "INTEGER",
        "text": "TEXT",
        "version": "TEXT",
        "key": "TEXT",
    }

    def __init__(self, integ: Any):
        super().__init__(integ)
        self.names = Names(integ.prefix)
        self.idents["origin"] = self.names.of("origin")

    def same(self, a: str, b: str) -> str:
        return f"{a} IS {b}"

    def made_here(self, version: str) -> str:
        mark = "|" + self.integ.location
        return f"substr({version}, -{len(mark)}) = {self.lit(mark)}"

    def greatest(self, exprs: Any) -> str:
        return exprs[0] if len(exprs) == 1 else "max(" + ", ".join(exprs) + ")"

    def key_json(self, exprs: list[str]) -> str:  # type: ignore[override]
        return "json_array(" + ", ".join(exprs) + ")"

    def row_json(self, alias: str, columns: Any) -> str:
        def value(c: str) -> str:
            v = f"{alias}.{self.q(c)}"
            return f"CASE WHEN typeof({v}) = 'blob' THEN hex({v}) ELSE {v} END"

        return "json_object(" + ", ".join(f"{self.lit(c)}, {value(c)}" for c in columns) + ")"

    def _uses_params(self, stmt: str) -> bool:
        return bool(_NAMED.search(stmt))

    def befores(self, version_col: str, p: Params) -> str:
        raise NotImplementedError("SQLite converts staged rows in Python")

    def json_object(self, members: list[str]) -> str:
        return "'{' || " + " || ',' || ".join(members) + " || '}'"

    def kv_path(self, column: str) -> str:
        return '$."' + column + '"'

    def json_with(self, text: str, members: list[tuple[str, str]]) -> str:
        pairs = ", ".join(f"{self.lit(self.kv_path(n))}, {v}" for n, v in members)
        return f"json_set({text}, {pairs})"

    def in_set(self, befores: str, version: str) -> str:
        # both are column references of the apply's own temporary table
        return f"EXISTS (SELECT 1 FROM json_each({befores}) AS e WHERE e.value IS {version})"  # noqa: S608

    def purge_tombstones(
        self, conn: Any, keys: list[tuple[str, str, int]], check: Purged | None = None
    ) -> set[tuple[str, str, int]]:
        # the write lock first: a writer's transaction is then either done, and the check
        # sees it, or not begun
        conn.execute("BEGIN IMMEDIATE")
        self.delete_tombstones(conn, keys)
        lost = check(conn) if check is not None else set()
        conn.execute("ROLLBACK" if lost else "COMMIT")
        return lost

    def capture_queue(self, ref: TableName) -> tuple[dict[str, str], dict[str, str]]:
        queue = ("items", "service_context", "tables", "origin")
        raw = {k: self.q(self.names.of(k)) for k in queue}
        return raw, {"tablename": ref.name}

    # -- apply ----------------------------------------------------------------------------------
    def fill(self, conn: Any, plan: Any, params: dict[str, Any]) -> None:
        """The staged rows, each value converted as the plain apply converts it."""
        integ = self.integ
        names = [f"sp_{x}{j}" for j in range(len(plan.groups)) for x in "bn"]
        names += [f"sp_v{i}" for i in range(len(plan.cols))]
        (stmt,) = self.sql(
            "d_fill",
            {"columns": ", ".join(names), "marks": ", ".join("?" for _ in names)},
        )
        ref = plan.t.target.ref
        rows = []
        for rk, content in self.run(conn, "staged", params).fetchall():
            row, before, dv = (decode(content) + [None, None, None])[:3]
            row = row if isinstance(row, dict) else {}
            bs = [
                dumps(before.get(name, [])) if isinstance(before, dict) else "[]"
                for g in plan.groups
                for name in (plan.vs[g], plan.vs[g] + MADE)
            ]
            values = integ._bind(row, tuple(plan.cols), ref)  # type: ignore[attr-defined]  # noqa: SLF001
            for i, c in enumerate(plan.cols):
                if values[i] is None and c.name == plan.kv:
                    values[i] = 1
                elif values[i] is None and c.name in plan.vs.values():
                    values[i] = ""
            hb = 1 if isinstance(before, dict) else 0
            rows.append([int(rk), dumps(row), None if dv is None else str(dv), hb, *bs, *values])
        with self.dialect.translated(self.integ.location, str(ref)):
            conn.executemany(stmt, rows)

    # -- add / remove -------------------------------------------------------------------------
    def _names(self, t: TableName) -> dict[str, str]:
        stem = self.trigger_stem(t)
        return {
            "target": self.integ.qualified(t),
            "trg_ai": self.q(f"{stem}_ai"),
            "trg_au": self.q(f"{stem}_au"),
            "trg_ad": self.q(f"{stem}_ad"),
        }

    def add_statements(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> list[str]:
        parts = self.trigger_parts(setting, columns, location)
        names = self._names(ref)
        out = self.sql("create")
        for add in parts["add_columns"]:
            out += self.sql("add_column", {"target": names["target"], "add": add})
        raw = self._raw(table, ref, setting, columns, location)
        return out + self.sql("add", raw) + self.sql("renew", raw)

    def _raw(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> dict[str, str]:
        raw = self.trigger_raw(ref, setting, columns, location)
        raw["table"] = self.lit(table)
        raw["new_match"] = " AND ".join(
            self.fragment("key_match", {"column": self.q(k)}) for k in setting.key
        )
        return raw

    def renew(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """The delete trigger made again, then capture's (which must stay the newest)."""
        with dialect.translated(self.integ.location, table):
            conn.execute("BEGIN IMMEDIATE")
            try:
                raw = self._raw(table, ref, setting, columns, location)
                self.execute_all(conn, self.sql("renew", raw), {})
                self._capture_triggers(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def row_text(self, values: Any) -> str:
        # a blob as ["x", hex] and a real as ["r", its 17 digits] (JSON keeps 15): exact
        def value(v: str) -> str:
            return (
                f"CASE typeof({v}) WHEN 'blob' THEN json_array('x', hex({v})) "
                f"WHEN 'real' THEN json_array('r', printf('%.17g', {v})) ELSE {v} END"
            )

        return "json_object(" + ", ".join(f"{self.lit(c)}, {value(e)}" for c, e in values) + ")"

    def restore(self, plan: Any) -> dict[str, str]:
        return {}

    def restore_rows(self, conn: Any, plan: Any) -> None:
        """The deleted rows' values (``deleted_row``'s JSON) into ``sp_o<i>``."""
        (read,) = self.sql("d_deleted_rows")
        sets = ", ".join(f"sp_o{i} = ?" for i in range(len(plan.cols)))
        (write,) = self.sql("d_restore", {"sets": sets})
        with self.dialect.translated(self.integ.location, str(plan.t.target.ref)):
            rows = []
            for rowid, text in conn.execute(read).fetchall():
                row = json.loads(text)
                rows.append([_restored(row.get(c.name)) for c in plan.cols] + [rowid])
            if rows:
                conn.executemany(write, rows)

    def _ctx(self) -> objects.Ctx:
        from syncpoint.vendors.sqlite.capture import SqliteCapture

        return SqliteCapture(self.integ.location, self.integ.url, self.prefix).ctx

    def add(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """Everything in one transaction, capture's triggers created again last."""
        params = self.setting_params(table, setting)
        with dialect.translated(self.integ.location, table):
            conn.execute("BEGIN IMMEDIATE")
            try:
                self.execute_all(
                    conn, self.add_statements(table, ref, setting, columns, location), params
                )
                self._capture_triggers(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def remove(self, conn: Any, table: str, ref: TableName, setting: CdrTable) -> None:
        kv, vs = column_names(self.prefix, list(setting.groups))
        names = self._names(ref)
        have = {c.name for c in catalog.columns(conn, ref.name)}
        with dialect.translated(self.integ.location, table):
            conn.execute("BEGIN IMMEDIATE")
            try:
                self.run(conn, "remove", {"table": table}, names, table)
                # SQLite refuses to drop a column a trigger names: capture's go first
                objects.drop_triggers(conn, self.names)
                for c in [kv, *vs.values()]:
                    if c in have:
                        self.run(
                            conn,
                            "drop_column",
                            raw={"target": names["target"], "column": self.q(c)},
                        )
                self._capture_triggers(conn)
                if not self.run(conn, "settings").fetchall():
                    self.run(conn, "drop_tables")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _capture_triggers(self, conn: Any) -> None:
        objects.drop_triggers(conn, self.names)
        objects.sync_triggers(conn, self._ctx())


def _restored(value: Any) -> Any:
    """A value of a deleted row as ``SqliteCdr.deleted_row`` wrote it."""
    if isinstance(value, list) and len(value) == 2 and value[0] == "x":
        return bytes.fromhex(value[1])
    if isinstance(value, list) and len(value) == 2 and value[0] == "r":
        return float(value[1])
    return value
