"""Names of the capture objects of one prefix, and rendering of the MariaDB ``sql/`` files.

Every object is named ``{prefix}...``. Triggers live beside their table and are named from
it: ``{prefix}{plain part of the table name}_{hash of the exact name}_{i|u|d}``, lower
case, so that two tables differing only in case or punctuation, and two prefixes where one
starts with the other, never share a trigger name, and ``uninstall`` can tell its own
triggers from any other prefix's by recomputing the names.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from syncpoint.errors import ConfigError
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.sqlfiles import SqlFiles

VENDOR = "mariadb"
_PLAIN = re.compile(r"^[a-z][a-z0-9_]*$")
EVENTS = {"I": ("INSERT", "i"), "U": ("UPDATE", "u"), "D": ("DELETE", "d")}
TABLES = (
    "items",
    "tables",
    "debug_table",
    "service_context",
    "ticks",
    "tick_ranges",
    "tick_holes",
    "cols_snapshot",
    "ddl_log",
)
# log capture's own tables (sql/log/): the binary log position drained, the origin marks
LOG_TABLES = ("log_state", "origin_marks")


@dataclass(frozen=True)
class Names:
    prefix: str

    def __post_init__(self) -> None:
        if not _PLAIN.match(self.prefix) or len(self.prefix) > 16:
            raise ConfigError(f"prefix {self.prefix!r} is not a plain lowercase name")

    def obj(self, role: str) -> str:
        return f"{self.prefix}{role}"

    @property
    def idents(self) -> dict[str, str]:
        """Every object of the prefix, by role (``items`` -> ``repl_items``)."""
        roles = (*TABLES, *LOG_TABLES, "cols_view", "trans_key")
        return {r: self.obj(r) for r in roles}

    @cached_property
    def sql(self) -> SqlFiles:
        """The vendor's SQL files with this prefix's names filled in."""
        return SqlFiles(VENDOR, idents=self.idents, raw={"var": self.var}, literal=_compared)

    @property
    def var(self) -> str:
        """Session variables of this prefix start with this (``@repl_``)."""
        return f"@{self.prefix}"

    @property
    def origin_var(self) -> str:
        return f"@{self.prefix}origin"

    def trigger(self, table: str, letter: str) -> str:
        plain = re.sub(r"[^a-z0-9_]", "_", table.lower())[:24]
        digest = hashlib.sha1(table.encode("utf-8")).hexdigest()[:8]
        return f"{self.prefix}{plain}_{digest}_{EVENTS[letter][1]}"

    def triggers(self, table: str) -> dict[str, str]:
        return {letter: self.trigger(table, letter) for letter in EVENTS}

    def lock(self, schema: str, what: str) -> str:
        """A GET_LOCK name (at most 64 characters) for ``what`` of this prefix in ``schema``."""
        digest = hashlib.sha1(f"{schema}\0{self.prefix}".encode()).hexdigest()[:24]
        return f"syncpoint.{what}.{digest}"


def _compared(value: str) -> str:
    # $lit{} values are names compared with the catalog's: byte for byte
    return dialect.literal(value, collate=True)


def render(
    relpath: str,
    names: Names,
    idents: dict[str, str] | None = None,
    raw: dict[str, str] | None = None,
    literals: dict[str, str] | None = None,
) -> str:
    """The text of ``sql/<relpath>`` with the prefix's object names and the given tokens."""
    return names.sql.text(relpath, idents=idents, raw=raw, literals=literals)


def statements(relpath: str, names: Names, **kw: Any) -> list[str]:
    return names.sql.statements(relpath, **kw)
