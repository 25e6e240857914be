"""MariaDB capture from the binary log (``capture: log``): the trigger capture's queue,
ticks, reads and purge, filled by draining the binary log instead of by triggers.

``install`` creates the queue objects and ``{prefix}log_state`` (the GTID position drained,
starting at the server's current one) and ``{prefix}origin_marks``, and no trigger. A
``tick`` first drains (``drain.py``): every transaction written to the binary log up to
``@@gtid_binlog_pos`` sampled at its start goes into ``{prefix}items`` as the triggers would
have written it, the position stored in the same transaction; then it makes the ordinary
tick. DDL and TRUNCATE come from the log too, so ``poll_ddl`` has nothing to do. Why and
how: docs/internals.md, "Log capture on MariaDB"; settings: docs/log-capture.md.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

import pymysql

from syncpoint.config import TableConfig
from syncpoint.core.model import CaptureStatus, Tick
from syncpoint.errors import ConfigError, NotInstalled
from syncpoint.vendors.mariadb import catalog, dialect, objects, stream, triggers
from syncpoint.vendors.mariadb.capture import MariadbCapture
from syncpoint.vendors.mariadb.log import binlog, drain
from syncpoint.vendors.mariadb.log import unread as logunread
from syncpoint.vendors.mariadb.log.unlogged import note, unlogged
from syncpoint.vendors.mariadb.names import Names, render, statements
from syncpoint.vendors.mariadb.state import Site, lock_used, run, watched
from syncpoint.vendors.mariadb.watch import save_snapshot

LOG_OBJECTS = ("log/010_log_state.sql", "log/020_origin_marks.sql")


class MariadbLogCapture(MariadbCapture):
    kind: ClassVar[str] = "log"

    # -- checks --------------------------------------------------------------------------
    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = super().check(conn, tables)  # the tables' traps, as for triggers
        with dialect.translated(self.location):
            cur = conn.cursor()
            if catalog.server_problem(cur) is None:
                problems += server_problems(cur, self.location)
        return problems

    # -- install -------------------------------------------------------------------------
    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with dialect.translated(self.location):
            site = self._site(conn)
            out = objects.base_statements(site)
            for rel in LOG_OBJECTS:
                out += statements(rel, site.names)
            out += statements("log/state_start.sql", site.names)
            return [f"-- {note(conn)}", *out]

    def notes(self, conn: Any) -> list[str]:
        """Whether ticks and purges write to the binary log here (``unlogged.py``)."""
        with dialect.translated(self.location):
            return [note(conn)]

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        problems = self.check(conn, tables)
        if problems:
            raise ConfigError(
                f"capture cannot be installed at location {self.location}",
                [f"{self.location}: {p}" for p in problems],
            )
        with dialect.translated(self.location):
            site = self._site(conn)
            cur = conn.cursor()
            before = objects.present(cur, site.names)
            triggers_before = set(triggers.existing(cur, site.names))
            added: list[str] = []
            try:
                _install(conn, site, tables, before, added)
            except Exception as exc:
                objects._undo(conn, site, before, triggers_before, added)
                raise dialect.translate(exc, site.location) from exc

    # -- status --------------------------------------------------------------------------
    def status(self, conn: Any) -> CaptureStatus:
        st = super().status(conn)
        if not st.installed:
            return st
        with dialect.translated(self.location):
            retained = self.retained(conn)
        if retained.get("lost"):
            st.problems.append(str(retained["lost"]))
        st.log = retained
        return st

    def retained(self, conn: Any) -> dict[str, Any]:
        """What capture still needs of the binary log: the bytes from the file and offset of
        the stored position to the end, and the age of that position (its commit time)."""
        cur = conn.cursor()
        site = self._site(conn)
        run(cur, "log/state_read.sql", site.names)
        row = cur.fetchone()
        conn.rollback()
        if row is None:
            return {}
        gtid, log_file, log_pos, event_at, drained_at, lost = row
        out: dict[str, Any] = {"gtid": gtid, "log_file": log_file, "lost": lost}
        at = event_at or drained_at
        cur.execute(render("log/sample.sql", site.names))
        head = str(cur.fetchone()[1] or "")
        caught_up = _covers(str(gtid), head)
        if caught_up:
            # nothing written to the binary log after the position: nothing waits, however
            # long ago the last change came (ticks that keep their own writes out of the
            # log leave no transaction of theirs to drain)
            out["age_seconds"] = 0.0
        elif at is not None:
            age = datetime.now(UTC) - at.replace(tzinfo=UTC)
            out["age_seconds"] = max(0.0, round(age.total_seconds(), 3))
        try:
            cur.execute(render("log/binlogs.sql", site.names))
            files = [(str(r[0]), int(r[1])) for r in cur.fetchall()]
        except pymysql.err.Error as exc:
            out["error"] = str(dialect.translate(exc, self.location))
            return out
        names = [f for f, _ in files]
        if not lost and files and _purged_past(cur, files[0][0], str(gtid)):
            out["lost"] = (
                f"the binary log no longer holds capture's position {gtid} (purged): changes "
                "after it cannot be read; the next run stops the tables: run syncpoint "
                f"snapshot for the tables of location {self.location}"
            )
        start = names.index(log_file) if log_file in names else 0
        held = files[start:]
        out["retained_bytes"] = sum(size for _, size in held) - (int(log_pos or 0) if held else 0)
        out["retained_files"] = len(held)
        # from the stored position on, the log is what the next drain reads
        out["unread_bytes"] = 0 if caught_up else max(0, out["retained_bytes"])
        if out["unread_bytes"] and not out.get("lost") and not _draining(cur, site):
            tables = {
                w.table: str(w.actions or "IUD")
                for w in watched(cur, site.names)
                if w.schema == site.db and w.status != "DROPPED"
            }
            conn.rollback()
            found = logunread.oldest_unread(
                self.url,
                site.db,
                tables,
                str(gtid),
                str(log_file) if log_file else None,
                int(log_pos) if log_pos is not None else None,
            )
            if found is not None:
                out["unread_oldest"] = found
        return out

    def status_tick(self, conn: Any) -> Tick | None:
        return None  # a tick drains the binary log into the queue: status must not write

    def stream_id(self, conn: Any) -> str:
        # every round asks: the queue's status only, not the binary log's (read by status)
        st = super().status(conn)
        if not st.installed or st.stream_id is None:
            raise NotInstalled("capture is not installed", location=self.location)
        return st.stream_id

    # -- the stream ----------------------------------------------------------------------
    def tick(self, conn: Any) -> Tick:
        with dialect.translated(self.location):
            site = self._site(conn)
            # the drain's records, its position and the tick's stamps: out of the binary log
            # where the user may (unlogged.py); nothing reads them there
            with unlogged(conn):
                sampled = drain.drain(conn, site, self.url)
                t = stream.tick(conn, site, guaranteed_at=sampled, written_in=True)
            return Tick(context=t.context, guaranteed=t.guaranteed, sampled_at=sampled)

    def purge(self, conn: Any, upto: int) -> int:
        with dialect.translated(self.location), unlogged(conn):
            return stream.purge(conn, self._site(conn), upto)

    def poll_ddl(self, conn: Any) -> int:
        return 0  # DDL records are written by the drain, in binary log order

    def set_origin(self, conn: Any, origin: str | None) -> None:
        with dialect.translated(self.location):
            run(conn.cursor(), "log/set_origin.sql", self.names, {"origin": origin})


def _draining(cur: Any, site: Site) -> bool:
    """Whether a drain holds its lock now: it is filling the queue from the binary log, and
    a peek of the same log (milliseconds to read) would only tell what the drain is taking."""
    return lock_used(cur, site, "drain")


def _install(
    conn: Any,
    site: Site,
    tables: list[TableConfig],
    before: dict[str, tuple[str, str | None]],
    added: list[str],
) -> None:
    names = site.names
    cur = conn.cursor()
    # a location that captured by trigger before: its triggers go first, so that no change
    # is captured twice once the binary log is read
    for name in triggers.existing(cur, names):
        cur.execute(f"DROP TRIGGER IF EXISTS {dialect.quote(name)}")
    objects._create_base(cur, site, before)
    for rel in LOG_OBJECTS:
        run(cur, rel, names)
    run(cur, "queries/service_row.sql", names, {"stream_id": _new_id(), "location": site.location})
    conn.commit()
    wanted = {t.ref.name: t for t in tables}
    for w in watched(cur, names):
        if w.table not in wanted:
            run(cur, "queries/watch_remove.sql", names, {"schema": site.db, "table": w.table})
    for name, t in wanted.items():
        if name not in {w.table for w in watched(cur, names)}:
            added.append(name)
        run(
            cur,
            "queries/watch_add.sql",
            names,
            {
                "schema": site.db,
                "table": name,
                "actions": t.actions,
                "debug": int(t.debug),
                "keycols": objects._json(t.key),
            },
        )
    for w in watched(cur, names):
        if w.status == "CREATING":
            save_snapshot(cur, site, w, catalog.columns(cur, w.schema, w.table))
        run(cur, "log/watch_ok.sql", names, {"schema": w.schema, "table": w.table})
    # the position last: every change committed after it is read from the binary log
    run(cur, "log/state_start.sql", names)
    cur.execute("SHOW MASTER STATUS")
    found = cur.fetchone()
    if found:
        run(cur, "log/state_file.sql", names, {"log_file": found[0], "log_pos": int(found[1])})
    conn.commit()


def _covers(position: str, head: str) -> bool:
    """Whether the GTID position ``position`` is at or past ``head`` in every domain."""
    ours = binlog.parse_gtids(position)
    return all(ours.get(d, (0, 0))[1] >= n for d, (_, n) in binlog.parse_gtids(head).items())


def _purged_past(cur: Any, oldest: str, gtid: str) -> bool:
    """Whether transactions after ``gtid`` were in binary logs purged already: the oldest
    file's GTID list (the position before its first transaction) is past ``gtid``."""
    try:
        cur.execute(render("log/gtid_list.sql", _NAMES), {"file": oldest})
        listed = [str(r[5]) for r in cur.fetchall() if str(r[2]) == "Gtid_list"]
    except pymysql.err.Error:
        return False
    if not listed:
        return False
    ours = binlog.parse_gtids(gtid)
    first = binlog.parse_gtids(listed[0].strip("[]"))
    return any(ours.get(d, (0, 0))[1] < n for d, (_, n) in first.items())


