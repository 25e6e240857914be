"""The direct path of a round, PostgreSQL to MariaDB: the window's change records go from
the capture location's queue to the target by the databases' own bulk paths and are
netted there, by SQL.

Each task (``copy_ops``, in a Spark task or a driver thread) writes one ``repl_key`` range
of one window, split into the operations its records mean by the source
(``postgres/sql/window/ops_out.sql``, in COPY's text form), into a file of its own, and
loads it into ``{p}staging`` by ``LOAD DATA LOCAL INFILE`` (``sql/integrate/ops_in.sql``)
and commits. ``net`` (PostgreSQL's, over this vendor's SQL files) then checks the counts
and deletes every operation a later one of its key supersedes, in one transaction; the
apply transaction reads the rows left, as on every path. Used only where the server
accepts local files (``@@local_infile``); elsewhere rounds take Spark's path.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Any

from syncpoint.vendors.integratebase import Integrate
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.postgres import dialect as pg_dialect
from syncpoint.vendors.postgres.round_direct import net as _net
from syncpoint.vendors.postgres.round_direct import ranges
from syncpoint.vendors.postgres.snapshot import SESSION_INIT
from syncpoint.vendors.sqlfiles import SqlFiles

__all__ = ["SOURCES", "available", "copies", "copy_ops", "net"]

SOURCES = ("postgres",)  # the capture vendors this direct path reads


@dataclass(frozen=True)
class OpsLoad:
    """One task's work: a window's repl_key range, out of the source and into the target."""

    tbl: int
    source_url: str = field(repr=False)  # may hold a password: never shown
    target_url: str = field(repr=False)
    out_sql: str
    staging: str  # the staging table's name


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
    jobs = []
    for a, b in ranges(lo, hi, count, slots):
        raw = {"query": read_sql, "tbl": str(int(tbl)), "lo": str(int(a)), "hi": str(int(b))}
        raw["format"] = ""
        out_sql = out.one("ops_out", raw=raw, literals=literals)
        jobs.append(OpsLoad(tbl, capture.url, target.url, out_sql, target.idents["staging"]))
    return jobs


def copy_ops(job: OpsLoad) -> tuple[int, int]:
    """Run in a task: (window, operations the target took), committed. Errors name neither
    URL nor password; the file is removed whatever happens."""
    fd, path = tempfile.mkstemp(prefix="syncpoint-ops-", suffix=".tsv")
    try:
        with os.fdopen(fd, "wb") as f:
            src = pg_dialect.connect(job.source_url)
            try:
                with pg_dialect.translated():
                    src.execute(SESSION_INIT)
                    with src.cursor().copy(job.out_sql) as cp:
                        for block in cp:
                            f.write(block)
                    src.commit()
            finally:
                src.close()
        files = SqlFiles("mariadb", "integrate", {"staging": job.staging}, comments=False)
        dst = dialect.connect(job.target_url, local_infile=True)
        try:
            with dialect.translated():
                try:
                    cur = dst.cursor()
                    cur.execute(files.one("ops_mode"))
                    cur.execute(files.one("ops_in", raw={"file": _file_literal(path)}))
                    n = int(cur.rowcount)
                    dst.commit()
                except BaseException:
                    dst.rollback()
                    raise
        finally:
            dst.close()
        return job.tbl, n
    finally:
        os.unlink(path)


def net(
    target: Integrate, conn: Any, application: str, group: str, round_id: str,
    written: dict[int, int], typed: dict[int, Any] | None = None,
) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
    """PostgreSQL's ``net`` over this vendor's SQL files; then the temporary table
    ``ops_net.sql`` lists the superseded operations in is dropped (it would hold them as
    long as the session)."""
    try:
        out = _net(target, conn, application, group, round_id, written, typed)
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
