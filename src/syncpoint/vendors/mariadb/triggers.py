"""The row triggers of a watched table: rendered from its columns, created, compared, dropped.

One AFTER trigger per captured action (``actions`` IU gets no DELETE trigger). Each names
the columns one by one (MariaDB has no ``NEW.*``), so the triggers are rendered again
whenever the table's columns change, and carry the table's shape ``version`` as a constant.
A trigger whose body is already the one rendered is left alone, so a second install changes
nothing. DDL waits at most ``LOCK_WAIT`` seconds for the table's metadata lock: a trigger
swap queued behind a long transaction would otherwise stall every new statement on the
table behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.encode import TEMPORAL, ColumnInfo, pair, row_json
from syncpoint.vendors.mariadb.names import EVENTS, Names, render

LOCK_WAIT = 10


@dataclass(frozen=True)
class Spec:
    """What a table's triggers depend on."""

    schema: str
    table: str
    actions: str  # subset of IUD
    version: int
    debug: bool
    location: str


def _size_checks(cols: Sequence[ColumnInfo], alias: str, names: Names) -> list[str]:
    # TO_BASE64 past max_allowed_packet returns NULL (a warning; an error in strict mode):
    # the statement fails with a message that says why, before the row is encoded.
    return [
        render(
            "trigger/check_binary.sql", names, raw={"ref": f"{alias}.{dialect.quote(c.name)}"}
        ).rstrip()
        for c in cols
        if c.binary
    ]


def _null_check(var: str, names: Names) -> str:
    # JSON_OBJECT past max_allowed_packet returns NULL as well.
    return render("trigger/check_null.sql", names, raw={"var": var}).rstrip()


def _stale(names: Names, spec: Spec, cols: Sequence[ColumnInfo], letter: str) -> str:
    """The fallback that captures the row column by column, leaving out the columns that no
    longer exist (see row.sql)."""
    parts: list[str] = []
    for var, alias, on in (("v_new", "NEW", "IU"), ("v_old", "OLD", "UD")):
        if letter not in on:
            continue
        for c in cols:
            parts.append(
                render(
                    "trigger/stale_column.sql", names, raw={"pair": pair(c, alias), "target": var}
                ).rstrip()
            )
        parts.append(render("trigger/stale_wrap.sql", names, raw={"target": var}).rstrip())
    lits = {"location": spec.location, "tablename": spec.table, "schema": spec.schema}
    return render(
        "trigger/stale.sql",
        names,
        raw={
            "action": EVENTS[letter][0],
            "version": str(int(spec.version)),
            "origin": names.origin_var,
            "columns": "\n".join(parts),
        },
        literals=lits,
    ).rstrip()


def _stored_row(names: Names, table: str, cols: Sequence[ColumnInfo]) -> str:
    """The row an UPDATE stored, as JSON, for the AFTER UPDATE trigger of ``table``.

    ``NEW`` is the stored row except in one case: a column with ON UPDATE CURRENT_TIMESTAMP
    shows the statement's time in ``NEW`` even when the UPDATE changed no column, so that
    MariaDB wrote nothing and the row keeps its old time ("Changed: 0"). Defaults, generated
    columns and the application's BEFORE triggers are all applied before an AFTER trigger
    runs, and an AFTER trigger cannot change its own table, so nothing else differs. When
    every other column is unchanged and a TIMESTAMP or DATETIME column differs (the one case
    where the row may or may not have been written), the row is read back: by its primary
    key, or without one by its old values (the row unchanged; not found: it is ``NEW``).
    Every other UPDATE is captured from ``NEW`` as it is, without a read.
    """
    from_new = row_json(cols, "NEW")
    temporal = [c for c in cols if c.data_type in TEMPORAL]
    if not temporal:
        return from_new
    others = [c for c in cols if c.data_type not in TEMPORAL]

    def same(c: ColumnInfo, a: str, b: str) -> str:
        return f"{a}.{dialect.quote(c.name)} <=> {b}.{dialect.quote(c.name)}"

    moved = " OR ".join(f"NOT {same(c, 'NEW', 'OLD')}" for c in temporal)
    cond = " AND ".join([*(same(c, "NEW", "OLD") for c in others), f"({moved})"])
    keys = sorted((c for c in cols if c.pk), key=lambda c: c.pk or 0)
    where = [same(c, "src", "NEW") for c in keys] or (
        [same(c, "src", "NEW") for c in others] + [same(c, "src", "OLD") for c in temporal]
    )
    return render(
        "trigger/stored_row.sql",
        names,
        idents={"table": table},
        raw={
            "cond": cond,
            "row": row_json(cols, "src"),
            "where": " AND ".join(where),
            "new": from_new,
        },
    ).strip()


