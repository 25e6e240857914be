"""Conflict resolution at a PostgreSQL site (``vendors/cdrbase.py`` has the design): the
bookkeeping ``cdr add`` puts on a table and the dialect of the apply.

A BEFORE INSERT OR UPDATE row trigger stamps the key version and the versions on local
writes and leaves replicated writes (the origin setting is set) as they came; an AFTER
DELETE row trigger writes the tombstone of a local delete. Both call one plpgsql function
per table, ``{p}cdr_<hash of the table name>``. Versions compare with ``COLLATE "C"``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from syncpoint.config import TableName
from syncpoint.vendors.cdrbase import CdrSite, CdrTable
from syncpoint.vendors.integratebase import Params
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.names import Names


class PostgresCdr(CdrSite):
    vendor = "postgres"
    COLLATE = ' COLLATE "C"'
    TYPES: ClassVar[dict[str, str]] = {
        "int": "bigint",
        "text": "text",
        "version": "text",
        "key": "text",
    }

    def __init__(self, integ: Any):
        super().__init__(integ)
        self.objects = Names(integ.prefix)
        self.origin_setting = self.objects.origin_setting

    def key_json(self, exprs: list[str]) -> str:  # type: ignore[override]
        return "json_build_array(" + ", ".join(exprs) + ")::text"

    def row_json(self, alias: str, columns: Any) -> str:
        return f"row_to_json({alias})::text"

    def befores(self, version_col: str, p: Params) -> str:
        return f"coalesce((s.b -> {p.bind(version_col)}::text)::text, '[]')"

    def json_object(self, members: list[str]) -> str:
        return "'{' || " + " || ',' || ".join(members) + " || '}'"

    def json_with(self, text: str, members: list[tuple[str, str]]) -> str:
        pairs = ", ".join(f"{self.lit(n)}, {v}" for n, v in members)
        return f"(({text})::jsonb || jsonb_build_object({pairs}))::text"

    def in_set(self, befores: str, version: str) -> str:
        return f"({befores})::jsonb ? {version}"

    def capture_queue(self, ref: TableName) -> tuple[dict[str, str], dict[str, str]]:
        o = self.objects
        raw = {k: o.qualified(k) for k in ("items", "service", "tables")}
        lits = {
            "origin_guc": self.origin_setting,
            "seq": o.qualified("seq"),
            "schema": ref.schema_ or dialect.DEFAULT_SCHEMA,
            "tablename": ref.name,
        }
        return raw, lits

    # -- add / remove -------------------------------------------------------------------------
    def _names(self, t: TableName) -> dict[str, str]:
        schema = self.q(t.schema_ or dialect.DEFAULT_SCHEMA)
        return {
            "target": self.integ.qualified(t),
            "fn": f"{schema}.{self.q(self.trigger_stem(t))}",
            "trg_row": self.q(f"{self.prefix}cdr_row"),
            "trg_del": self.q(f"{self.prefix}cdr_del"),
            "tombstones": f"{self.q(dialect.DEFAULT_SCHEMA)}.{self.q(self.idents['tombstones'])}",
            "make_capture": self.objects.qualified("fn_make"),
            "capture_tables": self.objects.qualified("tables"),
            "target_text": self.lit(self.integ.qualified(t)),
        }

    def add_statements(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> list[str]:
        raw = self.trigger_raw(ref, setting, columns, location)
        renew = self.sql("renew", raw, origin_guc=self.origin_setting, table=table)
        return self.sql("create") + renew + self.sql("add", raw, table=table)

    def renew(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        raw = self.trigger_raw(ref, setting, columns, location)
        statements = self.sql("renew", raw, origin_guc=self.origin_setting, table=table)
        with dialect.translated(self.integ.location, table):
            self.execute_all(conn.cursor(), statements, {})

    def deleted_row(self, alias: str, columns: Any) -> str:
        return f"row_to_json({alias})::text"

    def row_text(self, values: Any) -> str:
        # json_build_object takes at most 100 arguments: 50 columns a piece, joined
        pieces = [
            "json_build_object("
            + ", ".join(f"{self.lit(c)}, {e}" for c, e in values[i : i + 50])
            + ")::jsonb"
            for i in range(0, len(values), 50)
        ]
        return "(" + " || ".join(pieces) + ")::text"

    def restore(self, plan: Any) -> dict[str, str]:
        return {
            "restore_to": ", ".join(f"sp_o{i}" for i in range(len(plan.cols))),
            "restore_from": ", ".join(f"r.{self.q(c.name)}" for c in plan.cols),
            "target": self.integ.qualified(plan.t.target.ref),
        }

    def add(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """Bookkeeping tables, columns, triggers and the settings row (caller commits)."""
        statements = self.add_statements(table, ref, setting, columns, location)
        with dialect.translated(self.integ.location, table):
            self.execute_all(conn.cursor(), statements, self.setting_params(table, setting))

    def remove(self, conn: Any, table: str, ref: TableName, setting: CdrTable) -> None:
        raw = dict(self._names(ref), drop_columns=self.drop_columns(setting))
        self.run(conn, "remove", {"table": table}, raw, table)
        if not self.run(conn, "settings").fetchall():
            self.run(conn, "drop_tables")
