"""Reading the binary log as whole transactions, in commit order (python-mysql-replication).

``transactions`` connects as a replica (COM_BINLOG_DUMP) from a stored GTID
position (exclusive, as MariaDB's ``@slave_connect_state``) and yields each transaction
written up to a target position: its GTID, commit time, binary log coordinates after it,
and either its row changes of the tables asked for (already as the capture triggers'
JSON text, ``binvalues.py``) or its one statement (DDL). Nothing is skipped silently: an
event this module does not understand (compressed events of ``log_bin_compress``, XA,
statement-based DML) raises ``Unreadable``; a position no longer in the binary log raises
``Gone``. Why: docs/internals.md, "Log capture on MariaDB".
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import pymysql
from pymysqlreplication import BinLogStreamReader, binlogstream
from pymysqlreplication import event as ev
from pymysqlreplication import row_event as rev
from pymysqlreplication.constants.BINLOG import TABLE_MAP_EVENT
from pymysqlreplication.packet import BinLogPacketWrapper

from syncpoint.vendors.mariadb.log import binvalues

TABLE_MAPS_KEPT = 4096


class _TableMapOnce(rev.TableMapEvent):
    """A table map parsed once for each distinct content. Every transaction repeats the
    table map of each table it changes, byte for byte while the table does not change, and
    parsing one (column types, optional metadata, names, character sets) cost the drain more
    than the rows it describes. A changed table has another content (its columns, types or
    names differ), so it is parsed anew: never a stale shape."""

    parsed: ClassVar[dict[bytes, tuple[Any, ...]]] = {}

    def __init__(
        self, from_packet: Any, event_size: int, table_map: Any, ctl_connection: Any, **kw: Any
    ):
        # the event's bytes, looked at in the driver's packet without being read
        raw = from_packet.packet
        body = bytes(raw._data[raw._position : raw._position + event_size])
        if from_packet._BinLogPacketWrapper__data_buffer:  # never at an event's start
            body = b""
        known = self.parsed.get(body) if body else None
        me: Any = self  # the library's attributes are not typed
        if known is None:
            super().__init__(from_packet, event_size, table_map, ctl_connection, **kw)
            # kept once parsed whole, with its column names (else they came from the catalog)
            if body and me._processed and me.optional_metadata.column_name_list:
                if len(self.parsed) >= TABLE_MAPS_KEPT:
                    self.parsed.clear()
                self.parsed[body] = (me.table_id, me.schema, me.table, me.columns, me.table_obj)
            return
        ev.BinLogEvent.__init__(self, from_packet, event_size, table_map, ctl_connection, **kw)
        from_packet.advance(event_size)
        me.table_id, me.schema, me.table, me.columns, me.table_obj = known
        me.column_count = len(me.columns)
        # the reader's filters, as the library applies them (the kept parse is any reader's)
        only, ignored = kw.get("only_schemas"), kw.get("ignored_schemas")
        only_t, ignored_t = kw.get("only_tables"), kw.get("ignored_tables")
        if (
            (only is not None and me.schema not in only)
            or (ignored is not None and me.schema in ignored)
            or (only_t is not None and me.table not in only_t)
            or (ignored_t is not None and me.table in ignored_t)
        ):
            me._processed = False
            return
        table_map[me.table_id] = me.table_obj


BinLogPacketWrapper._BinLogPacketWrapper__event_map[TABLE_MAP_EVENT] = _TableMapOnce  # type: ignore[attr-defined]


class _Connection(pymysql.connections.Connection):  # type: ignore[misc]
    """The reader's connections (two a drain, so two a tick). PyMySQL gives a connection
    without TLS settings a TLS context of its own (TLS if the server offers it), and making
    one loads the system's certificates: about half the CPU of an idle follower's ticks.
    That default context is made once here and shared; any other TLS setting is PyMySQL's."""

    preferred: ClassVar[Any] = None

    def _create_ssl_ctx(self, sslp: Any) -> Any:
        make = super()._create_ssl_ctx  # type: ignore[misc]
        if sslp != {}:
            return make(sslp)
        if _Connection.preferred is None:
            _Connection.preferred = make(sslp)
        return _Connection.preferred


# On a lost connection the library would connect again from the position it started at and
# hand over the same transactions a second time: a lost connection must end the drain
# instead (it is rolled back, and the next one starts from the stored position).
binlogstream.MYSQL_EXPECTED_ERROR_CODES = []

