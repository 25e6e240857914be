"""Values through a round, for every vendor pair: the target table is created by syncpoint
from the source's columns, and every value arrives exactly (digits of exact numerics,
bytes, instants, unicode), or the round stops with a clear message instead of rounding."""

from __future__ import annotations

import json
import re
import struct
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark
VENDORS = ["postgres", "mariadb", "sqlite"]
PAIRS = [(a, b) for a in VENDORS for b in VENDORS]

TABLE = {
    "postgres": "CREATE TABLE vals (id integer PRIMARY KEY, n numeric(30,10), i8 bigint, "
    "f8 double precision, b boolean, t text, bin bytea, d date, ts timestamp(6), "
    "tz timestamptz, j jsonb)",
    "mariadb": "CREATE TABLE vals (id integer PRIMARY KEY, n decimal(30,10), i8 bigint, "
    "f8 double, b tinyint(1), t text, bin longblob, d date, ts datetime(6), tz timestamp(6) "
    "NULL, j text) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE vals (id INTEGER PRIMARY KEY, n NUMERIC, i8 INTEGER, f8 REAL, "
    "b BOOLEAN, t TEXT, bin BLOB, d DATE, ts DATETIME, tz TEXT, j TEXT)",
}
TEXT = "é ✓ 😀 \"quoted\" 'single' back\\slash \t tab"
BYTES = bytes(range(256))
ROWS = {
    "postgres": [
        "INSERT INTO vals VALUES (1, 12345678901234567890.1234567890, 9223372036854775807, "
        "0.1, true, %(t)s, %(bin)s, '1969-07-20', '1969-07-20 20:17:40.000001', "
        "'2024-03-10 02:30:00.5+05:30', '{\"a\": [1, 2.5], \"b\": null}')",
        "INSERT INTO vals (id, n, f8, b, bin) VALUES (2, -0.0000000001, -1e-300, false, '')",
        "INSERT INTO vals (id) VALUES (3)",
    ],
    "mariadb": [
        "INSERT INTO vals VALUES (1, 12345678901234567890.1234567890, 9223372036854775807, "
        "0.1, 1, %(t)s, %(bin)s, '1969-07-20', '1969-07-20 20:17:40.000001', "
        "'2024-03-09 21:00:00.5', NULL)",
        "INSERT INTO vals (id, n, f8, b, bin) VALUES (2, -0.0000000001, -1e-300, 0, '')",
        "INSERT INTO vals (id) VALUES (3)",
    ],
    "sqlite": [
        "INSERT INTO vals VALUES (1, '12345.125', 9223372036854775807, 0.1, 1, :t, :bin, "
        "'1969-07-20', '1969-07-20 20:17:40.000001', '2024-03-10T02:30:00.5+05:30', NULL)",
        "INSERT INTO vals (id, n, f8, b, bin) VALUES (2, -0.5, -1e-300, 0, x'')",
        "INSERT INTO vals (id) VALUES (3)",
    ],
}
KINDS = {
    "n": "num",
    "i8": "num",
    "f8": "float",
    "b": "bool",
    "t": "text",
    "bin": "bytes",
    "d": "date",
    "ts": "ts",
    "tz": "tz",
    "j": "json",
}


def canon(kind: str, v: Any) -> Any:
    if v is None:
        return None
    if kind == "num":
        return Decimal(str(v)).normalize()
    if kind == "float":
        return float(v)
    if kind == "bool":
        return v in ("1", "true", "t") if isinstance(v, str) else bool(v)
    if kind == "bytes":
        return bytes(v)
    if kind == "date":
        return (v.isoformat() if isinstance(v, date) else str(v))[:10]
    if kind in ("ts", "tz"):
        d = v if isinstance(v, datetime) else datetime.fromisoformat(str(v))
        if kind == "tz":
            return (d if d.tzinfo else d.replace(tzinfo=UTC)).astimezone(UTC)
        return d.replace(tzinfo=None)
    if kind == "json":
        return json.loads(v) if isinstance(v, str) else v
    return str(v)


def values(db: Any) -> list[dict[str, Any]]:
    cols = list(KINDS)
    rows = db.query(f"SELECT id, {', '.join(cols)} FROM vals ORDER BY id")
    return [{c: canon(KINDS[c], v) for c, v in zip(cols, r[1:], strict=True)} for r in rows]


def insert(db: Any) -> None:
    conn = db.connect(autocommit=db.vendor == "sqlite")
    cur = conn.cursor()
    for s in ROWS[db.vendor]:
        cur.execute(s, {"t": TEXT, "bin": BYTES}) if "t)s" in s or ":t" in s else cur.execute(s)
    conn.commit()
    conn.close()


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    mk = {"postgres": make_pg, "mariadb": make_mariadb}
    gens = [mk[v]() if v in mk else make_sqlite(tmp_path) for v in request.param]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def channel(src: Any, dst: Any, tmp: Path, policy: str = "stop") -> Channel:
    data = {
        "channel": "vals",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": "public.vals" if src.vendor == "postgres" else "vals", "snapshot": "none"}
        ],
    }
    (tmp / "v.yaml").write_text(json.dumps(data))
    return Channel.from_file(tmp / "v.yaml")


