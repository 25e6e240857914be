"""syncpoint as the consumer of transport tables (``transport:`` in the channel): full-table
loads through the gate into every integrate location, between and within vendors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from syncpoint.core.gate import State
from syncpoint.errors import GateRefused, WorkFailed
from syncpoint.ops.channel import Channel
from syncpoint.ops.gate import Gate, gate
from syncpoint.ops.transport import load_transport
from tests.conftest import Db, make_mariadb, make_pg, make_sqlite

TABLE = 'tr "o"'
ODD = 'we"ird col'
MAKERS = {"postgres": make_pg, "mariadb": make_mariadb}


@pytest.fixture(
    params=[
        ("postgres", "mariadb"),
        ("mariadb", "sqlite"),
        ("sqlite", "postgres"),
        ("postgres", "postgres"),
        ("sqlite", "sqlite"),
    ],
    ids=lambda p: "-to-".join(p),
)
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Db, Db]]:
    for i in range(2):
        (tmp_path / str(i)).mkdir()
    gens = [
        make_sqlite(tmp_path / str(i)) if v == "sqlite" else MAKERS[v]()
        for i, v in enumerate(request.param)
    ]
    dbs = [next(g) for g in gens]
    try:
        yield dbs[0], dbs[1]
    finally:
        for g in gens:
            for _ in g:
                pass


def q(db: Db, name: str) -> str:
    if db.vendor == "mariadb":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def make_transport(db: Db) -> None:
    db.execute(
        f"CREATE TABLE {q(db, TABLE)} (id integer PRIMARY KEY, amount numeric(12,2), "
        f"note varchar(50), flag boolean, created timestamp NULL, {q(db, ODD)} text)"
    )


def produce(db: Db, rows: list[str]) -> None:
    with gate(db.url, "nightly", "producer", purge_tables=[TABLE]):
        for values in rows:
            db.execute(f"INSERT INTO {q(db, TABLE)} VALUES {values}")


def norm(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, Decimal | float):
        return str(Decimal(str(v)).normalize())
    if isinstance(v, datetime):
        return v.isoformat(sep=" ")
    return v


def content(db: Db) -> list[tuple[Any, ...]]:
    rows = db.query(f"SELECT * FROM {q(db, TABLE)} ORDER BY id")
    return [(norm(r[0]), amount(r[1]), *(norm(v) for v in r[2:])) for r in rows]


def amount(v: Any) -> Any:
    # an exact numeric copied into SQLite is TEXT with every digit (as rounds make it)
    return norm(Decimal(v) if isinstance(v, str) else v)


ROWS_1 = [
    "(1, 12.50, 'a', TRUE, '2024-01-02 03:04:05', 'x')",
    "(2, NULL, NULL, NULL, NULL, NULL)",
    "(3, -0.01, 'üñí ''q''', FALSE, '2024-05-06 07:08:09', 'it''s')",
]
EXPECTED_1 = [
    (1, "12.5", "a", 1, "2024-01-02 03:04:05", "x"),
    (2, None, None, None, None, None),
    (3, "-0.01", "üñí 'q'", 0, "2024-05-06 07:08:09", "it's"),
]


def test_transport_tables_are_loaded_through_the_gate(pair) -> None:
    src, dst = pair
    make_transport(src)
    ch = Channel.from_dict(
        {
            "channel": "shop",
            "locations": {
                "ops": {"url": src.url, "capture": True},
                "dw": {"url": dst.url, "integrate": True},
            },
            "transport": {"gate": "nightly", "location": "ops", "tables": [TABLE]},
        }
    )
    first = load_transport(ch)  # a new gate: nothing produced yet
    assert first["loaded"] is False and "nothing to load" in first["reason"]

    produce(src, ROWS_1)
    done = load_transport(ch)
    assert done["loaded"] is True and done["found"] == "OperationalSysLoaded"
    assert done["tables"] == {TABLE: {"dw": 3}}
    assert content(dst) == EXPECTED_1
    if dst.vendor == "sqlite" and src.vendor != "sqlite":
        # the type rounds give an exact numeric in SQLite, so every digit stays
        typed = dst.query(f"SELECT amount, typeof(amount) FROM {q(dst, TABLE)} ORDER BY id")
        assert typed == [("12.50", "text"), (None, "null"), ("-0.01", "text")]
    assert Gate(src.url, "nightly").status().row.state is State.WAREHOUSE_LOADED  # type: ignore[union-attr]
    assert load_transport(ch)["loaded"] is False  # loaded already: nothing new

    produce(src, ["(4, 1.5, 'b', TRUE, NULL, NULL)"])  # purges the loaded batch first
    produce(src, ["(5, 2.25, 'c', FALSE, NULL, NULL)"])  # appends: not loaded yet
    assert load_transport(ch)["tables"] == {TABLE: {"dw": 2}}
    assert content(dst) == [(4, "1.5", "b", 1, None, None), (5, "2.25", "c", 0, None, None)]


def test_a_failed_load_blocks_the_next_until_reset(pg_db, sqlite_db) -> None:
    make_transport(pg_db)
    sqlite_db.execute(f"CREATE TABLE {q(sqlite_db, TABLE)} (id integer)")  # lacks columns
    ch = Channel.from_dict(
        {
            "channel": "shop",
            "locations": {
                "ops": {"url": pg_db.url, "capture": True},
                "dw": {"url": sqlite_db.url, "integrate": True},
            },
            "transport": {"gate": "nightly", "location": "ops", "tables": [TABLE]},
        }
    )
    produce(pg_db, ROWS_1[:1])
    with pytest.raises(WorkFailed) as info:
        load_transport(ch)
    assert "lacks columns amount, note" in str(info.value) and "dw" in str(info.value)
    assert Gate(pg_db.url, "nightly").status().row.state is State.WAREHOUSE_LOADING  # type: ignore[union-attr]
    with pytest.raises(GateRefused):
        load_transport(ch)
    sqlite_db.execute(f"DROP TABLE {q(sqlite_db, TABLE)}")
    Gate(pg_db.url, "nightly").reset("OperationalSysLoaded")
    assert load_transport(ch)["tables"] == {TABLE: {"dw": 1}}
    assert content(sqlite_db) == EXPECTED_1[:1]
