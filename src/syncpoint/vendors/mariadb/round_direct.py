"""The direct path of a round, PostgreSQL to MariaDB: the window's change records go from
the capture location's queue to the target by the databases' own bulk paths and are
netted at the source, by SQL.

Each window's task (``copy_ops``, in a Spark task or a driver thread) writes the window's
records, split into the operations they mean and netted by the source
(``postgres/sql/window/ops_out_net.sql``, in COPY's text form: only the last operation of
each key crosses), into ``LOADS`` files of its own, and loads them into ``{p}staging`` by
``LOAD DATA LOCAL INFILE`` (``sql/integrate/ops_in.sql``) at once, each committed.
``net`` (PostgreSQL's, over this vendor's SQL files) then checks the counts (a window
netted at the source needs no netting here: MariaDB's sort of every operation took longer
than the copy); the apply transaction reads the rows left, as on every path. Used only
where the server accepts local files (``@@local_infile``); elsewhere rounds take Spark's
path. A window whose target is known before the copy is staged typed instead (below:
``typed_stage``, ``typed_copies``; the apply in ``integrate.py``).

From a MariaDB capture location the task reads its window by an unbuffered cursor, and the
source writes the same net operations itself as the lines ``LOAD DATA`` reads
(``mariadb/sql/window/ops_out_net.sql``), which the task deals into its files unparsed. A
window staged typed loads those same lines, each column set by the JSON path's own
expression over the line's JSON (``typed_load_json.sql``): the apply reads typed rows.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from syncpoint import failpoints
from syncpoint.errors import LocationError, PositionConflict, WorkFailed
from syncpoint.vendors.integratebase import (
    TYPED_BOOKKEEPING,
    ApplyTable,
    Integrate,
    Typed,
    signature,
    typed_owner,
)
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.postgres import dialect as pg_dialect
from syncpoint.vendors.postgres.round_direct import net as _net
from syncpoint.vendors.postgres.snapshot import SESSION_INIT
from syncpoint.vendors.sqlfiles import SqlFiles

__all__ = [
    "SOURCES",
    "TYPED_SOURCES",
    "available",
    "copies",
    "copy_ops",
    "drop_typed",
    "net",
    "typed_copies",
    "typed_refusal",
    "typed_stage",
]

SOURCES = ("postgres", "mariadb")  # the capture vendors this direct path reads
LOADS = 2  # files a window's net operations are split into and loaded at once
CHUNK_ROWS = 50_000  # rows of a typed window's file, each loaded as soon as it is written
# the source's sort of a window's operations (ops_out_net.sql) in memory where it fits
SORT_MEMORY = "SET work_mem TO '128MB'"
ROWS_BATCH = 5_000  # lines a task takes at once from a MariaDB source's unbuffered read


@dataclass(frozen=True)
class OpsLoad:
    """One task's work: a window's repl_key range, out of the source and into the target."""

    tbl: int
    source_url: str = field(repr=False)  # may hold a password: never shown
    target_url: str = field(repr=False)
    out_sql: str
    staging: str  # the staging table's name
    # the source nets the window's operations (ops_out_net.sql: its rows end with the
    # window's count of change records)
    netted: bool = False
    # a typed window's LOAD DATA (typed_load.sql, or typed_load_json.sql from MariaDB; the
    # file's name as FILE_TOKEN), else ""
    load_sql: str = ""
    source: str = "postgres"  # the capture location's vendor


def available(target: Integrate, conn: Any) -> bool:
    """Whether the server takes the tasks' files (else rounds take Spark's path)."""
    row = target.run(conn, "local_infile").fetchone()
    target.end_read(conn)
    return bool(row and int(row[0]))


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
) -> list[OpsLoad]:
    """The tasks of one window (``read_sql``: the capture's ``read_query`` of it)."""
    # the whole window in one task: its operations are netted by one statement
    raw = {"query": read_sql, "tbl": str(int(tbl)), "lo": str(int(lo)), "hi": str(int(hi) + 1)}
    staging = target.idents["staging"]
    if capture.vendor == "mariadb":
        head = (application, group, round_id, tbl)
        out_sql = SqlFiles("mariadb", "window", comments=False).one(
            "ops_out_net", raw={**raw, **dialect.copy_text_tokens(head)}
        )
        return [OpsLoad(tbl, capture.url, target.url, out_sql, staging, True, source="mariadb")]
    out = SqlFiles("postgres", "window", comments=False)
    literals = {"application": application, "group": group, "round": round_id}
    out_sql = out.one("ops_out_net", raw=raw, literals=literals)
    return [OpsLoad(tbl, capture.url, target.url, out_sql, staging, True)]


def copy_ops(job: OpsLoad) -> tuple[int, ...]:
    """Run in a task: (window, operations the target took, and for a window netted at the
    source its change records), committed. Errors name neither URL nor password; the files
    are removed whatever happens."""
    if job.load_sql and job.source == "postgres":
        return _copy_chunked(job)
    paths: list[str] = []
    try:
        for _ in range(LOADS if job.netted else 1):
            fd, path = tempfile.mkstemp(prefix="syncpoint-ops-", suffix=".tsv")
            os.close(fd)
            paths.append(path)
        records = _rows_out(job, paths) if job.source == "mariadb" else _copy_out(job, paths)
        if len(paths) == 1:
            n = _load(job, paths[0])
        else:
            with ThreadPoolExecutor(len(paths), thread_name_prefix="syncpoint-load") as pool:
                n = sum(pool.map(lambda p: _load(job, p), paths))
        failpoints.hit("round_after_task")
        return (job.tbl, n, records) if job.netted else (job.tbl, n)
    finally:
        for path in paths:
            os.unlink(path)


def _copy_out(job: OpsLoad, paths: list[str]) -> int:
    """The source's COPY of the task's operations, its rows dealt to the files in turn
    (libpq hands COPY's rows over one at a time); the window's change records, from the
    last column of a netted window's rows (0: none, or not netted)."""
    records = 0
    files = [open(p, "wb") for p in paths]  # noqa: SIM115 - closed below, all of them
    try:
        src = pg_dialect.connect(job.source_url)
        try:
            with pg_dialect.translated():
                src.execute(SESSION_INIT)
                if job.netted:
                    src.execute(SORT_MEMORY)
                with src.cursor().copy(job.out_sql) as cp:
                    k = len(files)
                    for i, row in enumerate(cp):
                        if i == 0 and job.netted:
                            line = bytes(row).split(b"\n", 1)[0]
                            records = int(line[line.rindex(b"\t") + 1 :])
                        files[i % k].write(row)
                src.commit()
        finally:
            src.close()
    finally:
        for f in files:
            f.close()
    return records


def _rows_out(job: OpsLoad, paths: list[str]) -> int:
    """A MariaDB source's lines of the task's net operations (one column of bytes a line,
    read by an unbuffered cursor), dealt to the files a batch at a time; the window's
    change records, from the last value of the first line (0: none)."""
    from syncpoint.vendors.mariadb.transport import stream

    records = 0
    files = [open(p, "wb") for p in paths]  # noqa: SIM115 - closed below, all of them
    try:
        src = dialect.connect(job.source_url)
        try:
            with dialect.translated():
                read = stream(src, job.out_sql)
                k = len(files)
                i = 0
                while batch := read.fetchmany(ROWS_BATCH):
                    if i == 0:
                        line = bytes(batch[0][0])
                        records = int(line[line.rindex(b"\t") + 1 :])
                    files[i % k].write(b"".join(r[0] for r in batch))
                    i += 1
                read.close()
                src.commit()
        finally:
            src.close()
    finally:
        for f in files:
            f.close()
    return records


def _copy_chunked(job: OpsLoad) -> tuple[int, int, int]:
    """A typed window's task: the source's COPY written into files of ``CHUNK_ROWS`` rows,
    each loaded (``LOADS`` at once) as soon as it is complete, while the source goes on
    (the source sends nothing until its netting sort is done; its rows' values and the
    loads then overlap). (window, rows the target took, 0: the target counts the records).
    Errors name neither URL nor password; the files are removed whatever happens."""
    tmp = tempfile.mkdtemp(prefix="syncpoint-ops-")
    loads: list[Any] = []
    try:
        with ThreadPoolExecutor(LOADS, thread_name_prefix="syncpoint-load") as pool:
            src = pg_dialect.connect(job.source_url)
            out = None
            try:
                with pg_dialect.translated():
                    src.execute(SESSION_INIT)
                    src.execute(SORT_MEMORY)
                    with src.cursor().copy(job.out_sql) as cp:
                        rows, path = 0, ""
                        for row in cp:
                            if out is None:
                                path = os.path.join(tmp, f"{len(loads)}.tsv")
                                out, rows = open(path, "wb"), 0  # noqa: SIM115 - closed below
                            line = bytes(row)  # libpq's buffer: a memoryview
                            if b"\\f" in line or b"\\v" in line:
                                line = _loadable(line)
                            out.write(line)
                            rows += 1
                            if rows >= CHUNK_ROWS:
                                out.close()
                                out = None
                                loads.append(pool.submit(_load, job, path))
                        if out is not None:
                            out.close()
                            out = None
                            loads.append(pool.submit(_load, job, path))
                    src.commit()
            finally:
                if out is not None:
                    out.close()
                src.close()
        return job.tbl, sum(f.result() for f in loads), 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# COPY's text form writes a form feed and a vertical tab as \f and \v, which LOAD DATA
# does not know (it would read the letters): they go as the characters themselves, which
# LOAD DATA reads as they are (an escaped backslash stays one)
_COPY_ESCAPES = re.compile(rb"\\(.)", re.S)
_RAW = {b"f": b"\f", b"v": b"\v"}


def _loadable(row: bytes) -> bytes:
    return _COPY_ESCAPES.sub(lambda m: _RAW.get(m.group(1)) or m.group(0), row)


def _load(job: OpsLoad, path: str) -> int:
    """``LOAD DATA`` of one file into the staging, committed: the operations it took."""
    extra = ", @records" if job.netted else ""
    files = SqlFiles("mariadb", "integrate", {"staging": job.staging}, comments=False)
    dst = dialect.connect(job.target_url, local_infile=True)
    try:
        with dialect.translated():
            try:
                cur = dst.cursor()
                if not (job.load_sql and job.source == "mariadb"):
                    # typed_load_json.sql converts in the session's own mode, the apply's
                    cur.execute(files.one("ops_mode"))
                if job.load_sql:
                    cur.execute(job.load_sql.replace(FILE_TOKEN, _file_literal(path)))
                else:
                    raw = {"file": _file_literal(path), "extra": extra}
                    cur.execute(files.one("ops_in", raw=raw))
                n = int(cur.rowcount)
                # a LOCAL load turns what strict mode refuses (a value cut to a column's
                # width, a bad number) into warnings and goes on: none is let through
                found = dst.show_warnings()
                if found:
                    level, code, text = found[0][:3]
                    raise LocationError(
                        f"MariaDB: {text} ({level} {code}) while loading a round's operations "
                        f"into {job.staging}; this round applied nothing",
                    )
                dst.commit()
            except BaseException:
                dst.rollback()
                raise
    finally:
        dst.close()
    return n


def net(
    target: Integrate, conn: Any, application: str, group: str, round_id: str,
    written: dict[int, int], typed: dict[int, Any] | None = None,
    netted: dict[int, int] | None = None,
) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
    """PostgreSQL's ``net`` over this vendor's SQL files for the windows staged as JSON
    text; then the temporary table ``ops_net.sql`` lists the superseded operations in is
    dropped (it would hold them as long as the session). A typed window's staging holds
    the net rows the source made: checked against what its tasks wrote."""
    typed, netted = typed or {}, netted or {}
    records, staged = _typed_checked(
        target, conn, application, round_id, written, typed, netted
    )
    plain = {t: n for t, n in written.items() if t not in typed}
    try:
        out = _net(target, conn, application, group, round_id, plain, None, netted)
    except BaseException:
        try:
            target.run(conn, "ops_net_done")
        except Exception:  # noqa: BLE001 - the netting's own error is the one to report
            pass
        raise
    target.run(conn, "ops_net_done")
    return {**out[0], **records}, {**out[1], **staged}


def _typed_checked(
    target: Integrate, conn: Any, application: str, round_id: str, written: dict[int, int],
    typed: dict[int, Any], netted: dict[int, int],
) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
    """(change records, net rows) of the typed windows, their stagings' rows counted. A
    window from MariaDB (``netted``: the count its task read off its first line) has the
    window's count on every row; one from PostgreSQL each key's, summed."""
    records: dict[int, int] = {}
    staged: dict[int, int] = {}
    for tbl, t in typed.items():
        n, keyless, recs, least, most = target.run(
            conn, "typed_count", staging=target.q(t.name)
        ).fetchone()
        target.end_read(conn)
        if int(keyless):
            raise WorkFailed("a change record lacks its key columns", table=None)
        whole = netted.get(tbl, 0)
        if whole and int(n):
            recs = whole if int(least) == int(most) == whole else -1
        if int(n) != written.get(tbl, 0) or int(recs) < 0:
            raise PositionConflict(
                f"the operations staged for round {round_id} are not those written "
                f"({int(n)} instead of {written.get(tbl, 0)} in {t.name}, or their counts "
                f"of change records differ): another consumer of application {application} "
                "cleaned them up, or a task's copy was partial or repeated; this round "
                "applied nothing",
                location=target.location,
            )
        if int(n):
            records[tbl], staged[tbl] = int(recs), int(n)
    return records, staged


# -- typed staging ----------------------------------------------------------------------
# A window whose target is known when the round stages (round.py's _typed_stagings) gets a
# table of the target's own column types for the round (typed_create.sql). A PostgreSQL
# source nets the window and takes each net row's values out of its JSON once
# (window/ops_out_net_typed.sql), and LOAD DATA reads them into their types. A MariaDB
# source writes the lines of the JSON text's path (window/ops_out_net.sql), and LOAD DATA
# sets each column by the JSON path's own expression over the line's JSON
# (typed_load_json.sql), in the apply's SQL mode and time zone: the values are the JSON
# path's by construction. The apply is an INSERT ... SELECT ... ON DUPLICATE KEY UPDATE and
# a DELETE by key of typed rows: no JSON parsed in the round's transaction. MariaDB's DDL
# commits, so the staging is dropped after the apply's commit, with those of earlier
# attempts of the sync group (integrate.py).
TYPED_SOURCES = SOURCES  # the capture vendors whose records are staged typed
FILE_TOKEN = "'__syncpoint_load_file__'"


def typed_refusal(table: ApplyTable) -> str | None:
    """Why a table's rows cannot be staged typed exactly (then its window is staged as JSON
    text, as before), or None."""
    from syncpoint.vendors.mariadb.integrate import typed_refusal as refusal

    return refusal(table)


def typed_stage(
    target: Any, conn: Any, application: str, group: str, round_id: str, tbl: int,
    table: ApplyTable,
) -> Typed | None:  # fmt: skip
    """Make the window's typed staging (committed), or None where it cannot be staged
    typed. ``target``: MariaDB's integrate side."""
    names = {c.name for c in table.target.columns}
    ours = {*TYPED_BOOKKEEPING, "sp_keyless", "sp_records"}
    if names & ours or any(len(c.keys) != 1 for c in table.columns):
        return None
    name = f"{typed_owner(target.prefix, application, group)}{round_id[:12]}_{int(tbl)}"
    staged = tuple(target.typed_staged_type(c, table) for c in table.columns)
    typed = Typed(name, signature(table), staged)
    cols = "".join(f", {target.q(c.name)} {s}" for c, s in zip(table.columns, staged, strict=True))
    target.begin(conn)
    try:
        target.run(
            conn, "typed_create", staging=target.q(name), columns=cols,
            index=target.typed_index(table),
        )  # fmt: skip
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
) -> list[OpsLoad]:
    """The task of one window into its typed staging (one: the source nets the window)."""
    raw = {"query": read_sql, "lo": str(int(lo)), "hi": str(int(hi) + 1)}
    if capture.vendor == "mariadb":
        # the JSON text's own lines, without the round's columns
        tokens = {**raw, **dialect.copy_text_tokens()}
        out_sql = SqlFiles("mariadb", "window", comments=False).one("ops_out_net", raw=tokens)
        assigned = "".join(f", {target.typed_json_set(c)}" for c in table.columns)
        load_sql = target.one(
            "typed_load_json", staging=target.q(typed.name), file=FILE_TOKEN, set=assigned
        )
        return [
            OpsLoad(
                tbl, capture.url, target.url, out_sql, typed.name, True, load_sql, "mariadb"
            )
        ]
    out = SqlFiles("postgres", "window", comments=False)
    values, fields, sets = [], [], []
    for i, c in enumerate(table.columns):
        v, f, s = target.typed_load(c, i)
        values += v
        fields += f
        sets += s
    raw["values"] = "".join(f", {v}" for v in values)
    out_sql = out.one("ops_out_net_typed", raw=raw)
    load_sql = target.one(
        "typed_load", staging=target.q(typed.name), file=FILE_TOKEN,
        fields="".join(f", {f}" for f in fields), set=f"SET {', '.join(sets)}" if sets else "",
    )  # fmt: skip
    return [OpsLoad(tbl, capture.url, target.url, out_sql, typed.name, True, load_sql)]


def drop_typed(target: Integrate, conn: Any, typed: dict[int, Typed]) -> None:
    """Drop typed stagings (each DROP commits in MariaDB: never inside the apply)."""
    for t in typed.values():
        target.run(conn, "typed_drop", staging=target.q(t.name))
    target.end_read(conn)


def _file_literal(path: str) -> str:
    """The file's name as LOAD DATA takes it (a plain string: no character set introducer,
    which the vendor's literals carry); a temporary file's name holds no quote."""
    if not re.fullmatch(r"[\w./-]+", path):
        raise ValueError(f"unexpected temporary file name {path!r}")
    return f"'{path}'"