@pytest.mark.parametrize("pair", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_values_arrive_exactly(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    src.execute(TABLE[src.vendor])
    ch = channel(src, dst, tmp_path)
    ch.install()
    insert(src)
    ch.run(once=True, spark=spark)
    got, want = values(dst), values(src)
    for g, w in zip(got, want, strict=True):
        assert g == w
    # updates and deletes of those rows arrive as well
    sql(src, "UPDATE vals SET t = 'changed', n = 1 WHERE id = 1", "DELETE FROM vals WHERE id = 2")
    ch.run(once=True, spark=spark)
    assert values(dst) == values(src)


def test_a_value_the_target_type_cannot_hold_stops_the_round(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_mariadb()]
    src, dst = (next(g) for g in gens)
    try:
        src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, f double precision)")
        ch = channel(src, dst, tmp_path)
        ch.install()
        sql(src, "INSERT INTO vals VALUES (1, 1.5, 1), (2, 0.1234567890123456789012345678901, 2)")
        with pytest.raises(TableStopped, match="does not fit"):
            ch.run(once=True, spark=spark)
        assert dst.query("SELECT count(*) FROM vals") == [(0,)]
        # the user widens the target column, as the message says: the same round goes on
        dst.execute("ALTER TABLE vals MODIFY n decimal(65,35)")
        ch.run(once=True, spark=spark)
        assert sorted(dst.query("SELECT id, n FROM vals")) == [
            (1, Decimal("1.5")),
            (2, Decimal("0.1234567890123456789012345678901")),
        ]
        sql(src, "INSERT INTO vals VALUES (3, 1, 'NaN')")
        with pytest.raises(TableStopped, match="NaN"):
            ch.run(once=True, spark=spark)
        assert dst.query("SELECT count(*) FROM vals") == [(2,)]
    finally:
        for g in gens:
            next(g, None)


def a_text_too_long_for_the_target_stops_the_table(
    src: Any, dst: Any, tmp: Path, spark: Any
) -> Any:
    """PostgreSQL to PostgreSQL into a target the user made narrower than the source (text
    into varchar(5), char(3), bit(3), varchar(3)[]): a value too long stops the table (in a
    varchar(n), blanks past n too); the apply never cuts it to the column's length. The
    channel, for the caller's checks."""
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, v text, c text, b varbit, a text[])")
    dst.execute(
        "CREATE TABLE vals (id integer PRIMARY KEY, v varchar(5), c char(3), b bit(3), "
        "a varchar(3)[])"
    )
    ch = channel(src, dst, tmp)
    ch.install()
    # what fits arrives as it is (trailing spaces past the length are cut, as PostgreSQL's
    # assignment does)
    sql(src, "INSERT INTO vals VALUES (1, 'abcde', 'ab', B'101', '{abc}'), "
        "(2, 'ab   ', 'x  ', NULL, NULL)")  # fmt: skip
    ch.run(once=True, spark=spark)
    got = "SELECT id, v, c, b::text, a::text FROM vals ORDER BY id"
    assert dst.query(got) == [(1, "abcde", "ab ", "101", "{abc}"), (2, "ab   ", "x  ", None, None)]
    # a value too long stops the table, row 1 as it was; the way back the message gives:
    # widen the target column, and the same round applies the whole value
    want = [1, "abcde", "ab ", "101", "{abc}"]
    for bad, column, widen, pos, full in [
        # blanks past the length, which the assignment would cut without a word
        ("SET v = 'abcde  '", "character varying(5)", "v TYPE varchar(7)", 1, "abcde  "),
        ("SET v = 'abcdefgh'", "character varying(7)", "v TYPE varchar(10)", 1, "abcdefgh"),
        ("SET c = 'abcd'", "character(3)", "c TYPE char(4)", 2, "abcd"),
        ("SET b = B'1010'", "bit(3)", "b TYPE varbit(4)", 3, "1010"),
        ("SET a = '{abcd}'", "character varying(3)", "a TYPE varchar(4)[]", 4, "{abcd}"),
    ]:
        sql(src, f"UPDATE vals {bad} WHERE id = 1")
        with pytest.raises(TableStopped, match=re.escape(column)):
            ch.run(once=True, spark=spark)
        assert list(dst.query(got)[0]) == want
        dst.execute(f"ALTER TABLE vals ALTER {widen}")
        ch.run(once=True, spark=spark)
        want[pos] = full
        assert list(dst.query(got)[0]) == want
    return ch


