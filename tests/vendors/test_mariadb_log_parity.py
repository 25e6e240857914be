"""MariaDB log capture writes the records the capture triggers write: the same statements,
captured by trigger (one prefix) and from the binary log (another prefix) in one database,
give equal queue rows (action, content, oldcontent), byte for byte, for every type."""

from __future__ import annotations

import json
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.vendors.mariadb.capture import MariadbCapture
from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

TYPES = """CREATE TABLE t (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT,
  miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, bo BOOLEAN,
  de DECIMAL(20,6), d0 DECIMAL(10,0), dn DECIMAL(65,30), f FLOAT, db DOUBLE,
  b1 BIT(1), b10 BIT(10), b64 BIT(64),
  c CHAR(5), vc VARCHAR(300), l1 VARCHAR(20) CHARACTER SET latin1, tx TEXT, lt LONGTEXT,
  bn BINARY(4), vb VARBINARY(10), bl BLOB,
  da DATE, tm TIME, tm1 TIME(1), tm3 TIME(3), tm6 TIME(6),
  dt DATETIME, dt2 DATETIME(2), dt6 DATETIME(6),
  ts TIMESTAMP NULL DEFAULT NULL, ts3 TIMESTAMP(3) NULL DEFAULT NULL, y YEAR,
  e ENUM('a','B','c d'), s SET('x','Y','z w'),
  j JSON, g GEOMETRY NULL, pt POINT NULL
) ENGINE=InnoDB"""

COLS = (
    "id, ti, tiu, si, siu, mi, miu, i, iu, bi, bu, bo, de, d0, dn, f, db, b1, b10, b64, c, vc, "
    "l1, tx, lt, bn, vb, bl, da, tm, tm1, tm3, tm6, dt, dt2, dt6, ts, ts3, y, e, s, j, g, pt"
)

ROWS = [
    # the extremes
    "(1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, "
    "-9223372036854775808, 18446744073709551615, TRUE, -99999999999999.999999, 9999999999, "
    "-0.000000000000000000000000000001, -3.40282e38, -1.7976931348623157e308, b'1', "
    "b'1111111111', b'1111111111111111111111111111111111111111111111111111111111111111', "
    "'ab', REPEAT('x', 300), 'caf\\xe9', 'multi\\nline\\t\"q\" \\\\ /', REPEAT('long', 1000), "
    "X'00FF', X'', X'DEADBEEF00', '1000-01-01', '-838:59:59', '-838:59:58.9', "
    "'-00:00:01.100', '838:59:59.999999', '1000-01-01 00:00:00', '9999-12-31 23:59:59.99', "
    "'2024-02-29 12:34:56.000001', '1970-01-01 00:00:01', '2038-01-19 03:14:07.999', 1901, "
    "'a', '', '{\"a\": [1, 2.50, null]}', ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))', 4326), "
    "POINT(1.5, -2))",
    # zeros and the zero date/time values
    "(2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, FALSE, 0, 0, 0, 0, -0.0, b'0', b'0', b'0', '', '', '', "
    "'', '', X'00000000', X'00', X'', '0000-00-00', '00:00:00', '00:00:00', '00:00:00', "
    "'00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', "
    "'0000-00-00 00:00:00', '0000-00-00 00:00:00', 0, 'a', 'x', 'null', NULL, NULL)",
    # ordinary values
    "(3, 7, 8, 300, 301, 70000, 70001, 123456, 123457, 1234567890123, 1234567890124, 1, "
    "12.5, 42, 3.141592653589793238462643383279, 0.1, 0.1, b'1', b'101', b'1010', 'abc  ', "
    "'héllo €😀 \\u2028', 'Ä', CONCAT('ctl', CHAR(1), CHAR(31), CHAR(127)), '', 'ab', 'ab', "
    "X'0102', '2024-06-30', '12:00:00', '-01:02:03.4', '23:59:59.5', '00:00:00.000001', "
    "'2024-06-30 23:59:59', '2024-06-30 23:59:59.5', '2024-06-30 23:59:59.123456', "
    "'2024-06-30 12:00:00', '2024-06-30 12:00:00.5', 2155, 'c d', 'x,Y,z w', '[]', "
    "ST_GeomFromText('LINESTRING(0 0,1 1)'), POINT(0, 0))",
    # NULL everywhere the table allows it
    "(4" + ", NULL" * 43 + ")",
]

STATEMENTS = [
    *(f"INSERT INTO t ({COLS}) VALUES {r}" for r in ROWS),
    "UPDATE t SET f = 1e-7, db = 1e16, de = de + 1, vc = CONCAT(vc, '!'), ts = "
    "'2001-02-03 04:05:06', e = 'B', s = 'z w', y = 2000 WHERE id IN (2, 3)",
    "UPDATE t SET ti = 1 WHERE id = 4",
    "DELETE FROM t WHERE id = 1",
    "INSERT INTO t (id, f, db) VALUES (5, 3.40282e38, 123456789012345678)",
    "REPLACE INTO t (id, vc) VALUES (5, 'replaced')",
]


def _records(db: Any, prefix: str) -> list[tuple[str, str, Any, Any]]:
    return db.query(
        f"SELECT tablename, db_action, content, oldcontent FROM `{prefix}items` "
        "WHERE db_action IN ('INSERT', 'UPDATE', 'DELETE') ORDER BY repl_key"
    )


def test_log_records_equal_trigger_records_for_every_type(log_maria_db: Any) -> None:
    db = log_maria_db
    db.execute(TYPES)
    tables = [TableConfig(name="t")]
    trig = MariadbCapture("m1", db.url, "trg_")
    log = MariadbLogCapture("m1", db.url, "log_")
    for cap in (trig, log):
        conn = cap.connect()
        try:
            cap.install(conn, tables)
        finally:
            conn.close()
    conn = db.connect(autocommit=False)
    cur = conn.cursor()
    for s in STATEMENTS:
        cur.execute(s)
        conn.commit()
    # a transaction rolled back, and a savepoint rolled back: captured by neither
    cur.execute("INSERT INTO t (id) VALUES (100)")
    conn.rollback()
    cur.execute("INSERT INTO t (id) VALUES (101)")
    cur.execute("SAVEPOINT a")
    cur.execute("INSERT INTO t (id) VALUES (102)")
    cur.execute("ROLLBACK TO SAVEPOINT a")
    conn.commit()
    conn.close()
    conn = log.connect()
    try:
        log.tick(conn)
    finally:
        conn.close()
    by_trigger, by_log = _records(db, "trg_"), _records(db, "log_")
    assert len(by_trigger) == 12
    for a, b in zip(by_trigger, by_log, strict=True):
        assert _differences(a, b) == {}
        assert a == b


def _differences(a: tuple[Any, ...], b: tuple[Any, ...]) -> dict[str, Any]:
    """Columns whose JSON text differs (numbers compared as their text)."""
    out: dict[str, Any] = {}
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if i < 2 or x is None or y is None:
            if x != y:
                out[str(i)] = (x, y)
            continue
        try:
            dx = json.loads(x, parse_float=str, parse_int=str)
            dy = json.loads(y, parse_float=str, parse_int=str)
        except ValueError:  # YEAR 0 is written 0000, which JSON parsers refuse
            at = next((k for k, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), None)
            if at is not None or len(x) != len(y):
                at = at if at is not None else min(len(x), len(y))
                out[str(i)] = (x[max(0, at - 40) : at + 40], y[max(0, at - 40) : at + 40])
            continue
        out.update({k: (dx.get(k), dy.get(k)) for k in {*dx, *dy} if dx.get(k) != dy.get(k)})
    return out
