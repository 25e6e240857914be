"""The direct path's typed staging, PostgreSQL to PostgreSQL: every round of these tests
takes the direct path (``driver_round_max: 0``), where the copy tasks stage each window's
changes in the target's own column types. The value suites of test_rounds_values.py run
here as they are, and each round says it staged its table typed; a value the typed copy
cannot read falls back to the JSON text, whose apply stops the table with the reason.
MariaDB to PostgreSQL takes the direct path too, staged typed as well (the records streamed
into the target and parsed there by the copy tasks), and so do PostgreSQL to MariaDB
(netted by the source, loaded typed) and MariaDB to MariaDB (netted by the source, its
lines loaded typed by the JSON path's own expressions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.config import TableName
from syncpoint.core import netting
from syncpoint.errors import SyncpointError, TableStopped
from syncpoint.ops.channel import Channel
from syncpoint.vendors import of_url
from syncpoint.vendors.mariadb import round_direct as maria_direct
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system import test_rounds_values as tv

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture
def direct(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every channel made in the test takes the direct path; the rounds' reports."""
    made = Channel.from_file.__func__  # type: ignore[attr-defined]
    reports: list[dict[str, Any]] = []

    def from_file(cls: type[Channel], path: Any, *a: Any, **kw: Any) -> Channel:
        data = json.loads(Path(path).read_text())
        data.setdefault("spark", {})["driver_round_max"] = 0
        Path(path).write_text(json.dumps(data))
        ch = made(cls, path, *a, **kw)
        run = ch.run

        def run_and_keep(*ra: Any, **rkw: Any) -> Any:
            report = run(*ra, **rkw)
            reports.extend(report.rounds)
            return report

        ch.run = run_and_keep  # type: ignore[method-assign]
        return ch

    monkeypatch.setattr(Channel, "from_file", classmethod(from_file))
    return reports


