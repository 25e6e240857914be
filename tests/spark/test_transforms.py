"""Netting on Spark and in the driver (small rounds): the same net effect per key as the
reference rule in core/netting.py, for hand-made change records (key moves, many changes of
one key, deletes, re-inserts)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from syncpoint.core import netting
from syncpoint.core.model import ChangeRecord
from syncpoint.spark.transforms import net_changes

pytestmark = pytest.mark.spark
SCHEMA = (
    "tbl INT, repl_key BIGINT, db_action STRING, content STRING, oldcontent STRING, "
    "sp_key STRING, sp_old_key STRING"
)


def rec(rk: int, action: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> Any:
    return ChangeRecord(
        repl_key=rk,
        trans_key="1",
        dbid="src",
        tablename="t",
        db_schema=None,
        db_action=action,
        content=json.dumps(new) if new is not None else None,
        oldcontent=json.dumps(old) if old is not None else None,
    )


def read_rows(records: list[tuple[int, ChangeRecord]]) -> list[tuple[Any, ...]]:
    """The rows a round reads: each record with its key texts, as the source makes them."""

    def key(text: str | None) -> str | None:
        return json.dumps([json.loads(text)["id"]]) if text else None

    return [
        (tbl, r.repl_key, r.db_action, r.content, r.oldcontent, key(r.content), key(r.oldcontent))
        for tbl, r in records
    ]


def frame(spark: Any, records: list[tuple[int, ChangeRecord]]) -> Any:
    return spark.createDataFrame(read_rows(records), SCHEMA)


def driver_net(records: list[tuple[int, ChangeRecord]]) -> set[tuple[Any, ...]]:
    """What a round small enough for the driver nets: the same rows (with their dbid), no
    Spark; each net row's origin is the dbid of the record that won."""
    rows = [(*r[:5], "src", *r[5:]) for r in read_rows(records)]
    out = netting.net_rows(rows).rows
    assert {o for *_, o in out} <= {"src"}
    return {r[:4] for r in out}


def spark_net(spark: Any, records: list[tuple[int, ChangeRecord]]) -> set[tuple[Any, ...]]:
    out = net_changes(frame(spark, records)).collect()
    return {(r["tbl"], r["action"], r["content"], r["repl_key"]) for r in out}


def reference(records: list[tuple[int, ChangeRecord]]) -> set[tuple[Any, ...]]:
    out = set()
    for tbl in {t for t, _ in records}:
        for n in netting.net([r for t, r in records if t == tbl], ["id"]):
            out.add((tbl, n.action, n.content, n.repl_key))
    return out


def test_one_key_many_changes_in_one_round(spark: Any) -> None:
    """S04: insert k, update k x3, move k -> k', delete k', re-insert k."""
    recs = [
        rec(1, "INSERT", {"id": 1, "v": "a"}, None),
        rec(2, "UPDATE", {"id": 1, "v": "b"}, {"id": 1, "v": "a"}),
        rec(3, "UPDATE", {"id": 1, "v": "c"}, {"id": 1, "v": "b"}),
        rec(4, "UPDATE", {"id": 1, "v": "d"}, {"id": 1, "v": "c"}),
        rec(5, "UPDATE", {"id": 2, "v": "d"}, {"id": 1, "v": "d"}),
        rec(6, "DELETE", None, {"id": 2, "v": "d"}),
        rec(7, "INSERT", {"id": 1, "v": "again"}, None),
        rec(8, "UPDATE", {"id": 3, "v": "x"}, {"id": 3, "v": "w"}),
        rec(9, "UPDATE", {"id": 4, "v": "y"}, {"id": 3, "v": "x"}),
        rec(10, "UPDATE", {"id": 3, "v": "z"}, {"id": 4, "v": "y"}),
    ]
    got = spark_net(spark, [(0, r) for r in recs])
    assert got == {
        (0, "U", json.dumps({"id": 1, "v": "again"}), 7),
        (0, "D", json.dumps({"id": 2, "v": "d"}), 6),
        (0, "U", json.dumps({"id": 3, "v": "z"}), 10),
        (0, "D", json.dumps({"id": 4, "v": "y"}), 10),
    }
    assert got == reference([(0, r) for r in recs])
    assert got == driver_net([(0, r) for r in recs])


def random_history(rng: random.Random, tbl: int, start: int) -> list[tuple[int, ChangeRecord]]:
    rows: dict[int, int] = {}
    out: list[tuple[int, ChangeRecord]] = []
    rk = start
    for _ in range(rng.randint(1, 40)):
        rk += 1
        k = rng.randint(1, 6)
        if k not in rows:
            rows[k] = rng.randint(0, 99)
            out.append((tbl, rec(rk, "INSERT", {"id": k, "v": rows[k]}, None)))
        elif rng.random() < 0.25:
            out.append((tbl, rec(rk, "DELETE", None, {"id": k, "v": rows.pop(k)})))
        else:
            nk = rng.randint(1, 6) if rng.random() < 0.3 else k
            if nk != k and nk in rows:
                nk = k
            old = {"id": k, "v": rows.pop(k)}
            rows[nk] = rng.randint(0, 99)
            out.append((tbl, rec(rk, "UPDATE", {"id": nk, "v": rows[nk]}, old)))
    return out


def test_random_histories_net_like_the_reference(spark: Any) -> None:
    rng = random.Random(7)
    records: list[tuple[int, ChangeRecord]] = []
    for tbl in range(12):
        records += random_history(rng, tbl, 1000 * tbl)
    assert spark_net(spark, records) == reference(records) == driver_net(records)
    # applying the net operations to an empty table gives the history's final state
    for tbl in range(12):
        state: dict[Any, Any] = {}
        netting.apply_to(state, netting.net([r for t, r in records if t == tbl], ["id"]), ["id"])
        final: dict[Any, Any] = {}
        for t, r in records:
            if t != tbl:
                continue
            if r.db_action in ("DELETE", "UPDATE"):
                final.pop((r.old["id"],), None)
            if r.db_action in ("INSERT", "UPDATE"):
                final[(r.row["id"],)] = r.row
        assert state == final


def test_ddl_records_are_not_rows_and_a_missing_key_fails(spark: Any) -> None:
    ddl = ChangeRecord(1, "1", "src", "t", None, "ALTER", '{"columns": []}', '{"columns": []}')
    rows = [(0, 1, "ALTER", ddl.content, ddl.oldcontent, None, None)]
    assert net_changes(spark.createDataFrame(rows, SCHEMA)).count() == 0
    bad = [(0, 2, "INSERT", '{"x": 1}', None, None, None)]
    with pytest.raises(Exception, match="lacks its key columns"):
        net_changes(spark.createDataFrame(bad, SCHEMA)).collect()
    assert netting.net_rows([(*r[:5], None, *r[5:]) for r in rows]).rows == []
    with pytest.raises(ValueError, match="lacks its key columns"):
        netting.net_rows([(*r[:5], None, *r[5:]) for r in bad])
