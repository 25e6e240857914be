"""The names of one prefix's capture objects at a PostgreSQL location, and the rendering of
the ``sql/`` files with them.

Every object lives in one schema (``public`` unless told otherwise) and its name starts
with the prefix, so prefixes never collide: the per-table capture functions are
``{p}capture_<id>`` and their triggers ``{p}capture_<id>_ins|_upd|_del|_trunc``; uninstall
finds them with the anchored pattern ``^{p}capture_[0-9]+$``, which no name of another
prefix can match (prefixes are plain lowercase names, other objects end in letters).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from syncpoint.core.cdr import bookkeeping_prefix
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.sqlfiles import SqlFiles

VENDOR = "postgres"

# token -> name suffix after the prefix
_SUFFIX = {
    "seq": "repl_key_seq",
    "items": "items",
    "items_pkey": "items_pkey",
    "items_ddl": "items_ddl",
    "ddl_log": "ddl_log",
    "ddl_log_pkey": "ddl_log_pkey",
    "tables": "tables",
    "tables_pkey": "tables_pkey",
    "tables_name": "tables_name",
    "tables_actions": "tables_actions",
    "tables_debug": "tables_debug",
    "service": "service_context",
    "service_pkey": "service_context_pkey",
    "service_one": "service_context_one",
    "ticks": "ticks",
    "ticks_pkey": "ticks_pkey",
    "debug": "debug_table",
    "fresh": "fresh_keys",
    "fresh_pkey": "fresh_keys_pkey",
    "parts": "partitions_seen",
    "parts_pkey": "partitions_seen_pkey",
    "fn_shape": "shape",
    "fn_added": "shape_added",
    "fn_make": "make_capture",
    "fn_drop": "drop_capture",
    "fn_on_ddl": "on_ddl",
    "fn_ddl_tables": "ddl_tables",
    "fn_on_drop": "on_drop",
    "fn_on_drop_start": "on_drop_start",
    "fn_tick": "tick",
    "fn_poll": "poll_ddl",
    "fn_snap": "snapshot",
    "fn_tables_changed": "tables_changed",
    "fn_gap": "capture_gap",
    "fn_stop": "stop_table",
    "fn_parts": "partitions_check",
    "trg_tables": "tables_changed",
    "et_ddl": "ddl_end",
    "et_drop": "ddl_drop",
    "et_start": "ddl_start",
}


@dataclass(frozen=True)
class Names:
    prefix: str
    schema: str = dialect.DEFAULT_SCHEMA

    def name(self, token: str) -> str:
        return self.prefix + _SUFFIX[token]

    def qualified(self, token: str) -> str:
        """``"schema"."name"``, quoted, for text that is parsed again (regclass, dynamic SQL)."""
        return f"{dialect.quote(self.schema)}.{dialect.quote(self.name(token))}"

    @property
    def origin_setting(self) -> str:
        """The transaction-local setting ``set_origin`` writes and the triggers read."""
        return f"syncpoint.{self.prefix}origin"

    @property
    def fn_prefix(self) -> str:
        return f"{self.prefix}capture_"

    @cached_property
    def idents(self) -> dict[str, str]:
        out = {token: self.name(token) for token in _SUFFIX}
        out["schema"] = self.schema
        return out

    def literals(self, **extra: str) -> dict[str, str]:
        return {
            "schema": self.schema,
            "fn_prefix": self.fn_prefix,
            "fn_pattern": f"^{self.fn_prefix}[0-9]+$",
            "items_q": self.qualified("items"),
            "items_ddl_q": self.qualified("items_ddl"),
            "ddl_q": self.qualified("ddl_log"),
            "tables_q": self.qualified("tables"),
            "seq_q": self.qualified("seq"),
            "debug_q": self.qualified("debug"),
            "fresh_q": self.qualified("fresh"),
            "parts_q": self.qualified("parts"),
            "origin_guc": self.origin_setting,
            # log capture's state, where there is one (fn_parts tells the capture kinds apart)
            "log_state_q": dialect.quote(self.schema)
            + "."
            + dialect.quote(self.prefix + "log_state"),
            "et_start_name": self.name("et_start"),
            "cdr_mark": bookkeeping_prefix(self.prefix),
            **extra,
        }

    @cached_property
    def sql(self) -> SqlFiles:
        return SqlFiles(VENDOR, idents=self.idents)

    def render(self, relpath: str, raw: dict[str, str] | None = None, **lits: str) -> list[str]:
        """The statements of ``sql/<relpath>`` with this prefix's names filled in."""
        return self.sql.statements(relpath, raw=raw, literals=self.literals(**lits))

    def one(self, relpath: str, raw: dict[str, str] | None = None, **lits: str) -> str:
        return self.sql.one(relpath, raw=raw, literals=self.literals(**lits))

    def folder(self, folder: str, **lits: str) -> list[str]:
        """Every statement of the files of ``sql/<folder>``, in file-name order."""
        return [stmt for rel in self.sql.listing(folder) for stmt in self.render(rel, None, **lits)]
