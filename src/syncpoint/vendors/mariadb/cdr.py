"""Conflict resolution at a MariaDB site (``vendors/cdrbase.py`` has the design): the
bookkeeping ``cdr add`` puts on a table and the dialect of the apply.

BEFORE INSERT and BEFORE UPDATE triggers stamp the key version and the versions on local
writes (the origin variable ``@{p}origin`` is NULL) and leave replicated writes as they
came; an AFTER DELETE trigger writes the tombstone of a local delete. Version columns are
``utf8mb4_bin``, so they compare byte by byte. DDL commits by itself here: ``cdr add`` and
``cdr remove`` are idempotent steps (``IF [NOT] EXISTS``), and a failed ``cdr add`` is
taken back by ``cdr remove``. Capture names a table's columns in its triggers, so both
render the table's capture triggers again right after the ALTER (capture's DDL polling
ignores the bookkeeping columns: they are no schema change to replicate).
"""

from __future__ import annotations

from typing import Any, ClassVar

from syncpoint.config import TableName
from syncpoint.vendors.cdrbase import CdrSite, CdrTable
from syncpoint.vendors.integratebase import Params
from syncpoint.vendors.mariadb import catalog, dialect, triggers
from syncpoint.vendors.mariadb.dialect import json_path
from syncpoint.vendors.mariadb.names import Names
from syncpoint.vendors.mariadb.state import watched

VERSION = "VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"


