"""MariaDB capture: every column type round-trips exactly through the change record's JSON."""

from __future__ import annotations

import base64
import struct
from decimal import Decimal
from typing import Any

import pymysql
import pytest
from test_mariadb_capture_support import Cap, install

TYPES = """CREATE TABLE ty (
  id INT PRIMARY KEY,
  ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT, ubi BIGINT UNSIGNED, bo BOOLEAN,
  d DECIMAL(12,2), d65 DECIMAL(65,30), dz DECIMAL(5,0),
  f FLOAT, db DOUBLE,
  bt BIT(10), b64 BIT(64),
  c CHAR(5), vc VARCHAR(100), tx TEXT, lt LONGTEXT, l1 VARCHAR(20) CHARACTER SET latin1,
  bn BINARY(4), vb VARBINARY(300), bl BLOB, lb LONGBLOB,
  dt DATE, dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP(6) NULL, ts0 TIMESTAMP NULL,
  tm TIME(6), y YEAR,
  e ENUM('a', 'b c'), st SET('x', 'y'), j JSON, u UUID, i6 INET6
) ENGINE=InnoDB"""

COLS = [
    "id", "ti", "si", "mi", "bi", "ubi", "bo", "d", "d65", "dz", "f", "db", "bt", "b64", "c",
    "vc", "tx", "lt", "l1", "bn", "vb", "bl", "lb", "dt", "dtm", "dtm6", "ts", "ts0", "tm", "y",
    "e", "st", "j", "u", "i6",
]  # fmt: skip

ALL_BYTES = bytes(range(256))
BIG_BLOB = bytes(range(256)) * 4096  # 1 MiB: base64 spans many 76-character lines
LONG_TEXT = "ab😀é" * 25000
D65 = "-99999999999999999999999999999999999.999999999999999999999999999999"
JSON_DOC = '{"a": 12.500, "n": null, "arr": [1, "😀"], "big": 123456789012345678901234567890}'

EXTREME = {
    "id": 2,
    "ti": -128,
    "si": 65535,
    "mi": -8388608,
    "bi": -9223372036854775808,
    "ubi": 18446744073709551615,
    "bo": 1,
    "d": Decimal("-9999999999.99"),
    "d65": Decimal(D65),
    "dz": Decimal("0"),
    "f": 3.4028234663852886e38,
    "db": 1.7976931348623157e308,
    "bt": 1023,
    "b64": 18446744073709551615,
    "c": "ab",
    "vc": "héllo 😀 \u202eRTL \U0001f468\u200d\U0001f469\u200d\U0001f467",
    "tx": "e\u0301 combining, 'quotes' \"double\" \\back\\slash\n\ttab\x00nul",
    "lt": LONG_TEXT,
    "l1": "café",
    "bn": "AAECAw==",
    "vb": base64.b64encode(ALL_BYTES).decode(),
    "bl": "",
    "lb": base64.b64encode(BIG_BLOB).decode(),
    "dt": "1000-01-01",
    "dtm": "1900-05-06T07:08:09",
    "dtm6": "1969-12-31T23:59:59.999999",
    "ts": "2038-01-19T03:14:07.999999+00:00",
    "ts0": "1970-01-01T00:00:01+00:00",
    "tm": "-838:59:59.000000",
    "y": 1901,
    "e": "b c",
    "st": "x,y",
    "j": JSON_DOC,
    "u": "a1b2c3d4-0000-1111-2222-333344445555",
    "i6": "2001:db8::1",
}


@pytest.fixture
def cap(maria_db: Any) -> Cap:
    maria_db.execute(TYPES)
    return install(maria_db, "ty")


def _insert(cap: Cap, values: dict[str, Any], tz: str = "+00:00") -> None:
    conn = cap.db.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("SET time_zone = %s", (tz,))
    names = ", ".join(f"`{c}`" for c in values)
    marks = ", ".join(["%s"] * len(values))
    cur.execute(f"INSERT INTO ty ({names}) VALUES ({marks})", list(values.values()))
    conn.commit()
    conn.close()


def _source_values() -> dict[str, Any]:
    v = dict(EXTREME)
    v.update(
        d65=D65,
        bt=1023,
        b64=18446744073709551615,
        bn=bytes([0, 1, 2, 3]),
        vb=ALL_BYTES,
        bl=b"",
        lb=BIG_BLOB,
        dtm="1900-05-06 07:08:09",
        dtm6="1969-12-31 23:59:59.999999",
        ts="2038-01-19 03:14:07.999999",
        ts0="1970-01-01 00:00:01",
        j=JSON_DOC,
    )
    return v


def test_nulls_and_extremes_round_trip(cap: Cap) -> None:
    p0 = cap.tick()
    _insert(cap, {"id": 1})
    _insert(cap, _source_values())
    _, recs = cap.window(p0)
    assert recs[0].row == {c: (1 if c == "id" else None) for c in COLS}
    got = recs[1].row
    assert list(got) == COLS
    for c in COLS:
        if c in ("f", "db"):
            assert float(got[c]) == EXTREME[c]
        else:
            assert got[c] == EXTREME[c], c
    # exact digits as text, not merely equal numbers
    text = recs[1].content or ""
    assert '"d": -9999999999.99' in text and f'"d65": {D65}' in text
    assert '\\"a\\": 12.500' in text and '"dz": 0' in text  # the JSON column's own text
    assert struct.unpack("f", struct.pack("f", float(got["f"])))[0] == float(got["f"])


