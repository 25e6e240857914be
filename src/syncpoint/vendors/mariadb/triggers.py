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
from syncpoint.vendors.mariadb.encode import ColumnInfo, pair, row_json
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


def render_one(names: Names, spec: Spec, cols: Sequence[ColumnInfo], letter: str) -> str:
    event = EVENTS[letter][0]
    new = row_json(cols, "NEW") if letter in "IU" else "NULL"
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
