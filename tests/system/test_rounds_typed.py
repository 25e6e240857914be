"""The direct path's typed staging, PostgreSQL to PostgreSQL: every round of these tests
takes the direct path (``driver_round_max: 0``), where the copy tasks stage each window's
changes in the target's own column types. The value suites of test_rounds_values.py run
here as they are, and each round says it staged its table typed; a value the typed copy
cannot read falls back to the JSON text, whose apply stops the table with the reason.
MariaDB to PostgreSQL takes the direct path too (the records read row by row), and so does
PostgreSQL to MariaDB (the operations loaded as JSON text and netted there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
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


def test_mariadb_special_values_arrive_exactly_on_the_direct_path(
    maria_pg: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(maria_pg, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))


def test_postgresql_values_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_values_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))


def test_postgresql_special_values_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_special_values_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))


def test_postgresql_types_arrive_exactly_in_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    tv.test_postgresql_types_arrive_exactly(pg_maria, tmp_path, spark)
    assert direct_rounds(direct) and all(direct_rounds(direct))


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


def test_key_moves_deletes_and_reinserts_net_exactly_into_mariadb_on_the_direct_path(
    pg_maria: Any, direct: list[dict[str, Any]], tmp_path: Path, spark: Any
) -> None:
    """One round whose keys move away and back, are deleted and inserted again, and whose
    values go NULL: MariaDB's netting keeps each key's last operation only."""
    src, dst = pg_maria
    src.execute("CREATE TABLE vals (id integer PRIMARY KEY, n numeric(12,2), t text)")
    ch = tv.channel(src, dst, tmp_path)
    ch.install()
    src.execute("INSERT INTO vals SELECT g, g / 4.0, 'r' || g FROM generate_series(1, 60) g")
    ch.run(once=True, spark=spark)
    src.execute(
        "UPDATE vals SET id = id + 1000 WHERE id % 5 = 0",
        "UPDATE vals SET id = id - 1000, t = 'back' WHERE id > 1000 AND id % 10 = 0",
        "DELETE FROM vals WHERE id % 7 = 0",
        "INSERT INTO vals VALUES (14, -0.5, 'again'), (2000, NULL, NULL)",
        "UPDATE vals SET n = NULL, t = NULL WHERE id % 3 = 0",
        "DELETE FROM vals WHERE id = 2000",
        "UPDATE vals SET id = 2000 WHERE id = 1",
    )
    ch.run(once=True, spark=spark)
    rows = "SELECT id, CAST(n AS CHAR), t FROM vals ORDER BY id"
    want = [(i, None if n is None else str(n), t) for i, n, t in src.query(
        "SELECT id, n::text, t FROM vals ORDER BY id")]  # fmt: skip
    assert [tuple(r) for r in dst.query(rows)] == want
    assert len(want) == 60 - 8 + 1 and direct_rounds(direct) == [True, True]