# event classes that carry nothing for capture (positions, file structure, keep-alives)
_IGNORED = (
    ev.RotateEvent,
    ev.FormatDescriptionEvent,
    ev.MariadbGtidListEvent,
    ev.MariadbBinLogCheckPointEvent,
    ev.StopEvent,
    ev.MariadbStartEncryptionEvent,
    ev.MariadbAnnotateRowsEvent,
    rev.TableMapEvent,
)
EVERY_EVENT = [
    *set(BinLogPacketWrapper._BinLogPacketWrapper__event_map.values()),  # type: ignore[attr-defined]
    ev.NotImplementedEvent,
]
# MariaDB's compressed events (log_bin_compress=ON): QUERY and the six ROWS kinds
COMPRESSED = frozenset(range(0xA5, 0xAC))
GTID_STANDALONE = 0x01
HEARTBEAT_S = 1
READ_TIMEOUT_S = 120
STALL_S = 60
DDL_VERBS = frozenset({"CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"})
ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236


class Unreadable(Exception):
    """The binary log holds an event log capture cannot decode exactly."""


class Gone(Exception):
    """The stored position is no longer in the binary log (purged)."""


@dataclass
class Change:
    schema: str
    table: str
    action: str  # INSERT, UPDATE, DELETE
    content: str | None
    oldcontent: str | None
    origin: str | None


@dataclass
class Statement:
    """A statement in the binary log (DDL): its text and default database."""

    text: str
    schema: str | None


@dataclass
class Transaction:
    gtid: str  # domain-server-sequence
    domain: int
    seq: int
    at: datetime  # commit time (UTC, whole seconds: the binary log's clock)
    # row changes and statements (DDL), in binary log order
    changes: list[Change | Statement] = field(default_factory=list)
    log_file: str | None = None
    log_pos: int | None = None


def parse_gtids(text: str | None) -> dict[int, tuple[int, int]]:
    """``"0-1-10,2-5-3"`` -> {domain: (server, seq)}."""
    out: dict[int, tuple[int, int]] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        d, s, n = (int(x) for x in part.split("-"))
        out[d] = (s, n)
    return out


def render_gtids(pos: dict[int, tuple[int, int]]) -> str:
    return ",".join(f"{d}-{s}-{n}" for d, (s, n) in sorted(pos.items()))


def replica_id(key: str) -> int:
    """A server_id for the reader, stable per capture (MariaDB ends an older dump of the
    same server_id), far from the small numbers servers are usually given."""
    return 0x70000000 + int(hashlib.sha1(key.encode()).hexdigest()[:6], 16)


def transactions(
    connection: dict[str, Any],
    server_id: int,
    start: str,
    upto: str,
    wanted: Callable[[str, str], bool],
    origins: tuple[str, str],
    schema: str | None = None,
    tables: list[str] | None = None,
) -> Iterator[Transaction]:
    """Transactions after ``start`` up to and including ``upto`` (GTID lists), in binary log
    order, read by a ``Reader`` of their own (see there)."""
    if reached(parse_gtids(start), upto):
        return  # nothing new
    reader = Reader(connection, server_id, start, origins, schema, tables)
    try:
        yield from reader.transactions(upto, wanted)
    finally:
        reader.close()


def reached(seen: dict[int, Any], upto: str) -> bool:
    """Whether the position ``seen`` ({domain: (server, seq)} or {domain: seq}) is at or
    past every domain of the GTID list ``upto``."""
    got = {d: (v[1] if isinstance(v, tuple) else v) for d, v in seen.items()}
    return all(got.get(d, 0) >= n for d, (_, n) in parse_gtids(upto).items())


