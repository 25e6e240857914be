"""The drain of log capture: the binary log, from the stored GTID position up to the one
sampled at the drain's start, into ``{prefix}items``.

Each drain transaction inserts the records of whole source transactions, in commit order,
and stores the position after the last of them in ``{prefix}log_state``; then it commits.
A kill before that commit rolls both back and the next drain reads the same transactions
again from the stored position (the binary log is read from a position, exclusive; nothing
at or below it comes again). Drains of one prefix are serialised by a named lock.

The records are written already in the next tick: the transaction locks the service row
(as a tick does) before its first insert and writes ``context`` = the last tick + 1, so no
tick can commit between that read and this commit, and the tick that commits that number
comes after every record written in it. The tick then stamps nothing of the drain's (only
the DDL records, written unstamped by ``logddl``): the queue is not updated once per record
again, nor is that update written to the binary log with both row images.

The guarantee (``Tick.guaranteed``) is the server's clock read in the statement that samples
the position: a transaction not yet in the binary log then is drained later, and its
records' ``captured_at`` (the binary log's commit time, whole seconds) is never set below
the guarantee of the tick before them. Why: docs/internals.md, "Log capture on MariaDB".
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pymysql
from pymysql.constants import SERVER_STATUS
from pymysql.converters import escape_string

from syncpoint import failpoints
from syncpoint.errors import LocationError, NotInstalled, TableStopped, TransientError
from syncpoint.vendors import kept
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.log import binlog
from syncpoint.vendors.mariadb.log import ddl as logddl
from syncpoint.vendors.mariadb.names import render
from syncpoint.vendors.mariadb.state import Site, Watched, named_lock, run, watched

BATCH = 5000  # records per drain transaction (whole source transactions: may be more)
STATEMENT_BYTES = 1_000_000  # the queue rows' VALUES lists of one INSERT, at most about
LOCK_WAIT_S = 60
ACTIONS = {"INSERT": "I", "UPDATE": "U", "DELETE": "D"}


def drain(conn: Any, site: Site, url: str) -> datetime:
    """Drain the binary log into the queue; return the guarantee (see the module)."""
    names = site.names
    cur = conn.cursor()
    conn.commit()
    with named_lock(cur, site, "drain", LOCK_WAIT_S) as held:
        if not held:
            raise TransientError(
                f"another process has drained the binary log for {LOCK_WAIT_S} s; retrying",
                location=site.location,
            )
        try:
            cur.execute(render("log/sample.sql", names))
            sampled, upto = cur.fetchone()
            run(cur, "log/state_read.sql", names)
            state = cur.fetchone()
            cur.execute(render("queries/service_read.sql", names))
            service = cur.fetchone()
            if state is None or service is None:
                raise NotInstalled("log capture is not installed", location=site.location)
            floor = service[3]  # the last tick's guarantee: no record is captured before it
            conn.commit()
            _Drain(conn, site, url, floor).run(str(state[0]), str(upto or ""))
            return sampled.replace(tzinfo=UTC)
        finally:
            conn.rollback()


class _Drain:
    def __init__(self, conn: Any, site: Site, url: str, floor: datetime | None):
        self.conn, self.site, self.url, self.floor = conn, site, url, floor
        self.cur = conn.cursor()
        # the records of the drain transaction: VALUES lists, their count and size; one
        # multi-row INSERT for many records, each value escaped by the driver's rules once
        # (what is the same for a transaction's records of one table, once for them all)
        self.rows: list[str] = []
        self.count = 0
        self.size = 0
        self.context: int | None = None  # the tick the transaction's records are written in
        self.literal = conn.escape
        # a record's texts (most of its bytes) escaped as PyMySQL's ``escape`` does for the
        # session's mode, without its dispatch by type (syncpoint's sessions set
        # NO_BACKSLASH_ESCAPES: only quotes are doubled)
        if conn.server_status & SERVER_STATUS.SERVER_STATUS_NO_BACKSLASH_ESCAPES:
            self.text: Any = lambda v: "'" + v.replace("'", "''") + "'"
        else:
            self.text = lambda v: "'" + escape_string(v) + "'"
        self.tables: dict[str, Watched] = {}
        self.only: list[str] = []
        self.last: binlog.Transaction | None = None
        self.pos: dict[int, tuple[int, int]] = {}
        self.head = render("log/item_insert.sql", site.names).strip() + " "
        # literals that repeat from one source transaction to the next, escaped once: the
        # values after the transaction's GTID up to the guid, per (origin, table, version),
        # and the commit times (whole seconds)
        self.middles: dict[tuple[str, str, int], str] = {}
        self.times: dict[Any, str] = {}
        # a record's guid: a random prefix per drain and a counter (unique, like the
        # triggers' UUID(); a uuid4 a record read the system's random source each time)
        self.guid_base = uuid.uuid4().hex[:20]
        self.guids = 0

    def _watch(self) -> None:
        self.tables = {
            w.table: w
            for w in watched(self.cur, self.site.names)
            if w.schema == self.site.db and w.status != "DROPPED"
        }
        # the reader parses the row events of these tables only (the list is the reader's:
        # changed in place, it applies from the next transaction read)
        self.only[:] = [*self.tables, self.site.names.obj("origin_marks")]

    def _reader(self, start: str) -> tuple[binlog.Reader, bool]:
        """A reader standing at ``start``: the one a follower keeps (``kept.py``), made if
        none or if it stands elsewhere (another process drained meanwhile), or one of this
        drain's own; and whether it is kept (left open at the end)."""
        site = self.site
        kw = dialect.parts(self.url)
        connection = {k: v for k, v in kw.items() if k != "database" and v is not None}
        connection.setdefault("connect_timeout", 10)

        def make() -> binlog.Reader:
            return binlog.Reader(
                connection,
                binlog.replica_id(f"{site.db}\0{site.names.prefix}"),
                start,
                (site.db, site.names.obj("origin_marks")),
                site.db,
                [],
            )

        key = ("mariadb-log", self.url, site.names.prefix)
        found = kept.session(key, make)
        if isinstance(found, binlog.Reader) and not found.at(start):
            kept.drop(key)
            found = kept.session(key, make)
        if isinstance(found, binlog.Reader):
            return found, True
        return make(), False

    def _read(self, reader: binlog.Reader, upto: str) -> None:
        site = self.site
        wanted = lambda schema, table: schema == site.db and table in self.tables  # noqa: E731
        for txn in reader.transactions(upto, wanted):
            self._add(txn)
            if self.count >= BATCH:
                self._commit()

    def run(self, start: str, upto: str) -> None:
        site = self.site
        self.pos = binlog.parse_gtids(start)
        reader: binlog.Reader | None = None
        keep = False
        try:
            self.conn.begin()
            if not binlog.reached(self.pos, upto):
                reader, keep = self._reader(start)
                assert reader.only is not None
                self.only = reader.only
            self._watch()
            if reader is not None:
                try:
                    self._read(reader, upto)
                except pymysql.err.OperationalError:
                    # a kept reader's connection may have ended while the follower applied
                    # (the server's net_write_timeout): once more with a new one
                    if not keep or reader.reads == 1 or self.last is not None:
                        raise
                    reader, keep = self._reader(start)
                    assert reader.only is not None
                    self.only[:] = []
                    self.only = reader.only
                    self._watch()
                    self._read(reader, upto)
            self._commit()
        except binlog.Gone as exc:
            self.conn.rollback()
            self._lost(start, str(exc))
        except binlog.Unreadable as exc:
            self.conn.rollback()
            raise LocationError(
                f"log capture cannot read the binary log: {exc}. Nothing after position "
                f"{self.last.gtid if self.last else start} is captured until this is fixed",
                location=site.location,
            ) from exc
        finally:
            if reader is not None and not keep:
                reader.close()

    def _add(self, txn: binlog.Transaction) -> None:
        at = txn.at if self.floor is None else max(txn.at, self.floor)
        literal = self.literal
        gtid = literal(txn.gtid) + ","
        when = self.times.get(at)
        if when is None:
            if len(self.times) > 1000:
                self.times.clear()
            when = self.times[at] = literal(at) + ")"
        middles, base, text = self.middles, self.guid_base, self.text
        for ch in txn.changes:
            if isinstance(ch, binlog.Statement):
                self._flush()
                if logddl.statement(self.cur, self.site, ch.text, ch.schema):
                    self._watch()
                continue
            w = self.tables.get(ch.table)
            if w is None or ACTIONS[ch.action] not in (w.actions or "IUD"):
                continue
            origin = ch.origin or self.site.location
            key = (origin, w.table, int(w.version))
            middle = middles.get(key)
            if middle is None:
                schema = literal(w.schema)
                middle = middles[key] = (
                    f"{literal(origin)},{literal(w.table)},{schema},{schema},'{base[:8]}-"
                    f"{base[8:12]}-{base[12:16]}-{base[16:20]}-"
                )
            self.guids += 1
            old = "NULL" if ch.oldcontent is None else text(ch.oldcontent)
            new = "NULL" if ch.content is None else text(ch.content)
            row = (
                f"{gtid}{middle}{self.guids:012x}','{ch.action}',{new},{old},"
                f"{key[2]},{when}"
            )
            self.rows.append(row)
            self.count += 1
            self.size += len(row) + 1
            if self.size >= STATEMENT_BYTES:
                self._flush()
        self.last = txn
        self.pos[txn.domain] = (int(txn.gtid.split("-")[1]), txn.seq)

    def _flush(self) -> None:
        if not self.rows:
            return
        if self.context is None:
            # the service row locked until this transaction commits: no tick can commit
            # meanwhile, so the next one (context + 1) is the one these records belong to
            run(self.cur, "queries/tick_lock.sql", self.site.names)
            self.context = int(self.cur.fetchone()[0]) + 1
        ctx = f"({self.context},"
        self.cur.execute(self.head + ctx + f",{ctx}".join(self.rows))
        self.rows, self.size = [], 0

    def _commit(self) -> None:
        """Store the records and the position after them in one transaction."""
        self._flush()
        if self.last is None:
            self.conn.rollback()
            self.context = None
            return
        t = self.last
        run(
            self.cur,
            "log/state_put.sql",
            self.site.names,
            {"gtid": binlog.render_gtids(self.pos), "log_file": t.log_file, "log_pos": t.log_pos,
             "event_at": t.at},
        )  # fmt: skip
        failpoints.hit("log_before_commit")
        self.conn.commit()
        self.count, self.context = 0, None
        self.conn.begin()

    def _lost(self, start: str, why: str) -> None:
        reason = (
            f"the binary log no longer holds capture's position {start} (purged: {why}); "
            "changes after it cannot be read. Capture starts again at the current position "
            f"under a new stream: run syncpoint snapshot for the tables of {self.site.location}"
        )
        run(
            self.cur,
            "log/state_lost.sql",
            self.site.names,
            {"reason": reason[:2000], "stream_id": uuid.uuid4().hex},
        )
        self.conn.commit()
        raise TableStopped(reason)
