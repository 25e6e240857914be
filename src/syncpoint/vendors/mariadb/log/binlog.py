"""Reading the binary log as whole transactions, in commit order.

``transactions`` connects as a replica (COM_BINLOG_DUMP, ``dump.py``) from a stored GTID
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
from typing import Any

import pymysql

from syncpoint.vendors.mariadb.dialect import Connection
from syncpoint.vendors.mariadb.log import binvalues, dump
from syncpoint.vendors.mariadb.log.dump import lenenc

TABLE_MAPS_KEPT = 4096


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


class _Map:
    """A table map as the reader keeps it: the table's names and the library's columns
    (names, types, metadata), parsed once per distinct content of the map (below)."""

    __slots__ = ("schema", "table", "columns", "named")

    def __init__(self, schema: str, table: str, columns: list[Any], named: bool):
        self.schema, self.table, self.columns, self.named = schema, table, columns, named


# Table maps parsed, by their bytes: every transaction repeats the map of each table it
# changes, byte for byte while the table does not change, and parsing one (column types,
# optional metadata, names, character sets) cost more than the rows it describes. A changed
# table's map has another content (its columns, types or names differ), so it is parsed
# anew: never a stale shape.
_MAPS: dict[bytes, _Map] = {}


class Reader:
    """A replica connection (COM_BINLOG_DUMP) reading the binary log from a GTID position
    (exclusive, as MariaDB's ``@slave_connect_state``), transaction by transaction.

    A drain makes one and closes it; a follower keeps one open across its drains
    (``vendors/kept.py``) while it stands where the stored position is (``at``): the server
    then sends each event once, where a new connection makes it read the binary log file
    holding the position from its start up to it again, and the reader's setup is not paid
    at every tick.

    Each event is read from its bytes in place (``dump.py``): the header, then only what the
    event's kind needs; the rows events of tables not read are skipped by their table id.
    ``only``: the tables (of ``schema``) whose table maps and row events are read (None:
    every table of ``schema``); the caller may change the list in place between
    transactions (a DDL that renames a table into the channel, say)."""

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
        self.schema = schema
        self.origins = origins
        self.broken = False
        self.seen = {d: n for d, (_, n) in parse_gtids(start).items()}
        self.held: bytes | None = None  # an event read past the last target, read first next
        self.reads = 0  # calls of transactions()
        self.settings = {"charset": "utf8", **connection, "read_timeout": READ_TIMEOUT_S}
        self.server_id, self.start = server_id, start
        self.dump: dump.Dump | None = None  # connected at the first read
        self.maps: dict[int, _Map] = {}  # table id -> the table map read last for it
        self.log_file: str | None = None
        self.log_pos: int | None = None

    def at(self, position: str) -> bool:
        """Whether the reader stands right after ``position`` (what the drain stored)."""
        want = {d: n for d, (_, n) in parse_gtids(position).items()}
        return not self.broken and {d: n for d, n in self.seen.items() if n} == {
            d: n for d, n in want.items() if n
        }

    def close(self) -> None:
        self.broken = True
        if self.dump is not None:
            self.dump.close()

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
        seen, origins, maps = self.seen, self.origins, self.maps
        target = {d: n for d, (_, n) in parse_gtids(upto).items()}
        txn: Transaction | None = None
        origin: str | None = None
        standalone = False
        moved = time.monotonic()  # when the last event other than a heartbeat came
        fresh = False
        if self.dump is None:
            self.dump = dump.Dump(
                Connection, self.settings, self.server_id, self.start, HEARTBEAT_S
            )
        stream = self.dump
        header = dump.HEADER.unpack_from
        rows_kinds = dump.ROWS

        def done() -> bool:
            return all(seen.get(d, 0) >= n for d, n in target.items())

        while True:
            if self.held is not None:
                data: bytes | None = self.held
                self.held = None
            else:
                try:
                    data = stream.next()
                except pymysql.err.OperationalError as exc:
                    if exc.args and exc.args[0] == ER_MASTER_FATAL_ERROR_READING_BINLOG:
                        raise Gone(str(exc.args[1]) if len(exc.args) > 1 else str(exc)) from exc
                    raise
                except dump.Garbled as exc:
                    raise Unreadable(str(exc)) from exc
            if data is None:
                if txn is not None:
                    raise Unreadable(f"the binary log ended inside transaction {txn.gtid}")
                if not done():
                    raise Unreadable(
                        f"the binary log ended before position {upto} (read up to "
                        f"{render_gtids({d: (0, n) for d, n in seen.items()})})"
                    )
                self.broken = True  # the server ended the dump
                return
            at, kind, server, _, log_pos, _ = header(data)
            end = len(data) - stream.checksum
            if kind == dump.HEARTBEAT:
                # the server idles (or skips events before our position: it sends heartbeats
                # then too); a target still not reached after STALL_S of them is an error
                if txn is None and done():
                    return
                if fresh:  # events came since the last heartbeat (a clock read a heartbeat)
                    moved, fresh = time.monotonic(), False
                elif time.monotonic() - moved > STALL_S:
                    raise Unreadable(
                        f"the binary log sent nothing for {STALL_S} s before position {upto} "
                        f"(read up to {render_gtids({d: (0, n) for d, n in seen.items()})})"
                    )
                continue
            fresh = True
            if log_pos:
                self.log_pos = log_pos
            action = rows_kinds.get(kind)
            if action is not None:
                m = maps.get(int.from_bytes(data[20:26], "little"))
                if m is None:
                    continue  # a table not read (another database, not watched)
                if txn is None:
                    raise Unreadable(f"{_name(kind)} outside a transaction")
                if (m.schema, m.table) == origins:
                    origin = _origin(m, _rows(m, kind, data, end))
                elif wanted(m.schema, m.table):
                    txn.changes += _changes(m, action, _rows(m, kind, data, end), origin)
                continue
            if kind == dump.TABLE_MAP:
                self._map(data, end)
                continue
            if kind == dump.ROTATE:
                self.log_pos = int.from_bytes(data[20:28], "little")
                self.log_file = data[28:end].decode()
                if at:  # a real rotation (not the dump's first): table ids may be reused
                    maps.clear()
                continue
            if kind in dump.FILE_EVENTS:
                continue
            if kind == dump.GTID:
                if txn is not None:
                    raise Unreadable(f"transaction {txn.gtid} has no end in the binary log")
                seq = int.from_bytes(data[20:28], "little")
                domain = int.from_bytes(data[28:32], "little")
                if seq > target.get(domain, -1):
                    self.held = data  # written after the target: the next read's first
                    return
                txn = Transaction(
                    f"{domain}-{server}-{seq}",
                    domain,
                    seq,
                    datetime.fromtimestamp(at, UTC).replace(tzinfo=None),
                )
                standalone = bool(data[32] & GTID_STANDALONE)
                origin = None
                continue
            if txn is None:
                if kind in dump.CONTEXT_EVENTS:
                    continue
                raise Unreadable(f"{_name(kind)} outside a transaction")
            if kind == dump.QUERY:
                query, schema = _query(data, end)
                verb = query.split(None, 1)[0].upper() if query else ""
                if verb == "BEGIN":
                    continue
                if verb == "COMMIT" or (standalone and verb != "ROLLBACK"):
                    if verb != "COMMIT":
                        txn.changes.append(Statement(query, schema))
                    txn.log_file, txn.log_pos = self.log_file, self.log_pos
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
                    txn.changes.append(Statement(query, schema))
                    continue
                raise Unreadable(
                    f"transaction {txn.gtid} holds a statement, not row events "
                    f"({query[:80]!r}): binlog_format must be ROW for every session"
                )
            if kind == dump.XID:
                txn.log_file, txn.log_pos = self.log_file, self.log_pos
                seen[txn.domain] = txn.seq
                yield txn
                txn = None
                if done():
                    return
                continue
            if kind in dump.CONTEXT_EVENTS:
                continue  # context of a statement, which is refused above when DML
            if kind in COMPRESSED:
                raise Unreadable(
                    f"transaction {txn.gtid} is written as compressed events "
                    f"(type 0x{kind:02X}): set log_bin_compress=OFF"
                )
            raise Unreadable(
                f"transaction {txn.gtid}: binary log event {_name(kind)} (type "
                f"0x{kind:02X}) is not understood by log capture"
            )

    def _map(self, data: bytes, end: int) -> None:
        """Keep a table map of a table read (by its id); forget the id's map otherwise."""
        table_id = int.from_bytes(data[20:26], "little")
        n = data[28]
        schema = data[29 : 29 + n].decode()
        at = 30 + n
        table = data[at + 1 : at + 1 + data[at]].decode()
        if (self.schema is not None and schema != self.schema) or (
            self.only is not None and table not in self.only
        ):
            self.maps.pop(table_id, None)
            return
        body = data[dump.BODY : end]
        m = _MAPS.get(body)
        if m is None:
            event: Any = dump.table_map(data, self.dump.checksum if self.dump else 0)
            columns = event.columns
            meta = getattr(event, "optional_metadata", None)
            named = bool(columns) and all(c.name for c in columns)
            if meta is not None and not getattr(meta, "column_name_list", None):
                named = False
            m = _Map(schema, table, columns, named)
            if len(_MAPS) >= TABLE_MAPS_KEPT:
                _MAPS.clear()
            _MAPS[body] = m
        self.maps[table_id] = m


def _name(kind: int) -> str:
    return dump.NAMES.get(kind, "NotImplementedEvent")


def _query(data: bytes, end: int) -> tuple[str, str]:
    """A query event's statement and default database."""
    # post-header: thread id (4), seconds (4), database name's length (1), error code (2),
    # status variables' length (2)
    n = data[28]
    at = 33 + int.from_bytes(data[31:33], "little")
    schema = data[at : at + n].decode("utf-8", errors="replace")
    query = data[at + n + 1 : end].decode("utf-8", errors="backslashreplace")
    return query.strip(), schema


def _rows(m: _Map, kind: int, data: bytes, end: int) -> binvalues.Rows:
    """A rows event's row images: after the table id (6) and flags (2), a version 2 event's
    extra data (its length counts itself), the column count, the columns-present bitmap
    (two for an UPDATE: before, after), then the rows."""
    p = 28
    if kind in dump.ROWS_V2:
        p += int.from_bytes(data[p : p + 2], "little")
    count, p = lenenc(data, p)
    width = (count + 7) // 8
    bitmaps = [data[p : p + width]]
    p += width
    if dump.ROWS[kind] == "UPDATE":
        bitmaps.append(data[p : p + width])
        p += width
    try:
        return binvalues.Rows(m.columns, count, bitmaps, data[p:end])
    except binvalues.Unsupported as exc:
        raise Unreadable(f"table {m.schema}.{m.table}: {exc}") from exc


def _origin(m: _Map, rows: binvalues.Rows) -> str | None:
    """The origin a transaction's mark names (its last row image's ``origin``)."""
    at = rows.names.index("origin")
    origin = None
    try:
        for values in rows:
            text = values[at]
            origin = json.loads(text) if text != "null" else None
    except binvalues.Unsupported as exc:
        raise Unreadable(f"table {m.schema}.{m.table}: {exc}") from exc
    return origin


def _changes(m: _Map, action: str, rows: binvalues.Rows, origin: str | None) -> list[Change]:
    if not m.named:
        raise Unreadable(
            f"table {m.schema}.{m.table}: the binary log carries no column names "
            "(binlog_row_metadata must be FULL)"
        )
    schema, table, text = m.schema, m.table, rows.text
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
