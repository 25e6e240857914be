"""Target tables syncpoint creates look like their source: NOT NULL and portable defaults
in the CREATE TABLE, then unique and secondary indexes, then foreign keys to the other
tables of the channel (where the target can add them and ``create_foreign_keys`` is on).

Indexes and foreign keys come after the initial load where ``snapshot`` fills the table
(one index build instead of one update per row, and the group's rows are all there when a
foreign key checks them); a table a round creates gets them at once, foreign keys to
parent tables that exist at the target by then. Each is added in its own transaction; one
the target refuses (a text column MariaDB cannot index without a length, rows that do not
satisfy a key) is logged and left out, never failing the load. What is carried and what
is not: docs/types.md, "Created target tables".
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from typing import Any

from syncpoint import vendors
from syncpoint.config import ChannelConfig, TableName
from syncpoint.core.extras import Default, ForeignKey, Index, TableExtras
from syncpoint.core.rounds import target_name
from syncpoint.errors import SyncpointError

log = logging.getLogger("syncpoint.created")
Job = tuple[int, Callable[[], None]]  # (phase: 0 indexes, 1 foreign keys, what to do)


def default_sql(target_vendor: str, d: Default, col_type: str) -> str:
    """A portable default written for the target's column type."""
    dialect = vendors.get(target_vendor).dialect
    if d.kind == "text":
        return str(dialect.literal(d.value))
    if target_vendor == "postgres" and col_type.strip().lower().startswith("bool"):
        if d.kind in ("bool", "number"):
            # also a boolean written as a number (MariaDB's tinyint(1) DEFAULT 1):
            # PostgreSQL has no cast of an integer default to boolean
            return "false" if _zero(d.value) else "true"
    if d.kind == "bool":
        if target_vendor == "postgres":
            return "true" if d.value == "1" else "false"
        return d.value
    if d.kind == "now":
        m = re.search(r"\((\d)\)", col_type)
        return (
            f"CURRENT_TIMESTAMP({m.group(1)})"
            if m and target_vendor == "mariadb"
            else ("CURRENT_TIMESTAMP")
        )
    return d.value


def _zero(number: str) -> bool:
    try:
        return float(number) == 0
    except ValueError:
        return False


def _name(*parts: str) -> str:
    """An index or constraint name of at most 60 characters (a hash keeps long ones apart)."""
    name = "_".join(parts)
    if len(name) <= 60:
        return name
    return name[:51] + "_" + hashlib.sha256(name.encode()).hexdigest()[:8]


def jobs(
    cfg: ChannelConfig,
    target: Any,
    conn: Any,
    location: str,
    created: TableName,
    extras: TableExtras,
    src_vendor: str,
) -> list[Job]:
    """What to add to the target table ``created`` after it was created: its indexes
    (phase 0), its foreign keys (phase 1)."""
    out: list[Job] = [(0, _index_job(target, conn, created, i, src_vendor)) for i in extras.indexes]
    if cfg.create_foreign_keys and getattr(target.dialect, "ADDS_FOREIGN_KEYS", False):
        for fk in extras.foreign_keys:
            out.append((1, _fk_job(cfg, target, conn, location, created, fk, src_vendor)))
    return out


def run(jobs_: list[Job]) -> None:
    """Indexes first, then foreign keys (a parent's unique index is there before a key
    refers to it)."""
    for _, job in sorted(jobs_, key=lambda j: j[0]):
        job()


def _index_job(
    target: Any, conn: Any, t: TableName, ix: Index, src_vendor: str
) -> Callable[[], None]:
    # MariaDB names indexes per table, SQLite names a UNIQUE constraint's index itself
    # (reserved there): the target's names are per schema, so those get the table's name
    if src_vendor == "postgres" and not ix.name.startswith("sqlite_"):
        name = _name(ix.name)
    else:
        name = _name(t.name, *ix.columns, "key" if ix.unique else "idx")

    # where an upsert acts on any unique index (MariaDB), a second one makes every upsert of
    # the table a delete and insert, which foreign keys to its rows refuse: plain there (the
    # source keeps the values unique)
    unique = ix.unique and not getattr(target.dialect, "UPSERT_ANY_UNIQUE", False)

    def job() -> None:
        _each(
            target,
            conn,
            "create_index",
            f"index {name} on {t}",
            unique="UNIQUE" if unique else "",
            index=target.q(name),
            target=target.qualified(t),
            columns=", ".join(target.q(c) for c in ix.columns),
        )

    return job


def _fk_job(
    cfg: ChannelConfig,
    target: Any,
    conn: Any,
    location: str,
    t: TableName,
    fk: ForeignKey,
    src_vendor: str,
) -> Callable[[], None]:
    def job() -> None:
        parent = _parent(cfg, target, location, fk.parent, src_vendor)
        if parent is None:
            log.info(
                "%s: foreign key %s refers to a table outside the channel: left out", t, fk.name
            )
            return
        if target.describe(conn, parent) is None:
            target.end_read(conn)
            log.info(
                "%s: foreign key %s: %s is not at the target yet: left out", t, fk.name, parent
            )
            return
        target.end_read(conn)
        _each(
            target,
            conn,
            "add_foreign_key",
            f"foreign key {fk.name} on {t}",
            target=target.qualified(t),
            constraint=target.q(_name(t.name, fk.name) if src_vendor != "postgres" else fk.name),
            columns=", ".join(target.q(c) for c in fk.columns),
            parent=target.qualified(parent),
            parent_columns=", ".join(target.q(c) for c in fk.parent_columns),
        )

    return job


def _parent(
    cfg: ChannelConfig, target: Any, location: str, ref: TableName, src_vendor: str
) -> TableName | None:
    """The target table of the channel's table ``ref`` (a source table) at ``location``."""
    for t in cfg.tables_at(location):
        if t.ref.name == ref.name and (
            t.ref.schema_ is None or ref.schema_ is None or t.ref.schema_ == ref.schema_
        ):
            name, explicit = target_name(t, location)
            return target.resolve(name, explicit, src_vendor)  # type: ignore[no-any-return]
    return None


def _each(integ: Any, conn: Any, sql_name: str, what: str, **raw: str) -> None:
    try:
        integ.begin(conn)
        integ.run(conn, sql_name, **raw)
        integ.commit(conn)
    except SyncpointError as exc:
        integ.rollback(conn)
        log.warning("%s at %s: left out: %s", what, integ.location, exc)
