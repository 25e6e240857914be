"""Keys the target holds equal that differ as text: a citext 'abc' and 'ABC', numeric 1.0
and 1.00, a MariaDB case-insensitive or PAD SPACE collation's 'x' and 'X ' (and, the other
way, a PostgreSQL source's 'a', 'A' and 'a ', three rows, into a created MariaDB table that
must keep them apart). A round nets by the text, so one row's equality class may reach the
target as the delete of one text and the upsert of another; no order of the two may lose
the row, and the row takes the source's text. Every path a round can take: netted by the
driver, the direct path (typed, and as JSON text), and Spark's (whose net rows meet the
same apply as the driver's: PostgreSQL to PostgreSQL only, to keep the time down)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite

pytestmark = pytest.mark.spark

# engine -> (driver_round_max, SYNCPOINT_ROUND_PATH)
ENGINES = {
    "driver": (1_000_000, "spark"),
    "direct": (0, ""),  # PostgreSQL to PostgreSQL: typed staging
    # the direct path's JSON text staging (typed staging refused; from a MariaDB source
    # into MariaDB, its only staging)
    "text": (0, ""),
    "spark": (0, "spark"),
}


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A source of the first vendor, then a target of the second vendor per engine."""
    mk = {"postgres": make_pg, "mariadb": make_mariadb, "sqlite": lambda: make_sqlite(tmp_path)}
    src, dst, engines = request.param
    gens = [mk[src]()] + [mk[dst]() for _ in engines]
    made = [next(g) for g in gens]
    yield made[0], dict(zip(engines, made[1:], strict=True))
    for g in gens:
        next(g, None)


def channel(src: Any, dst: Any, tmp: Path, engine: str, tables: list[str]) -> Channel:
    data = {
        "channel": engine,
        "application": engine,
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": f"public.{t}" if src.vendor == "postgres" else t, "snapshot": "none"}
            for t in tables
        ],
        "spark": {"driver_round_max": ENGINES[engine][0]},
        # one round a batch, whatever the tables
        "sync_groups": {"all": [f"public.{t}" if src.vendor == "postgres" else t for t in tables]},
    }
    (tmp / f"{engine}.yaml").write_text(json.dumps(data))
    return Channel.from_file(tmp / f"{engine}.yaml")


