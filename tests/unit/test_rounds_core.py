"""The pure rules of rounds: DDL classification and policy, foreign-key order, stream
identity, sync point reuse, the purge bound, and the failpoint sweep list."""

from __future__ import annotations

import json

import pytest

from syncpoint import failpoints
from syncpoint.core import ddl, fkorder, positions
from syncpoint.core.positions import Position, SyncPoint
from syncpoint.errors import StreamIdentityError
from syncpoint.vendors.postgres.types import parse as pg_type


def shape(*cols: tuple[str, str, bool, int | None]) -> str:
    return json.dumps(
        {"columns": [{"name": n, "type": t, "nullable": nl, "pk": pk} for n, t, nl, pk in cols]}
    )


BASE = (("id", "integer", False, 1), ("name", "text", True, None))


@pytest.mark.parametrize(
    ("new", "kind", "summary"),
    [
        (BASE + (("extra", "text", True, None),), ddl.ADDITIVE, "ADD COLUMN extra text"),
        (BASE + (("req", "text", False, None),), ddl.AMBIGUOUS, "ADD COLUMN req text NOT NULL"),
        (BASE[:1], ddl.DESTRUCTIVE, "DROP COLUMN name"),
        ((BASE[0], ("title", "text", True, None)), ddl.DESTRUCTIVE, "RENAME COLUMN name TO title"),
        ((("id", "bigint", False, 1), BASE[1]), ddl.ADDITIVE, "TYPE integer -> bigint"),
        ((("id", "smallint", False, 1), BASE[1]), ddl.DESTRUCTIVE, "TYPE integer -> smallint"),
        (
            (("id", "integer", False, 1), ("name", "text", False, 2)),
            ddl.AMBIGUOUS,
            "PRIMARY KEY changed",
        ),
    ],
)
def test_ddl_is_classified(
    new: tuple[tuple[str, str, bool, int | None], ...], kind: str, summary: str
) -> None:
    change = ddl.classify(pg_type, "ALTER", shape(*new), shape(*BASE))
    assert change.kind == kind
    assert summary in change.summary


def test_the_policy_decides_only_what_is_not_additive() -> None:
    add = ddl.classify(pg_type, "ALTER", shape(*BASE, ("x", "text", True, None)), shape(*BASE))
    drop = ddl.classify(pg_type, "ALTER", shape(BASE[0]), shape(*BASE))
    key = ddl.classify(pg_type, "ALTER", shape(BASE[0], ("name", "text", False, 2)), shape(*BASE))
    trunc = ddl.classify(pg_type, "TRUNCATE", None, None)
    assert [ddl.decide(add, p) for p in ("stop", "apply", "ignore")] == ["apply"] * 3
    assert [ddl.decide(drop, p) for p in ("stop", "apply", "ignore")] == ["stop", "apply", "ignore"]
    assert ddl.decide(key, "apply") == "stop"  # a key change cannot be replayed
    assert trunc.empties and ddl.decide(trunc, "stop") == "stop"
    reason = ddl.stop_reason(drop, "public.t", "east", "stop")
    assert "DROP COLUMN name" in reason and "east" in reason and "ddl_policy" in reason


def test_parents_first_is_stable_and_survives_cycles() -> None:
    order = fkorder.parents_first(
        ["lines", "orders", "customers", "notes"],
        [("lines", "orders"), ("orders", "customers"), ("notes", "notes")],
    )
    assert order == ["customers", "orders", "lines", "notes"]
    assert fkorder.parents_first(["a", "b"], [("a", "b"), ("b", "a")]) == ["a", "b"]


def test_a_position_of_another_stream_or_beyond_the_newest_tick_stops() -> None:
    ok = [Position("east", "t", 5, "s1")]
    positions.check_stream("east", "wh", "cen", ok, "s1", 7)
    with pytest.raises(StreamIdentityError, match="reinstalled"):
        positions.check_stream("east", "wh", "cen", ok, "s2", 7)
    with pytest.raises(StreamIdentityError, match="went back"):
        positions.check_stream("east", "wh", "cen", ok, "s1", 4)


def test_a_stored_sync_point_is_reused_until_every_table_reached_it() -> None:
    sp = SyncPoint("east", "g", 9, "s1")
    assert positions.pending(sp, {"a": 9, "b": 5}, "s1")
    assert not positions.pending(sp, {"a": 9, "b": 9}, "s1")
    assert not positions.pending(sp, {"a": 5}, "s2")  # of an old stream: sample anew
    assert not positions.pending(None, {"a": 5}, "s1")


def test_purge_bound_is_the_lowest_position_of_every_consumer() -> None:
    stored = [
        ("cen/wh", Position("east", "a", 10, "s1")),
        ("cen/wh", Position("east", "b", 8, "s1")),
        ("dw/bi", Position("east", "a", 6, "s1")),
        ("dw/bi", Position("east", "b", 12, "s1")),
        ("dw/bi", Position("west", "a", 1, "s9")),
    ]
    assert positions.purge_bound("east", "s1", ["a", "b"], stored, ["cen/wh"]) == 6
    # a consumer that has not applied a table yet, or not at all: nothing may go
    assert positions.purge_bound("east", "s1", ["a", "b", "c"], stored) is None
    assert positions.purge_bound("east", "s1", ["a"], stored, ["cen/wh", "x/wh"]) is None
    assert positions.purge_bound("east", "s1", ["a"], []) is None
    with pytest.raises(StreamIdentityError):
        positions.purge_bound("west", "s2", ["a"], stored)


def test_every_round_step_has_a_failpoint() -> None:
    for step in ("after_tick", "after_read", "after_stage", "before_commit", "after_commit"):
        assert step in failpoints.STEPS
