"""The direct path of a round, PostgreSQL to PostgreSQL: the window's change records go from
the capture location's queue to the target by ``COPY`` and are netted there, by SQL.

Each task (a Spark task, ``copy_ops``) streams one ``repl_key`` range of one window as
``COPY (SELECT ...) TO STDOUT (FORMAT binary)`` at the source into ``COPY {p}staging
FROM STDIN`` at the target and commits: the records already split into the operations
they mean and keyed by the source (``window/ops_out.sql``), nothing sorted at the source,
no row through Python or the JVM. Then ``net``, at the target in one transaction, checks
that the operations staged are exactly those the tasks wrote and deletes every operation
that a later one of its key supersedes: what is left are the round's net rows, where the
apply transaction reads them on every path. A repeated or partial task, or a second
consumer cleaning up, makes the counts differ and the round apply nothing. A window staged
typed (below) from MariaDB has its records parsed by the tasks at the target (``RowsCopy``
with ``typed_sql``), from PostgreSQL by the tasks at the source.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from syncpoint import failpoints
from syncpoint.errors import PositionConflict, WorkFailed
from syncpoint.vendors.integratebase import (
    TYPED_BOOKKEEPING,
    ApplyTable,
    Integrate,
    Typed,
    signature,
    typed_owner,
)
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.snapshot import SESSION_INIT
from syncpoint.vendors.postgres.snapshot_direct import RangeCopy, copy_range
from syncpoint.vendors.sqlfiles import SqlFiles

SOURCES = ("postgres", "mariadb")  # the capture vendors this direct path reads
# those whose windows it stages typed (``typed_copies``): MariaDB's records are parsed by
# the tasks at the target, as a PostgreSQL source's are by its tasks at the source
TYPED_SOURCES = SOURCES
ROWS_PER_TASK = 120_000  # records of one window a task copies, at most MAX_TASKS of them
MAX_TASKS = 4
ROWS_BATCH = 5_000  # records a task takes at once from another vendor's unbuffered read


@dataclass(frozen=True)
class RowsCopy:
    """One task's work from a source of another vendor (no COPY to stream): the range's
    records read by the source's unbuffered cursor (``select_sql``: the capture's
    ``read_query`` of the range) and split into operations here, as ``window/ops_out.sql``
    splits them, into the target's ``COPY``; ``head``: application, group, round, window."""

    source_vendor: str
    source_url: str = field(repr=False)  # may hold a password: never shown
    target_url: str = field(repr=False)
    select_sql: str
    in_sql: str
    head: tuple[str, str, str, int]
    # the source writes the operations' COPY text itself (``window/range_text.sql``, one
    # column of bytes a record): the task passes them on
    text: bool = False
    # a typed window's: the records (``window/records_text.sql``) go into a temporary table
    # made by ``records`` (``in_sql``: its COPY), and ``typed_sql`` parses them into the
    # window's typed staging, in the task's transaction
    records: str = ""
    typed_sql: str = ""


@dataclass(frozen=True)
class OpsCopy:
    """One task's work: a window's repl_key range, out of the source and into the target."""

    tbl: int
    copy: RangeCopy | RowsCopy = field(repr=False)


