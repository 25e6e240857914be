"""What ``validate`` says a PostgreSQL user lacks for what ``install`` and ``run`` will do,
per capture kind, each with the GRANT (or ALTER) that gives it (docs/privileges.md).

A superuser lacks nothing. Otherwise capture needs CREATE and USAGE on the schema of its
objects, and to own each watched table (its triggers are enabled by ALTER TABLE, which
only the owner may run) and read it (``snapshot``); log capture also needs CREATE on the
database (its publication; the REPLICATION attribute for the slot is ``logcheck``'s). An
integrate location needs CREATE and USAGE on the schema its control tables and created
target tables go to.
"""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.dialect import quote
from syncpoint.vendors.postgres.names import Names


def _session(conn: Any, schema: str) -> tuple[Any, ...]:
    row = conn.execute(Names("x").one("queries/privileges.sql"), {"schema": schema}).fetchone()
    return tuple(row)


def _schema(user: str, schema: str, create: bool, usage: bool, what: str) -> list[str]:
    out = []
    for ok, priv in ((usage, "USAGE"), (create, "CREATE")):
        if not ok:
            out.append(
                f"user {user!r} lacks {priv} on schema {schema!r} ({what}): "
                f"GRANT {priv} ON SCHEMA {quote(schema)} TO {quote(user)}"
            )
    return out


def capture(
    conn: Any, schema: str, tables: list[TableConfig], location: str, log: bool
) -> list[str]:
    """What the user of a capture location lacks (``log``: capture from the WAL)."""
    su, user, db, db_create, create, usage, exists = _session(conn, schema)
    if su:
        return []
    out: list[str] = []
    if exists:
        out += _schema(user, schema, create, usage, "install creates capture's queue there")
    if log and not db_create:
        out.append(
            f"user {user!r} lacks CREATE on database {db!r} (log capture's install creates "
            f"a publication): GRANT CREATE ON DATABASE {quote(db)} TO {quote(user)}"
        )
    q = Names("x").one("queries/table_privileges.sql")
    for t in tables:
        found = conn.execute(q, {"schema": schema_of(t.ref), "table": t.ref.name}).fetchone()
        if found is None:
            continue  # reported by Capture.check
        owner, select, in_schema, owned_by, owner_su = found
        if not in_schema:
            out.append(
                f"table {t.name}: user {user!r} lacks USAGE on its schema at {location}: "
                f"GRANT USAGE ON SCHEMA {quote(schema_of(t.ref))} TO {quote(user)}"
            )
        if not owner and not log:  # log capture's own check says it (logcheck.tables)
            out.append(
                f"table {t.name}: user {user!r} does not own it at {location} (owner "
                f"{owned_by!r}); install enables capture's triggers on it with ALTER TABLE, "
                f"which only its owner may run: ALTER TABLE {_rel(t)} OWNER TO {quote(user)}"
                + ("" if owner_su else f", or GRANT {quote(owned_by)} TO {quote(user)}")
            )
        if not select:
            out.append(
                f"table {t.name}: user {user!r} may not read it at {location} (snapshot "
                f"copies it): GRANT SELECT ON {_rel(t)} TO {quote(user)}"
            )
    return out


def integrate(conn: Any) -> list[str]:
    """What the user of an integrate location lacks in its current schema."""
    (schema,) = conn.execute(Names("x").one("queries/current_schema.sql")).fetchone()
    if schema is None:
        return [
            "no schema of the search_path exists here: the control tables and created "
            "target tables would have nowhere to go; create one or set search_path"
        ]
    su, user, _db, _dbc, create, usage, _ = _session(conn, str(schema))
    if su:
        return []
    return _schema(
        user, str(schema), create, usage, "the control tables and created target tables go there"
    )


def targets(conn: Any, refs: list[TableName], location: str) -> list[str]:
    """What the user of an integrate location lacks on target tables made by someone
    else (a round reads, inserts, updates and deletes their rows)."""
    su, user, *_ = _session(conn, "public")
    if su:
        return []
    out = []
    q = Names("x").one("queries/target_privileges.sql")
    for ref in refs:
        found = conn.execute(q, {"schema": ref.schema_, "table": ref.name}).fetchone()
        if found is None or not found[0]:
            continue  # made by the first round or snapshot
        missing = [
            p
            for p, ok in zip(("SELECT", "INSERT", "UPDATE", "DELETE"), found[1:], strict=True)
            if not ok
        ]
        if missing:
            rel = f"{quote(ref.schema_)}.{quote(ref.name)}" if ref.schema_ else quote(ref.name)
            out.append(
                f"target {ref}: user {user!r} lacks {', '.join(missing)} on it at {location} "
                f"(rounds apply changes there): GRANT {', '.join(missing)} ON {rel} TO "
                f"{quote(user)}"
            )
    return out


def _rel(t: TableConfig) -> str:
    return f"{quote(schema_of(t.ref))}.{quote(t.ref.name)}"
