"""Types of one's own (enums, domains, composite types) between PostgreSQL databases.

A target table created for a PostgreSQL source keeps each column's declared type; a type
the source defined itself must then exist at the target first. ``used`` reads, at the
source, each such type a table needs (through arrays, domain bases and composite
attributes, those needed by others first) with the statement that creates it; ``ensure``
creates at the target those it lacks, and finds the labels an enum has gained at the
source since (``ALTER TYPE ... ADD VALUE``, which no DDL capture sees): added where the
table's ``ddl_policy`` is ``apply``, else returned so that the table stops with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import sql

from syncpoint.vendors.sqlfiles import SqlFiles

FILES = SqlFiles("postgres", "types", comments=False)


@dataclass(frozen=True)
class OwnType:
    name: str  # schema-qualified and quoted
    kind: str  # "enum", "domain" or "composite"
    create: str  # the statement that creates it
    labels: tuple[str, ...] = ()  # an enum's labels, in order


def used(conn: Any, table: str) -> list[OwnType]:
    """The types of one's own the table (quoted and qualified) needs, in creation order;
    read in the caller's transaction."""
    out = []
    for oid, schema, name, typtype in conn.execute(FILES.one("used"), (table,)).fetchall():
        ident = sql.Identifier(str(schema), str(name))
        text = ident.as_string(conn)
        if typtype == "e":
            labels = tuple(str(r[0]) for r in conn.execute(FILES.one("enum_labels"), (oid,)))
            stmt = sql.SQL("CREATE TYPE {} AS ENUM ({})").format(
                ident, sql.SQL(", ").join(sql.Literal(x) for x in labels)
            )
            out.append(OwnType(text, "enum", stmt.as_string(conn), labels))
        elif typtype == "d":
            base, notnull, default, names, checks = conn.execute(
                FILES.one("domain"), (oid,)
            ).fetchone()
            # base type, default and checks are SQL text the source's catalog wrote
            parts: list[sql.Composable] = [
                sql.SQL("CREATE DOMAIN {} AS {}").format(ident, sql.SQL(base))
            ]
            if default is not None:
                parts.append(sql.SQL("DEFAULT {}").format(sql.SQL(default)))
            if notnull:
                parts.append(sql.SQL("NOT NULL"))
            for cname, check in zip(names, checks, strict=True):
                parts.append(
                    sql.SQL("CONSTRAINT {} {}").format(sql.Identifier(cname), sql.SQL(check))
                )
            out.append(OwnType(text, "domain", sql.SQL(" ").join(parts).as_string(conn)))
        else:
            attrs = conn.execute(FILES.one("composite"), (oid,)).fetchall()
            stmt = sql.SQL("CREATE TYPE {} AS ({})").format(
                ident,
                sql.SQL(", ").join(
                    sql.SQL("{} {}").format(sql.Identifier(a), sql.SQL(t)) for a, t in attrs
                ),
            )
            out.append(OwnType(text, "composite", stmt.as_string(conn)))
    return out


def ensure(conn: Any, types: list[OwnType], add_labels: bool) -> list[str]:
    """At the target, in its own transaction (committed: a label added can be used only
    after): create the types it lacks; add an enum's new labels in their place when
    ``add_labels``. Returns what the target still lacks (``type: 'label', ...``)."""
    missing = []
    try:
        for t in types:
            oid, have = conn.execute(FILES.one("exists"), (t.name, t.name)).fetchone()
            if oid is None:
                conn.execute(t.create)
                continue
            new = [x for x in t.labels if x not in have]
            if not new:
                continue
            if not add_labels:
                missing.append(f"{t.name}: " + ", ".join(repr(x) for x in new))
                continue
            known = list(have)
            for i, label in enumerate(t.labels):
                if label in known:
                    continue
                stmt = sql.SQL("ALTER TYPE {} ADD VALUE IF NOT EXISTS {}").format(
                    sql.SQL(t.name), sql.Literal(label)
                )
                if i > 0:
                    stmt = sql.SQL("{} AFTER {}").format(stmt, sql.Literal(t.labels[i - 1]))
                elif known:
                    stmt = sql.SQL("{} BEFORE {}").format(stmt, sql.Literal(known[0]))
                conn.execute(stmt)
                known.append(label)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return missing
