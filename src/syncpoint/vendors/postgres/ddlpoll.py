"""DDL found by polling at a PostgreSQL location whose capture was installed without event
triggers (only a superuser may create them; a table owner without superuser installs
everything else): each tick first runs ``{p}poll_ddl()`` (``install/175_fn_poll_ddl.sql``),
which compares every watched table's catalog shape with the one capture last saw, writes
ALTER, DROP and CREATE records and makes the capture functions again; then, in the same
transaction, the rows the old triggers captured since the last tick (ALTER) or that no
trigger saw (CREATE) are captured again, as they are now, after the DDL record. The
stream then describes each table as it is after the DDL, the way the event triggers make
it do, one tick later. Why polling: docs/internals.md, "Capture on PostgreSQL".
"""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.vendors.postgres import dialect, snapshot
from syncpoint.vendors.postgres.names import Names


def polling(conn: Any, objs: Names) -> bool:
    """Whether DDL is found by polling here (no event trigger of this prefix exists)."""
    row = conn.execute(objs.one("queries/event_triggers.sql", et_ddl=objs.name("et_ddl")))
    return not bool(row.fetchone()[0])


def poll(conn: Any, objs: Names) -> int:
    """Inside the caller's transaction: DDL records written; how many."""
    events = conn.execute(objs.one("queries/poll_ddl.sql")).fetchall()
    for _id, action, schema, table, version, key, old_schema, old_table in events:
        if action in ("ALTER", "CREATE") and key:
            _recapture(conn, objs, action, TableName(schema=schema, name=table), version, key,
                       (old_schema, old_table))  # fmt: skip
    return len(events)


def _recapture(
    conn: Any,
    objs: Names,
    action: str,
    table: TableName,
    version: int,
    key: list[str],
    old: tuple[str, str],
) -> None:
    # the settings the capture pins for the values' text, for this transaction only
    for setting in snapshot.SESSION_INIT.split(";"):
        conn.execute(setting.strip().replace("SET ", "SET LOCAL ", 1))
    rows = snapshot.row_source(conn, table, objs.prefix, end=False)
    mine = ", ".join(f"sp_row.{dialect.quote(k)}" for k in key)
    theirs = ", ".join(f"(i.content::json -> {dialect.literal(k)})" for k in key)
    if action == "CREATE":
        where, db_action, image = "true", "'INSERT'", "NULL"
    else:
        keys = objs.one("queries/recapture_keys.sql", raw={"key": theirs})
        where, db_action, image = f"json_build_array({mine})::text IN ({keys})", "'UPDATE'", "r.c"
    stmt = objs.one(
        "queries/recapture.sql",
        raw={
            "action": db_action,
            "old": image,
            "content": rows.content,
            "relation": rows.table,
            "rows": where,
        },
    )
    conn.execute(
        stmt,
        {
            "table": table.name,
            "schema": table.schema_,
            "version": version,
            "old_table": old[1],
            "old_schema": old[0],
        },
    )