def _new_id() -> str:
    import uuid

    return uuid.uuid4().hex


def server_problems(cur: Any, location: str) -> list[str]:
    """What the server lacks for log capture, each with its fix."""
    found: list[str] = []
    cur.execute(render("log/settings.sql", _NAMES))
    log_bin, fmt, image, metadata, compress, server_id = cur.fetchone()
    fix = "set it in the server's configuration ([mariadb] section) and restart"
    if not int(log_bin or 0):
        found.append(
            f"location {location}: the binary log is off (log_bin): log capture reads it; "
            f"add log_bin=<basename> and server_id=<n>: {fix}"
        )
    want = (
        ("binlog_format", fmt, "ROW", "row events carry the changed rows"),
        ("binlog_row_image", image, "FULL", "UPDATE and DELETE records carry the whole old row"),
        (
            "binlog_row_metadata",
            metadata,
            "FULL",
            "without it the binary log carries no column names, so rows could not be named right",
        ),
    )
    for var, have, need, why in want:
        if str(have or "").upper() != need:
            found.append(
                f"location {location}: {var} is {have}, log capture needs {need} ({why}): "
                f"SET GLOBAL {var} = '{need}' (new sessions) and {fix}"
            )
    if int(compress or 0):
        found.append(
            f"location {location}: log_bin_compress is ON: compressed binary log events "
            f"cannot be read by log capture; SET GLOBAL log_bin_compress = OFF and {fix}"
        )
    if not int(server_id or 0):
        found.append(f"location {location}: server_id is 0: give the server one: {fix}")
    grants = _grants(cur)
    for privilege, why in (
        ("REPLICATION SLAVE", "to read the binary log as a replica does"),
        ("BINLOG MONITOR", "to list the binary logs (retained log in status)"),
    ):
        if not _granted(grants, privilege):
            found.append(
                f"the user of location {location} lacks {privilege} ({why}): "
                f"GRANT {privilege} ON *.* TO <user>"
            )
    return found


def _grants(cur: Any) -> str:
    cur.execute("SHOW GRANTS")
    return "\n".join(str(r[0]) for r in cur.fetchall()).upper()


def _granted(grants: str, privilege: str) -> bool:
    synonyms = {
        "REPLICATION SLAVE": ("REPLICATION SLAVE", "REPLICATION REPLICA"),
        "BINLOG MONITOR": ("BINLOG MONITOR", "REPLICATION CLIENT"),
    }
    for line in grants.splitlines():
        if " ON *.* " not in line:
            continue
        privs = {p.strip() for p in line.split(" ON ")[0].removeprefix("GRANT ").split(",")}
        if "ALL PRIVILEGES" in privs or privs & set(synonyms[privilege]):
            return True
    return False


_NAMES = Names("x")  # for the files that name no object of a prefix
