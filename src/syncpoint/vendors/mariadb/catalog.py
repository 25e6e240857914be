"""What MariaDB's catalog says of watched tables: columns, keys, engine, InnoDB table id,
foreign keys whose cascades capture cannot see, and the privileges capture needs.

A MariaDB "schema" is a database; capture watches tables of the location's own database
(the one named in its URL), so that the queue, the triggers and the tables live together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pymysql

from syncpoint.config import TableConfig, TableName
from syncpoint.core.cascade import Cascade
from syncpoint.core.model import TableShape
from syncpoint.vendors.mariadb.dialect import literal
from syncpoint.vendors.mariadb.encode import ColumnInfo
from syncpoint.vendors.mariadb.names import Names, render

_NO_NAMES = Names("x")


def database(cur: Any) -> str:
    cur.execute("SELECT DATABASE()")
    db = cur.fetchone()[0]
    if not db:
        from syncpoint.errors import ConfigError

        raise ConfigError("the location's URL names no database (mysql://host/DATABASE)")
    return str(db)


def schema_of(ref: TableName, db: str) -> str | None:
    """The database of ``ref``, or None when it names another database than the location's."""
    if ref.schema_ is None or ref.schema_ == db:
        return db
    return None


def columns_select(schema: str | None = None) -> str:
    """The fragment of ``columns_select.sql``: for the view of ``schema`` (a literal), or,
    with None, for one table given as the parameters ``schema`` and ``table``."""
    if schema is not None:
        lit = literal(schema)
        raw = {"schema": lit, "same_table_s": "", "same_table_k": ""}
    else:
        raw = {
            "schema": "%(schema)s",
            "same_table_s": "AND TABLE_NAME = %(table)s",
            "same_table_k": "AND TABLE_NAME = %(table)s",
        }
    return render("queries/columns_select.sql", _NO_NAMES, raw=raw)


def columns(cur: Any, schema: str, table: str) -> list[ColumnInfo]:
    sql = render("queries/describe.sql", _NO_NAMES, raw={"columns_select": columns_select()})
    cur.execute(sql, {"schema": schema, "table": table})
    return [info(row) for row in cur.fetchall()]


def info(row: tuple[Any, ...]) -> ColumnInfo:
    """A ColumnInfo from a row of ``columns_select.sql`` (schema, table, ordinal, ...)."""
    _, _, _, name, data_type, column_type, fsp, nullable, pk, is_json = row
    return ColumnInfo(
        name=name,
        data_type=data_type,
        column_type=column_type,
        fsp=int(fsp) if fsp is not None else None,
        nullable=bool(nullable),
        pk=int(pk) if pk is not None else None,
        is_json=bool(is_json),
    )


def shape(schema: str, table: str, cols: list[ColumnInfo]) -> TableShape | None:
    if not cols:
        return None
    return TableShape(TableName(schema=schema, name=table), tuple(c.column() for c in cols))


@dataclass(frozen=True)
class Facts:
    engine: str | None
    created: datetime | None
    inno_id: int | None


def facts(cur: Any, schema: str, table: str) -> Facts | None:
    """Engine, create time and InnoDB id of a base table, or None when there is none.
    The InnoDB id is None without the PROCESS privilege."""
    p = {"schema": schema, "table": table}
    cur.execute(render("queries/table_facts.sql", _NO_NAMES), p)
    row = cur.fetchone()
    if row is None:
        return None
    inno_id = None
    if _privileged(cur, render("queries/inno_id.sql", _NO_NAMES), p):
        found = cur.fetchone()
        inno_id = int(found[0]) if found else None
    return Facts(row[0], row[1], inno_id)


def _privileged(cur: Any, sql: str, params: Any = None) -> bool:
    """Run ``sql``; False when it needs a privilege the user lacks (PROCESS)."""
    try:
        cur.execute(sql, params)
        return True
    except pymysql.err.Error as exc:
        if exc.args and exc.args[0] in (1227, 1044, 1142):
            return False
        raise


def cascades(cur: Any, schema: str) -> list[Cascade]:
    """The foreign keys of database ``schema`` with a rule that changes child rows (a
    parent in another database has its name prefixed with that database and a dot)."""
    cur.execute(render("queries/fk_graph.sql", _NO_NAMES), {"schema": schema})
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for name, child, col, pschema, parent, pcol, on_delete, on_update in cur.fetchall():
        fk = found.setdefault(
            (str(child), str(name)),
            {
                "parent": str(parent) if pschema == schema else f"{pschema}.{parent}",
                "cols": [],
                "pcols": [],
                "rules": (str(on_delete), str(on_update)),
            },
        )
        fk["cols"].append(str(col))
        fk["pcols"].append(str(pcol))
    return [
        Cascade(name, child, tuple(f["cols"]), f["parent"], tuple(f["pcols"]), *f["rules"])
        for (child, name), f in found.items()
    ]


