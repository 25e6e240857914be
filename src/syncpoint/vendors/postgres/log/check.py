"""What ``validate`` checks for PostgreSQL log capture: the server's settings and the
user's privileges, and each table (a partition or an inheritance child, its replica
identity, its owner), each problem with its fix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from syncpoint.config import TableConfig
from syncpoint.vendors.postgres import catalog, dialect
from syncpoint.vendors.postgres.catalog import schema_of

if TYPE_CHECKING:
    from syncpoint.vendors.postgres.log.capture import PostgresLogCapture


def server(cap: PostgresLogCapture, conn: Any) -> list[str]:
    """What the server lacks for log capture (settings, a slot, privileges), with the fix."""
    o = cap.objects
    level, max_slots, slots, repl, _su, user = conn.execute(o.one("log/server.sql")).fetchone()
    out = []
    if level != "logical":
        out.append(
            f"wal_level is {level!r} at {cap.location}: log capture needs wal_level = "
            "logical (ALTER SYSTEM SET wal_level = logical, then restart the server; on "
            "a managed service: rds.logical_replication = 1 on RDS/Aurora, "
            "cloudsql.logical_decoding = on on Cloud SQL, wal_level = logical on Azure)"
        )
    has_slot = catalog.installed(conn, o) and cap.slot_info(conn) is not None
    if not has_slot and slots >= max_slots:
        out.append(
            f"no free replication slot at {cap.location} ({slots} of "
            f"max_replication_slots = {max_slots} in use): raise max_replication_slots "
            "(restart needed) or drop an unused slot"
        )
    if not repl:
        out.append(
            f"user {user!r} has neither the REPLICATION attribute nor superuser at "
            f"{cap.location}: run ALTER ROLE {dialect.quote(user)} REPLICATION"
        )
    (triggers,) = conn.execute(
        o.one("log/trigger_capture.sql"), {"fn": f"{o.qualified('fn_make')}(integer)"}
    ).fetchone()
    if triggers:
        out.append(
            f"trigger capture of prefix {cap.prefix} is installed at {cap.location}: "
            "run syncpoint uninstall with the channel's old capture setting first (both "
            "would capture every change)"
        )
    enc = conn.execute(o.one("queries/session.sql")).fetchone()[2]
    if enc == "SQL_ASCII":
        out.append(
            "the database encoding is SQL_ASCII: text may hold bytes that are not UTF-8 "
            "and cannot be captured as JSON; use a UTF8 database"
        )
    return out


def tables(cap: PostgresLogCapture, conn: Any, tables: list[TableConfig]) -> list[str]:
    """Tables log capture cannot take (or not without breaking them), with the reason."""
    o = cap.objects
    out = []
    for t in tables:
        found = catalog.describe(conn, o, t.ref)
        if found is None:
            continue  # reported by Capture.check
        kind, _shape = found
        ref = {"schema": schema_of(t.ref), "table": t.ref.name}
        if kind[0] == "r" and kind.endswith("i"):
            parent = catalog.partition_root(conn, o, t.ref)
            if parent:
                out.append(
                    f"table {t.name}: is a partition of {parent} at {cap.location}; "
                    f"list the partitioned table {parent} instead (its rows are "
                    "captured through it, whatever partition holds them)"
                )
            else:
                out.append(
                    f"table {t.name}: takes part in inheritance at {cap.location}; "
                    "a publication sends a parent's and a child's rows apart, so it "
                    "cannot be captured as one table"
                )
            continue
        if kind[0] not in ("r", "p"):
            out.append(
                f"table {t.name}: is a {catalog.RELKINDS.get(kind[0], kind)} at "
                f"{cap.location}; only tables and partitioned tables can be captured"
            )
            continue
        found_why = conn.execute(o.one("log/identity.sql"), {**ref, "key": t.key}).fetchone()
        why = found_why[0] if found_why else None
        if why:
            out.append(
                f"table {t.name}: no usable replica identity at {cap.location} ({why}); "
                "a publication would make its UPDATE and DELETE fail, so it is not "
                "published: add a primary key, or ALTER TABLE ... REPLICA IDENTITY FULL"
            )
        (owner,) = conn.execute(o.one("log/owner.sql"), ref).fetchone()
        if not owner:
            out.append(
                f"table {t.name}: the user does not own it at {cap.location}; adding it "
                "to a publication needs its owner (or a superuser)"
            )
    return out
