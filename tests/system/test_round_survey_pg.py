"""A large window at a PostgreSQL source is surveyed by the queue's index and the DDL log
(``window_span.sql``), not by reading its records: its bounds must still cover every record
(those of a transaction open at the window's first tick, with repl_keys below the ones
already applied, among them), its DDL records must still be found, and a table with no
record must still be idle. The rounds here are larger than ``driver_round_max`` (5), so
every one is surveyed that way, on the direct path; the target must equal the source."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from syncpoint.ops.channel import Channel
from syncpoint.vendors.postgres import capture as pg_capture
from tests.conftest import Db, make_pg

TABLES = ("a", "b", "c")


@pytest.fixture
def two_pg() -> Iterator[tuple[Db, Db]]:
    gens = [make_pg(), make_pg()]
    made = [next(g) for g in gens]
    yield made[0], made[1]
    for g in gens:
        next(g, None)


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each survey by the index answered (None: it read the records instead)."""
    got: list[Any] = []
    real = pg_capture.PostgresCapture._spans

    def spy(self: Any, *a: Any, **k: Any) -> Any:
        out = real(self, *a, **k)
        got.append(out)
        return out

    monkeypatch.setattr(pg_capture.PostgresCapture, "_spans", spy)
    return got


def channel(src: Db, dst: Db, tmp_path: Path) -> Channel:
    src.execute(*(f"CREATE TABLE {t} (id bigint PRIMARY KEY, v text)" for t in TABLES))
    data = {
        "channel": "sv",
        "application": "sv",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "dst": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": f"public.{t}", "snapshot": "none", "ddl_policy": "apply"} for t in TABLES
        ],
        "sync_groups": {"all": [f"public.{t}" for t in TABLES]},
        "spark": {"master": "local[2]", "driver_round_max": 5},
    }
    (tmp_path / "sv.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "sv.yaml")
    ch.install()
    return ch


def same(src: Db, dst: Db) -> None:
    for t in TABLES:
        q = f"SELECT * FROM {t} ORDER BY id"
        assert dst.query(q) == src.query(q), t


def test_large_windows_surveyed_by_the_index(
    two_pg: tuple[Db, Db], tmp_path: Path, spans: list[Any]
) -> None:
    src, dst = two_pg
    ch = channel(src, dst, tmp_path)
    src.execute("INSERT INTO a SELECT g, 'first' FROM generate_series(1, 20) g")
    src.execute("INSERT INTO c SELECT g, 'first' FROM generate_series(1, 20) g")
    assert ch.run(once=True).changes == 40
    # a transaction open across the next round's tick: its records take repl_keys below
    # those the next round applies, and belong to the round after it
    held = psycopg.connect(src.url)
    held.execute("INSERT INTO a SELECT g, 'held' FROM generate_series(101, 110) g")
    src.execute("UPDATE a SET v = 'second' WHERE id <= 10")
    src.execute("INSERT INTO b SELECT g, 'first' FROM generate_series(1, 10) g")
    src.execute("ALTER TABLE b ADD COLUMN w integer")  # a DDL record in a large window
    src.execute("INSERT INTO b SELECT g, 'after', g FROM generate_series(11, 20) g")
    assert ch.run(once=True).changes == 30
    assert dst.query("SELECT count(*) FROM a WHERE id > 100") == [(0,)]
    assert dst.query("SELECT w FROM b WHERE id = 11") == [(11,)]
    held.commit()
    held.close()
    src.execute("DELETE FROM a WHERE id > 10 AND id <= 20")
    assert ch.run(once=True).changes == 20
    same(src, dst)
    # every round was surveyed by the index, and the idle tables were left out of it
    assert [sorted(s) for s in spans] == [
        ["public.a", "public.c"],
        ["public.a", "public.b"],
        ["public.a"],
    ], spans


def test_many_transactions_read_as_before(
    two_pg: tuple[Db, Db], tmp_path: Path, spans: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window of more transactions than the index is stepped through for is surveyed by
    reading its records, as before."""
    monkeypatch.setattr(pg_capture, "SPAN_MOST", 3)
    src, dst = two_pg
    ch = channel(src, dst, tmp_path)
    for i in range(6):
        src.execute(
            f"INSERT INTO a SELECT g, 'r{i}' FROM generate_series({i * 10 + 1}, {i * 10 + 10}) g"
        )
    src.execute("INSERT INTO b SELECT g, 'one' FROM generate_series(1, 10) g")
    assert ch.run(once=True).changes == 70
    same(src, dst)
    assert spans == [None], spans  # table a's six transactions
