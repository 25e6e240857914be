"""Creating, regenerating and removing the capture objects of one prefix in a SQLite database.

Everything runs inside the caller's ``BEGIN IMMEDIATE`` transaction: SQLite's DDL is
transactional, so an install that fails half-way leaves nothing behind, and no writer can
slip a change between dropping and re-creating a trigger.

Triggers are rewritten only when their text differs from what the watched tables need now,
so two prefixes polling the same database do not keep regenerating each other's triggers.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.errors import ConfigError
from syncpoint.vendors.sqlfiles import SqlFiles
from syncpoint.vendors.sqlite import catalog, encode, triggers
from syncpoint.vendors.sqlite.names import FRAGMENTS, OBJECTS, Names
from syncpoint.vendors.sqlite.triggers import Watch

_QUERIES = SqlFiles("sqlite", "queries")


@dataclass
class Ctx:
    """One prefix at one location: names and the statements run, for ``plan``."""

    names: Names
    location: str
    catalog: str
    execute: bool = True
    ran: list[str] | None = None

    @cached_property
    def files(self) -> SqlFiles:
        """This prefix's SQL files (its names filled in)."""
        return SqlFiles(
            "sqlite", idents=self.names.idents(), literals={"items": self.names.of("items")}
        )

    def sql(self, path: str, **raw: str) -> str:
        return self.files.text(path, raw=raw)

    def run(self, conn: Any, path: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in conn.execute(self.sql(path), params)]

    def ddl(self, conn: Any, statement: str) -> None:
        if self.ran is not None:
            self.ran.append(statement)
        if self.execute:
            conn.execute(statement)


def installed(conn: Any, names: Names) -> bool:
    have = {(t, n) for t, n, _, _ in catalog.listing(conn)}
    return ("table", names.of("items")) in have and ("table", names.of("service_context")) in have


def create_objects(conn: Any, ctx: Ctx) -> int:
    """Create the missing base objects; return how many DDL statements that took."""
    have = {(t, n) for t, n, _, _ in catalog.listing(conn)}
    n = 0
    for kind, key, path in OBJECTS:
        if (kind, ctx.names.of(key)) in have:
            continue
        for stmt in ctx.files.statements(path):
            ctx.ddl(conn, stmt)
            n += 1
    if ctx.execute:
        conn.executemany(ctx.sql("queries/pow2_fill.sql"), encode.pow2_rows())
        ctx.run(conn, "queries/service_context_init.sql", (uuid.uuid4().hex, ctx.location))
    return n


def drop(kind: str, name: str) -> str:
    """``DROP TRIGGER|TABLE|VIEW IF EXISTS name``."""
    return FRAGMENTS.text(f"uninstall/drop_{kind}.sql", idents={"name": name}).strip()


def drop_triggers(conn: Any, names: Names) -> None:
    for t, n, _, _ in catalog.listing(conn):
        if t == "trigger" and names.owns_trigger(n):
            conn.execute(drop("trigger", n))


def drop_statements(conn: Any, names: Names) -> list[str]:
    """The DROPs of every object of the prefix: triggers first, then views and tables."""
    out = [
        drop("trigger", n)
        for t, n, _, _ in catalog.listing(conn)
        if t == "trigger" and names.owns_trigger(n)
    ]
    return out + [
        drop(k, names.of(key)) for k, key, _ in reversed(OBJECTS) if k in ("view", "table")
    ]


def drop_objects(conn: Any, names: Names) -> None:
    """Remove every object of the prefix (triggers first, then views and tables)."""
    for stmt in drop_statements(conn, names):
        conn.execute(stmt)
    if any(n == "sqlite_sequence" for _, n, _, _ in catalog.listing(conn, include_internal=True)):
        conn.execute(_QUERIES.one("forget_sequence"), (names.of("items"),))


def table_problems(conn: Any, names: Names, t: TableConfig) -> list[str]:
    """What keeps ``t`` from being captured here (SQLite's own traps included)."""
    ref = t.ref
    if catalog.schema_of(ref) is None:
        return [f"table {t.name}: SQLite locations have only the schema 'main'"]
    k = catalog.kind(conn, ref.name)
    if k is None:
        return [f"table {t.name}: does not exist"]
    if k[0] != "table":
        return [f"table {t.name}: is a {k[0]}, not an ordinary table; it cannot be captured"]
    if ref.name.startswith(names.prefix):
        return [
            f"table {t.name}: its name starts with the prefix {names.prefix!r} of "
            "syncpoint's own objects"
        ]
    cols = catalog.columns(conn, ref.name)
    problems = [
        f"table {t.name}: key column {c!r} does not exist"
        for c in t.key or []
        if not any(col.name == c for col in cols)
    ]
    if not any(c.pk for c in cols) and not t.key:
        problems.append(
            f"table {t.name}: has no primary key; name one in its entry (key: [col, ...])"
        )
    _, unique_problems = catalog.uniques(conn, ref.name, cols, k[1])
    problems += [f"table {t.name}: {p}" for p in unique_problems]
    return problems


