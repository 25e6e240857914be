"""What waits in the binary log for log capture, read without writing (``status``): the
commit time of each watched table's oldest change not yet drained into the queue, so that
the lag counts changes the queue does not hold yet (no follower draining, or one whose
drains fail). While a drain holds its lock (a follower draining now), status does not read
the log beside it: the drain is taking those changes into the queue.

It reads the binary log as a replica does, from the stored position's file and offset (the
end of the last transaction drained), on a connection of its own under a server id drawn at
random: the server ends an older dump of the same id, and a follower's kept reader dumps
under the capture's id (``binlog.replica_id``), so it is never disturbed. The dump is
non-blocking (the server ends it at the log's end) and is left after ``PEEK_EVENTS`` events
or ``PEEK_BYTES`` bytes, or as soon as every watched table has a change. Only the events'
headers are read (the GTID event's commit time, the table maps' names, the kind of each rows
event), not the rows. A replica's dump writes nothing at the server (the connection's
settings are session variables).
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime
from typing import Any

import pymysql
from pymysqlreplication import BinLogStreamReader, binlogstream
from pymysqlreplication import event as ev
from pymysqlreplication import row_event as rev

from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.log import binlog

# On a lost connection the library would connect again from the position it started at and
# read the same events a second time: a lost connection ends the peek instead.
binlogstream.MYSQL_EXPECTED_ERROR_CODES = []

PEEK_EVENTS = 500
PEEK_BYTES = 4 << 20
PEEK_S = 5.0
READ_TIMEOUT_S = 10
# random ids of the peeks: above the capture's ids (binlog.replica_id: 0x70000000 + 24 bits)
PEEK_IDS = (0x71000000, 0x71FFFFFF)
ACTIONS: dict[type, str] = {rev.WriteRowsEvent: "I", rev.UpdateRowsEvent: "U",
                            rev.DeleteRowsEvent: "D"}  # fmt: skip
# every event that may be large comes back to the loop, so that the bounds count it; the
# table maps too (the library reads no rows event of a table whose map it was not allowed
# to read)
EVENTS = [ev.MariadbGtidEvent, ev.XidEvent, ev.QueryEvent, rev.TableMapEvent, *ACTIONS]


def oldest_unread(
    url: str,
    schema: str,
    tables: dict[str, str],
    gtid: str,
    log_file: str | None,
    log_pos: int | None,
) -> dict[str, datetime] | None:
    """``{"schema.table": commit time of its oldest unread change}`` of ``tables`` (name ->
    the actions captured, ``IUD``) over the first transactions after the stored position
    (``gtid``, ``log_file``/``log_pos``; a table absent: none in them), or None when the
    binary log cannot be read now (the position purged, a privilege missing)."""
    if not tables:
        return {}
    kw = dialect.parts(url)
    connection = {k: v for k, v in kw.items() if k != "database" and v is not None}
    connection.setdefault("connect_timeout", 10)
    connection["read_timeout"] = READ_TIMEOUT_S
    at_offset = bool(log_file) and log_pos is not None
    reader = BinLogStreamReader(
        connection_settings=connection,
        server_id=random.randint(*PEEK_IDS),
        blocking=False,
        # the library's MariaDB dump starts at a GTID, found by reading the file holding it
        # from its start; a file and offset is a replica's plain dump, started right there
        is_mariadb=not at_offset,
        auto_position=None if at_offset else gtid,
        log_file=log_file if at_offset else None,
        log_pos=log_pos if at_offset else None,
        resume_stream=at_offset,
        only_events=EVENTS,
        freeze_schema=False,
        enable_logging=False,
        pymysql_wrapper=dialect.Connection,  # the shared default TLS context
    )
    found: dict[str, datetime] = {}
    try:
        _read(reader, schema, tables, found)
    except (pymysql.err.Error, OSError, binlog.Unreadable):
        return found or None  # what was read is true; the rest cannot be told now
    finally:
        reader.close()
    return found


def _read(reader: Any, schema: str, tables: dict[str, str], found: dict[str, datetime]) -> None:
    when: datetime | None = None  # the commit time of the transaction being read
    pending: dict[str, datetime] = {}  # its tables, until it is seen committed
    events = size = 0
    deadline = time.monotonic() + PEEK_S
    while len(found) < len(tables):
        if events >= PEEK_EVENTS or size >= PEEK_BYTES or time.monotonic() > deadline:
            break
        event = reader.fetchone()
        if event is None:  # the log's end
            break
        events += 1
        size += int(getattr(event, "event_size", 0) or 0)
        if isinstance(event, ev.MariadbGtidEvent):
            when, pending = datetime.fromtimestamp(event.timestamp, UTC), {}
        elif isinstance(event, ev.XidEvent):
            _settle(found, pending)
            when, pending = None, {}
        elif isinstance(event, ev.QueryEvent):
            query = event.query.strip().upper()
            if query == "COMMIT":
                _settle(found, pending)
                when, pending = None, {}
            elif query.startswith("ROLLBACK") and not query.startswith("ROLLBACK TO"):
                # a transaction that also wrote a non-transactional table rolled back: its
                # changes never happened (the drain skips them as well)
                when, pending = None, {}
        elif isinstance(event, rev.RowsEvent) and when is not None:
            action = ACTIONS.get(type(event))
            name = event.table if event.schema == schema else None
            if action and name in tables and action in (tables[name] or "IUD"):
                pending.setdefault(f"{schema}.{name}", when)
    # a transaction read in part (a bound reached inside it) is in the log: committed
    _settle(found, pending)


def _settle(found: dict[str, datetime], pending: dict[str, datetime]) -> None:
    for table, when in pending.items():
        found.setdefault(table, when)
