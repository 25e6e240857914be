"""A replica's binary log dump (``COM_BINLOG_DUMP`` from a GTID position), event by event
as the server's bytes: no object a event.

python-mysql-replication made a packet wrapper and an event object (with a second
connection's settings and filters) for every event, including the GTID, XID and rows events
of tables capture does not read, and that was most of a follower's CPU. Here an event is
the packet's bytes; ``binlog.py`` reads the 19-byte header and the few fields it needs
in place, and decodes the rows of the captured tables only. The library still parses the
rare table map whose content is new (``table_map``): its column metadata and optional
metadata (names, character sets, ENUM/SET labels, signedness) are exact there and read
once per distinct table map.

Event layout: MariaDB's "Binary log event header" and the event pages of its replication
protocol documentation; a checksum (CRC32) of 4 bytes ends each event when the binary log
is written with ``binlog_checksum`` on (told by the format description event).
"""

from __future__ import annotations

import struct
from typing import Any

import pymysql
from pymysql.protocol import MysqlPacket
from pymysqlreplication import row_event as rev
from pymysqlreplication.packet import BinLogPacketWrapper

# event types (MariaDB's log_event.h)
QUERY = 2
STOP = 3
ROTATE = 4
INTVAR = 5
RAND = 13
USER_VAR = 14
FORMAT_DESCRIPTION = 15
XID = 16
TABLE_MAP = 19
WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1 = 23, 24, 25
HEARTBEAT = 27
WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 = 30, 31, 32
ANNOTATE_ROWS = 0xA0
BINLOG_CHECKPOINT = 0xA1
GTID = 0xA2
GTID_LIST = 0xA3
START_ENCRYPTION = 0xA4
ROWS = {
    WRITE_ROWS_V1: "INSERT", UPDATE_ROWS_V1: "UPDATE", DELETE_ROWS_V1: "DELETE",
    WRITE_ROWS_V2: "INSERT", UPDATE_ROWS_V2: "UPDATE", DELETE_ROWS_V2: "DELETE",
}  # fmt: skip
ROWS_V2 = frozenset({WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2})
# the file's own events: positions, structure, keep-alive, the statement text of a rows event
FILE_EVENTS = frozenset(
    {ROTATE, FORMAT_DESCRIPTION, GTID_LIST, BINLOG_CHECKPOINT, STOP, START_ENCRYPTION,
     ANNOTATE_ROWS, TABLE_MAP}
)  # fmt: skip
CONTEXT_EVENTS = frozenset({INTVAR, RAND, USER_VAR})  # a statement's context
NAMES = {
    QUERY: "QueryEvent", XID: "XidEvent", GTID: "MariadbGtidEvent", INTVAR: "IntvarEvent",
    RAND: "RandEvent", USER_VAR: "UserVarEvent", 17: "BeginLoadQueryEvent",
    18: "ExecuteLoadQueryEvent", 38: "XAPrepareEvent", 35: "PreviousGtidsEvent",
    **{t: "RowsEvent" for t in ROWS},
}  # fmt: skip
# OK byte, then timestamp, type, server id, event size, position after it, flags
HEADER = struct.Struct("<xIBIIIH")
BODY = 20  # where an event's body starts in its packet
COM_BINLOG_DUMP = 0x12
MAX_PACKET = 0xFFFFFF
CR_SERVER_LOST = 2013
CHECKSUM_CRC32 = 1


class Garbled(Exception):
    """The dump sent a packet that is neither an event, its end nor an error."""


