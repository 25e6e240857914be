"""PostgreSQL capture content: a matrix of types, written the same whatever the session's
settings (TimeZone, extra_float_digits, IntervalStyle, DateStyle, bytea_output)."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import pytest
from test_postgres_capture_support import Pg, tx

from syncpoint.core.model import loads

SETUP = (
    "CREATE TYPE mood AS ENUM ('sad', 'happy')",
    "CREATE DOMAIN price AS numeric(5,1)",
    "CREATE DOMAIN blob AS bytea",
    "CREATE TYPE pair AS (a integer, b text)",
    """CREATE TABLE public.m (
        id integer PRIMARY KEY,
        i2 smallint, i4 integer, i8 bigint, n122 numeric(12,2), n numeric,
        f4 real, f8 double precision, t text, vc varchar(10), ch char(3),
        b bytea, bo boolean, d date, ts timestamp, tstz timestamptz, tm time, tmtz timetz,
        iv interval, js json, jb jsonb, u uuid, e mood, dp price, db blob,
        ai integer[], at text[], atz timestamptz[], mo money, ip inet, pr pair
    )""",
)
BIG = "1" + "0" * 99 + "." + "0123456789" * 3
ALL_BYTES = bytes(range(256))
# a session with every setting that changes how values print set away from the defaults
ODD_SESSION = (
    "SET TimeZone = 'America/New_York'",
    "SET extra_float_digits = 0",
    "SET IntervalStyle = 'sql_standard'",
    "SET DateStyle = 'SQL, DMY'",
    "SET bytea_output = 'escape'",
)
INSERT = f"""INSERT INTO m VALUES (
    1, -32768, 2147483647, -9223372036854775808, 12.50, {BIG},
    0.1, 0.1::float8 + 0.2::float8, 'é 😀 "q" \\ new
line', 'vc', 'ab', '\\x{ALL_BYTES.hex()}', true, '1969-07-20',
    '1969-12-31 23:59:59.999999', '2024-06-01 12:00:00.123456+02', '12:34:56.789',
    '12:00:01.5+05:30', '1 year 2 mons -3 days 04:05:06.789',
    '{{"b": [1, 2.50], "a":1, "a":2, "z": "\\u0000"}}', '{{"b": [1, 2.50]}}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'happy', 1.0, '\\x', '{{1,NULL,3}}',
    '{{"a,b",NULL}}', '{{"2024-01-01 00:00:00+00"}}', 1234.56, '10.0.0.1/8', ROW(7, 'x'))"""
EXPECTED = {
    "id": 1,
    "i2": -32768,
    "i4": 2147483647,
    "i8": -9223372036854775808,
    "n122": Decimal("12.50"),
    "n": Decimal(BIG),
    "f4": "0.1",  # floats as text: "-0" keeps its sign
    "f8": "0.30000000000000004",
    "t": 'é 😀 "q" \\ new\nline',
    "vc": "vc",
    "ch": "ab ",
    "b": base64.b64encode(ALL_BYTES).decode(),
    "bo": True,
    "d": "1969-07-20",
    "ts": "1969-12-31T23:59:59.999999",
    "tstz": "2024-06-01T10:00:00.123456+00:00",
    "tm": "12:34:56.789",
    "tmtz": "12:00:01.5+05:30",
    "iv": "1 year 2 mons -3 days +04:05:06.789",
    # JSON columns as their text: JSON null ("null") stays apart from SQL NULL
    "js": '{"b": [1, 2.50], "a":1, "a":2, "z": "\\u0000"}',
    "jb": '{"b": [1, 2.50]}',
    "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "e": "happy",
    "dp": Decimal("1.0"),
    "db": "",
    # arrays and composites as their own literal, which the same type reads back
    "ai": "{1,NULL,3}",
    "at": '{"a,b",NULL}',
    "atz": '{"2024-01-01 00:00:00+00"}',
    "mo": Decimal("1234.56"),
    "ip": "10.0.0.1/8",
    "pr": "(7,x)",
}


@pytest.mark.parametrize("session", [(), ODD_SESSION], ids=["default", "odd-settings"])
def test_type_matrix_round_trips_exactly(pg_db: Any, session: tuple[str, ...]) -> None:
    pg_db.execute(*SETUP)
    pg = Pg(pg_db)
    pg.install("public.m")
    p0 = pg.tick()
    conn = pg_db.connect(autocommit=False)
    for s in session:
        conn.execute(s)
    before = [conn.execute(f"SHOW {s.split()[1]}").fetchone()[0] for s in ODD_SESSION]
    conn.execute(INSERT)
    conn.execute("INSERT INTO m (id) VALUES (2)")
    conn.execute("UPDATE m SET f4 = 'NaN', f8 = '-Infinity', n = 'Infinity' WHERE id = 2")
    after = [conn.execute(f"SHOW {s.split()[1]}").fetchone()[0] for s in ODD_SESSION]
    conn.commit()
    conn.close()
    assert after == before  # the trigger restored what it pinned
    _, recs = pg.window("public.m", p0)
    assert [r.db_action for r in recs] == ["INSERT", "INSERT", "UPDATE"]
    assert recs[0].row == EXPECTED
    text = recs[0].content
    # digits and text as the database holds them, key order as the table's columns
    assert '"n122":12.50,' in text and f'"n":{BIG},' in text
    assert '"js":"{\\"b\\": [1, 2.50], \\"a\\":1, \\"a\\":2, \\"z\\": \\"\\\\u0000\\"}",' in text
    assert list(json.loads(text)) == list(EXPECTED)
    assert recs[1].row == {**dict.fromkeys(EXPECTED), "id": 2}
    assert {k: v for k, v in recs[2].row.items() if v is not None} == {
        "id": 2,
        "f4": "NaN",
        "f8": "-Infinity",
        "n": "Infinity",
    }


def test_float_and_time_edges(pg_db: Any) -> None:
    pg_db.execute(
        "CREATE TABLE public.f (id integer PRIMARY KEY, f double precision, ts timestamptz,"
        " t timestamp, d date)"
    )
    pg = Pg(pg_db)
    pg.install("public.f")
    p0 = pg.tick()
    tx(
        pg_db,
        "SET TimeZone = 'Asia/Kolkata'",
        "INSERT INTO f VALUES"
        " (1, 5e-324, '1900-01-01 00:00:00+00', '0044-03-15 10:00 BC', '0044-03-15 BC'),"
        " (2, '-0', 'infinity', '-infinity', 'infinity'),"
        " (3, 1e300, '1970-01-01 00:00:00.000001+00', '2038-01-19 03:14:08', '9999-12-31'),"
        " (4, 'Infinity', NULL, NULL, NULL)",
    )
    _, recs = pg.window("public.f", p0)
    assert [r.content for r in recs] == [
        '{"id":1,"f":"5e-324","ts":"1900-01-01T00:00:00+00:00",'
        '"t":"0044-03-15T10:00:00 BC","d":"0044-03-15 BC"}',
        '{"id":2,"f":"-0","ts":"infinity","t":"-infinity","d":"infinity"}',
        '{"id":3,"f":"1e+300","ts":"1970-01-01T00:00:00.000001+00:00",'
        '"t":"2038-01-19T03:14:08","d":"9999-12-31"}',
        '{"id":4,"f":"Infinity","ts":null,"t":null,"d":null}',
    ]


def test_large_and_unicode_text(pg_db: Any) -> None:
    pg_db.execute("CREATE TABLE public.x (id integer PRIMARY KEY, t text, b bytea)")
    pg = Pg(pg_db)
    pg.install("public.x")
    p0 = pg.tick()
    big = "ß😀\u0301\u202e" * 250_000  # 1M characters: combining mark, RTL override
    conn = pg_db.connect(autocommit=False)
    conn.execute("INSERT INTO x VALUES (1, %s, %s)", (big, ALL_BYTES * 4000))
    conn.commit()
    conn.close()
    _, recs = pg.window("public.x", p0)
    assert loads(recs[0].content)["t"] == big
    assert base64.b64decode(recs[0].row["b"]) == ALL_BYTES * 4000
    assert "\n" not in recs[0].content