class Reader:
    """A replica connection (COM_BINLOG_DUMP) reading the binary log from a GTID position
    (exclusive, as MariaDB's ``@slave_connect_state``), transaction by transaction.

    A drain makes one and closes it; a follower keeps one open across its drains
    (``vendors/kept.py``) while it stands where the stored position is (``at``): the server
    then sends each event once, where a new connection makes it read the binary log file
    holding the position from its start up to it again, and the reader's setup (two
    connections, the server's settings) is not paid at every tick.

    ``only``: the tables (of any database) whose table maps and row events the library
    parses (None: every table of ``schema``); the caller may change the list in place
    between transactions (a DDL that renames a table into the channel, say)."""

    def __init__(
        self,
        connection: dict[str, Any],
        server_id: int,
        start: str,
        origins: tuple[str, str],
        schema: str | None = None,
        tables: list[str] | None = None,
    ):
        self.only = tables
        self.origins = origins
        self.broken = False
        self.seen = {d: n for d, (_, n) in parse_gtids(start).items()}
        self.held: Any = None  # an event read past the last target, read first next time
        self.reads = 0  # calls of transactions()
        settings = {**connection, "read_timeout": READ_TIMEOUT_S}
        self.reader = BinLogStreamReader(
            connection_settings=settings,
            server_id=server_id,
            # MariaDB 10.11 resets a non-blocking dump in the middle of a large transaction:
            # the dump blocks, and the reader stops at the target, or at the first heartbeat
            # (sent when the server has nothing more to send) if the target was not reached
            blocking=True,
            slave_heartbeat=HEARTBEAT_S,
            is_mariadb=True,
            auto_position=start,
            only_schemas=[schema] if schema is not None else None,
            only_tables=tables,
            # every event class the library knows, and the ones it does not know: none dropped
            only_events=EVERY_EVENT,
            filter_non_implemented_events=False,
            # every table map read again (a frozen one would keep a table's old columns)
            freeze_schema=False,
            enable_logging=False,
            pymysql_wrapper=_Connection,
        )

    def at(self, position: str) -> bool:
        """Whether the reader stands right after ``position`` (what the drain stored)."""
        want = {d: n for d, (_, n) in parse_gtids(position).items()}
        return not self.broken and {d: n for d, n in self.seen.items() if n} == {
            d: n for d, n in want.items() if n
        }

    def close(self) -> None:
        self.broken = True
        self.reader.close()

    def transactions(self, upto: str, wanted: Callable[[str, str], bool]) -> Iterator[Transaction]:
        """The transactions after the reader's position up to and including ``upto``;
        ``wanted(schema, table)`` says whose row changes to decode. A reader left before
        the end (an error, the caller stopping) is broken: it is not read again."""
        self.reads += 1
        if reached(self.seen, upto):
            return
        complete = False
        try:
            yield from self._read(upto, wanted)
            complete = True
        finally:
            if not complete:
                self.close()

    def _read(self, upto: str, wanted: Callable[[str, str], bool]) -> Iterator[Transaction]:
        reader, seen, origins = self.reader, self.seen, self.origins
        target = {d: n for d, (_, n) in parse_gtids(upto).items()}
        txn: Transaction | None = None
        origin: str | None = None
        standalone = False
        moved = time.monotonic()  # when the last event other than a heartbeat came

        def done() -> bool:
            return all(seen.get(d, 0) >= n for d, n in target.items())

        while True:
            try:
                event, self.held = (self.held, None) if self.held else (reader.fetchone(), None)
            except pymysql.err.OperationalError as exc:
                if exc.args and exc.args[0] == ER_MASTER_FATAL_ERROR_READING_BINLOG:
                    raise Gone(str(exc.args[1]) if len(exc.args) > 1 else str(exc)) from exc
                raise
            if event is None:
                if txn is not None:
                    raise Unreadable(f"the binary log ended inside transaction {txn.gtid}")
                if not done():
                    raise Unreadable(
                        f"the binary log ended before position {upto} (read up to "
                        f"{render_gtids({d: (0, n) for d, n in seen.items()})})"
                    )
                self.broken = True  # the library closed the stream
                return
            if isinstance(event, ev.HeartbeatLogEvent):
                # the server idles (or skips events before our position: it sends heartbeats
                # then too); a target still not reached after STALL_S of them is an error
                if txn is None and done():
                    return
                if time.monotonic() - moved > STALL_S:
                    raise Unreadable(
                        f"the binary log sent nothing for {STALL_S} s before position {upto} "
                        f"(read up to {render_gtids({d: (0, n) for d, n in seen.items()})})"
                    )
                continue
            moved = time.monotonic()
            if isinstance(event, _IGNORED):
                continue
            if isinstance(event, ev.MariadbGtidEvent):
                if txn is not None:
                    raise Unreadable(f"transaction {txn.gtid} has no end in the binary log")
                if event.gtid_seq_no > target.get(event.domain_id, -1):
                    self.held = event  # written after the target: the next read's first
                    return
                txn = Transaction(
                    event.gtid,
                    event.domain_id,
                    event.gtid_seq_no,
                    datetime.fromtimestamp(event.timestamp, UTC).replace(tzinfo=None),
                )
                standalone = bool(event.flags & GTID_STANDALONE)
                origin = None
                continue
            if txn is None:
                if isinstance(event, (ev.IntvarEvent, ev.RandEvent, ev.UserVarEvent)):
                    continue
                raise Unreadable(f"{type(event).__name__} outside a transaction")
            if isinstance(event, ev.QueryEvent):
                query = event.query.strip()
                verb = query.split(None, 1)[0].upper() if query else ""
                if verb == "BEGIN":
                    continue
                if verb == "COMMIT" or (standalone and verb != "ROLLBACK"):
                    if verb != "COMMIT":
                        txn.changes.append(Statement(query, _text(event.schema)))
                    txn.log_file, txn.log_pos = reader.log_file, reader.log_pos
                    seen[txn.domain] = txn.seq
                    yield txn
                    txn = None
                    if done():
                        return
                    continue
                if verb == "ROLLBACK" and not query.upper().startswith("ROLLBACK TO"):
                    # a transaction that also wrote a non-transactional table rolled back:
                    # its transactional changes never happened
                    seen[txn.domain] = txn.seq
                    txn = None
                    if done():
                        return
                    continue
                if verb in ("SAVEPOINT", "RELEASE") or query.upper().startswith("ROLLBACK TO"):
                    continue
                if verb in DDL_VERBS:  # CREATE TABLE ... SELECT: the table, then its rows
                    txn.changes.append(Statement(query, _text(event.schema)))
                    continue
                raise Unreadable(
                    f"transaction {txn.gtid} holds a statement, not row events "
                    f"({query[:80]!r}): binlog_format must be ROW for every session"
                )
            if isinstance(event, ev.XidEvent):
                txn.log_file, txn.log_pos = reader.log_file, reader.log_pos
                seen[txn.domain] = txn.seq
                yield txn
                txn = None
                if done():
                    return
                continue
            if isinstance(event, rev.RowsEvent):
                schema, table = event.schema, event.table
                if (schema, table) == origins:
                    origin = _origin(event)
                    continue
                if not wanted(schema, table):
                    continue
                txn.changes += _changes(event, origin)
                continue
            if isinstance(event, (ev.IntvarEvent, ev.RandEvent, ev.UserVarEvent)):
                continue  # context of a statement, which is refused above when DML
            if isinstance(event, ev.NotImplementedEvent) and event.event_type in COMPRESSED:
                raise Unreadable(
                    f"transaction {txn.gtid} is written as compressed events "
                    f"(type 0x{event.event_type:02X}): set log_bin_compress=OFF"
                )
            raise Unreadable(
                f"transaction {txn.gtid}: binary log event {type(event).__name__} (type "
                f"0x{getattr(event, 'event_type', 0):02X}) is not understood by log capture"
            )