def test_floats_and_times_in_other_zones(cap: Cap) -> None:
    p0 = cap.tick()
    _insert(
        cap,
        {
            "id": 3,
            "f": 0.1,
            "db": 5e-324,
            "dtm6": "2020-03-08 02:30:00.5",
            "ts": "2020-03-08 02:30:00.5",
            "tm": "12:00:00.000001",
        },
        tz="+05:30",
    )
    conn = cap.db.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("SET time_zone = '-08:00'")
    cur.execute("UPDATE ty SET y = 2155 WHERE id = 3")
    conn.commit()
    conn.close()
    _, recs = cap.window(p0)
    row = recs[0].row
    assert (
        struct.unpack("f", struct.pack("f", float(row["f"])))[0]
        == struct.unpack("f", struct.pack("f", 0.1))[0]
    )
    assert row["db"] == Decimal("5e-324")
    assert row["dtm6"] == "2020-03-08T02:30:00.500000"  # wall clock as stored
    assert row["ts"] == "2020-03-07T21:00:00.500000+00:00"  # the instant, in UTC
    assert row["tm"] == "12:00:00.000001"
    upd = recs[1]
    assert upd.db_action == "UPDATE"
    assert upd.old["ts"] == upd.row["ts"] == "2020-03-07T21:00:00.500000+00:00"
    assert upd.row["y"] == 2155


def test_json_column_declared_as_checked_longtext(maria_db: Any) -> None:
    maria_db.execute(
        "CREATE TABLE jt (id INT PRIMARY KEY, a LONGTEXT CHECK (json_valid(a)), b LONGTEXT)"
    )
    cap = install(maria_db, "jt")
    p0 = cap.tick()
    cap.tx("INSERT INTO jt VALUES (1, '[1.0, {\"x\": \"y\"}]', '[1.0]')")
    _, recs = cap.window(p0, table="jt")
    # a JSON column as its text (a JSON string): JSON null stays apart from SQL NULL
    assert recs[0].content == '{"id": 1, "a": "[1.0, {\\"x\\": \\"y\\"}]", "b": "[1.0]"}'
    conn = cap.conn()
    shape = cap.cap.describe(conn, cap.ref.model_copy(update={"name": "jt"}))
    conn.close()
    assert shape is not None and [c.type for c in shape.columns] == ["int(11)", "json", "longtext"]


def test_a_value_too_large_to_encode_fails_the_statement(cap: Cap) -> None:
    """TO_BASE64 past max_allowed_packet returns NULL with a warning: the trigger refuses."""
    packet = int(cap.db.query("SELECT @@max_allowed_packet")[0][0])
    conn = cap.db.connect(autocommit=False)
    try:
        with pytest.raises(pymysql.err.Error, match="too large to capture"):
            conn.cursor().execute(
                "INSERT INTO ty (id, lb) VALUES (9, REPEAT(X'01', %s))", (packet * 3 // 4 + 10,)
            )
    finally:
        conn.rollback()
        conn.close()
    assert cap.db.query("SELECT COUNT(*) FROM ty") == [(0,)]
    assert cap.db.query("SELECT COUNT(*) FROM repl_items") == [(0,)]


def test_text_columns_of_mixed_collations_are_captured(maria_db: Any) -> None:
    """A key in utf8mb4_nopad_bin (exact keys, trailing blanks kept apart) beside columns in
    the database's utf8mb4_bin, utf8mb4_general_ci, latin1 and an ENUM: JSON_OBJECT refused
    such a row for the mix of collations, and with it the application's own INSERT."""
    maria_db.execute(
        "ALTER DATABASE CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        "CREATE TABLE mix (k VARCHAR(20) COLLATE utf8mb4_nopad_bin PRIMARY KEY, b VARCHAR(20), "
        "g TEXT COLLATE utf8mb4_general_ci, l VARCHAR(20) CHARACTER SET latin1, "
        "e ENUM('x', 'ÿ') CHARACTER SET latin1) ENGINE=InnoDB",
    )
    cap = install(maria_db, "mix")
    p0 = cap.tick()
    cap.tx("INSERT INTO mix VALUES ('a ', 'b😀', 'G', 'é', 'ÿ')")
    cap.tx("UPDATE mix SET b = 'c' WHERE k = 'a '")
    cap.tx("DELETE FROM mix")
    _, recs = cap.window(p0, table="mix")
    row = {"k": "a ", "b": "b😀", "g": "G", "l": "é", "e": "ÿ"}
    assert [(r.db_action, r.row, r.old) for r in recs] == [
        ("INSERT", row, None),
        ("UPDATE", {**row, "b": "c"}, row),
        ("DELETE", None, {**row, "b": "c"}),
    ]
