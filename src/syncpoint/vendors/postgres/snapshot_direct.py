"""The direct path of a PostgreSQL to PostgreSQL snapshot: each key range of a chunk is a
``COPY (SELECT ...) TO STDOUT`` at the source streamed into ``COPY ... FROM STDIN`` of a
typed staging table at the target, in binary when every column's type is the same on both
sides, else in text (then only for types whose text carries every value exactly into the
target's type: see ``mode``). The chunk's apply transaction then checks the count and
upserts the typed rows by key: no JSON is built or parsed, no row passes through Python
or the JVM.

The typed staging (``{p}snapstage_<hash>``, per capture location and target table) holds
the target's columns and the chunk attempt id; it is unlogged (a crash empties it, and
nothing of it was applied), made anew by each snapshot run of the table and dropped at the
hand-over and by uninstall.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from syncpoint.core.types import widens
from syncpoint.errors import DuplicateKey
from syncpoint.vendors.integratebase import ApplyTable
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.snapshot import SESSION_INIT
from syncpoint.vendors.postgres.types import parse
from syncpoint.vendors.sqlfiles import SqlFiles

PIPE_BATCH = 1 << 20  # bytes of a COPY stream passed on at once
ATTEMPT = "sp_snapshot_attempt"  # the staging's column of the chunk attempt id
# kinds whose text form, written by the source and read by the target under the same
# session settings, is the same value in a wider type of the same kind
TEXT_EXACT = {"int", "decimal", "float", "text", "bool", "date", "time", "timestamp", "uuid"}


def source_columns(conn: Any, table: str) -> list[tuple[str, str, str, str]]:
    """(name, base type, typtype, typcategory) of the source table's columns (``table``:
    quoted and qualified), in a read ended at once."""
    cur = conn.cursor()
    cur.execute(SqlFiles("postgres", "snapshot").one("columns"), (table,))
    rows = [(str(a), str(b), str(c), str(d)) for a, b, c, d in cur.fetchall()]
    conn.rollback()
    return rows


def staging_name(prefix: str, location: str, target: str) -> str:
    digest = hashlib.sha256(f"{location}\n{target}".encode()).hexdigest()[:16]
    return f"{prefix}snapstage_{digest}"


def mode(source: Sequence[tuple[str, str, str, str]], table: ApplyTable) -> str | None:
    """``binary``, ``text``, or None (the direct path cannot copy these columns exactly).
    ``source``: the source's columns as ``snapshot/columns.sql`` reads them (name, base
    type, typtype, typcategory)."""
    by = {name: (base, typtype, cat) for name, base, typtype, cat in source}
    if any(c.name == ATTEMPT for c in table.target.columns):
        return None
    binary = True
    for c in table.columns:
        if c.name not in by or c.source is None:
            return None
        base, typtype, cat = by[c.name]
        same = c.source.declared == c.type or base == c.type
        if same and (typtype in ("c", "e") or cat == "A"):
            # binary composites and arrays carry type oids, which differ between databases
            # for types made there; their text is the same literal on both sides
            binary = False
        elif not same:
            a, b = c.source, parse(c.type)
            if a.kind != b.kind or a.kind not in TEXT_EXACT or not widens(a, b):
                return None
            binary = False
    return "binary" if binary else "text"


@dataclass(frozen=True)
class RangeCopy:
    """One task's work: the COPY out at the source and the COPY in at the target's typed
    staging; with ``fresh_out``/``fresh_in``, first the COPY straight into the target table
    (a range the target holds no row of)."""

    source_url: str = field(repr=False)  # may hold a password: never shown
    target_url: str = field(repr=False)
    out_sql: str
    in_sql: str
    fresh_out: str = ""
    fresh_in: str = ""
    snapshot: str = ""  # SQL: read the group's exported snapshot (import.sql), or ""


def _files(staging: str, location: str | None = None) -> SqlFiles:
    idents = {"staging": staging, "attempt": ATTEMPT}
    return SqlFiles("postgres", "snapshot", idents, comments=False, location=location)


def copies(
    source_url: str,
    target_url: str,
    table: str,
    apply: ApplyTable,
    staging: str,
    fmt: str,
    attempt: str,
    ranges: Sequence[str],
    fresh_target: str | None = None,
    snapshot: str = "",
) -> list[RangeCopy]:
    """One ``RangeCopy`` per range (SQL over ``sp_row``, quoted identifiers and integers).
    ``fresh_target`` (the target table, quoted and qualified): the ranges hold no row
    there, so each task copies its range straight into it. ``snapshot``: the SQL that
    makes each task read the group's shared state."""
    f = _files(staging)
    cols = ", ".join(dialect.quote(c.name) for c in apply.columns)
    src_cols = ", ".join(f"sp_row.{dialect.quote(c.name)}" for c in apply.columns)
    how = "(FORMAT binary)" if fmt == "binary" else ""
    in_sql = f.one("direct_copy_in", raw={"columns": cols, "format": how})
    fresh_in = (
        f.one("direct_fresh_in", raw={"target": fresh_target, "columns": cols, "format": how})
        if fresh_target
        else ""
    )

    def out(name: str, r: str) -> str:
        raw = {"columns": src_cols, "table": table, "range": r, "format": how}
        return f.one(name, raw=raw, literals={"attempt": attempt})

    return [
        RangeCopy(
            source_url,
            target_url,
            out("direct_copy_out", r),
            in_sql,
            out("direct_fresh_out", r) if fresh_in else "",
            fresh_in,
            snapshot,
        )
        for r in ranges
    ]