def rounds(
    src: Any,
    targets: dict[str, Any],
    tmp: Path,
    tables: list[str],
    batches: list[list[str]],
    spark: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from syncpoint.vendors.postgres import round_direct

    channels = {e: channel(src, t, tmp, e, tables) for e, t in targets.items()}
    for ch in channels.values():
        ch.install()
    for batch in batches:
        src.execute(*batch)
        for engine, ch in channels.items():
            monkeypatch.setenv("SYNCPOINT_ROUND_PATH", ENGINES[engine][1])
            with monkeypatch.context() as m:
                if engine == "text":
                    m.setattr(round_direct, "typed_stage", lambda *a, **k: None)
                report = ch.run(once=True, spark=spark)
            assert report.changes > 0, engine
            ran = [r for r in report.rounds if r["changes"]]
            assert {r["engine"] for r in ran} == {"driver" if engine == "driver" else "spark"}
            assert all(r["direct"] == (engine in ("direct", "text")) for r in ran), engine
            if engine == "direct" and targets[engine].vendor == "postgres":
                # PostgreSQL's direct path stages typed from either source
                assert all(r["typed"] for r in ran), (engine, ran)
            if engine == "text":
                assert not any(r["typed"] for r in ran), engine


# one row's class moves between texts: renamed, deleted and made again under another
# text, away and back, inserted and renamed in the round; others are changed plainly
CLASS_MOVES = [
    "UPDATE ci SET k = 'ABC', v = 'renamed' WHERE k = 'abc'",
    "DELETE FROM ci WHERE k = 'def'",
    "INSERT INTO ci VALUES ('DEF', 'made again')",
    "UPDATE ci SET k = 'GHI' WHERE k = 'ghi'",
    "UPDATE ci SET k = 'ghi', v = 'back' WHERE k = 'GHI'",
    "UPDATE ci SET v = 'plain' WHERE k = 'jkl'",
    "DELETE FROM ci WHERE k = 'mno'",
    "INSERT INTO ci VALUES ('pqr', 'new')",
    "UPDATE ci SET k = 'PQR' WHERE k = 'pqr'",
]


@pytest.mark.parametrize(
    "dbs", [("postgres", "postgres", list(ENGINES))], indirect=True, ids=["postgres"]
)
def test_keys_equal_but_not_as_text_keep_their_rows_postgres(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """citext and numeric keys (a table whose key is the whole row), PostgreSQL to
    PostgreSQL, on every path."""
    src, targets = dbs
    tables = [
        "CREATE TABLE ci (k citext PRIMARY KEY, v text)",
        "CREATE TABLE nk (k numeric PRIMARY KEY)",  # the key is the whole row
    ]
    for db in (src, *targets.values()):
        db.execute("CREATE EXTENSION IF NOT EXISTS citext", *tables)
    first = [
        "INSERT INTO ci SELECT x, 'was ' || x FROM unnest(ARRAY['abc', 'def', 'ghi', "
        "'jkl', 'mno']) x",
        "INSERT INTO nk VALUES (1.0), (2.0), (3.0)",
    ]
    second = [
        *CLASS_MOVES,
        "UPDATE nk SET k = 1.00 WHERE k = 1",
        "UPDATE nk SET k = 2.000 WHERE k = 2",
        "UPDATE nk SET k = 2.0 WHERE k = 2",
    ]
    rounds(src, targets, tmp_path, ["ci", "nk"], [first, second], spark, monkeypatch)
    for q in ("SELECT k::text, v FROM ci ORDER BY 1", "SELECT k::text FROM nk ORDER BY 1"):
        want = src.query(q)
        for engine, dst in targets.items():
            assert dst.query(q) == want, (engine, q)


@pytest.mark.parametrize(
    "dbs", [("postgres", "mariadb", ["driver", "direct"])], indirect=True,
    ids=["postgres-mariadb"],
)  # fmt: skip
def test_keys_apart_at_the_source_stay_apart_in_a_created_mariadb_table(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL's text keys 'a', 'A', 'a ' and 'a  ' are four rows; the MariaDB table
    syncpoint creates for them compares its keys byte for byte (no case folding, no
    padding), so it holds four rows too."""
    src, targets = dbs
    src.execute("CREATE TABLE ci (k text PRIMARY KEY, v text)")
    first = ["INSERT INTO ci VALUES ('a', '1'), ('A', '2'), ('a ', '3'), ('b', '4')"]
    second = [
        "INSERT INTO ci VALUES ('a  ', '5'), ('B', '6')",
        "DELETE FROM ci WHERE k = 'a '",
        "UPDATE ci SET v = 'upper' WHERE k = 'A'",
    ]
    rounds(src, targets, tmp_path, ["ci"], [first, second], spark, monkeypatch)
    want = sorted(src.query("SELECT k, v FROM ci"))
    assert len(want) == 5
    for engine, dst in targets.items():
        assert sorted(dst.query("SELECT k, v FROM ci")) == want, engine
    # validate: nothing to say of the created table; loud about one whose key folds case
    dst = targets["driver"]
    ch = channel(src, dst, tmp_path, "driver", ["ci"])
    assert not [n for n in ch.notes()["cen"] if "collation" in n]
    dst.execute(
        "DELETE FROM ci",
        "ALTER TABLE ci MODIFY k varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
    )
    said = [n for n in ch.notes()["cen"] if "collation" in n]
    assert said and said[0].startswith(
        "warning: target ci: key column k compares in collation utf8mb4_general_ci"
    ), said
    # and at run time: 'A' would overwrite the target's 'a' (equal there), so the table
    # stops, saying which keys and the way back, and the target keeps its 'a'
    dst.execute("INSERT INTO ci VALUES ('a', '1'), ('b', '4')")
    src.execute("UPDATE ci SET v = 'upper again' WHERE k = 'A'")
    with pytest.raises(TableStopped, match=r"holds 'a' and 'A' as one key") as stopped:
        ch.run(once=True, spark=spark)
    assert "syncpoint snapshot --tables public.ci --restart" in str(stopped.value)
    assert sorted(dst.query("SELECT k, v FROM ci")) == [("a", "1"), ("b", "4")]
    st = ch.integrate_status()["cen"]["tables"]
    assert any(r["stopped"] and "as one key" in r["stopped"] for r in st), st
    # two upserts of one round that the target's key holds as one, into an empty table
    dst = targets["direct"]
    dst.execute(
        "DELETE FROM ci",
        "ALTER TABLE ci MODIFY k varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
    )
    src.execute("UPDATE ci SET v = concat(v, '+') WHERE k IN ('b', 'B')")
    monkeypatch.setenv("SYNCPOINT_ROUND_PATH", ENGINES["direct"][1])
    with pytest.raises(TableStopped, match=r"holds 'B' and 'b' as one key"):
        channel(src, dst, tmp_path, "direct", ["ci"]).run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM ci") == [(0,)]


@pytest.mark.parametrize(
    "dbs",
    [("mariadb", "mariadb", ["driver", "text"]), ("mariadb", "postgres", ["driver", "direct"])],
    indirect=True,
    ids=["mariadb-mariadb", "mariadb-postgres"],
)
def test_keys_equal_in_a_mariadb_collation_keep_their_rows(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MariaDB key column in a case-insensitive PAD SPACE collation (the server's
    default kind): 'abc' updated to 'ABC' is an update of the same key there, and 'x' to
    'X ' too. Into MariaDB (the created table keeps the collation; by the driver and on the
    direct path, netted by the source) and into a PostgreSQL table made with a citext key
    (the direct path's JSON text, netted by PostgreSQL)."""
    src, targets = dbs
    for dst in targets.values():
        if dst.vendor == "postgres":
            dst.execute(
                "CREATE EXTENSION IF NOT EXISTS citext",
                "CREATE TABLE ci (k citext PRIMARY KEY, v text)",
            )
    src.execute(
        "CREATE TABLE ci (k VARCHAR(20) COLLATE utf8mb4_general_ci PRIMARY KEY, v TEXT) "
        "ENGINE=InnoDB"
    )
    first = [
        "INSERT INTO ci VALUES ('abc', '1'), ('def', '2'), ('ghi', '3'), ('jkl', '4'), "
        "('mno', '5'), ('x', '6')"
    ]
    second = [*CLASS_MOVES, "UPDATE ci SET k = 'X ' WHERE k = 'x'"]
    rounds(src, targets, tmp_path, ["ci"], [first, second], spark, monkeypatch)
    want = sorted(src.query("SELECT k, v FROM ci"))
    assert len(want) == 6
    for engine, dst in targets.items():
        assert sorted(dst.query("SELECT k, v FROM ci")) == want, engine


@pytest.mark.parametrize(
    "dbs", [("sqlite", "sqlite", ["driver"])], indirect=True, ids=["sqlite-sqlite"]
)
def test_keys_equal_in_a_sqlite_nocase_collation_keep_their_rows(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite keys under COLLATE NOCASE, into a target table made with the same key."""
    src, targets = dbs
    table = "CREATE TABLE ci (k TEXT COLLATE NOCASE PRIMARY KEY, v TEXT)"
    for db in (src, *targets.values()):
        db.execute(table)
    first = [
        "INSERT INTO ci VALUES ('abc', '1'), ('def', '2'), ('ghi', '3'), ('jkl', '4'), ('mno', '5')"
    ]
    rounds(src, targets, tmp_path, ["ci"], [first, CLASS_MOVES], spark, monkeypatch)
    want = sorted(src.query("SELECT k, v FROM ci"))
    assert len(want) == 5
    for engine, dst in targets.items():
        assert sorted(dst.query("SELECT k, v FROM ci")) == want, engine


@pytest.mark.parametrize(
    "dbs", [("postgres", "postgres", ["driver", "direct"])], indirect=True,
    ids=["text-citext"],
)  # fmt: skip
def test_a_citext_target_of_a_text_source_stops_the_table(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text key's 'a' and 'A' are two rows at the source and one key in an existing
    citext target: the round that brings 'A' (to an 'a' at the target) or both (as two
    upserts of one round) stops the table, says which keys and the way back, and the target
    keeps what it had; JSON text staging (driver) and typed staging (direct)."""
    src, targets = dbs
    src.execute("CREATE TABLE ct (k text PRIMARY KEY, v text)")
    for dst in targets.values():
        dst.execute(
            "CREATE EXTENSION IF NOT EXISTS citext",
            "CREATE TABLE ct (k citext PRIMARY KEY, v text)",
        )
    rounds(src, targets, tmp_path, ["ct"], [["INSERT INTO ct VALUES ('a', '1')"]], spark,
           monkeypatch)  # fmt: skip
    src.execute("INSERT INTO ct VALUES ('A', '2')")
    for engine, dst in targets.items():
        ch = channel(src, dst, tmp_path, engine, ["ct"])
        monkeypatch.setenv("SYNCPOINT_ROUND_PATH", ENGINES[engine][1])
        with pytest.raises(TableStopped, match=r"holds 'a' and 'A' as one key") as stopped:
            ch.run(once=True, spark=spark)
        assert "syncpoint snapshot --tables public.ct --restart" in str(stopped.value)
        assert dst.query("SELECT k::text, v FROM ct") == [("a", "1")], engine
        st = ch.integrate_status()["cen"]["tables"]
        assert any(r["stopped"] and "as one key" in r["stopped"] for r in st), (engine, st)


@pytest.mark.parametrize(
    "dbs", [("sqlite", "sqlite", ["driver"])], indirect=True, ids=["binary-nocase"]
)
def test_a_nocase_target_of_a_binary_source_stops_the_table(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite keys compared byte for byte at the source, under COLLATE NOCASE at the
    target: 'A' after 'a' stops the table and the target keeps its 'a'."""
    src, targets = dbs
    dst = targets["driver"]
    src.execute("CREATE TABLE ct (k TEXT PRIMARY KEY, v TEXT)")
    dst.execute("CREATE TABLE ct (k TEXT COLLATE NOCASE PRIMARY KEY, v TEXT)")
    rounds(src, targets, tmp_path, ["ct"], [["INSERT INTO ct VALUES ('a', '1')"]], spark,
           monkeypatch)  # fmt: skip
    src.execute("INSERT INTO ct VALUES ('A', '2')")
    ch = channel(src, dst, tmp_path, "driver", ["ct"])
    with pytest.raises(TableStopped, match=r"holds 'a' and 'A' as one key"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT k, v FROM ct") == [("a", "1")]


CI_TABLE = {
    "postgres": [
        "CREATE EXTENSION IF NOT EXISTS citext",
        "CREATE TABLE ci (k citext PRIMARY KEY, v text)",
    ],
    "mariadb": ["CREATE TABLE ci (k VARCHAR(20) COLLATE utf8mb4_general_ci PRIMARY KEY, v TEXT)"],
    "sqlite": ["CREATE TABLE ci (k TEXT COLLATE NOCASE PRIMARY KEY, v TEXT)"],
}


@pytest.mark.parametrize("third", ["postgres", "mariadb", "sqlite"])
def test_a_delete_spares_the_row_another_origin_upserts_in_the_window_cdr_refused(
    tmp_path: Path, third: str
) -> None:
    """A ring of three sites (a reads c, b reads a, c reads b), a key that compares without
    case: b applies a's delete of 'abc', then inserts 'ABC' itself; c hears of both from b
    in one window of two origins, each its own part (the upserts of all parts before the
    deletes), and the delete of 'abc' from a's part must spare the row b's part upserted.
    Conflict resolution, which matches keys by their text, is refused on such keys."""
    from syncpoint.errors import ConfigError
    from syncpoint.ops.cdr import setup
    from syncpoint.ops.run import RunReport, run_group

    mk = {"postgres": make_pg, "mariadb": make_mariadb, "sqlite": lambda: make_sqlite(tmp_path)}
    gens = [make_pg(), make_pg(), mk[third]()]
    sites = dict(zip("abc", (next(g) for g in gens), strict=True))
    try:
        for db in sites.values():
            db.execute(*CI_TABLE[db.vendor])
        ring = {"a": "c", "b": "a", "c": "b"}
        data = {
            "channel": "ring",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": True, "integrate": True, "from": [ring[n]]}
                for n, db in sites.items()
            },
            "tables": [{"name": "ci", "snapshot": "none"}],
            "spark": {"driver_round_max": 1_000_000},
        }
        (tmp_path / "ring.yaml").write_text(json.dumps(data))
        ch = Channel.from_file(tmp_path / "ring.yaml")
        ch.install()

        def run_at(site: str) -> None:
            for g, tables in ch.cfg.groups().items():
                assert run_group(ch.cfg, site, g, tables, RunReport(), None)

        sites["a"].execute("INSERT INTO ci VALUES ('abc', 'from a')")
        for site in ("b", "c"):
            run_at(site)
        assert sites["c"].query("SELECT k, v FROM ci") == [("abc", "from a")]
        sites["a"].execute("DELETE FROM ci WHERE k = 'abc'")
        run_at("b")
        sites["b"].execute("INSERT INTO ci VALUES ('ABC', 'from b')")
        run_at("c")
        assert sites["c"].query("SELECT k, v FROM ci") == [("ABC", "from b")]
        # conflict resolution matches keys by their text: refused on such keys, every site
        with pytest.raises(ConfigError) as said:
            setup.add(ch.cfg, "ci", "latest", None)
        lines = str(said.value).splitlines()
        assert [x.split(":")[0] for x in lines] == ["a", "b", "c"], lines
        why = {"postgres": "of type citext", "mariadb": "in collation utf8mb4_general_ci",
               "sqlite": "in collation NOCASE"}  # fmt: skip
        assert lines[0].startswith(
            "a: key column 'k' of public.ci compares of type citext: "
            "conflict resolution needs key columns equal only"
        ), lines
        assert f"compares {why[third]}" in lines[2], lines
    finally:
        for g in gens:
            next(g, None)


@pytest.mark.parametrize(
    "dbs", [("mariadb", "mariadb", ["driver", "text"])], indirect=True, ids=["mariadb-mariadb"]
)
def test_a_text_key_column_spares_in_mariadb(
    dbs: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Key columns of type TEXT (indexed by a prefix only): the upsert keys the deletes
    spare are found by an index of their own, which takes such a column by the prefix the
    key does (two whole TEXT columns are too long for an index)."""
    src, targets = dbs
    for db in (src, *targets.values()):  # made here: created tables take no prefix key
        db.execute(
            "CREATE TABLE tk (k TEXT, j TEXT, v int, PRIMARY KEY (k(20), j(20))) ENGINE=InnoDB"
        )
    first = ["INSERT INTO tk VALUES ('abc', 'x', 1), ('def', 'y', 2)"]
    second = ["UPDATE tk SET k = 'ABC' WHERE k = 'abc'", "DELETE FROM tk WHERE k = 'def'"]
    rounds(src, targets, tmp_path, ["tk"], [first, second], spark, monkeypatch)
    for dst in targets.values():
        assert dst.query("SELECT k, j, v FROM tk") == [("ABC", "x", 1)]