def watch_of(conn: Any, names: Names, row: dict[str, Any]) -> Watch | None:
    """The trigger spec of a watched table from its ``{prefix}tables`` row and the catalog;
    None when the table does not exist."""
    k = catalog.kind(conn, row["tablename"])
    if k is None or k[0] != "table":
        return None
    cols = catalog.columns(conn, row["tablename"])
    uniq, _ = catalog.uniques(conn, row["tablename"], cols, k[1])
    return Watch(
        table=row["tablename"],
        columns=cols,
        actions=row["actions"] or "IUD",
        debug=bool(row["debug"]),
        version=int(row["version"]),
        catalog=row["catalogname"] or "",
        rowid=catalog.rowid_alias(cols, k[1]),
        uniques=tuple(uniq),
        primary_key=tuple(c.name for c in sorted(cols, key=lambda c: c.pk or 0) if c.pk),
    )


def watched(conn: Any, ctx: Ctx) -> list[dict[str, Any]]:
    keys = (
        "tablename",
        "actions",
        "status",
        "reason",
        "repl_key",
        "trigger_name",
        "debug",
        "version",
        "key_columns",
        "catalogname",
    )
    return [dict(zip(keys, r, strict=True)) for r in ctx.run(conn, "queries/watched.sql")]


def register(conn: Any, ctx: Ctx, tables: list[TableConfig]) -> None:
    """Make ``{prefix}tables`` list exactly ``tables`` (new ones CREATING); forget the rest."""
    wanted = {t.ref.name: t for t in tables}
    for row in watched(conn, ctx):
        if row["tablename"] not in wanted:
            ctx.run(conn, "queries/table_forget.sql", (row["tablename"],))
            ctx.run(conn, "queries/snapshot_clear.sql", (row["tablename"],))
    high = ctx.run(conn, "queries/high_water.sql")[0][0]
    known = {r["tablename"] for r in watched(conn, ctx)}
    for name, t in wanted.items():
        if catalog.kind(conn, name) is None:
            raise ConfigError(f"table {t.name} does not exist at location {ctx.location}")
        key = json.dumps(t.key) if t.key else None
        ctx.run(
            conn,
            "queries/table_upsert.sql",
            (ctx.catalog, name, t.actions, high, int(t.debug), key),
        )
        if name not in known:
            write_snapshot(conn, ctx, name)


def write_snapshot(conn: Any, ctx: Ctx, table: str) -> None:
    ctx.run(conn, "queries/snapshot_clear.sql", (table,))
    for cid, name, typ, nn, pk in catalog.query(conn, "catalog_columns", (table,)):
        ctx.run(conn, "queries/snapshot_add.sql", (table, cid, name, typ, nn, pk))


def _normal(sql: str) -> str:
    return " ".join(sql.split())


def sync_triggers(conn: Any, ctx: Ctx) -> bool:
    """Make this prefix's triggers exactly those its watched tables need. When anything
    differs, all of them are dropped and re-created with the cookie they will find.
    Returns whether triggers were rewritten."""
    watches: list[tuple[dict[str, Any], Watch]] = []
    for row in watched(conn, ctx):
        w = watch_of(conn, ctx.names, row)
        if w is not None and row["status"] != "DROPPED":
            watches.append((row, w))
    present = {
        n: s for t, n, _, s in catalog.listing(conn) if t == "trigger" and ctx.names.owns_trigger(n)
    }
    expected: dict[str, str] = {}
    for _, w in watches:
        expected.update(triggers.statements(w, ctx.names))
    same = set(expected) == set(present) and all(
        _normal(expected[n]) == _normal(present[n]) for n in expected
    )
    if not same:
        for n in sorted(present):
            ctx.ddl(conn, drop("trigger", n))
        for _, w in watches:
            for stmt in triggers.statements(w, ctx.names).values():
                ctx.ddl(conn, stmt)
    if ctx.execute:
        for row, w in watches:
            names = ", ".join(ctx.names.trigger(k, w.table) for k in triggers.kinds(w))
            ctx.run(conn, "queries/table_status.sql", ("OK", None, names, row["tablename"]))
    return not same
