"""The pure rules of rounds: type mapping, DDL classification and policy, foreign-key
order, stream identity, sync point reuse, the purge bound, and the failpoint sweep list."""

from __future__ import annotations

import json

import pytest

from syncpoint import failpoints
from syncpoint.core import ddl, fkorder, positions, types
from syncpoint.core.positions import Position, SyncPoint
from syncpoint.errors import StreamIdentityError


@pytest.mark.parametrize(
    ("vendor", "declared", "pg", "my", "sl"),
    [
        ("postgres", "numeric(12,2)", "numeric(12,2)", "decimal(12,2)", "TEXT"),
        ("postgres", "numeric", "numeric", "decimal(65,30)", "TEXT"),
        ("postgres", "numeric(80,40)", "numeric(80,40)", "decimal(65,30)", "TEXT"),
        (
            "postgres",
            "timestamp(3) with time zone",
            "timestamp(3) with time zone",
            "datetime(3)",
            "TEXT",
        ),
        ("postgres", "bytea", "bytea", "longblob", "BLOB"),
        ("postgres", "character varying(20)", "character varying(20)", "varchar(20)", "TEXT"),
        ("postgres", "double precision", "double precision", "double", "REAL"),
        ("postgres", "boolean", "boolean", "tinyint(1)", "BOOLEAN"),
        ("postgres", "jsonb", "jsonb", "longtext", "TEXT"),
        ("postgres", "interval", "interval", "longtext", "TEXT"),
        ("mariadb", "bigint(20) unsigned", "numeric(20,0)", "bigint(20) unsigned", "TEXT"),
        ("mariadb", "int(10) unsigned", "bigint", "int(10) unsigned", "INTEGER"),
        ("mariadb", "tinyint(1)", "boolean", "tinyint(1)", "BOOLEAN"),
        ("mariadb", "decimal(65,30)", "numeric(65,30)", "decimal(65,30)", "TEXT"),
        ("mariadb", "datetime(6)", "timestamp(6)", "datetime(6)", "TEXT"),
        ("mariadb", "timestamp(6)", "timestamp(6) with time zone", "timestamp(6)", "TEXT"),
        ("mariadb", "enum('a','B')", "text", "enum('a','B')", "TEXT"),
        ("mariadb", "longblob", "bytea", "longblob", "BLOB"),
        ("sqlite", "INTEGER", "bigint", "bigint", "INTEGER"),
        ("sqlite", "NUMERIC", "numeric", "decimal(65,30)", "NUMERIC"),
        ("sqlite", "", "text", "longtext", ""),
        ("sqlite", "VARCHAR(10)", "text", "longtext", "VARCHAR(10)"),
    ],
)
def test_every_vendor_pair_gets_a_type_that_holds_every_value(
    vendor: str, declared: str, pg: str, my: str, sl: str
) -> None:
    t = types.parse(vendor, declared)
    assert types.render("postgres", t) == pg
    assert types.render("mariadb", t) == my
    assert types.render("sqlite", t) == sl


def test_a_text_key_at_mariadb_needs_a_length() -> None:
    assert types.render("mariadb", types.parse("postgres", "text"), key=True) == "varchar(255)"


@pytest.mark.parametrize(
    ("old", "new", "widens"),
    [
        ("integer", "bigint", True),
        ("bigint", "integer", False),
        ("numeric(10,2)", "numeric(12,2)", True),
        ("numeric(10,2)", "numeric(10,3)", False),
        ("numeric(10,2)", "numeric", True),
        ("character varying(10)", "text", True),
        ("text", "character varying(10)", False),
        ("timestamp(3) without time zone", "timestamp(6) without time zone", True),
        ("timestamp without time zone", "timestamp with time zone", False),
        ("real", "double precision", True),
        ("integer", "text", False),
    ],
)
def test_widening(old: str, new: str, widens: bool) -> None:
    assert types.widens(types.parse("postgres", old), types.parse("postgres", new)) is widens


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
    change = ddl.classify("postgres", "ALTER", shape(*new), shape(*BASE))
    assert change.kind == kind
    assert summary in change.summary


def test_the_policy_decides_only_what_is_not_additive() -> None:
    add = ddl.classify("postgres", "ALTER", shape(*BASE, ("x", "text", True, None)), shape(*BASE))
    drop = ddl.classify("postgres", "ALTER", shape(BASE[0]), shape(*BASE))
    key = ddl.classify(
        "postgres", "ALTER", shape(BASE[0], ("name", "text", False, 2)), shape(*BASE)
    )
    trunc = ddl.classify("postgres", "TRUNCATE", None, None)
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