class Dump:
    """One replica connection dumping the binary log from ``start`` (a GTID list,
    exclusive); ``next()`` gives each event's packet bytes (the OK byte first) or None at
    the end of a non-blocking dump. ``checksum``: the bytes of checksum ending each event."""

    def __init__(
        self,
        connect: Any,
        settings: dict[str, Any],
        server_id: int,
        start: str,
        heartbeat_s: float,
        blocking: bool = True,
    ):
        conn = self.conn = connect(**settings)
        try:
            cur = conn.cursor()
            cur.execute("SELECT @@global.binlog_checksum")
            self.checksum = 0 if str(cur.fetchone()[0]).upper() == "NONE" else 4
            # a replica that knows checksums: the events come as written (a format event
            # tells each file's setting), whatever the setting is now or becomes
            cur.execute("SET @master_binlog_checksum = @@global.binlog_checksum")
            cur.execute("SET @master_heartbeat_period = %s", (int(heartbeat_s * 1e9),))
            # GTID events as such (a lower capability has them replaced by dummies)
            cur.execute("SET @mariadb_slave_capability = 4")
            cur.execute("SET @slave_connect_state = %s", (start,))
            cur.execute("SET @slave_gtid_strict_mode = 1")
            cur.execute("SET @slave_gtid_ignore_duplicates = 0")
            cur.close()
            # position 4 and no file name: from @slave_connect_state
            flags = 0 if blocking else 1  # BINLOG_DUMP_NON_BLOCK
            conn._execute_command(COM_BINLOG_DUMP, struct.pack("<IHI", 4, flags, server_id))
        except BaseException:
            conn.close()
            raise
        self.rfile = conn._rfile

    def next(self) -> bytes | None:
        """The next event's packet, None at the dump's end; a server error (the position
        purged: 1236) raises PyMySQL's ``OperationalError``, as a lost connection does."""
        data = self._packet()
        first = data[0] if data else -1
        if first == 0 and len(data) >= BODY:
            if data[5] == FORMAT_DESCRIPTION:
                # the file's checksum: the byte before the format event's own 4 bytes
                self.checksum = 4 if data[-5] == CHECKSUM_CRC32 else 0
            return data
        if first == 0xFF:
            MysqlPacket(data, "utf8").raise_for_error()
        if first == 0xFE and len(data) < 9:  # EOF: a non-blocking dump's end
            self.close()
            return None
        # a dump sends nothing else: the stream is not what it is taken for
        self.conn._force_close()
        raise Garbled(f"a packet of the binary log dump starts with 0x{first:02X}")

    def _packet(self) -> bytes:
        """One protocol packet's payload (PyMySQL's ``_read_packet`` without its objects and
        sequence checks: a dump only reads); a payload of 2^24 - 1 bytes goes on in the
        next packet."""
        read = self.rfile.read
        parts: list[bytes] = []
        while True:
            try:
                head = read(4)
                n = head[0] | head[1] << 8 | head[2] << 16
                body = read(n)
            except (OSError, IndexError, ValueError) as exc:  # a timeout, a closed socket
                self.conn._force_close()
                raise pymysql.err.OperationalError(
                    CR_SERVER_LOST, f"Lost connection to server during query ({exc})"
                ) from exc
            if len(body) < n:
                self.conn._force_close()
                raise pymysql.err.OperationalError(
                    CR_SERVER_LOST, "Lost connection to server during query"
                )
            if n < MAX_PACKET:
                return b"".join([*parts, body]) if parts else body
            parts.append(body)

    def close(self) -> None:
        if not self.conn.open:
            return
        try:
            self.conn.close()
        except (pymysql.err.Error, OSError):
            self.conn._force_close()


class _NoCatalog:
    """The library's table map asks its control connection for the server's kind and, when
    the map carries no column names, for the catalog's: the kind is MariaDB's, and the
    names are never asked (``use_column_name_cache`` off), so a map without them stays
    without them and is refused by the caller."""

    charset = "utf8"

    def _get_dbms(self) -> str:
        return "mariadb"


_CATALOG = _NoCatalog()


def table_map(data: bytes, checksum: int) -> Any:
    """The library's parse of a table map event's packet (its ``TableMapEvent``). The
    library reads the optional metadata up to 4 bytes before the end (a checksum): an
    event without one gets 4 bytes more."""
    wrapped = BinLogPacketWrapper(
        MysqlPacket(data if checksum else data + b"\0\0\0\0", "utf8"),
        {},
        _CATALOG,
        (10, 6, 0),
        True,
        frozenset({rev.TableMapEvent}),
        None,
        None,
        None,
        None,
        False,  # freeze_schema
        False,  # ignore_decode_errors
        False,  # verify_checksum
        True,  # optional_meta_data: read what the map carries
        False,  # enable_logging
    )
    return wrapped.event


def lenenc(d: bytes, p: int) -> tuple[int, int]:
    """A length-encoded integer at ``p``, and the position after it."""
    c = d[p]
    if c < 0xFB:
        return c, p + 1
    n = {0xFC: 2, 0xFD: 3, 0xFE: 8}[c]
    return int.from_bytes(d[p + 1 : p + 1 + n], "little"), p + 1 + n
