"""MariaDB log capture reads the binary log dump's events from their bytes (``log/dump.py``,
``log/binlog.py``): what the server may send besides the ordinary events comes through
exactly or stops capture. Partial row images are refused; a binary log written without
checksums, and one whose checksum setting changes under a follower's open dump, is read;
an event longer than one protocol packet (16 MiB) is read whole; rows of a table not
captured, in the same transactions, do not come through; a follower's reader keeps reading
across ticks. The values of every type: ``test_mariadb_log_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.errors import LocationError
from syncpoint.vendors.kept import kept
from tests.vendors.test_mariadb_logcapture import Log, T, rows


@pytest.fixture
def log(log_maria_db: Any) -> Any:
    log_maria_db.execute(T)
    cap = Log(log_maria_db, "t")
    yield cap
    cap.close()


def test_partial_row_images_stop_capture(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'full')")
    assert rows(log.window()) == [("INSERT", {"id": 1, "name": "full"}, None)]
    conn = log.db.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("SET SESSION binlog_row_image = 'MINIMAL'")
    cur.execute("UPDATE t SET name = 'minimal' WHERE id = 1")
    conn.close()
    for _ in range(2):  # and again: never skipped
        with pytest.raises(LocationError, match="binlog_row_image must be FULL"):
            log.tick()


def test_rows_of_tables_not_captured_are_skipped_in_the_same_transaction(log: Log) -> None:
    log.db.execute("CREATE TABLE other (id INT PRIMARY KEY, v BLOB) ENGINE=InnoDB")
    conn = log.db.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("INSERT INTO other VALUES (1, REPEAT('o', 5000))")
    cur.execute("INSERT INTO t VALUES (1, 'it''s a\\b'), (2, NULL)")
    cur.execute("UPDATE other SET v = 'p'")
    cur.execute("DELETE FROM t WHERE id = 2")
    conn.commit()
    conn.close()
    assert rows(log.window()) == [
        ("INSERT", {"id": 1, "name": "it's a\\b"}, None),  # quotes and backslashes as they are
        ("INSERT", {"id": 2, "name": None}, None),
        ("DELETE", None, {"id": 2, "name": None}),
    ]
    assert rows(log.window("other")) == []


def test_a_log_without_checksums_and_a_change_of_them_under_an_open_dump(log: Log) -> None:
    """``binlog_checksum`` changed while a follower's reader stays connected: the server
    starts a new file (its format event tells the new setting) and the reader reads on."""
    db = log.db
    with kept():
        log.db.execute("INSERT INTO t VALUES (1, 'crc')")
        assert rows(log.window()) == [("INSERT", {"id": 1, "name": "crc"}, None)]
        try:
            db.execute("SET GLOBAL binlog_checksum = NONE")
            db.execute("INSERT INTO t VALUES (2, 'none')", "UPDATE t SET name = 'n' WHERE id = 1")
            assert rows(log.window()) == [
                ("INSERT", {"id": 2, "name": "none"}, None),
                ("UPDATE", {"id": 1, "name": "n"}, {"id": 1, "name": "crc"}),
            ]
        finally:
            db.execute("SET GLOBAL binlog_checksum = CRC32")
        db.execute("DELETE FROM t WHERE id = 2")
        assert rows(log.window()) == [("DELETE", None, {"id": 2, "name": "none"})]
    # a reader of its own (no follower) from a position in the file without checksums
    db.execute("INSERT INTO t VALUES (3, 'again')")
    assert rows(log.window()) == [("INSERT", {"id": 3, "name": "again"}, None)]
    # a follower's reader connected while there are none, and then there are again
    with kept():
        try:
            db.execute("SET GLOBAL binlog_checksum = NONE")
            db.execute("INSERT INTO t VALUES (4, 'off')")
            assert rows(log.window()) == [("INSERT", {"id": 4, "name": "off"}, None)]
        finally:
            db.execute("SET GLOBAL binlog_checksum = CRC32")
        db.execute("UPDATE t SET name = 'on' WHERE id = 4")
        assert rows(log.window()) == [("UPDATE", {"id": 4, "name": "on"}, {"id": 4, "name": "off"})]


def test_an_event_longer_than_a_protocol_packet_is_read_past(log: Log) -> None:
    """A rows event of 17 MiB comes as two packets of the protocol: it is read whole (the
    events after it are read right), here in a table not captured (a value that large in
    the queue too is more than the small test server is sized for)."""
    db = log.db
    before = int(db.query("SELECT @@global.max_allowed_packet")[0][0])
    db.execute("SET GLOBAL max_allowed_packet = 33554432")  # sessions opened from now on
    try:
        db.execute("CREATE TABLE big (id INT PRIMARY KEY, c LONGTEXT) ENGINE=InnoDB")
        conn = db.connect(autocommit=False)
        cur = conn.cursor()
        cur.execute("INSERT INTO t VALUES (1, 'before')")
        cur.execute("INSERT INTO big VALUES (1, REPEAT('abcdefgh', 2200000))")
        cur.execute("INSERT INTO t VALUES (2, 'after')")
        conn.commit()
        cur.execute("SELECT LENGTH(c) FROM big")
        assert int(cur.fetchone()[0]) > 16 << 20
        cur.execute("UPDATE t SET name = 'next' WHERE id = 2")
        conn.commit()
        conn.close()
    finally:
        db.execute(f"SET GLOBAL max_allowed_packet = {before}")
    assert rows(log.window()) == [
        ("INSERT", {"id": 1, "name": "before"}, None),
        ("INSERT", {"id": 2, "name": "after"}, None),
        ("UPDATE", {"id": 2, "name": "next"}, {"id": 2, "name": "after"}),
    ]