def unfollowable(fk: Cascade, watched: set[str]) -> str | None:
    """Why rounds cannot make the cascades of ``fk`` at the target (its child is watched),
    or None. ``watched``: the names of the tables watched with the child (its sync group's,
    at its location)."""
    if "SET DEFAULT" in (fk.on_delete, fk.on_update):
        return (
            f"foreign key {fk.name!r} to {fk.parent!r} has a SET DEFAULT rule, which InnoDB "
            "does not apply; make it RESTRICT, NO ACTION, CASCADE or SET NULL"
        )
    if fk.parent not in watched:
        return (
            f"foreign key {fk.name!r} to {fk.parent!r} has {fk.rules}: InnoDB "
            f"changes {fk.child!r} below the SQL layer (no trigger fires, the binary log holds "
            f"only the {fk.parent!r} row), so syncpoint makes those changes at the target from "
            f"the changes of {fk.parent!r}, which it only sees when {fk.parent!r} is replicated "
            f"in the same sync group as {fk.child!r}. Add {fk.parent!r} to the channel (and to "
            f"that sync group), or make the rule RESTRICT or NO ACTION (docs/log-capture.md, "
            '"Foreign keys with cascades")'
        )
    return None


def has_process(cur: Any) -> bool:
    """Whether this user may read information_schema.INNODB_TRX (the PROCESS privilege)."""
    ok = _privileged(cur, "SELECT COUNT(*) FROM information_schema.INNODB_TRX")
    if ok:
        cur.fetchall()
    return ok


def server_problem(cur: Any) -> str | None:
    """Why this server cannot run MariaDB capture, or None. MySQL 8 lacks what the triggers
    use (@@in_transaction, information_schema.SESSION_STATUS, CREATE OR REPLACE TRIGGER,
    VALUES in a UNION, INNODB_SYS_TABLES)."""
    cur.execute("SELECT VERSION()")
    version = str(cur.fetchone()[0])
    if "mariadb" not in version.lower():
        return (
            f"server {version} is MySQL, not MariaDB: syncpoint supports MariaDB 10.6 or "
            "later here (capture and apply). MySQL 8.0/8.4 is not supported: capture's "
            "triggers rely on CREATE OR REPLACE TRIGGER, @@in_transaction and "
            "information_schema.SESSION_STATUS, which MySQL lacks. Use MariaDB 10.6+ "
            "(or PostgreSQL, SQLite) for this location"
        )
    major_minor = tuple(int(x) for x in version.split("-")[0].split(".")[:2])
    if major_minor < (10, 6):
        return f"MariaDB {version} is too old: capture needs MariaDB 10.6 or later"
    return None


def step_problem(step: int, offset: int) -> str | None:
    """Why the server's AUTO_INCREMENT settings break the ticks, or None."""
    if step == 1 and offset == 1:
        return None
    return (
        f"the server hands out AUTO_INCREMENT keys in steps of {step} from offset {offset} "
        "(auto_increment_increment, auto_increment_offset; Galera and multi-source "
        "replication set them): the change queue's keys would then also come from other "
        "servers, whose open transactions this server cannot see, and a tick could pass "
        "over their records for good. Capture needs both at 1: SET GLOBAL "
        "auto_increment_increment = 1, auto_increment_offset = 1 (and in the server's "
        "configuration); in a Galera cluster, capture from an asynchronous replica outside "
        "it (log_slave_updates=ON, capture: log)"
    )


def key_problem(cur: Any) -> str | None:
    """Why this server's repl_keys may not all come from it one after another (install,
    status and the first tick of a process check it), or None."""
    cur.execute(render("queries/key_settings.sql", _NO_NAMES))
    step, offset, wsrep = cur.fetchone()
    if str(wsrep or "").upper() == "ON":
        return (
            "the server is a Galera node (wsrep_on=ON): the change queue's keys also come "
            "from the other nodes, whose open transactions this node cannot see, and a tick "
            "could pass over their records for good. Capture from a Galera node is not "
            "supported: capture from an asynchronous replica outside the cluster "
            "(log_slave_updates=ON, capture: log)"
        )
    return step_problem(int(step), int(offset))


def problems(cur: Any, location: str, tables: list[TableConfig], log: bool = False) -> list[str]:
    """MariaDB traps, beyond existence and keys (checked by ``Capture.check``). ``log``:
    for capture from the binary log, whose ticks read no transaction list (no PROCESS
    privilege needed)."""
    found: list[str] = []
    db = database(cur)
    problem = server_problem(cur)
    if problem:
        return [f"location {location}: {problem}"]
    keys = key_problem(cur)
    if keys:
        found.append(f"location {location}: {keys}")
    watched = {t.ref.name for t in tables if schema_of(t.ref, db) is not None}
    for fk in cascades(cur, db):
        if fk.child in watched:
            reason = unfollowable(fk, watched)
            if reason:
                found.append(f"table {fk.child}: {reason}")
    if not log and not has_process(cur):
        found.append(
            f"the user of location {location} lacks the PROCESS privilege: ticks read "
            "information_schema.INNODB_TRX to know which transactions are still open, and "
            "poll_ddl reads INNODB_SYS_TABLES to see TRUNCATE; grant it with "
            "GRANT PROCESS ON *.* TO <user>"
        )
    for t in tables:
        schema = schema_of(t.ref, db)
        if schema is None:
            found.append(
                f"table {t.name}: is in database {t.ref.schema_!r}, but location {location} "
                f"captures tables of its own database {db!r} only; point a location at it"
            )
            continue
        f = facts(cur, schema, t.ref.name)
        if f is None:
            continue  # reported by the base check
        if (f.engine or "").lower() != "innodb":
            found.append(
                f"table {t.name}: uses the {f.engine} engine, which has no transactions: a "
                "rolled-back change would stay in the table but vanish from the queue; "
                "convert it (ALTER TABLE ... ENGINE=InnoDB)"
            )
    return found