def test_a_text_too_long_for_the_target_stops_the_table(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        a_text_too_long_for_the_target_stops_the_table(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


# -- JSON null, JSON scalars and documents, -0.0, NaN and infinities ---------------------------
SPECIAL = {
    "postgres": "CREATE TABLE sv (id integer PRIMARY KEY, f4 real, f8 double precision, "
    "j jsonb, js json)",
    "mariadb": "CREATE TABLE sv (id integer PRIMARY KEY, f4 float, f8 double, j json, js json) "
    "ENGINE=InnoDB",
    "sqlite": "CREATE TABLE sv (id INTEGER PRIMARY KEY, f4 REAL, f8 REAL, j JSON, js TEXT)",
}
DOC = '{"a": [1, {"b": null}, 2.50], "c": "é \\" x", "d": {}}'
# (id, f4, f8, j, js): JSON null, JSON scalars, a nested document, SQL NULL
FINITE = [
    (1, 1.5, -0.0, "null", '"text"'),
    (2, -0.0, 2.5, "42", "true"),
    (3, 0.1, 1e-300, DOC, "[]"),
    (4, None, None, None, None),
]
NON_FINITE = [(5, "Infinity", "-Infinity", None, None), (6, "NaN", "NaN", None, None)]
HOLDS = {  # what each target can hold: MariaDB no NaN/infinities, SQLite no NaN
    "postgres": {"Infinity", "NaN"},
    "mariadb": set(),
    "sqlite": {"Infinity"},
}


def special(db: Any) -> dict[int, tuple[Any, ...]]:
    """Each row as exact text forms: floats by repr (the sign of zero included), JSON as the
    parsed document with SQL NULL apart from JSON null."""
    cast = "::text" if db.vendor == "postgres" else ""
    rows = db.query(f"SELECT id, f4, f8, j{cast}, js{cast} FROM sv ORDER BY id")

    def fl(v: Any, single: bool = False) -> Any:
        if v is None:
            return None
        # a float4 is compared as the single it is (drivers print it in fewer digits)
        return repr(struct.unpack("f", struct.pack("f", float(v)))[0] if single else float(v))

    def js(v: Any) -> Any:
        if v is None:
            return "SQL NULL"
        # SQLite's JSON columns have NUMERIC affinity: the text 42 is stored as 42
        return json.loads(v) if isinstance(v, str) else v

    return {int(i): (fl(a, True), fl(b), js(c), js(d)) for i, a, b, c, d in rows}


def put_special(db: Any, rows: list[tuple[Any, ...]]) -> None:
    ph = {"postgres": "%s", "mariadb": "%s", "sqlite": "?"}[db.vendor]
    conn = db.connect(autocommit=db.vendor == "sqlite")
    cur = conn.cursor()
    for r in rows:
        vals = [float(v) if i in (1, 2) and isinstance(v, str) else v for i, v in enumerate(r)]
        cur.execute(f"INSERT INTO sv VALUES ({', '.join([ph] * 5)})", vals)
    conn.commit()
    conn.close()


def expected(src: Any, dst: Any) -> dict[int, tuple[Any, ...]]:
    want = special(src)
    if dst.vendor != "postgres":  # MariaDB and SQLite store -0.0 as 0 (their own loss)
        want = {
            k: tuple("0.0" if v == "-0.0" else v for v in r[:2]) + r[2:] for k, r in want.items()
        }
    return want


@pytest.mark.parametrize("pair", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_special_values_arrive_exactly(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    src.execute(SPECIAL[src.vendor])
    data = {
        "channel": "sv",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.sv" if src.vendor == "postgres" else "sv", "snapshot": "none"}],
    }
    (tmp_path / "s.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "s.yaml")
    ch.install()
    put_special(src, FINITE)
    ch.run(once=True, spark=spark)
    got = special(dst)
    assert got == expected(src, dst)
    assert got[1][2] is None and got[4][2] == "SQL NULL"  # JSON null is not SQL NULL
    if src.vendor == "postgres" and dst.vendor == "postgres":
        # the json type keeps its text exactly (spaces, key order)
        assert dst.query("SELECT js::text FROM sv WHERE id = 3") == [("[]",)]
        assert dst.query("SELECT j::text FROM sv WHERE id = 3") == src.query(
            "SELECT j::text FROM sv WHERE id = 3"
        )
        # and the binary forms, byte for byte (the sign of zero, JSON null)
        binary = (
            "SELECT id, encode(float4send(f4), 'hex'), encode(float8send(f8), 'hex'), "
            "encode(jsonb_send(j), 'hex'), encode(json_send(js), 'hex') FROM sv ORDER BY id"
        )
        assert dst.query(binary) == src.query(binary)
    # NaN and infinities where the source holds them: exact where the target can hold
    # them, else the round stops naming the value and applies nothing
    for row in NON_FINITE:
        if row[1] not in HOLDS[src.vendor]:
            continue
        put_special(src, [row])
        if row[1] in HOLDS[dst.vendor]:
            ch.run(once=True, spark=spark)
            assert special(dst) == expected(src, dst)
        else:
            with pytest.raises(TableStopped, match=row[1] if row[1] == "NaN" else "nf"):
                ch.run(once=True, spark=spark)
            assert row[0] not in special(dst)
            return


# -- PostgreSQL's own types ----------------------------------------------------------------
PG_TYPES = [
    "CREATE TYPE mood AS ENUM ('sad', 'happy')",
    "CREATE TYPE pair AS (a integer, b text, c numeric[])",
    "CREATE DOMAIN pos AS integer CHECK (VALUE > 0)",
    "CREATE DOMAIN tags AS text[]",
]
# column: (type, value literals for rows 1 and 2; row 3 is all NULL)
PG_COLS: dict[str, tuple[str, str, str]] = {
    "ai": ("integer[]", "'{1,NULL,3}'", "'{}'"),
    "a2": ("integer[]", "'{{1,2},{3,NULL}}'", "'[0:1]={7,8}'"),
    "at": ("text[]", """'{"a,b",NULL,"q\\"uote","",NULL}'""", "'{}'"),
    "an": ("numeric[]", "'{1.50,-0.000,NaN}'", "'{NULL}'"),
    "af": ("double precision[]", "'{-0,NaN,Infinity,1e-300}'", "'{0.1}'"),
    "ab": ("boolean[]", "'{t,f,NULL}'", "'{}'"),
    "az": ("timestamptz[]", "'{\"2024-01-01 10:00:00.5+05\",NULL}'", "'{}'"),
    "ad": ("date[]", "'{2024-02-29,infinity}'", "'{}'"),
    "ay": ("bytea[]", "ARRAY['\\x00ff'::bytea, NULL, '']", "'{}'"),
    "aj": ("jsonb[]", """ARRAY['null'::jsonb, '{"a": [1]}', NULL]""", "'{}'"),
    "au": ("uuid[]", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'", "'{}'"),
    "ae": ("mood[]", "'{happy,NULL,sad}'", "'{}'"),
    "ac": ("pair[]", "ARRAY[ROW(1, 'x', '{1.5}')::pair, NULL]", "'{}'"),
    "r4": ("int4range", "'[1,10)'", "'empty'"),
    "rn": ("numrange", "'(1.5,2.50]'", "'(,)'"),
    "rt": ("tstzrange", "'[2024-01-01 00:00+00,infinity)'", "'empty'"),
    "rd": ("daterange", "'[2024-01-01,2024-02-01)'", "'empty'"),
    "mr": ("int4multirange", "'{[1,3), [5,8)}'", "'{}'"),
    "dp": ("pos", "7", "1"),
    "dt": ("tags", "'{x,NULL}'", "'{}'"),
    "en": ("mood", "'happy'", "'sad'"),
    "co": ("pair", "ROW(7, 'x, \"y\"', '{1,NULL}')", "ROW(NULL, NULL, NULL)"),
    "bt": ("bit(4)", "B'1010'", "B'0000'"),
    "vb": ("bit varying(8)", "B'101'", "B''"),
    "mo": ("money", "'-1234.56'", "'0'"),
    "uu": (
        "uuid",
        "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
        "'00000000-0000-0000-0000-000000000000'",
    ),
    "ip": ("inet", "'10.0.0.1/8'", "'::1'"),
    "ci": ("cidr", "'192.168.0.0/16'", "'2001:db8::/32'"),
    "ma": ("macaddr", "'08:00:2b:01:02:03'", "'00:00:00:00:00:00'"),
    "m8": ("macaddr8", "'08:00:2b:01:02:03:04:05'", "'00:00:00:00:00:00:00:00'"),
    "iv": ("interval", "'1 year 2 mons -3 days 04:05:06.789'", "'-00:00:00.000001'"),
    "tt": ("time with time zone", "'12:00:01.5+05:30'", "'00:00:00-12'"),
    "xm": ("xml", "'<a b=\"1\">t &amp; u</a>'", "'text only'"),
    "tv": ("tsvector", "'a:1A fat:2 cat''s'", "''"),
    "tq": ("tsquery", "'fat & (rat | cat)'", "'x'"),
    "pt": ("point", "'(1.5,-2)'", "'(0,0)'"),
    "li": ("line", "'{1,-1,0}'", "'{0,1,2}'"),
    "ls": ("lseg", "'[(0,0),(1,1)]'", "'[(1,2),(3,4)]'"),
    "bx": ("box", "'(1,1),(0,0)'", "'(2,2),(2,2)'"),
    "pa": ("path", "'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1))'"),
    "pg": ("polygon", "'((0,0),(1,1),(1,0))'", "'((0,0))'"),
    "cr": ("circle", "'<(1,2),3>'", "'<(0,0),0>'"),
    "oi": ("oid", "4294967295", "0"),
    "rt2": ("regtype", "'integer'", "'text'"),
    "ln": ("pg_lsn", "'16/B374D848'", "'0/0'"),
    "ch": ('"char"', "'x'", "''"),
}


def pg_text(db: Any) -> dict[int, dict[str, Any]]:
    """Every column of the PostgreSQL table as PostgreSQL writes it (UTC, ISO)."""
    conn = db.connect(autocommit=True)
    try:
        conn.execute("SET TimeZone = 'UTC'")
        # concat() writes a value by its type's output function (inet's ::text adds /128)
        cols = ", ".join(f"CASE WHEN {c}::text IS NOT NULL THEN concat({c}) END" for c in PG_COLS)
        rows = conn.execute(f"SELECT id, {cols} FROM pt ORDER BY id").fetchall()
    finally:
        conn.close()
    return {int(r[0]): dict(zip(PG_COLS, r[1:], strict=True)) for r in rows}


# element or field types made per database (their OIDs differ between two databases, and an
# array's binary form carries its element type's OID)
OWN_OIDS = {"ae", "ac"}


def pg_binary(db: Any) -> dict[int, dict[str, Any]]:
    """Every column's binary form (its type's send function), where it carries no OID of a
    type made in that database."""
    sends = dict(
        db.query(
            "SELECT a.attname, t.typsend::text FROM pg_attribute a JOIN pg_type t "
            "ON t.oid = a.atttypid WHERE a.attrelid = 'pt'::regclass AND a.attnum > 1"
        )
    )
    cols = [c for c in PG_COLS if c not in OWN_OIDS]
    sql = ", ".join(f"encode({sends[c]}({c}), 'hex')" for c in cols)
    rows = db.query(f"SELECT id, {sql} FROM pt ORDER BY id")
    return {int(r[0]): dict(zip(cols, r[1:], strict=True)) for r in rows}


def other_text(db: Any) -> dict[int, dict[str, Any]]:
    cols = ", ".join(db_quote(db, c) for c in PG_COLS)
    rows = db.query(f"SELECT id, {cols} FROM pt ORDER BY id")
    out: dict[int, dict[str, Any]] = {}
    for r in rows:
        vals = [v.decode() if isinstance(v, bytes) else v for v in r[1:]]
        out[int(r[0])] = {
            c: None if v is None else str(v) for c, v in zip(PG_COLS, vals, strict=True)
        }
    return out


def db_quote(db: Any, name: str) -> str:
    return f"`{name}`" if db.vendor == "mariadb" else f'"{name}"'


PG_PAIRS = [("postgres", v) for v in VENDORS]


@pytest.mark.parametrize("pair", PG_PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PG_PAIRS])
def test_postgresql_types_arrive_exactly(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    src.execute(*PG_TYPES)
    if dst.vendor == "postgres":
        dst.execute(*PG_TYPES)  # a type of one's own is made at the target first
    defs = ", ".join(f"{c} {t}" for c, (t, _, _) in PG_COLS.items())
    src.execute(f"CREATE TABLE pt (id integer PRIMARY KEY, {defs})")
    data = {
        "channel": "pt",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.pt", "snapshot": "none"}],
    }
    (tmp_path / "p.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "p.yaml")
    ch.install()
    for i in (1, 2):
        vals = ", ".join(v[i] for v in PG_COLS.values())
        src.execute(f"INSERT INTO pt VALUES ({i}, {vals})")
    src.execute("INSERT INTO pt (id) VALUES (3)")
    ch.run(once=True, spark=spark)
    want = pg_text(src)
    got = pg_text(dst) if dst.vendor == "postgres" else other_text(dst)
    if dst.vendor != "postgres":
        # elsewhere each value is PostgreSQL's text form, except these mapped types
        for r in want.values():
            if r["mo"] is not None:  # money as its number
                r["mo"] = src.query(f"SELECT '{r['mo']}'::money::numeric::text")[0][0]
    for i in (1, 2, 3):
        for c in PG_COLS:
            assert got[i][c] == want[i][c], (i, c, PG_COLS[c][0])
    if dst.vendor == "postgres":  # and the binary form, byte for byte
        bins, binw = pg_binary(dst), pg_binary(src)
        for i in (1, 2, 3):
            for c in binw[i]:
                assert bins[i][c] == binw[i][c], (i, c, PG_COLS[c][0])
    # updates and deletes arrive as well
    src.execute("UPDATE pt SET ai = '{{1}}', co = NULL WHERE id = 1", "DELETE FROM pt WHERE id = 2")
    ch.run(once=True, spark=spark)
    got = pg_text(dst) if dst.vendor == "postgres" else other_text(dst)
    assert sorted(got) == [1, 3] and got[1]["ai"] == "{{1}}" and got[1]["co"] is None


def a_value_the_target_would_round_stops_the_table(
    src: Any, dst: Any, tmp: Path, spark: Any
) -> Any:
    """PostgreSQL to PostgreSQL into a target the user made narrower than the source: a
    timestamp, time or interval with more fractional digits (or fields) than the column
    keeps, a double precision into real, a numeric into double precision, a numeric array
    into numeric(5,2)[], a timestamp into a date: the cast would round or cut each without
    a word; the table stops instead, naming the type and the value, and widening the
    column lets the same round through."""
    src.execute(
        "CREATE TABLE vals (id integer PRIMARY KEY, ts timestamp, tz timestamptz, tm time, "
        "iv interval, f8 double precision, n numeric, na numeric[], d timestamp, m numeric, "
        "fa double precision[])"
    )
    dst.execute(
        "CREATE TABLE vals (id integer PRIMARY KEY, ts timestamp(0), tz timestamptz(0), "
        "tm time(0), iv interval day, f8 real, n double precision, na numeric(5,2)[], d date, "
        "m money, fa real[])"
    )
    ch = channel(src, dst, tmp)
    ch.install()
    # what fits arrives (1.2 is 1.20 in numeric(5,2), 0.5 is the same number as a real)
    sql(src, "INSERT INTO vals VALUES (1, '2024-01-01 10:00:00', '2024-01-01 10:00:00+02', "
        "'10:00:00', '2 days', 0.5, 0.25, '{1.2,NULL}', '2024-01-01 00:00', 12.3, "
        "'{0.5,NULL,0.1}')")  # fmt: skip
    ch.run(once=True, spark=spark)
    got = "SELECT ts::text, tz::text, tm::text, iv::text, f8::text, n::text, na::text, d::text, "
    got += "m::numeric::text, fa::text "
    got += "FROM vals"
    want = [
        "2024-01-01 10:00:00", "2024-01-01 08:00:00+00", "10:00:00", "2 days", "0.5", "0.25",
        "{1.20,NULL}", "2024-01-01", "12.30", "{0.5,NULL,0.1}",
    ]  # fmt: skip
    assert [list(r) for r in utc(dst, got)] == [want]
    for bad, widen, pos, full in [
        ("ts = '2024-01-01 10:00:00.7'", "ts TYPE timestamp", 0, "2024-01-01 10:00:00.7"),
        ("tz = '2024-01-01 10:00:00.7+00'", "tz TYPE timestamptz", 1,
         "2024-01-01 10:00:00.7+00"),
        ("tm = '10:00:00.5'", "tm TYPE time", 2, "10:00:00.5"),
        ("iv = '1 day 03:00'", "iv TYPE interval", 3, "1 day 03:00:00"),
        ("f8 = 0.123456789", "f8 TYPE double precision", 4, "0.123456789"),
        ("n = 0.12345678901234567890", "n TYPE numeric", 5, "0.12345678901234567890"),
        ("na = '{1.234}'", "na TYPE numeric[]", 6, "{1.234}"),
        ("d = '2024-01-01 10:00'", "d TYPE timestamp", 7, "2024-01-01 10:00:00"),
        ("m = 12.345", "m TYPE numeric USING m::numeric", 8, "12.345"),
        ("fa = '{0.123456789}'", "fa TYPE double precision[]", 9, "{0.123456789}"),
    ]:  # fmt: skip
        sql(src, f"UPDATE vals SET {bad} WHERE id = 1")
        with pytest.raises(TableStopped, match="does not fit"):
            ch.run(once=True, spark=spark)
        assert [list(r) for r in utc(dst, got)] == [want]
        dst.execute(f"ALTER TABLE vals ALTER {widen}")
        ch.run(once=True, spark=spark)
        want[pos] = full
        assert [list(r) for r in utc(dst, got)] == [want]
    return ch


def utc(db: Any, query: str) -> list[tuple[Any, ...]]:
    conn = db.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET TIME ZONE 'UTC'")
        cur.execute(query)
        return list(cur.fetchall())
    finally:
        conn.close()


def test_a_value_the_target_would_round_stops_the_table(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        a_value_the_target_would_round_stops_the_table(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def a_value_mariadb_would_round_stops_the_table(src: Any, dst: Any, tmp: Path, spark: Any) -> Any:
    """PostgreSQL to a MariaDB table the user made narrower than the source: a number with
    a fraction into an INT or a TINYINT(1) (MariaDB rounds it, '1.5' to 2, without a
    warning), a numeric with more digits than a DOUBLE holds, a time with more fractional
    digits than a DATETIME(0) or TIME(0) keeps (cut without a warning), a text an ENUM
    of a case-insensitive collation takes as its label of other case ('A' as 'a'), a
    two-digit number a YEAR reads as a year of this century (24 as 2024), a double a
    FLOAT would round to single precision (0.1), labels a SET would write in its own
    order ('b,a' as 'a,b'), a number a FLOAT(m,d) or DOUBLE(m,d) would round to d decimals
    (a float's too):
    the table stops naming the value, and widening the column lets the same round through."""
    src.execute(
        "CREATE TABLE vals (id integer PRIMARY KEY, n numeric, ts timestamp, tm time, "
        "tz timestamptz, b numeric, f numeric, e text, y integer, g double precision, st text, "
        "fd double precision, ff real)"
    )
    dst.execute(
        "CREATE TABLE vals (id int PRIMARY KEY, n int, ts datetime(0), tm time(0), "
        "tz datetime(0), b tinyint(1), f double, "
        "e enum('a','b','it''s, (x)') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, "
        "y year, g float, st set('a','b'), fd double(10,3), ff float(7,2)) ENGINE=InnoDB"
    )
    ch = channel(src, dst, tmp)
    ch.install()
    # what fits arrives (12.0 is the integer 12; +02:00 taken off the time)
    sql(src, "INSERT INTO vals VALUES (1, 12.0, '2024-01-01 10:00:00', '10:00:00', "
        "'2024-01-01 10:00:00+02', 1, 0.25, 'it''s, (x)', 2024, 0.5, 'a,b', "
        "0.25, 0.5)")  # fmt: skip
    ch.run(once=True, spark=spark)
    got = "SELECT CAST(n AS CHAR), CAST(ts AS CHAR), CAST(tm AS CHAR), CAST(tz AS CHAR), "
    got += "CAST(b AS CHAR), CAST(f AS CHAR), CAST(e AS CHAR), CAST(y AS CHAR), "
    got += "CAST(g AS CHAR), CAST(st AS CHAR), CAST(fd AS CHAR), CAST(ff AS CHAR) FROM vals"
    want = [
        "12", "2024-01-01 10:00:00", "10:00:00", "2024-01-01 08:00:00", "1", "0.25", "it's, (x)",
        "2024", "0.5", "a,b", "0.250", "0.50",
    ]  # fmt: skip
    assert [list(r) for r in dst.query(got)] == [want]
    for bad, widen, pos, full in [
        ("n = -0.4", "n decimal(10,1)", 0, "-0.4"),
        ("ts = '2024-01-01 10:00:00.7'", "ts datetime(6)", 1, "2024-01-01 10:00:00.700000"),
        ("tm = '10:00:00.5'", "tm time(6)", 2, "10:00:00.500000"),
        ("tz = '2024-01-01 10:00:00.25+02'", "tz datetime(6)", 3, "2024-01-01 08:00:00.250000"),
        ("b = 1.5", "b decimal(3,1)", 4, "1.5"),
        ("f = 0.12345678901234567890", "f decimal(30,20)", 5, "0.12345678901234567890"),
        ("e = 'A'", "e varchar(20)", 6, "A"),
        ("y = 24", "y int", 7, "24"),
        ("g = 0.1", "g double", 8, "0.1"),
        ("st = 'b,a'", "st varchar(5)", 9, "b,a"),
        ("fd = 1.2345", "fd double(10,4)", 10, "1.2345"),
        ("fd = 1e-40", "fd double", 10, "1e-40"),
        ("ff = 1.125", "ff float", 11, "1.125"),
    ]:  # fmt: skip
        sql(src, f"UPDATE vals SET {bad} WHERE id = 1")
        with pytest.raises(TableStopped, match="does not fit"):
            ch.run(once=True, spark=spark)
        assert [list(r) for r in dst.query(got)] == [want]
        dst.execute(f"ALTER TABLE vals MODIFY {widen}")
        ch.run(once=True, spark=spark)
        want[pos] = full
        assert [list(r) for r in dst.query(got)] == [want]
    return ch


def test_a_value_mariadb_would_round_stops_the_table(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_mariadb()]
    src, dst = (next(g) for g in gens)
    try:
        a_value_mariadb_would_round_stops_the_table(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def keys_equal_only_at_the_target_keep_the_upserted_row(
    src: Any, dst: Any, tmp: Path, spark: Any
) -> Any:
    """PostgreSQL numeric keys into an integer key the user made (MariaDB INT, SQLite
    INTEGER; text keys into a PostgreSQL integer): 1.0 and 1 ('01' and '1') are two keys'
    texts at the source, one key at the target. A window that deletes 1.0 and inserts 1
    leaves the source with row 1: the delete, applied after
    the upsert, must spare the row the upsert wrote (a key of integers into integers needs
    no such care; this one does)."""
    # PostgreSQL refuses '1.0'::integer: a text key's '01' and '1' there
    one, key = ("'01'", "text") if dst.vendor == "postgres" else ("1.0", "numeric")
    src.execute(f"CREATE TABLE vals (id {key} PRIMARY KEY, v text)")
    engine = " ENGINE=InnoDB" if dst.vendor == "mariadb" else ""
    dst.execute(f"CREATE TABLE vals (id integer PRIMARY KEY, v text){engine}")
    ch = channel(src, dst, tmp)
    ch.install()
    sql(src, f"INSERT INTO vals VALUES ({one}, 'a'), ('2', 'x')")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, v FROM vals ORDER BY id") == [(1, "a"), (2, "x")]
    sql(src, f"DELETE FROM vals WHERE id = {one} AND v = 'a'",
        "INSERT INTO vals VALUES ('1', 'b')", "DELETE FROM vals WHERE id = '2'")  # fmt: skip
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, v FROM vals ORDER BY id") == [(1, "b")]
    return ch


@pytest.mark.parametrize("target", ["mariadb", "sqlite", "postgres"])
def test_keys_equal_only_at_the_target_keep_the_upserted_row(
    target: str, tmp_path: Path, spark: Any
) -> None:
    mk = {"mariadb": make_mariadb, "postgres": make_pg}
    gens = [make_pg(), mk[target]() if target in mk else make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    try:
        keys_equal_only_at_the_target_keep_the_upserted_row(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def two_source_keys_of_one_target_key_stop_the_table(
    src: Any, dst: Any, tmp: Path, spark: Any
) -> Any:
    """PostgreSQL text keys into an integer key the user made (PostgreSQL, MariaDB): '01'
    and '1', two live rows at the source, would be one row at the target, the second
    upsert taking the first's place. The table stops naming the keys; with a text key at
    the target (the way back the message gives) the same round brings both rows."""
    src.execute("CREATE TABLE vals (id text PRIMARY KEY, v text)")
    engine = " ENGINE=InnoDB" if dst.vendor == "mariadb" else ""
    dst.execute(f"CREATE TABLE vals (id integer PRIMARY KEY, v text){engine}")
    ch = channel(src, dst, tmp)
    ch.install()
    # validate says it before any round: keys that arrive in different rounds would
    # become one row without a stop
    said = [n for ns in ch.notes().values() for n in ns if "text at the source" in n]
    assert len(said) == 1 and said[0].startswith("warning: target "), said
    assert "key column id is " in said[0] and "'1' and '01'" in said[0], said
    sql(src, "INSERT INTO vals VALUES ('2', 'x')")
    ch.run(once=True, spark=spark)
    sql(src, "INSERT INTO vals VALUES ('01', 'a'), ('1', 'b')")
    with pytest.raises(TableStopped, match=r"'01' and '1'|2 keys .* '1'"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, v FROM vals ORDER BY id") == [(2, "x")]
    kept = [("2", "x")]
    if dst.vendor == "mariadb":
        dst.execute("ALTER TABLE vals MODIFY id varchar(10) COLLATE utf8mb4_nopad_bin")
    elif dst.vendor == "postgres":
        dst.execute("ALTER TABLE vals ALTER id TYPE text")
    else:  # SQLite changes no column's type: the table made again
        dst.execute("DROP TABLE vals", "CREATE TABLE vals (id TEXT PRIMARY KEY, v TEXT)")
        kept = []
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, v FROM vals ORDER BY id") == [("01", "a"), ("1", "b"), *kept]
    assert not [n for ns in ch.notes().values() for n in ns if "text at the source" in n]
    return ch


@pytest.mark.parametrize("target", ["mariadb", "postgres", "sqlite"])
def test_two_source_keys_of_one_target_key_stop_the_table(
    target: str, tmp_path: Path, spark: Any
) -> None:
    mk = {"mariadb": make_mariadb, "postgres": make_pg}
    gens = [make_pg(), mk[target]() if target in mk else make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    try:
        two_source_keys_of_one_target_key_stop_the_table(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def a_domain_converts_as_its_base_type(src: Any, dst: Any, tmp: Path, spark: Any) -> Any:
    """PostgreSQL to PostgreSQL with domains at the target: a domain over bytea gets the
    bytes (not the record's base64 read as text), and a domain over varchar(3) or
    numeric(5,2) of a target the user made narrower, or an array of such domains, stops
    the table on a value its cast would cut or round, instead of cutting or rounding it."""
    src.execute(
        "CREATE DOMAIN dbin AS bytea",
        "CREATE TABLE vals (id integer PRIMARY KEY, b dbin, v text, m numeric, va text[], "
        "ma numeric[])",
    )
    dst.execute(
        "CREATE DOMAIN dbin AS bytea",
        "CREATE DOMAIN d3 AS varchar(3)",
        "CREATE DOMAIN dm AS numeric(5,2)",
        "CREATE DOMAIN dd3 AS d3",
        "CREATE TABLE vals (id integer PRIMARY KEY, b dbin, v dd3, m dm, va d3[], ma dm[])",
    )
    ch = channel(src, dst, tmp)
    ch.install()
    sql(src, "INSERT INTO vals VALUES (1, '\\x0001ff', 'abc', 1.5, '{abc,NULL}', '{1.5}')")
    ch.run(once=True, spark=spark)
    got = "SELECT b, v::text, m::text, va::text, ma::text FROM vals"
    want: list[Any] = [b"\x00\x01\xff", "abc", "1.50", "{abc,NULL}", "{1.50}"]
    assert [list(r) for r in dst.query(got)] == [want]
    for bad, widen, pos, full in [
        ("v = 'abcd'", "v TYPE text", 1, "abcd"),
        ("m = 1.234", "m TYPE numeric", 2, "1.234"),
        ("va = '{abcd}'", "va TYPE text[]", 3, "{abcd}"),
        ("ma = '{1.234}'", "ma TYPE numeric[]", 4, "{1.234}"),
    ]:
        sql(src, f"UPDATE vals SET {bad} WHERE id = 1")
        with pytest.raises(TableStopped):
            ch.run(once=True, spark=spark)
        assert [list(r) for r in dst.query(got)] == [want]
        dst.execute(f"ALTER TABLE vals ALTER {widen}")
        ch.run(once=True, spark=spark)
        want[pos] = full
        assert [list(r) for r in dst.query(got)] == [want]
    return ch


def test_a_domain_converts_as_its_base_type(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        a_domain_converts_as_its_base_type(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def char_n_arrives_as_it_is(src: Any, dst: Any, tmp: Path, spark: Any) -> Any:
    """PostgreSQL char(n) to the char(n) syncpoint creates: every value arrives with its
    blanks as the source holds them (padded to n; a value of blanks only, a leading blank,
    a full one), through an insert and an update."""
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, c char(5), a char(3)[])")
    ch = channel(src, dst, tmp)
    ch.install()
    sql(src, "INSERT INTO vals VALUES (1, 'ab', '{x,\"y \"}'), (2, '', NULL), "
        "(3, ' a', '{\"  \"}'), (4, 'abcde', '{}')")  # fmt: skip
    ch.run(once=True, spark=spark)
    got = "SELECT id, c, octet_length(c), a::text FROM vals ORDER BY id"
    assert dst.query(got) == src.query(got)
    sql(src, "UPDATE vals SET c = 'x  ' WHERE id = 1", "UPDATE vals SET c = 'y' WHERE id = 4")
    ch.run(once=True, spark=spark)
    assert dst.query(got) == src.query(got)
    typ = "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
    typ += "WHERE attrelid = 'vals'::regclass AND attname = 'c'"
    assert dst.query(typ) == [("character(5)",)]
    return ch


def test_char_n_arrives_as_it_is(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        char_n_arrives_as_it_is(src, dst, tmp_path, spark)
    finally:
        for g in gens:
            next(g, None)


def test_a_time_with_an_offset_arrives_at_utc(tmp_path: Path, spark: Any) -> None:
    """SQLite to PostgreSQL: a DATETIME column's text with an offset into the timestamp
    syncpoint creates arrives as the time at UTC (as at a MariaDB target), not with its
    offset dropped; one without an offset as it is. A TIME column's likewise into a
    PostgreSQL time (a timetz keeps the offset)."""
    gens = [make_sqlite(tmp_path), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        src.execute("CREATE TABLE vals (id INTEGER PRIMARY KEY, ts DATETIME, tm TIME, tt TIME)")
        dst.execute("CREATE TABLE vals (id integer PRIMARY KEY, ts timestamp, tm time, tt timetz)")
        ch = channel(src, dst, tmp_path)
        ch.install()
        sql(src, "INSERT INTO vals VALUES (1, '2024-03-10T02:30:00.5+05:30', '02:30:00.5+05:30', "
            "'02:30:00.5+05:30'), (2, '2024-01-01 10:00:00-08:00', '10:00:00-08:00', "
            "'10:00:00-08:00'), (3, '2024-01-01 10:00:00', '10:00:00', '10:00:00'), "
            "(4, '2024-01-01T10:00:00Z', '10:00:00Z', '10:00:00Z')")  # fmt: skip
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, ts::text, tm::text, tt::text FROM vals ORDER BY id") == [
            (1, "2024-03-09 21:00:00.5", "21:00:00.5", "02:30:00.5+05:30"),
            (2, "2024-01-01 18:00:00", "18:00:00", "10:00:00-08"),
            (3, "2024-01-01 10:00:00", "10:00:00", "10:00:00+00"),
            (4, "2024-01-01 10:00:00", "10:00:00", "10:00:00+00"),
        ]  # fmt: skip
    finally:
        for g in gens:
            next(g, None)


def test_a_number_sqlite_would_round_stops_the_table(tmp_path: Path, spark: Any) -> None:
    """PostgreSQL to SQLite columns the user made NUMERIC, INTEGER and REAL: a numeric with
    more digits than a float keeps (SQLite reads it as the nearest float) stops the table
    naming the value; what fits arrives (an integer within 64 bits, 12.50 as 12.5, a text
    column's number as SQLite reads it). Made TEXT, the columns take every digit."""
    gens = [make_pg(), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    try:
        src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, i numeric, t text)")
        dst.execute("CREATE TABLE vals (id INTEGER PRIMARY KEY, n NUMERIC, i INTEGER, t REAL)")
        ch = channel(src, dst, tmp_path)
        ch.install()
        sql(src, "INSERT INTO vals VALUES (1, 12.50, 9223372036854775807, '0.5')")
        ch.run(once=True, spark=spark)
        got = "SELECT id, n, i, t FROM vals ORDER BY id"
        assert dst.query(got) == [(1, 12.5, 9223372036854775807, 0.5)]
        sql(src, "INSERT INTO vals VALUES (2, 0.12345678901234567890, 1, '1'), "
            "(3, 1, 12345678901234567890, '1'), (4, 1, 1, '123456789012345678.5')")  # fmt: skip
        with pytest.raises(TableStopped, match=r"n: the value 0.12345678901234567890 does not"):
            ch.run(once=True, spark=spark)
        assert dst.query(got) == [(1, 12.5, 9223372036854775807, 0.5)]
        # the way back: a column that keeps every digit (row 1 is not in the round's window)
        dst.execute("DROP TABLE vals", "CREATE TABLE vals (id INTEGER PRIMARY KEY, n TEXT, "
                    "i TEXT, t TEXT)")  # fmt: skip
        ch.run(once=True, spark=spark)
        assert dst.query(got) == [
            (2, "0.12345678901234567890", "1", "1"),
            (3, "1", "12345678901234567890", "1"),
            (4, "1", "1", "123456789012345678.5"),
        ]
    finally:
        for g in gens:
            next(g, None)
