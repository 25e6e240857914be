"""Values through a round, for every vendor pair: the target table is created by syncpoint
from the source's columns, and every value arrives exactly (digits of exact numerics,
bytes, instants, unicode), or the round stops with a clear message instead of rounding."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from syncpoint.channel import Channel
from syncpoint.errors import TableStopped
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
        "tables": [{"name": "public.vals" if src.vendor == "postgres" else "vals"}],
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
