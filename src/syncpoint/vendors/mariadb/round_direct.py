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
path.
"""

from __future__ import annotations

import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from syncpoint.errors import LocationError
from syncpoint.vendors.integratebase import Integrate
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.postgres import dialect as pg_dialect
from syncpoint.vendors.postgres.round_direct import net as _net
from syncpoint.vendors.postgres.snapshot import SESSION_INIT
from syncpoint.vendors.sqlfiles import SqlFiles

__all__ = ["SOURCES", "available", "copies", "copy_ops", "net"]

SOURCES = ("postgres",)  # the capture vendors this direct path reads
LOADS = 2  # files a window's net operations are split into and loaded at once
# the source's sort of a window's operations (ops_out_net.sql) in memory where it fits
SORT_MEMORY = "SET work_mem TO '128MB'"


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
    out = SqlFiles("postgres", "window", comments=False)
    literals = {"application": application, "group": group, "round": round_id}
    # the whole window in one task: its operations are netted by one statement
    raw = {"query": read_sql, "tbl": str(int(tbl)), "lo": str(int(lo)), "hi": str(int(hi) + 1)}
    out_sql = out.one("ops_out_net", raw=raw, literals=literals)
    return [OpsLoad(tbl, capture.url, target.url, out_sql, target.idents["staging"], True)]


def copy_ops(job: OpsLoad) -> tuple[int, ...]:
    """Run in a task: (window, operations the target took, and for a window netted at the
    source its change records), committed. Errors name neither URL nor password; the files
    are removed whatever happens."""
    paths: list[str] = []
    try:
        for _ in range(LOADS if job.netted else 1):
            fd, path = tempfile.mkstemp(prefix="syncpoint-ops-", suffix=".tsv")
            os.close(fd)
            paths.append(path)
        records = _copy_out(job, paths)
        if len(paths) == 1:
            n = _load(job, paths[0])
        else:
            with ThreadPoolExecutor(len(paths), thread_name_prefix="syncpoint-load") as pool:
                n = sum(pool.map(lambda p: _load(job, p), paths))
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


def _load(job: OpsLoad, path: str) -> int:
    """``LOAD DATA`` of one file into the staging, committed: the operations it took."""
    extra = ", @records" if job.netted else ""
    files = SqlFiles("mariadb", "integrate", {"staging": job.staging}, comments=False)
    dst = dialect.connect(job.target_url, local_infile=True)
    try:
        with dialect.translated():
            try:
                cur = dst.cursor()
                cur.execute(files.one("ops_mode"))
                cur.execute(files.one("ops_in", raw={"file": _file_literal(path), "extra": extra}))
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
    """PostgreSQL's ``net`` over this vendor's SQL files; then the temporary table
    ``ops_net.sql`` lists the superseded operations in is dropped (it would hold them as
    long as the session)."""
    try:
        out = _net(target, conn, application, group, round_id, written, typed, netted)
    except BaseException:
        try:
            target.run(conn, "ops_net_done")
        except Exception:  # noqa: BLE001 - the netting's own error is the one to report
            pass
        raise
    target.run(conn, "ops_net_done")
    return out


def _file_literal(path: str) -> str:
    """The file's name as LOAD DATA takes it (a plain string: no character set introducer,
    which the vendor's literals carry); a temporary file's name holds no quote."""
    if not re.fullmatch(r"[\w./-]+", path):
        raise ValueError(f"unexpected temporary file name {path!r}")
    return f"'{path}'"