class MariadbCdr(CdrSite):
    vendor = "mariadb"
    TYPES: ClassVar[dict[str, str]] = {
        "int": "BIGINT",
        "text": "LONGTEXT",
        "version": VERSION,
        "key": "VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
    }
    SET_PREFIX = "d."
    TRANSACTIONAL_DDL = False

    def __init__(self, integ: Any):
        super().__init__(integ)
        self.names = Names(integ.prefix)

    def same(self, a: str, b: str) -> str:
        return f"{a} <=> {b}"

    def as_text(self, expr: str) -> str:
        return f"CAST({expr} AS CHAR)"

    def key_json(self, exprs: list[str]) -> str:  # type: ignore[override]
        return "JSON_ARRAY(" + ", ".join(exprs) + ")"

    def row_json(self, alias: str, columns: Any) -> str:
        pairs = ", ".join(f"{self.lit(c)}, {alias}.{self.q(c)}" for c in columns)
        return f"JSON_OBJECT({pairs})"

    def has_tables(self, conn: Any, name: str = "cdr") -> bool:
        found = super().has_tables(conn, name)
        conn.rollback()  # the read opened a transaction: its snapshot must not linger
        return found

    def befores(self, version_col: str, p: Params) -> str:
        return f"COALESCE(JSON_EXTRACT(s.b, {p.bind(json_path(version_col))}), '[]')"

    def json_object(self, members: list[str]) -> str:
        return "CONCAT('{', " + ", ',', ".join(members) + ", '}')"

    def kv_path(self, column: str) -> str:
        return json_path(column)

    def json_with(self, text: str, members: list[tuple[str, str]]) -> str:
        pairs = ", ".join(f"{self.lit(json_path(n))}, {v}" for n, v in members)
        return f"JSON_SET({text}, {pairs})"

    def in_set(self, befores: str, version: str) -> str:
        return f"JSON_CONTAINS({befores}, JSON_QUOTE({version}))"

    def fill(self, conn: Any, plan: Any, params: dict[str, Any]) -> None:
        super().fill(conn, plan, params)
        self.integ._warnings(conn, plan.t.target.ref)  # type: ignore[attr-defined]  # noqa: SLF001

    def capture_queue(self, ref: TableName) -> tuple[dict[str, str], dict[str, str]]:
        n = self.names
        raw = {k: self.q(n.obj(k)) for k in ("items", "tables", "trans_key")}
        raw["origin"] = n.origin_var
        raw["schema"] = self.lit(ref.schema_) if ref.schema_ else "DATABASE()"
        return raw, {"location": self.integ.location, "tablename": ref.name}

    # -- add / remove -------------------------------------------------------------------------
    def _names(self, t: TableName) -> dict[str, str]:
        stem = self.trigger_stem(t)
        return {
            "target": self.integ.qualified(t),
            "trg_bi": self.q(f"{stem}_bi"),
            "trg_bu": self.q(f"{stem}_bu"),
            "trg_ad": self.q(f"{stem}_ad"),
        }

    def _raw(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> dict[str, str]:
        raw = self.trigger_raw(ref, setting, columns, location)
        raw.update(origin=self.names.origin_var, table=self.lit(table))
        return raw

    def add_statements(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> list[str]:
        raw = self._raw(table, ref, setting, columns, location)
        return (
            self.sql("create") + self.sql("add", raw) + self.sql("renew", raw) + self.sql("unlock")
        )

    def renew(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        self.run(conn, "renew", raw=self._raw(table, ref, setting, columns, location), table=table)

    def row_text(self, values: Any) -> str:
        # every value as its bytes in base64: FROM_BASE64 gives back any type exactly
        pairs = ", ".join(f"{self.lit(c)}, TO_BASE64({e})" for c, e in values)
        return f"JSON_OBJECT({pairs})"

    def restore(self, plan: Any) -> dict[str, str]:
        sets = [
            f"d.sp_o{i} = FROM_BASE64(JSON_VALUE(d.sp_tr, {self.lit(json_path(c.name))}))"
            for i, c in enumerate(plan.cols)
        ]
        return {"restore": ", ".join(sets)}

    def add(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """Bookkeeping tables, columns, triggers and the settings row; the table's capture
        triggers rendered again with the new columns (DDL commits as it goes). From the
        ALTER to the last trigger the table is locked (``add.sql``): no row is written
        without its versions."""
        raw = self._raw(table, ref, setting, columns, location)
        cur = conn.cursor()
        with dialect.translated(self.integ.location, table):
            # read before the lock: under LOCK TABLES only the tables locked can be read
            specs = self._capture_specs(cur, ref, location)
            self.execute_all(cur, self.sql("create"), {})
            try:
                locked = self.sql("add", raw) + self.sql("renew", raw)
                self.execute_all(cur, locked, self.setting_params(table, setting))
                self._capture_triggers(conn, ref, location, specs)
            finally:
                self.execute_all(cur, self.sql("unlock"), {})

    def remove(self, conn: Any, table: str, ref: TableName, setting: CdrTable) -> None:
        raw = dict(self._names(ref), drop_columns=self.drop_columns(setting))
        self.run(conn, "remove", {"table": table}, raw, table)
        with dialect.translated(self.integ.location, table):
            self._capture_triggers(conn, ref, self.integ.location)
        if not self.run(conn, "settings").fetchall():
            self.run(conn, "drop_tables")

    def _capture_specs(self, cur: Any, ref: TableName, location: str) -> list[triggers.Spec]:
        """What the table's capture triggers are rendered from: its captured actions at the
        shape version capture knows (the bookkeeping columns change no version)."""
        db = ref.schema_ or catalog.database(cur)
        return [
            triggers.Spec(w.schema, w.table, w.actions or "IUD", w.version, w.debug, location)
            for w in watched(cur, self.names)
            if w.schema == db and w.table == ref.name and w.status != "DROPPED"
        ]

    def _capture_triggers(
        self, conn: Any, ref: TableName, location: str, specs: list[triggers.Spec] | None = None
    ) -> None:
        """The capture triggers of the table, rendered for its columns now."""
        cur = conn.cursor()
        for spec in self._capture_specs(cur, ref, location) if specs is None else specs:
            triggers.apply(cur, self.names, spec, catalog.columns(cur, spec.schema, spec.table))
        conn.commit()