def ranges(lo: int, hi: int, count: int, slots: int) -> list[tuple[int, int]]:
    """Half-open repl_key ranges covering [lo, hi]: one per ``ROWS_PER_TASK`` records, at
    least one per Spark slot for a window that large, ``MAX_TASKS`` at most."""
    n = max(1, min(MAX_TASKS, -(-count // ROWS_PER_TASK)))
    if count >= slots * 1_000:
        n = max(n, min(slots, MAX_TASKS))
    width = -(-(hi + 1 - lo) // n)
    return [(a, min(a + width, hi + 1)) for a in range(lo, hi + 1, width)]


def copies(
    capture: Any,
    target: Integrate,
    read_sql: str,
    *,
    tbl: int,
    application: str,
    group: str,
    round_id: str,
    lo: int,
    hi: int,
    count: int,
    slots: int,
) -> list[OpsCopy]:
    """The tasks of one window (``read_sql``: the capture's ``read_query`` of it)."""
    out = SqlFiles("postgres", "window", comments=False)
    in_sql = target.one("ops_in")
    literals = {"application": application, "group": group, "round": round_id}
    jobs: list[OpsCopy] = []
    if capture.vendor != "postgres":
        from syncpoint import vendors

        text_in = target.one("ops_in_text")
        head = (application, group, round_id, int(tbl))
        window = SqlFiles(capture.vendor, "window", comments=False)
        lines = getattr(vendors.get(capture.vendor).dialect, "copy_text_tokens", None)
        for a, b in ranges(lo, hi, count, slots):
            raw = {"query": read_sql, "lo": str(int(a)), "hi": str(int(b))}
            if lines is not None:
                sel = window.one("range_text", raw={**raw, **lines(head)})
            else:
                sel = window.one("range", raw=raw)
            rows = RowsCopy(
                capture.vendor, capture.url, target.url, sel, text_in, head, lines is not None
            )
            jobs.append(OpsCopy(tbl, rows))
        return jobs
    for a, b in ranges(lo, hi, count, slots):
        raw = {"query": read_sql, "tbl": str(int(tbl)), "lo": str(int(a)), "hi": str(int(b))}
        raw["format"] = "(FORMAT binary)"
        out_sql = out.one("ops_out", raw=raw, literals=literals)
        jobs.append(OpsCopy(tbl, RangeCopy(capture.url, target.url, out_sql, in_sql)))
    return jobs


def copy_ops(job: OpsCopy) -> tuple[int, int]:
    """Run in a Spark task: (window, operations the target took), committed."""
    if isinstance(job.copy, RowsCopy):
        return job.tbl, copy_rows(job.copy)
    staged, _ = copy_range(job.copy)
    return job.tbl, staged


def operations(
    rows: Iterable[Sequence[Any]], head: tuple[str, str, str, int]
) -> Iterator[tuple[Any, ...]]:
    """The staging rows of the records ``rows`` (repl_key, action, content, oldcontent,
    dbid, key, old key: a ``read_query``'s columns), split as ``window/ops_out.sql``
    splits them: an insert or update upserts its key (sub 1), a delete deletes its old key
    (sub 0), and an update that moved its key also deletes the old one (sub -1)."""
    for rk, action, content, old, dbid, key, old_key in rows:
        content, old, key, old_key = (_str(v) for v in (content, old, key, old_key))
        action = _str(action)
        if action == "DELETE":
            yield (*head, "D", old, int(rk), _str(dbid), old_key, 0)
            continue
        yield (*head, "U", content, int(rk), _str(dbid), key, 1)
        if action == "UPDATE" and key is not None and old_key is not None and old_key != key:
            yield (*head, "D", old, int(rk), _str(dbid), old_key, -1)


def _str(v: Any) -> Any:
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).decode("utf-8")
    return v


def copy_rows(job: RowsCopy) -> int:
    """Run in a Spark task: stream the range's records from the source's unbuffered read
    into the target's COPY, as operations, in one target transaction (committed, or rolled
    back on any error); the operations the target took. Errors name neither URL nor
    password."""
    from syncpoint import vendors

    src_vendor = vendors.get(job.source_vendor)
    stream = importlib.import_module(f"syncpoint.vendors.{job.source_vendor}.transport").stream
    src = src_vendor.dialect.connect(job.source_url)
    try:
        dst = dialect.connect(job.target_url)
        try:
            with src_vendor.dialect.translated(), dialect.translated():
                try:
                    cur = dst.cursor()
                    if job.records:
                        # the settings the apply reads text values under (begin.sql's
                        # TimeZone among them), as a PostgreSQL source's typed tasks have
                        cur.execute(SESSION_INIT)
                        cur.execute(job.records)
                    with cur.copy(job.in_sql) as w:
                        read = stream(src, job.select_sql)
                        while batch := read.fetchmany(ROWS_BATCH):
                            if job.text:
                                w.write(b"".join(r[0] for r in batch))
                                continue
                            for op in operations(batch, job.head):
                                w.write_row(op)
                    n = int(cur.rowcount)
                    if job.typed_sql:
                        n = int(cur.execute(job.typed_sql).rowcount)  # operations staged
                        failpoints.hit("direct_typed_task")
                    dst.commit()
                except BaseException:
                    dst.rollback()
                    raise
            return n
        finally:
            dst.close()
    finally:
        src.close()


def net(
    target: Integrate, conn: Any, application: str, group: str, round_id: str,
    written: dict[int, int], typed: dict[int, Typed] | None = None,
    netted: dict[int, int] | None = None,
) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
    """Net the round's staged operations in ``{p}staging`` and in the windows' typed
    stagings (``typed``), committed: (change records, net rows) per window. ``written``:
    the operations the tasks wrote, per window; ``netted``: the change records of the
    windows whose operations the source netted (their staged operations are net rows)."""
    typed, netted = typed or {}, netted or {}
    target.begin(conn)
    try:
        found, records = {}, {}
        counts = [
            (int(t), int(n), int(r), int(k))
            for t, n, r, k in target.run(conn, "ops_count", (round_id,)).fetchall()
        ]
        for tbl, t in typed.items():
            n, recs, keyless = target.run(conn, "typed_count", staging=target.q(t.name)).fetchone()
            if n:
                counts.append((tbl, int(n), int(recs), int(keyless)))
        plain = {c[0] for c in counts} - set(typed)
        for tbl, n, recs, keyless in counts:
            found[tbl], records[tbl] = n, netted.get(tbl, recs)
            if keyless:
                raise WorkFailed("a change record lacks its key columns", table=None)
        want = {t: n for t, n in written.items() if n}
        if found != want:
            raise PositionConflict(
                f"the operations staged for round {round_id} are not those written ({found} "
                f"instead of {want}): another consumer of application {application} cleaned "
                "them up, or a task's copy was partial or repeated; this round applied nothing",
                location=target.location,
            )
        if plain - set(netted):
            target.run(conn, "ops_net", (round_id,))
            staged = {
                int(t): int(n)
                for t, n in target.run(conn, "staging_count", (round_id,)).fetchall()
            }
        else:  # every operation staged is a net row already
            staged = {t: found[t] for t in plain}
        for tbl, t in typed.items():
            if found.get(tbl):
                # what the netting left: what was found, less what it deleted
                gone = target.run(conn, "typed_net", staging=target.q(t.name)).rowcount
                staged[tbl] = found[tbl] - int(gone)
        target.commit(conn)
    except BaseException:
        target.rollback(conn)
        raise
    return records, staged


# The direct path's typed staging: a window whose target is known when the round stages
# (no DDL, no rename, no emptying in the window, one source and one origin, no conflict
# resolution) gets a table of its own for the round, with the target's columns in their
# types, and its tasks copy typed operations into it (``window/ops_out_typed.sql``). The
# apply then reads typed rows: no JSON is parsed by the round's one backend. (``Typed``,
# ``typed_owner``: vendors/integratebase.py, shared with MariaDB's direct path.)
def typed_stage(
    target: Any, conn: Any, application: str, group: str, round_id: str, tbl: int,
    table: ApplyTable,
) -> Typed | None:  # fmt: skip
    """Make the window's typed staging (committed), or None where the window's values
    cannot be staged typed (then they are staged as JSON text, as before). ``target``:
    PostgreSQL's integrate side (``typed_staged_type``; not imported here, which would
    make a cycle of imports)."""
    names = {c.name for c in table.target.columns}
    if names & set(TYPED_BOOKKEEPING) or any(len(c.keys) != 1 for c in table.columns):
        return None
    rows = target.run(conn, "typed_columns", (target.qualified(table.target.ref),)).fetchall()
    target.end_read(conn)
    declared = {str(n): (str(t), bool(own)) for n, t, own in rows}
    staged = []
    for c in table.columns:
        if c.name not in declared:
            return None
        base, builtin = declared[c.name]
        staged.append(target.typed_staged_type(c, base, builtin))
    name = f"{typed_owner(target.prefix, application, group)}{round_id[:12]}_{int(tbl)}"
    typed = Typed(name, signature(table), tuple(staged))
    cols = "".join(f", {target.q(c.name)} {s}" for c, s in zip(table.columns, staged, strict=True))
    target.begin(conn)
    try:
        target.run(conn, "typed_create", staging=target.q(name), columns=cols)
        target.commit(conn)
    except BaseException:
        target.rollback(conn)
        raise
    return typed


def typed_copies(
    capture: Any,
    target: Any,
    read_sql: str,
    typed: Typed,
    table: ApplyTable,
    *,
    tbl: int,
    lo: int,
    hi: int,
    count: int,
    slots: int,
) -> list[OpsCopy]:
    """The tasks of one window into its typed staging: a PostgreSQL source's operations
    made at the source and streamed by COPY; another vendor's records streamed as they are
    into a temporary table at the target and made into the operations there (each record's
    JSON parsed by the task, by the same SQL)."""
    out = SqlFiles("postgres", "window", comments=False)
    in_cols = "".join(f", {target.q(c.name)}" for c in table.columns)
    names = [c.keys[0] for c in table.key_columns]
    keys = {"new_key": typed_key("j.new", names), "old_key": typed_key("j.old", names)}
    jobs = []
    if capture.vendor != "postgres":
        from syncpoint import vendors

        # the INSERT casts each value's text to its staged type (the type's input, as
        # COPY's); a value staged as text or bytea has its type already
        values = "".join(
            f", {v}" if s in ("text", "bytea") else f", ({v})::{s}"
            for v, s in (
                (target.typed_source_value(c), s)
                for c, s in zip(table.columns, typed.staged, strict=True)
            )
        )
        window = SqlFiles(capture.vendor, "window", comments=False)
        lines = vendors.get(capture.vendor).dialect.copy_text_tokens()
        records = target.one("typed_records_create")
        records_in = target.one("typed_records_in")
        held = target.one("typed_records_read")
        head = ("", "", "", int(tbl))
        for a, b in ranges(lo, hi, count, slots):
            raw = {"query": read_sql, "lo": str(int(a)), "hi": str(int(b))}
            sel = window.one("records_text", raw={**raw, **lines})
            mine = {"query": held, "values": values, **keys}
            select = out.one("ops_typed", raw={**raw, **mine})
            insert = target.one(
                "typed_records_insert", staging=target.q(typed.name), columns=in_cols,
                select=select,
            )  # fmt: skip
            rows = RowsCopy(
                capture.vendor, capture.url, target.url, sel, records_in, head, True,
                records, insert,
            )  # fmt: skip
            jobs.append(OpsCopy(tbl, rows))
        return jobs
    values = "".join(f", {target.typed_source_value(c)}" for c in table.columns)
    in_sql = target.one("typed_in", staging=target.q(typed.name), columns=in_cols)
    for a, b in ranges(lo, hi, count, slots):
        raw = {"query": read_sql, "lo": str(int(a)), "hi": str(int(b)), "values": values}
        select = out.one("ops_typed", raw={**raw, **keys})
        jobs.append(OpsCopy(tbl, RangeCopy(capture.url, target.url, out.one(
            "ops_out_typed", raw={"select": select}), in_sql)))
    return jobs


def typed_key(record: str, names: Sequence[str]) -> str:
    """SQL of the key of a parsed record (``record``: a jsonb, NULL when the record has no
    such row) as the text the typed staging nets by: the JSON text of the key values as
    jsonb writes them, which are equal exactly when the values the source wrote are (one
    text per value). A missing value is JSON null, as ``key_sql``'s array of the key makes
    it; one column's text is its value's own (no array to build for every record)."""
    items = [f"({record} -> {dialect.literal(n)})" for n in names]
    if len(items) == 1:
        return f"COALESCE({items[0]}::text, 'null')"
    return f"jsonb_build_array({', '.join(items)})::text"


def drop_typed(target: Integrate, conn: Any, typed: dict[int, Typed]) -> None:
    """Drop typed stagings (committed; a round that staged again as JSON text)."""
    if not typed:
        return
    target.begin(conn)
    try:
        for t in typed.values():
            target.run(conn, "drop_table", target=target.q(t.name))
        target.commit(conn)
    except BaseException:
        target.rollback(conn)
        raise