def _text(v: Any) -> str | None:
    if v is None:
        return None
    return v.decode("utf-8", errors="replace") if isinstance(v, bytes) else str(v)


def _names(event: Any) -> list[str]:
    names = [c.name for c in event.columns]
    if any(not n for n in names) or not event.table_map[event.table_id].columns:
        raise Unreadable(
            f"table {event.schema}.{event.table}: the binary log carries no column names "
            "(binlog_row_metadata must be FULL)"
        )
    meta = getattr(event.table_map[event.table_id], "optional_metadata", None)
    if meta is not None and not getattr(meta, "column_name_list", None):
        raise Unreadable(
            f"table {event.schema}.{event.table}: the binary log carries no column names "
            "(binlog_row_metadata must be FULL)"
        )
    return names


def _rows(event: Any) -> binvalues.Rows:
    try:
        return binvalues.Rows(event)
    except binvalues.Unsupported as exc:
        raise Unreadable(f"table {event.schema}.{event.table}: {exc}") from exc


def _origin(event: Any) -> str | None:
    """The origin a transaction's mark names (its last row image's ``origin``)."""
    rows = _rows(event)
    at = rows.names.index("origin")
    origin = None
    try:
        for values in rows:
            text = values[at]
            origin = json.loads(text) if text != "null" else None
    except binvalues.Unsupported as exc:
        raise Unreadable(f"table {event.schema}.{event.table}: {exc}") from exc
    return origin


def _changes(event: Any, origin: str | None) -> list[Change]:
    _names(event)  # refused without column names
    rows = _rows(event)
    schema, table, text = event.schema, event.table, rows.text
    if isinstance(event, rev.WriteRowsEvent):
        action = "INSERT"
    elif isinstance(event, rev.DeleteRowsEvent):
        action = "DELETE"
    elif isinstance(event, rev.UpdateRowsEvent):
        action = "UPDATE"
    else:
        raise Unreadable(f"row event {type(event).__name__} is not understood")
    out: list[Change] = []
    try:
        images = iter(rows)
        for values in images:
            if action == "INSERT":
                new, old = text(values), None
            elif action == "DELETE":
                new, old = None, text(values)
            else:  # the row before, then after
                old, new = text(values), text(next(images))
            out.append(Change(schema, table, action, new, old, origin))
    except (binvalues.Unsupported, StopIteration) as exc:
        why = str(exc) or "an UPDATE without its row after"
        raise Unreadable(f"table {schema}.{table}: {why}") from exc
    return out
