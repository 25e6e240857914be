"""Foreign-key cascades a capture cannot see, made again at the target.

Some storage engines apply ``ON DELETE CASCADE``, ``ON DELETE SET NULL`` and ``ON UPDATE
CASCADE`` below the SQL layer: the child rows they change fire no trigger and are not
written to the change log either (the capture side says which: ``Capture.cascades``). A
round therefore carries, besides its net rows, the *events* of the parent tables that have
such children (each DELETE, and each UPDATE that changed the referenced columns, with its
position), and the apply transaction makes each event's cascade at the target, in position
order, on the child rows whose own last change in the round comes before the event (a row
changed later by a record of its own was made after the cascade: the record says what it
is). docs/internals.md, "Foreign keys with cascades".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from syncpoint.core.model import loads

CASCADE = "CASCADE"
SET_NULL = "SET NULL"
ACTING = (CASCADE, SET_NULL)  # the rules that change child rows from the parent side
# the window number under which a parent window's events are staged (apart from its rows)
EVENTS = 1_000_000

# staged actions of an event: a parent row deleted, or updated (old and new row); and, for a
# row in the middle of a chain, inserted (where it points says whether a cascade took it)
DELETED, OLD, NEW, INSERTED = "D", "O", "N", "I"


@dataclass(frozen=True)
class Cascade:
    """A foreign key of ``child`` (``columns``) to ``parent`` (``parent_columns``) and its
    rules, as the source's catalog has them (table names without a schema)."""

    name: str
    child: str
    columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]
    on_delete: str
    on_update: str

    @property
    def acts(self) -> bool:
        return self.on_delete in ACTING or self.on_update in ACTING

    @property
    def rules(self) -> str:
        return " and ".join(
            f"ON {what} {rule}"
            for what, rule in (("DELETE", self.on_delete), ("UPDATE", self.on_update))
            if rule not in ("RESTRICT", "NO ACTION")
        )


@dataclass(frozen=True)
class Edge:
    """A cascade between two windows of a round (parent window, child window)."""

    parent: int
    child: int
    fk: Cascade


def event_rows(
    records: Iterable[tuple[int, str, str | None, str | None]],
    columns: set[str],
    inserts: bool = False,
) -> list[tuple[str, str, int]]:
    """The staged rows (action, content, repl_key) of a parent window's events, from its
    records (repl_key, db_action, content, oldcontent): a DELETE is one row (the old row);
    an UPDATE that changed one of the referenced ``columns`` two (the old and the new row).
    Compared as the source wrote them: a change of case or of trailing spaces is a change
    to the source's cascade as well (checked where it matters). ``inserts``: each INSERT
    too (its new row), for a table in the middle of a chain."""
    out: list[tuple[str, str, int]] = []
    for rk, action, content, old in records:
        if action == "INSERT" and inserts and content is not None:
            out.append((INSERTED, content, int(rk)))
        elif action == "DELETE" and old is not None:
            out.append((DELETED, old, int(rk)))
        elif action == "UPDATE" and old is not None and content is not None:
            was, now = loads(old), loads(content)
            if any(_value(was, c) != _value(now, c) for c in columns):
                out += [(OLD, old, int(rk)), (NEW, content, int(rk))]
    return out


def _value(row: Any, column: str) -> Any:
    v = row.get(column) if isinstance(row, dict) else None
    return (type(v).__name__, v)


@dataclass
class Event:
    """A parent row's change at ``repl_key`` with its old row and, for an update, its new
    row (values as the target reads them). An insert has no old row (empty: it asks
    nothing of any child)."""

    repl_key: int
    window: int
    old: dict[str, Any]
    new: dict[str, Any] | None = None


def events(window: int, rows: Iterable[tuple[Any, ...]], columns: list[str]) -> list[Event]:
    """Events from the staged rows read back (repl_key, action, *values of ``columns``)."""
    out: list[Event] = []
    for rk, action, *values in rows:
        row = dict(zip(columns, values, strict=True))
        if action == INSERTED:
            out.append(Event(int(rk), window, {}, row))
        elif action == NEW and out and out[-1].repl_key == int(rk):
            out[-1].new = row
        else:
            out.append(Event(int(rk), window, row))
    return out


def rule_for(e: Event, fk: Cascade) -> tuple[str, tuple[Any, ...], tuple[Any, ...] | None]:
    """What ``e`` asks of the children of ``fk``: (rule, the old referenced values, the new
    ones for an update); rule "" when nothing (a NULL never matches, an update that left
    the referenced values as they were)."""
    old = tuple(e.old.get(c) for c in fk.parent_columns)
    if any(v is None for v in old):
        return "", old, None
    if e.new is None:
        return (fk.on_delete if fk.on_delete in ACTING else ""), old, None
    new = tuple(e.new.get(c) for c in fk.parent_columns)
    if new == old:
        return "", old, new
    return (fk.on_update if fk.on_update in ACTING else ""), old, new
