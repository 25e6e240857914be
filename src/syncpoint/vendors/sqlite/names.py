"""The names of every object SQLite capture installs for one prefix, and which are whose.

Trigger names are ``{prefix}{kind}${table}``: a prefix is a plain lowercase name, so it never
holds ``$``, and ``{prefix}{kind}$`` tells this prefix's triggers from any other's, even after
a watched table was renamed (SQLite moves the trigger with the table, name unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass

from syncpoint.vendors.sqlfiles import SqlFiles

# Fragments of SQL that end up inside every trigger body: without their comment lines.
FRAGMENTS = SqlFiles("sqlite", comments=False)

# after insert/update/delete; before insert/update (rows INSERT/UPDATE OR REPLACE removes).
TRIGGER_KINDS = ("ai", "au", "ad", "bi", "bu")

# Objects in install order: (kind, key, sql file). Each file creates exactly one object.
OBJECTS = (
    ("table", "items", "install/010_items.sql"),
    ("index", "items_context", "install/011_items_context.sql"),
    ("index", "items_table", "install/012_items_table.sql"),
    ("table", "tables", "install/020_tables.sql"),
    ("table", "debug_table", "install/030_debug_table.sql"),
    ("table", "service_context", "install/040_service_context.sql"),
    ("table", "origin", "install/050_origin.sql"),
    ("table", "pending", "install/060_pending.sql"),
    ("table", "pow2", "install/070_pow2.sql"),
    ("table", "cols_snapshot", "install/080_cols_snapshot.sql"),
    ("view", "cols_view", "install/090_cols_view.sql"),
)


@dataclass(frozen=True)
class Names:
    prefix: str

    def of(self, key: str) -> str:
        return self.prefix + key

    def idents(self) -> dict[str, str]:
        """Every object name by key, for ``${key}`` tokens in the SQL files."""
        return {key: self.of(key) for _, key, _ in OBJECTS}

    def trigger(self, kind: str, table: str) -> str:
        return f"{self.prefix}{kind}${table}"

    def owns_trigger(self, name: str) -> bool:
        return any(name.startswith(f"{self.prefix}{k}$") for k in TRIGGER_KINDS)

    def owns(self, kind: str, name: str) -> bool:
        """Whether a ``sqlite_master`` entry belongs to this prefix."""
        if kind == "trigger":
            return self.owns_trigger(name)
        return any(kind == k and name == self.of(key) for k, key, _ in OBJECTS)
