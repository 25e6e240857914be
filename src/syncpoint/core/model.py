"""Change records, actions, table shapes: the words every other module speaks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from syncpoint.config import TableName

ROW_ACTIONS = ("INSERT", "UPDATE", "DELETE")


def loads(text: str | None) -> Any:
    """Decode a change record's JSON exactly: decimals stay Decimal, never float."""
    if text is None:
        return None
    return json.loads(text, parse_float=Decimal)


@dataclass(frozen=True)
class Column:
    """A column as a catalog (or a DDL record) describes it."""

    name: str
    type: str  # the vendor's declared type, as its catalog spells it
    nullable: bool = True
    pk: int | None = None  # 1-based position in the primary key, None when not part of it
    # whether the column's equality at its database is that of its value's text (an
    # integer, or text in a byte-for-byte collation; not citext, numeric 1.0 = 1.00, a
    # case-insensitive or PAD SPACE collation), as a target's catalog reading says it
    # (``Integrate.key_is_exact``); None where not read. Not part of the column's identity.
    exact: bool | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "nullable": self.nullable, "pk": self.pk}


@dataclass(frozen=True)
class TableShape:
    """What a catalog says of a table, at a capture or an integrate location: its name, its
    columns in order, its primary key and, where they were read, the unique indexes an
    upsert can use (``(name, columns)``, the primary key's included)."""

    ref: TableName
    columns: tuple[Column, ...]
    uniques: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def primary_key(self) -> tuple[str, ...]:
        keyed = sorted((c.pk, c.name) for c in self.columns if c.pk)
        return tuple(name for _, name in keyed)

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def unique_on(self, key: Sequence[str]) -> bool:
        """Whether a unique index (or the primary key) has exactly the columns ``key``."""
        return set(key) == set(self.primary_key) or any(
            set(cols) == set(key) for _, cols in self.uniques
        )

    def other_uniques(self, key: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
        """Unique indexes on other columns than exactly ``key``."""
        return [(n, cols) for n, cols in self.uniques if set(cols) != set(key)]


@dataclass(frozen=True)
class ChangeRecord:
    """One row of ``{prefix}items`` as read back (docs/objects.md, "At a capture location")."""

    repl_key: int
    trans_key: str
    dbid: str
    tablename: str
    db_schema: str | None
    db_action: str
    content: str | None  # JSON text exactly as captured
    oldcontent: str | None
    captured_at: datetime | None = None
    context: int | None = None
    db_catalog: str | None = None
    guid: str | None = None
    version: int | None = None

    @classmethod
    def from_row(cls, r: Any, captured_at: datetime | None) -> ChangeRecord:
        """A record from the columns every vendor's ``queries/changes.sql`` selects, in this
        order: repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
        oldcontent, captured_at (parsed by the vendor, passed apart), version, db_catalog, guid."""
        return cls(
            repl_key=int(r[0]),
            context=None if r[1] is None else int(r[1]),
            trans_key=str(r[2]),
            dbid=r[3],
            tablename=r[4],
            db_schema=r[5],
            db_action=r[6],
            content=r[7],
            oldcontent=r[8],
            captured_at=captured_at,
            version=None if r[10] is None else int(r[10]),
            db_catalog=r[11],
            guid=r[12],
        )

    @property
    def row(self) -> Any:
        return loads(self.content)

    @property
    def old(self) -> Any:
        return loads(self.oldcontent)


@dataclass(frozen=True)
class Tick:
    """A commit-ordered position made safe to read up to (docs/internals.md, "Change records").

    ``context``: every change record of a transaction that committed before the tick is at or
    below it; every later one is above it. ``guaranteed``: a time on the capture location's
    clock (UTC) before which every captured change is at or below ``context``.
    ``sampled_at``: the clock when the tick was made; ``guaranteed`` is earlier when a capturing
    transaction was still open then (the read "raced" with capture). None means equal.
    """

    context: int
    guaranteed: datetime
    sampled_at: datetime | None = None

    @property
    def raced(self) -> bool:
        return self.sampled_at is not None and self.guaranteed < self.sampled_at


@dataclass(frozen=True)
class WindowStats:
    """What one table's window holds (``Capture.survey``): the lowest and highest
    ``repl_key``, how many records, the oldest ``captured_at`` (as the database returns it),
    and how many of the records are DDL records. A table whose window holds nothing has
    none."""

    lo: int
    hi: int
    records: int
    oldest: Any
    ddl: int


@dataclass
class WatchedTableStatus:
    table: str
    status: str
    actions: str | None
    trigger_name: str | None
    pending: int = 0
    debug: int = 0


@dataclass
class CaptureStatus:
    installed: bool
    stream_id: str | None = None
    context: int | None = None
    pending: int = 0
    tables: list[WatchedTableStatus] = field(default_factory=list)
    ddl_events: list[dict[str, Any]] = field(default_factory=list)
    # traps found in the installed objects (e.g. a queue sequence altered to CACHE > 1)
    problems: list[str] = field(default_factory=list)
    # log capture: what the database still keeps of its log for us (retained_bytes,
    # age_seconds of the stored position, lost: why the position cannot be read any more)
    log: dict[str, Any] | None = None