def copy_range(job: RangeCopy) -> tuple[int, int]:
    """Run in a Spark task: stream the range from source to target and commit; (rows
    staged, rows written straight into the target table). A fresh range goes straight into
    the table; when a key of it is there after all (written meanwhile), that transaction is
    rolled back and the range staged instead. Errors name neither URL nor password."""
    src = dialect.connect(job.source_url)
    try:
        dst = dialect.connect(job.target_url)
        try:
            for conn in (src, dst):
                # the settings capture pins: text values read and written alike (committed:
                # a COPY rolled back below must not take them back)
                conn.execute(SESSION_INIT)
                conn.commit()
            if job.fresh_in:
                try:
                    with dialect.translated():
                        _shared(src, job.snapshot)
                        return 0, _stream(src, dst, job.fresh_out, job.fresh_in)
                except DuplicateKey:
                    src.rollback()
            with dialect.translated():
                _shared(src, job.snapshot)
                return _stream(src, dst, job.out_sql, job.in_sql), 0
        finally:
            dst.close()
    finally:
        src.close()


def _shared(src: Any, snapshot: str) -> None:
    """The source transaction about to read reads the group's exported snapshot."""
    if snapshot:
        src.execute(snapshot)


def _stream(src: Any, dst: Any, out_sql: str, in_sql: str) -> int:
    """One COPY streamed from source to target in one target transaction (committed, or
    rolled back on any error); the rows the target took."""
    try:
        cur = dst.cursor()
        with cur.copy(in_sql) as w:
            with src.cursor().copy(out_sql) as r:
                # the source hands over one row per block: written on in batches, the
                # task's own CPU is about half (measured on 240,000 rows)
                buf = bytearray()
                for block in r:
                    buf += block
                    if len(buf) >= PIPE_BATCH:
                        w.write(buf)
                        buf = bytearray()
                w.write(buf)
        n = int(cur.rowcount)
        dst.commit()
    except BaseException:
        dst.rollback()
        raise
    src.commit()
    return n


def create_staging(conn: Any, staging: str, apply: ApplyTable, location: str) -> None:
    """Make the table's typed staging anew, in its own transaction."""
    cols = ", ".join(f"{dialect.quote(c.name)} {c.type}" for c in apply.columns)
    _files(staging).run(conn, "direct_staging", raw={"columns": cols})
    conn.commit()


def run(
    conn: Any,
    staging: str,
    name: str,
    params: Sequence[Any] = (),
    table: str | None = None,
    location: str | None = None,
    **raw: str,
) -> Any:
    """A statement of the direct path's apply at the target (in the caller's transaction);
    its errors name ``location`` and ``table`` where given."""
    return _files(staging, location).run(conn, name, params, table=table, raw=raw)