@pytest.fixture
def pg_pair() -> Any:
    gens = [make_pg(), make_pg()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


@pytest.fixture
def maria_pg() -> Any:
    gens = [make_mariadb(), make_pg()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


@pytest.fixture
def pg_maria() -> Any:
    gens = [make_pg(), make_mariadb()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


@pytest.fixture
def maria_maria() -> Any:
    gens = [make_mariadb(), make_mariadb()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


def typed_rounds(reports: list[dict[str, Any]]) -> list[list[str]]:
    return [r["typed"] for r in reports if r["changes"]]


def direct_rounds(reports: list[dict[str, Any]]) -> list[bool]:
    return [r["direct"] for r in reports if r["changes"]]


def test_values_arrive_exactly_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_values_arrive_exactly(pg_pair, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_special_values_arrive_exactly_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(pg_pair, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.sv"] for t in typed_rounds(direct))


def test_postgresql_types_arrive_exactly_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_postgresql_types_arrive_exactly(pg_pair, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.pt"] for t in typed_rounds(direct))


def test_mariadb_values_arrive_exactly_on_the_direct_path(
    maria_pg: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_values_arrive_exactly(maria_pg, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # staged typed: the values are those of the JSON path (test_rounds_values.py)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_mariadb_special_values_arrive_exactly_on_the_direct_path(
    maria_pg: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(maria_pg, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # staged typed: the values are those of the JSON path (test_rounds_values.py)
    assert typed_rounds(direct) and all(t == ["public.sv"] for t in typed_rounds(direct))


# Every MariaDB type (docs/types.md) into tables syncpoint creates, and into columns a user
# made of types whose conversion the apply checks (a time's offset taken at UTC, a date
# fed by a DATETIME, money, a real fed by a FLOAT).
MARIA_ALL = [
    "CREATE TABLE ty (id INT PRIMARY KEY, ti TINYINT, ubi BIGINT UNSIGNED, bo BOOLEAN, "
    "d DECIMAL(12,2), d65 DECIMAL(65,30), f FLOAT, db DOUBLE, bt BIT(10), c CHAR(5), "
    "vc VARCHAR(100), tx TEXT, bn BINARY(4), vb VARBINARY(300), bl BLOB, dt DATE, "
    "dtm6 DATETIME(6), ts TIMESTAMP(6) NULL, tm TIME(6), y YEAR, e ENUM('a', 'b c'), "
    "st SET('x', 'y'), j JSON, u UUID, i6 INET6) ENGINE=InnoDB",
    "CREATE TABLE ut (id INT PRIMARY KEY, ot VARCHAR(40), od DATETIME, mo DECIMAL(12,2), "
    "r FLOAT, tt VARCHAR(40)) ENGINE=InnoDB",
]
PG_UT = (
    "CREATE TABLE ut (id integer PRIMARY KEY, ot timestamp, od date, mo money, r real, tt time)"
)
TY_ROWS: list[tuple[Any, ...]] = [
    (1, -128, 18446744073709551615, 1, "-9999999999.99",
     "-99999999999999999999999999999999999.999999999999999999999999999999",
     3.4028234663852886e38, 1.7976931348623157e308, 1023, "ab",
     "héllo 😀 \u202eRTL \\N", "'q' \"d\" \\b\n\ttab\r", b"\x00\x01\t\n",
     bytes(range(256)), bytes(range(256)) * 40, "1000-01-01", "9999-12-31 23:59:59.999999",
     "2038-01-01 00:00:00.999999", "12:34:56.5", 2155, "b c", "x,y",
     '{"a": 12.500, "n": null, "arr": [1, "😀"], "big": 123456789012345678901234567890}',
     "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "::1"),
    (2, 0, 0, 0, "0.00", "-0.000000000000000000000000000001", -1.5e-45, -1e-300, 0, "",
     "", "", b"", b"", b"", "2024-02-29", "2024-01-01 00:00:00", "2000-01-01 00:00:00",
     "00:00:00", 1901, "a", "", "null", "00000000-0000-0000-0000-000000000000",
     "::ffff:10.0.0.1"),
    (3, *([None] * 24)),
]  # fmt: skip
UT_ROWS = [
    (1, "2024-01-01 10:00:00+02:00", "2024-01-01 00:00:00", "-1234.56", 0.5, "10:00:00+02:00"),
    (2, "2024-03-10T02:30:00.5-05:30", "1969-07-20 00:00:00", "0.01", -2.5, "23:30:00.5-05:30"),
    (3, "2024-06-01 12:00:00", None, None, None, "12:00:00"),
]


def test_mariadb_rounds_are_staged_typed_as_the_json_path_applies_them(
    maria_pg: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """One MariaDB source into two PostgreSQL targets, each round of one staged as JSON
    text and of the other staged typed (the records parsed by the copy tasks): every
    value of every type, updates, deletes and keys moved (also across the two copy tasks
    of a window) leave the two targets equal, row by row as PostgreSQL writes them."""
    from syncpoint.ops.round import GroupRound

    src, dst = maria_pg
    other_gen = make_pg()
    other = next(other_gen)
    try:
        src.execute(*MARIA_ALL)
        for db in (dst, other):
            db.execute(PG_UT)
        typed_only = GroupRound._typed_stagings

        def json_at_cen1(self: Any, plan: Any, data: Any) -> Any:
            return typed_only(self, plan, data) if self.integrate == "cen" else {}

        monkeypatch.setattr(GroupRound, "_typed_stagings", json_at_cen1)
        data = {
            "channel": "ty",
            "application": "wh",
            "locations": {
                "src": {"url": src.url, "capture": True},
                "cen": {"url": dst.url, "integrate": True},
                "cen1": {"url": other.url, "integrate": True},
            },
            "tables": [{"name": t, "snapshot": "none"} for t in ("ty", "ut")],
        }
        (tmp_path / "ty.yaml").write_text(json.dumps(data))
        ch = Channel.from_file(tmp_path / "ty.yaml")
        ch.install()
        marks = ", ".join(["%s"] * 25)
        for row in TY_ROWS:
            src.execute(f"INSERT INTO ty VALUES ({marks})", params=row)
        for row in UT_ROWS:
            src.execute("INSERT INTO ut VALUES (%s, %s, %s, %s, %s, %s)", params=row)
        ch.run(once=True, spark=spark)
        src.execute(
            "UPDATE ty SET id = 10, vc = 'moved' WHERE id = 1",
            "UPDATE ty SET db = -0e0, f = -0e0, j = NULL, tx = 'x\ty' WHERE id = 2",
            "DELETE FROM ty WHERE id = 3",
            "UPDATE ut SET ot = '2024-01-01 23:30:00-01:00', mo = 99.99 WHERE id = 1",
            "DELETE FROM ut WHERE id = 3",
            # a window of two copy tasks: the key moves again after 2,500 inserts
            "INSERT INTO ty (id, vc) SELECT seq, 'filler' FROM seq_100_to_2599",
            "UPDATE ty SET id = 3, j = '[]' WHERE id = 10",
            "UPDATE ty SET id = 2 - id WHERE id = 2",  # 0: an upsert and a delete of 2
            "INSERT INTO ty (id, vc) VALUES (2, 'inserted again')",
            "DELETE FROM ty WHERE id BETWEEN 100 AND 2000",
        )
        ch.run(once=True, spark=spark)
        for table in ("ty", "ut"):
            rows = f"SELECT t::text FROM {table} t ORDER BY id"
            assert dst.query(rows) == other.query(rows)
        assert dst.query("SELECT count(*) FROM ty") == src.query("SELECT count(*) FROM ty")
        assert other.query("SELECT ot::text FROM ut ORDER BY id") == [
            ("2024-01-02 00:30:00",), ("2024-03-10 08:00:00.5",),
        ]  # fmt: skip
        # a time's text with an offset, typed as on the JSON path: the time at UTC
        assert dst.query("SELECT tt::text FROM ut ORDER BY id") == [
            ("08:00:00",), ("05:00:00.5",),
        ]  # fmt: skip
        rounds = [r for r in direct if r["changes"]]
        assert {r["integrate"] for r in rounds} == {"cen", "cen1"}
        assert all(r["direct"] for r in rounds)
        # the rounds at cen were staged typed, those at cen1 as JSON text
        assert all(r["typed"] for r in rounds if r["integrate"] == "cen")
        assert not any(r["typed"] for r in rounds if r["integrate"] == "cen1")
    finally:
        next(other_gen, None)


def test_mariadb_values_arrive_exactly_in_mariadb_on_the_direct_path(
    maria_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_values_arrive_exactly(maria_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # netted by the source, staged typed: the values are those of the JSON path
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))


def test_mariadb_special_values_arrive_exactly_in_mariadb_on_the_direct_path(
    maria_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(maria_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    assert typed_rounds(direct) and all(t == ["sv"] for t in typed_rounds(direct))


# MariaDB into MariaDB: types beyond MARIA_ALL's (dates with zero parts, spatial values
# with their SRID, bits, small integers, INET4, a latin1 column and one of a folding
# collation, a two-digit year's column), and control characters in text.
MARIA_MORE = (
    "CREATE TABLE zz (id INT PRIMARY KEY, dz DATE, tz DATETIME, si SMALLINT UNSIGNED, "
    "mi MEDIUMINT, b1 BIT(1), b64 BIT(64), t1 TINYINT(1), g GEOMETRY, pt POINT, i4 INET4, "
    "l1 VARCHAR(20) CHARACTER SET latin1, ci VARCHAR(20) COLLATE utf8mb4_general_ci, "
    "y YEAR, cc TEXT) ENGINE=InnoDB"
)
ZZ_ROWS = [
    "(1, '2024-00-00', '0000-00-00 00:00:00', 65535, -8388608, b'1', 18446744073709551615, "
    "1, ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))', 4326), POINT(1.5, -2.25), "
    "'10.0.0.1', 'Ärger ß', 'Straße', 69, CONCAT('f', CHAR(12), 'v', CHAR(11), 'b', CHAR(8), "
    "'z', CHAR(0), 'n', CHAR(10), 'r', CHAR(13), 't', CHAR(9), '\\\\N \\\\t \\\\'))",
    "(2, '0000-00-00', '2024-02-00 10:00:00', 0, 8388607, b'0', 0, -1, "
    "ST_GeomFromText('LINESTRING(0 0, 3 4)'), ST_PointFromText('POINT(0 0)', 3857), "
    "'255.255.255.255', '', '', 0, '\\\\')",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
]
MY_UT = (
    "CREATE TABLE ut (id INT PRIMARY KEY, ot DATETIME(6), od DATE, mo DECIMAL(14,3), "
    "r DOUBLE, tt TIME(6)) ENGINE=InnoDB"
)
MY_UT_ROWS = [
    (1, "2024-01-01 10:00:00+02:00", "2024-01-01 00:00:00", "-1234.56", 0.5, "10:00:00"),
    (2, "2024-03-10T02:30:00.5-05:30", "1969-07-20 00:00:00", "0.01", -2.5, "23:30:00.5"),
    (3, "2024-06-01 12:00:00", None, None, None, "-838:59:59"),
]


def exact_rows(db: Any, table: str) -> list[tuple[Any, ...]]:
    """The table's rows byte for byte: each value's bytes (a float's exact double), and the
    table's checksum of its stored rows."""
    cols = db.query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema "
        "= DATABASE() AND table_name = %s ORDER BY ordinal_position", params=(table,),
    )  # fmt: skip
    exprs = [
        f"CAST(`{c}` AS DOUBLE)" if t in ("float", "double") else f"HEX(CAST(`{c}` AS BINARY))"
        for c, t in cols
    ]
    rows = db.query(f"SELECT {', '.join(exprs)} FROM `{table}` ORDER BY id")
    return [*rows, *[r[1:] for r in db.query(f"CHECKSUM TABLE `{table}`")]]


def test_mariadb_rounds_into_mariadb_are_staged_typed_as_the_json_path_applies_them(
    maria_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """One MariaDB source into two MariaDB targets, each round of one staged typed (the
    source's netted lines loaded by the JSON path's own expressions) and of the other as
    JSON text: every type, dates with zero parts, spatial values, control characters, NULL
    and JSON null, a user's target of other types (times with an offset), updates, deletes,
    keys moved away and back and inserted again, in a window dealt to both load files:
    the two targets are equal byte for byte, and equal to the source where it made them."""
    from syncpoint.ops.round import GroupRound

    src, dst = maria_maria
    other_gen = make_mariadb()
    other = next(other_gen)
    try:
        src.execute(*MARIA_ALL, MARIA_MORE)
        for db in (dst, other):
            db.execute(MY_UT)
        typed_only = GroupRound._typed_stagings

        def json_at_cen1(self: Any, plan: Any, data: Any) -> Any:
            return typed_only(self, plan, data) if self.integrate == "cen" else {}

        monkeypatch.setattr(GroupRound, "_typed_stagings", json_at_cen1)
        # the source's lines dealt to the two load files a few at a time
        monkeypatch.setattr(maria_direct, "ROWS_BATCH", 7)
        data = {
            "channel": "ty",
            "application": "wh",
            "locations": {
                "src": {"url": src.url, "capture": True},
                "cen": {"url": dst.url, "integrate": True},
                "cen1": {"url": other.url, "integrate": True},
            },
            "tables": [{"name": t, "snapshot": "none"} for t in ("ty", "ut", "zz")],
        }
        (tmp_path / "ty.yaml").write_text(json.dumps(data))
        ch = Channel.from_file(tmp_path / "ty.yaml")
        ch.install()
        marks = ", ".join(["%s"] * 25)
        for row in TY_ROWS:
            src.execute(f"INSERT INTO ty VALUES ({marks})", params=row)
        for row in MY_UT_ROWS:
            src.execute("INSERT INTO ut VALUES (%s, %s, %s, %s, %s, %s)", params=row)
        src.execute(*[f"INSERT INTO zz VALUES {r}" for r in ZZ_ROWS])
        ch.run(once=True, spark=spark)
        src.execute(
            "UPDATE ty SET id = 10, vc = 'moved' WHERE id = 1",
            "UPDATE ty SET db = -0e0, f = -0e0, j = NULL, tx = 'x\ty', bn = NULL WHERE id = 2",
            "UPDATE ty SET j = 'null', vb = X'00' WHERE id = 3",
            "INSERT INTO ty (id, j, vb) VALUES (4, 'null', X'00')",  # JSON null, not NULL
            "UPDATE ut SET ot = '2024-01-01 23:30:00-01:00', mo = 99.99 WHERE id = 1",
            "DELETE FROM ut WHERE id = 3",
            "INSERT INTO ty (id, vc) SELECT seq, 'filler' FROM seq_100_to_160",
            "DELETE FROM ty WHERE id = 3",
            "UPDATE ty SET id = 3, j = '[]' WHERE id = 10",  # onto the key deleted
            "UPDATE ty SET id = 2 - id WHERE id = 2",  # 0: an upsert and a delete of 2
            "INSERT INTO ty (id, vc, e, st, y) VALUES (2, 'inserted again', 'a', 'y', 1901)",
            "DELETE FROM ty WHERE id BETWEEN 100 AND 120",
            "UPDATE zz SET id = 4, g = ST_GeomFromText('POINT(7 8)', 4326) WHERE id = 1",
            "UPDATE zz SET id = 1 WHERE id = 4",  # moved away and back
            "UPDATE zz SET dz = '2024-05-00', b64 = 1, cc = NULL WHERE id = 2",
            "DELETE FROM zz WHERE id = 3",
            "INSERT INTO zz (id, dz, cc) VALUES (3, '0000-01-01', 'again')",
        )
        ch.run(once=True, spark=spark)
        for table in ("ty", "ut", "zz"):
            assert exact_rows(dst, table) == exact_rows(other, table), table
        for table in ("ty", "zz"):  # the targets syncpoint made: the source's own bytes
            assert exact_rows(dst, table)[:-1] == exact_rows(src, table)[:-1], table
        # times with an offset into a user's DATETIME: taken at UTC, as on the JSON path
        assert dst.query("SELECT CAST(ot AS CHAR) FROM ut ORDER BY id") == [
            ("2024-01-02 00:30:00.000000",), ("2024-03-10 08:00:00.500000",),
        ]  # fmt: skip
        rounds = [r for r in direct if r["changes"]]
        assert {r["integrate"] for r in rounds} == {"cen", "cen1"}
        assert all(r["direct"] for r in rounds)
        # the rounds at cen were staged typed, every table; those at cen1 as JSON text
        assert all(r["typed"] == [r["tables"][0]["target"]] for r in rounds
                   if r["integrate"] == "cen")  # fmt: skip
        assert not any(r["typed"] for r in rounds if r["integrate"] == "cen1")
        left = (
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() "
            "AND table_name LIKE 'repl\\_rstage\\_%'"
        )
        assert dst.query(left) == [(0,)]
    finally:
        next(other_gen, None)


def test_a_value_the_target_cannot_take_from_mariadb_stops_the_table_staged_typed(
    maria_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """MariaDB into a MariaDB table the user made narrower than the source, staged typed: a
    value the target column cannot take (MariaDB would round it without a warning, or warns
    as it cuts it) fails the typed load; the round stages the JSON text, whose apply stops
    the table naming the value, as it always did; widening the column lets the same round
    through, and the next round is staged typed again."""
    src, dst = maria_maria
    src.execute(
        "CREATE TABLE vals (id INT PRIMARY KEY, n DECIMAL(10,3), d DECIMAL(10,3), "
        "t VARCHAR(30)) ENGINE=InnoDB"
    )
    dst.execute(
        "CREATE TABLE vals (id INT PRIMARY KEY, n INT, d DECIMAL(4,2), t VARCHAR(5)) "
        "ENGINE=InnoDB"
    )
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals VALUES (1, 12, 1.5, 'short')")
    ch.run(once=True, spark=spark)
    got = "SELECT CAST(n AS CHAR), CAST(d AS CHAR), t FROM vals"
    want = [("12", "1.50", "short")]
    assert dst.query(got) == want
    for bad, widen, match in [
        ("n = 1.5", "n decimal(10,3)", r"does not fit int\(11\): 1.500"),
        ("d = 1.125", "d decimal(10,3)", "Data truncated for column 'd'"),
        ("t = 'too long'", "t varchar(30)", "Data too long for column 't'"),
    ]:
        src.execute(f"UPDATE vals SET {bad} WHERE id = 1")
        caplog.clear()
        with pytest.raises(TableStopped, match=match):
            ch.run(once=True, spark=spark)
        assert "the typed copy failed" in caplog.text  # the typed load refused it first
        assert dst.query(got) == want
        dst.execute(f"ALTER TABLE vals MODIFY {widen}")
        ch.run(once=True, spark=spark)
        want = dst.query(got)
    assert want == [("1.500", "1.125", "too long")]
    src.execute("UPDATE vals SET t = 'again' WHERE id = 1")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT t FROM vals") == [("again",)]
    # every round that went through was typed (those of the stops fell back to JSON text)
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))
    assert dst.query(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() "
        "AND table_name LIKE 'repl\\_rstage\\_%'"
    ) == [(0,)]


def test_postgresql_values_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_values_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # staged typed: the values are those of the JSON path (test_rounds_values.py)
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))


def test_postgresql_special_values_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # staged typed: the values are those of the JSON path (test_rounds_values.py)
    assert typed_rounds(direct) and all(t == ["sv"] for t in typed_rounds(direct))


def test_postgresql_types_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_postgresql_types_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))
    # staged typed: the values are those of the JSON path (test_rounds_values.py)
    assert typed_rounds(direct) and all(t == ["pt"] for t in typed_rounds(direct))


def test_a_text_too_long_for_the_target_stops_the_table_staged_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.a_text_too_long_for_the_target_stops_the_table(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_a_value_the_target_would_round_stops_the_table_staged_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.a_value_the_target_would_round_stops_the_table(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_a_value_mariadb_would_round_stops_the_table_staged_typed(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_maria
    tv.a_value_mariadb_would_round_stops_the_table(src, dst, tmp_path, spark)
    # a value that does not fit fails the typed load; the round stages as JSON text, whose
    # apply stops the table the same way
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))


def test_keys_equal_only_at_the_target_keep_the_upserted_row_staged_typed(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_maria
    tv.keys_equal_only_at_the_target_keep_the_upserted_row(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))


def test_two_source_keys_of_one_target_key_stop_the_table_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.two_source_keys_of_one_target_key_stop_the_table(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_two_source_keys_of_one_target_key_stop_the_table_staged_typed(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_maria
    tv.two_source_keys_of_one_target_key_stop_the_table(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["vals"] for t in typed_rounds(direct))


def test_a_domain_converts_as_its_base_type_staged_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.a_domain_converts_as_its_base_type(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_char_n_arrives_as_it_is_staged_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.char_n_arrives_as_it_is(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_keys_equal_only_at_the_target_keep_the_upserted_row_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    tv.keys_equal_only_at_the_target_keep_the_upserted_row(src, dst, tmp_path, spark)
    assert typed_rounds(direct) and all(t == ["public.vals"] for t in typed_rounds(direct))


def test_a_value_the_typed_copy_cannot_read_stops_the_table(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, t text)")
    # the user made the target narrower than the source
    dst.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric(4,2), t integer)")
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals VALUES (1, 1.5, '7'), (2, 2.25, '8')")
    ch.run(once=True, spark=spark)
    assert sorted(dst.query("SELECT id, n::text, t FROM vals")) == [(1, "1.50", 7), (2, "2.25", 8)]
    # staged typed (numeric), the apply's cast refuses to round
    src.execute("INSERT INTO vals VALUES (3, 1.125, '9')")
    with pytest.raises(TableStopped, match="does not fit"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM vals") == [(2,)]
    dst.execute("ALTER TABLE vals ALTER n TYPE numeric")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM vals") == [(3,)]
    # text an integer column cannot read: the typed copy fails, the round stages the JSON
    # text, and its apply stops the table naming the value
    src.execute("INSERT INTO vals VALUES (4, 1, 'four')")
    with pytest.raises(TableStopped, match="four"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM vals") == [(3,)]
    dst.execute("ALTER TABLE vals ALTER t TYPE text")
    ch.run(once=True, spark=spark)
    assert sorted(dst.query("SELECT id, t FROM vals")) == [
        (1, "7"), (2, "8"), (3, "9"), (4, "four"),
    ]  # fmt: skip
    # no typed staging is left behind, whichever way the rounds went
    assert dst.query(
        "SELECT count(*) FROM pg_class WHERE relname LIKE 'repl\\_rstage\\_%' AND relkind = 'r'"
    ) == [(0,)]


def test_a_direct_round_in_a_fresh_process_starts_no_jvm(pg_pair: Any, tmp_path: Path) -> None:
    """``run --once`` with a local master copies on the direct path in its own threads: it
    applies the round where no Java can be started at all."""
    src, dst = pg_pair
    rk.setup_source(src)
    rk.setup_target(dst)
    direct_cfg = {"spark": {"master": "local[2]", "driver_round_max": 0}}
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst, extra=direct_cfg)
    Channel.from_file(cfg).install()
    rk.run_writers(src.vendor, src.url, 1, 3)[0].join()
    nojava = {"JAVA_HOME": str(tmp_path / "no-java"), "PATH": "/usr/bin:/bin"}
    done = rk.syncpoint(cfg, "run", "--once", env=nojava)
    assert done.returncode == 0, done.stderr[-2000:]
    ok, why = rk.same(src, dst)
    assert ok, why


def test_a_target_without_a_unique_key_is_applied_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, t text)")
    dst.execute("CREATE TABLE vals (id integer, n numeric, t text)")  # no index on the key
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals SELECT g, g / 3.0, 'r' || g FROM generate_series(1, 50) g")
    ch.run(once=True, spark=spark)
    src.execute(
        "UPDATE vals SET n = -n, t = NULL WHERE id % 3 = 0",
        "UPDATE vals SET id = id + 100 WHERE id % 5 = 0",
        "DELETE FROM vals WHERE id % 7 = 0",
    )
    ch.run(once=True, spark=spark)
    rows = "SELECT id, n::text, t FROM vals ORDER BY id"
    assert dst.query(rows) == src.query(rows)
    assert typed_rounds(direct) == [["public.vals"], ["public.vals"]]


def test_mariadb_keys_with_copy_escapes_move_on_the_direct_path(
    maria_pg: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """MariaDB writes the operations' COPY text itself: keys and values holding the
    characters COPY escapes (tab, newline, carriage return, backslash) and keys that move,
    also by case alone (compared byte for byte), arrive as they are."""
    keys_with_copy_escapes_move(maria_pg, direct, tmp_path, spark)
    assert typed_rounds(direct) == [["public.vals"], ["public.vals"]]


def test_mariadb_keys_with_copy_escapes_move_into_mariadb_staged_typed(
    maria_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """The same into MariaDB, staged typed: the user's target key compares byte for byte,
    trailing spaces too (utf8mb4_bin pads them: such a key stays on the JSON text)."""
    keys_with_copy_escapes_move(maria_maria, direct, tmp_path, spark, "utf8mb4_nopad_bin")
    assert typed_rounds(direct) == [["vals"], ["vals"]]


def keys_with_copy_escapes_move(
    pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any,
    target_collation: str = "",
) -> None:  # fmt: skip
    src, dst = pair
    src.execute(
        "CREATE TABLE vals (k VARCHAR(40) COLLATE utf8mb4_bin PRIMARY KEY, v TEXT) ENGINE=InnoDB"
    )
    if target_collation:
        dst.execute(
            f"CREATE TABLE vals (k VARCHAR(40) COLLATE {target_collation} PRIMARY KEY, v TEXT) "
            "ENGINE=InnoDB"
        )
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    keys = ["a\tb", "c\nd", "e\\f", "g\rh", "plain", "ünï \\N", "\\t"]
    for i, k in enumerate(keys):
        src.execute("INSERT INTO vals VALUES (%s, %s)", params=(k, None if i == 2 else k + "\\n\t"))
    ch.run(once=True, spark=spark)
    src.execute(
        "UPDATE vals SET k = 'x\\\\\ty' WHERE k = 'a\tb'",
        "UPDATE vals SET k = 'PLAIN', v = 'moved' WHERE k = 'plain'",
        "UPDATE vals SET v = 'c\r\n' WHERE k = 'g\rh'",
        "DELETE FROM vals WHERE k = 'c\nd'",
    )
    ch.run(once=True, spark=spark)
    rows = "SELECT k, v FROM vals ORDER BY k"
    assert sorted(dst.query(rows)) == sorted(src.query(rows))
    assert len(src.query(rows)) == len(keys) - 1
    assert direct_rounds(direct) == [True, True]


def test_netting_across_the_copy_tasks_typed(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """One window's changes to the same keys fall into different copy tasks' ranges (a
    filler of 3,000 inserts between them splits the window in two): the last change of
    each key in commit order wins, whichever task staged it, for a one-column and a
    two-column key."""
    src, dst = pg_pair
    src.execute(
        "CREATE TABLE n1 (id integer PRIMARY KEY, v text, f float8)",
        "CREATE TABLE n2 (a integer, b text, v integer, PRIMARY KEY (a, b))",
    )
    data = {
        "channel": "net",
        "application": "net",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": f"public.{t}", "snapshot": "none"} for t in ("n1", "n2")],
    }
    (tmp_path / "net.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "net.yaml")
    ch.install()
    src.execute(
        "INSERT INTO n1 SELECT g, 'base ' || g, g / 4.0 FROM generate_series(1, 20) g",
        "INSERT INTO n2 SELECT g % 3, 'k' || g, g FROM generate_series(1, 12) g",
    )
    ch.run(once=True, spark=spark)
    first = [
        "INSERT INTO n1 VALUES (1001, 'inserted, deleted in the second range', 1)",
        "INSERT INTO n1 VALUES (1002, 'inserted and deleted in the first range', 2)",
        "DELETE FROM n1 WHERE id = 1002",
        "UPDATE n1 SET v = 'updated, then deleted' WHERE id = 1",
        "UPDATE n1 SET id = 2002 WHERE id = 2",  # moved, and back in the second range
        "UPDATE n1 SET id = 3003 WHERE id = 3",  # moved on again in the second range
        "DELETE FROM n1 WHERE id = 4",  # re-inserted in the second range
        "UPDATE n1 SET id = -5 WHERE id = 5",  # 5 and 6 swap their keys
        "UPDATE n1 SET id = 5 WHERE id = 6",
        "UPDATE n1 SET id = 6 WHERE id = -5",
        "DELETE FROM n1 WHERE id = 7",
        "UPDATE n1 SET id = 7, v = 'took a deleted key' WHERE id = 8",
        "UPDATE n1 SET f = '-0' WHERE id = 9",
        "UPDATE n2 SET b = 'moved' WHERE a = 1 AND b = 'k1'",
        "DELETE FROM n2 WHERE a = 2 AND b = 'k2'",
        "INSERT INTO n2 VALUES (5, 'new', 1)",
    ]
    filler = "INSERT INTO n1 SELECT g, 'filler', NULL FROM generate_series(100000, 102999) g"
    second = [
        "DELETE FROM n1 WHERE id = 1001",
        "DELETE FROM n1 WHERE id = 1",
        "UPDATE n1 SET id = 2, v = 'back home' WHERE id = 2002",
        "UPDATE n1 SET id = 3004 WHERE id = 3003",
        "INSERT INTO n1 VALUES (4, 'inserted again', 4)",
        "UPDATE n1 SET v = 'after the swap' WHERE id = 5",
        "DELETE FROM n1 WHERE id = 10",
        "INSERT INTO n1 VALUES (10, 'deleted and inserted again', NULL)",
        "UPDATE n1 SET id = 11 WHERE id = 12",  # onto a key deleted later in the window
        "UPDATE n2 SET b = 'k1' WHERE a = 1 AND b = 'moved'",
        "INSERT INTO n2 VALUES (2, 'k2', 99)",
        "DELETE FROM n2 WHERE a = 5 AND b = 'new'",
    ]
    src.execute("DELETE FROM n1 WHERE id = 11")  # 12 moves onto the key in the second range
    src.execute(*first)
    src.execute(filler)
    src.execute(*second)
    ch.run(once=True, spark=spark)
    for rows in (
        "SELECT id, v, f::text FROM n1 ORDER BY id",
        "SELECT a, b, v FROM n2 ORDER BY a, b",
    ):
        assert dst.query(rows) == src.query(rows)
    # each table is a sync group of its own: a round each, both staged typed
    assert sorted(t for ts in typed_rounds(direct)[-2:] for t in ts) == ["public.n1", "public.n2"]


def test_new_rows_inserted_apart_fall_back_to_the_upsert_in_order(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """New rows (keys outside the target's least and greatest) are inserted apart from the
    upsert of the others; where one of them takes a unique value an older row gives up in
    the same window, that insert is undone and every row is upserted in position order."""
    src, dst = pg_pair
    for db in (src, dst):
        db.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, t text UNIQUE)")
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals SELECT g, g, 'v' || g FROM generate_series(1, 10) g")
    ch.run(once=True, spark=spark)
    src.execute(
        "UPDATE vals SET t = 'given up' WHERE id = 3",
        "INSERT INTO vals VALUES (11, 11, 'v3')",  # new, with the value row 3 gave up
        "INSERT INTO vals SELECT g, g, 'new ' || g FROM generate_series(12, 40) g",
        "UPDATE vals SET n = -n WHERE id IN (2, 12)",
    )
    ch.run(once=True, spark=spark)
    # new rows above the target's greatest key and below its least
    src.execute("INSERT INTO vals SELECT g, g, 'more ' || g FROM generate_series(41, 60) g")
    src.execute("INSERT INTO vals SELECT -g, g, 'less ' || g FROM generate_series(1, 5) g")
    ch.run(once=True, spark=spark)
    rows = "SELECT id, n::text, t FROM vals ORDER BY id"
    assert dst.query(rows) == src.query(rows)
    assert typed_rounds(direct) == [["public.vals"]] * 3


def test_new_rows_referencing_a_row_of_the_same_window_fall_back_to_the_upsert(
    pg_pair: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """A new row (a key above the target's greatest) references, by a foreign key to its
    own table, a row the same window brings inside the target's key range: inserted apart,
    it would be checked before that row exists; the round upserts every row in order."""
    src, dst = pg_pair
    for db in (src, dst):
        db.execute("CREATE TABLE vals (id integer PRIMARY KEY, up integer REFERENCES vals (id))")
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals SELECT g, NULL FROM generate_series(1, 10) g WHERE g <> 6")
    ch.run(once=True, spark=spark)
    src.execute("INSERT INTO vals VALUES (6, NULL)", "INSERT INTO vals VALUES (27, 6)")
    ch.run(once=True, spark=spark)
    rows = "SELECT id, up FROM vals ORDER BY id"
    assert dst.query(rows) == src.query(rows)
    assert typed_rounds(direct) == [["public.vals"]] * 2


def test_key_moves_deletes_and_reinserts_net_exactly_into_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """One round whose keys move away and back, are deleted and inserted again, and whose
    values go NULL: the source nets the window (each key's last operation only crosses to
    MariaDB, as the driver's netting of the same records makes them), the round counts
    every change record, and the target ends equal to the source."""
    src, dst = pg_maria
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric(12,2), t text)")
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals SELECT g, g / 4.0, 'r' || g FROM generate_series(1, 60) g")
    ch.run(once=True, spark=spark)
    copied: list[tuple[int, ...]] = []
    copy_ops = maria_direct.copy_ops

    def spy(job: Any) -> tuple[int, ...]:
        out = copy_ops(job)
        copied.append(out)
        return out

    monkeypatch.setattr(maria_direct, "copy_ops", spy)
    # the typed rows in files of 7, each loaded while the source's COPY goes on
    monkeypatch.setattr(maria_direct, "CHUNK_ROWS", 7)
    after = int(dst.query("SELECT context FROM repl_stream_positions")[0][0])
    src.execute(
        "UPDATE vals SET id = id + 1000 WHERE id % 5 = 0",
        "UPDATE vals SET id = id - 1000, t = 'back' WHERE id > 1000 AND id % 10 = 0",
        "DELETE FROM vals WHERE id % 7 = 0",
        "INSERT INTO vals VALUES (14, -0.5, 'again'), (2000, NULL, NULL)",
        "UPDATE vals SET n = NULL, t = NULL WHERE id % 3 = 0",
        "DELETE FROM vals WHERE id = 2000",
        "UPDATE vals SET id = 2000 WHERE id = 1",
    )
    report = ch.run(once=True, spark=spark)
    upto = int(dst.query("SELECT context FROM repl_stream_positions")[0][0])
    cap = of_url(src.url).Capture("src", src.url, "repl_")
    conn = cap.connect()
    try:
        recs = cap.changes(conn, TableName(schema="public", name="vals"), after, upto)
    finally:
        conn.close()
    records = [r for r in recs if r.db_action in ("INSERT", "UPDATE", "DELETE")]
    # one task, the window's net operations only (staged typed: the target sums the change
    # records each net row carries for its key)
    assert [c[1:] for c in copied] == [(len(netting.net(records, ["id"])), 0)]
    assert report.changes == len(records)
    rows = "SELECT id, CAST(n AS CHAR), t FROM vals ORDER BY id"
    want = [(i, None if n is None else str(n), t) for i, n, t in src.query(
        "SELECT id, n::text, t FROM vals ORDER BY id")]  # fmt: skip
    assert [tuple(r) for r in dst.query(rows)] == want
    assert len(want) == 60 - 8 + 1 and direct_rounds(direct) == [True, True]
    assert typed_rounds(direct) == [["vals"], ["vals"]]
    # a staging column too narrow for what is loaded (the origin, a location's name, in the
    # JSON text's staging: a target without a unique key is staged so): LOAD DATA LOCAL
    # cuts the value with a warning and goes on; the round stops loudly instead
    dst.execute("ALTER TABLE vals DROP PRIMARY KEY")
    dst.execute("ALTER TABLE repl_staging MODIFY origin varchar(2)")
    src.execute("UPDATE vals SET t = 'after' WHERE id = 2")
    with pytest.raises(SyncpointError, match="Data truncated for column 'origin'"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT t FROM vals WHERE id = 2") == [("r2",)]
    dst.execute("ALTER TABLE repl_staging MODIFY origin varchar(64)")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT t FROM vals WHERE id = 2") == [("after",)]
    last = [r for r in direct if r["changes"]][-1]
    assert last["typed"] == [] and "no unique index" in last["untyped"]["vals"]


def test_typed_into_mariadb_control_characters_and_a_value_the_load_cannot_take(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """PostgreSQL into MariaDB, staged typed: text with every control character COPY's
    text form escapes (LOAD DATA knows neither \\f nor \\v) and the same escapes as plain
    text arrive as they are; a value the target column cannot take (a user's narrower
    target) fails the typed load, the round stages the JSON text, whose apply stops the
    table; no typed staging is left behind."""
    src, dst = pg_maria
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric, t text, ts text)")
    dst.execute(
        "CREATE TABLE vals (id int PRIMARY KEY, n decimal(4,2), t varchar(20), ts datetime(6))"
    )
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    # times with an offset at the end into a datetime: taken off the time, as on JSON
    stamps = {
        1: ("2024-01-01 10:00:00+05:30", "2024-01-01 04:30:00.000000"),
        2: ("2024-03-01T00:30:00.25+01:00", "2024-02-29 23:30:00.250000"),
        3: ("2024-01-01T10:00:00Z", "2024-01-01 10:00:00.000000"),
        4: ("2024-01-01 10:00:00.5", "2024-01-01 10:00:00.500000"),
        6: ("2024-01-01 22:00:00-08:00", "2024-01-02 06:00:00.000000"),
        7: ("2024-12-31T23:45:00.125-00:30", "2025-01-01 00:15:00.125000"),
    }
    texts = {
        1: "f\fv\vb\bn\nr\rt\t|",
        2: "\\f\\v\\b\\n\\r\\t\\N\\\\",
        3: "\\\f\\\v\\",
        4: "\\N",
        6: "minus",
        7: "half an hour",
    }
    for i, t in texts.items():
        src.execute(f"INSERT INTO vals VALUES ({i}, {i}.5, %s, %s)", params=(t, stamps[i][0]))
    ch.run(once=True, spark=spark)
    got = {
        int(i): (str(n), t, str(ts))
        for i, n, t, ts in dst.query(
            "SELECT id, CAST(n AS CHAR), t, DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s.%f') FROM vals"
        )
    }
    assert got == {i: (f"{i}.50", t, stamps[i][1]) for i, t in texts.items()}
    assert typed_rounds(direct) == [["vals"]]
    # a decimal the target column would round: the typed load warns, the JSON text's apply
    # stops the table
    src.execute("INSERT INTO vals VALUES (5, 1.125, 'x', NULL)")
    with pytest.raises(TableStopped):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM vals") == [(len(texts),)]
    dst.execute("ALTER TABLE vals MODIFY n decimal(6,3)")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT CAST(n AS CHAR) FROM vals WHERE id = 5") == [("1.125",)]
    # and the next round is typed again
    src.execute("UPDATE vals SET t = 'y' WHERE id = 5")
    ch.run(once=True, spark=spark)
    assert typed_rounds(direct)[-1] == ["vals"]
    assert dst.query(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() "
        "AND table_name LIKE 'repl\\_rstage\\_%'"
    ) == [(0,)]