def render_one(names: Names, spec: Spec, cols: Sequence[ColumnInfo], letter: str) -> str:
    event = EVENTS[letter][0]
    new = row_json(cols, "NEW") if letter == "I" else "NULL"
    if letter == "U":
        new = _stored_row(names, spec.table, cols)
    old = row_json(cols, "OLD") if letter in "UD" else "NULL"
    size = _size_checks(cols, "NEW", names) if letter in "IU" else []
    size += _size_checks(cols, "OLD", names) if letter in "UD" else []
    nulls = [_null_check(v, names) for v, on in (("v_new", "IU"), ("v_old", "UD")) if letter in on]
    lits = {"location": spec.location, "tablename": spec.table, "schema": spec.schema}
    common = {"action": event, "version": str(int(spec.version))}
    debug = render("trigger/debug.sql", names, raw=common, literals=lits) if spec.debug else ""
    return render(
        "trigger/row.sql",
        names,
        idents={"trigger": names.trigger(spec.table, letter), "table": spec.table},
        raw={
            **common,
            "event": event,
            "new": new,
            "old": old,
            "origin": names.origin_var,
            "size_checks": "\n".join(size),
            "null_checks": "\n".join(nulls),
            "debug": debug.rstrip(),
            "stale": _stale(names, spec, cols, letter),
        },
        literals=lits,
    )


def render_all(names: Names, spec: Spec, cols: Sequence[ColumnInfo]) -> dict[str, str]:
    """Trigger name -> CREATE OR REPLACE TRIGGER text, for the table's captured actions."""
    return {
        names.trigger(spec.table, letter): render_one(names, spec, cols, letter)
        for letter in EVENTS
        if letter in spec.actions
    }


def body(create_sql: str) -> str:
    """The part of a CREATE TRIGGER that information_schema.TRIGGERS keeps."""
    return create_sql.split("FOR EACH ROW", 1)[1].strip()


def existing(cur: Any, names: Names) -> dict[str, tuple[str, str]]:
    """Triggers of this prefix in the database: name -> (table, body).

    A trigger is this prefix's when its name is the one this prefix gives its table.
    """
    like = names.prefix.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%") + "%"
    cur.execute(render("queries/triggers.sql", names), {"like": like})
    out: dict[str, tuple[str, str]] = {}
    for name, table, _event, statement in cur.fetchall():
        if name in names.triggers(table).values():
            out[name] = (table, statement)
    return out


def apply(cur: Any, names: Names, spec: Spec, cols: Sequence[ColumnInfo]) -> list[str]:
    """Create or replace the table's triggers, drop those of actions no longer captured.
    Returns the names of the triggers now in place."""
    wanted = render_all(names, spec, cols)
    have = {n: b for n, (t, b) in existing(cur, names).items() if t == spec.table}
    cur.execute(f"SET SESSION lock_wait_timeout = {LOCK_WAIT}")
    for name, sql in wanted.items():
        if have.get(name, "").strip() != body(sql):
            cur.execute(sql)
    for name in names.triggers(spec.table).values():
        if name not in wanted:
            cur.execute(f"DROP TRIGGER IF EXISTS {dialect.quote(name)}")
    return list(wanted)


def drop(cur: Any, names: Names, table: str) -> None:
    cur.execute(f"SET SESSION lock_wait_timeout = {LOCK_WAIT}")
    for name in names.triggers(table).values():
        cur.execute(f"DROP TRIGGER IF EXISTS {dialect.quote(name)}")
