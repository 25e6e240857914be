"""SQLite capture: install, uninstall, status, check, plan, and the CLI around them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_sqlite_capture_support import Sl, listing, tx

from syncpoint.config import TableConfig
from syncpoint.errors import ConfigError

T = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, u TEXT UNIQUE)"
MINE = {
    ("table", "repl_items"),
    ("index", "repl_items_context"),
    ("index", "repl_items_table"),
    ("table", "repl_tables"),
    ("table", "repl_debug_table"),
    ("table", "repl_service_context"),
    ("table", "repl_origin"),
    ("table", "repl_pending"),
    ("table", "repl_pow2"),
    ("table", "repl_cols_snapshot"),
    ("view", "repl_cols_view"),
    ("trigger", "repl_ai$t"),
    ("trigger", "repl_bi$t"),
    ("trigger", "repl_au$t"),
    ("trigger", "repl_bu$t"),
    ("trigger", "repl_ad$t"),
}


def test_install_creates_the_objects_and_status_shows_them(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    before = {(t, n) for t, n, _, _ in listing(sqlite_db)}
    sl = Sl(sqlite_db)
    sl.install("t")
    after = {(t, n) for t, n, _, _ in listing(sqlite_db)}
    assert after - before == MINE
    st = sl.status()
    assert st.installed and len(st.stream_id) == 32 and st.context == 0
    [t] = st.tables
    assert (t.table, t.status, t.actions, t.pending) == ("t", "OK", "IUD", 0)
    assert t.trigger_name == "repl_ai$t, repl_bi$t, repl_au$t, repl_bu$t, repl_ad$t"
    assert sqlite_db.query("SELECT location, context FROM repl_service_context") == [("dec01", 0)]
    assert sqlite_db.query(
        "SELECT catalogname, schemaname, tablename, status, repl_key, debug, version "
        "FROM repl_tables"
    ) == [(sqlite_db.name, "main", "t", "OK", 0, 0, 1)]


def test_uninstall_restores_the_catalog(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    before = listing(sqlite_db, include_internal=True)
    sl = Sl(sqlite_db)
    sl.install("t")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")
    sl.tick()
    sl.uninstall()
    # SQLite creates sqlite_sequence for the first AUTOINCREMENT table and refuses to drop
    # it; uninstall removes the queue's row from it, everything else is as before.
    after = listing(sqlite_db, include_internal=True)
    assert [e for e in after if e[1] != "sqlite_sequence"] == before
    assert sqlite_db.query("SELECT count(*) FROM sqlite_sequence") == [(0,)]
    sl.uninstall()  # idempotent
    assert listing(sqlite_db) == [e for e in before if not e[1].startswith("sqlite_")]
    assert sqlite_db.query("SELECT * FROM t") == [(1, "a", "x")]
    tx(sqlite_db, "INSERT INTO t VALUES (2, 'b', 'y')")  # writes work without capture
    assert not sl.status().installed


def test_uninstall_is_exact_when_sqlite_sequence_existed(sqlite_db: Any) -> None:
    sqlite_db.execute(T, "CREATE TABLE app (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)")
    tx(sqlite_db, "INSERT INTO app (v) VALUES ('x')")
    before = listing(sqlite_db, include_internal=True)
    seq = sqlite_db.query("SELECT name, seq FROM sqlite_sequence")
    sl = Sl(sqlite_db)
    sl.install("t")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")
    sl.uninstall()
    assert listing(sqlite_db, include_internal=True) == before
    assert sqlite_db.query("SELECT name, seq FROM sqlite_sequence") == seq


def test_install_twice_changes_nothing(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    sl = Sl(sqlite_db)
    sl.install("t")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")
    first = listing(sqlite_db)
    state = sqlite_db.query("SELECT * FROM repl_service_context")
    tables = sqlite_db.query("SELECT * FROM repl_tables")
    sl.install("t")
    assert listing(sqlite_db) == first
    assert sqlite_db.query("SELECT * FROM repl_service_context") == state
    assert sqlite_db.query("SELECT * FROM repl_tables") == tables
    assert [a for a, _, _ in sl.rows("t", 0)] == ["INSERT"]


def test_reinstall_follows_the_configuration(sqlite_db: Any) -> None:
    sqlite_db.execute(T, "CREATE TABLE u (id INTEGER PRIMARY KEY)")
    sl = Sl(sqlite_db)
    sl.install("t", "u")
    sid = sl.status().stream_id
    sl.install(TableConfig(name="t", actions="IU", debug=True))
    triggers = [n for t, n, _, _ in listing(sqlite_db) if t == "trigger"]
    assert triggers == ["repl_ai$t", "repl_au$t"]  # no deletes, so no REPLACE helpers
    st = sl.status()
    assert st.stream_id == sid
    assert [(t.table, t.actions, t.debug) for t in st.tables] == [("t", "IU", 1)]


def test_a_failed_install_leaves_nothing_behind(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    before = listing(sqlite_db, include_internal=True)
    sl = Sl(sqlite_db)
    # the objects are created before the missing table is met: all of it is rolled back
    with pytest.raises(ConfigError, match="table nope does not exist at location dec01"):
        sl.install("t", "nope")
    assert listing(sqlite_db, include_internal=True) == before
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")


def test_plan_shows_the_sql_and_changes_nothing(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    before = listing(sqlite_db, include_internal=True)
    sl = Sl(sqlite_db)
    plan = sl.call("plan", [TableConfig(name="t")])
    assert listing(sqlite_db, include_internal=True) == before
    assert 'CREATE TABLE "repl_items"' in plan[0]
    assert sum(s.startswith("CREATE TRIGGER") for s in plan) == 5
    assert any('AFTER INSERT ON "t"' in s for s in plan)
    sl.install("t")
    assert sl.call("plan", [TableConfig(name="t")]) == []


def test_two_prefixes_side_by_side(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    a, b = Sl(sqlite_db, "repl_"), Sl(sqlite_db, "other_")
    a.install("t")
    mine = listing(sqlite_db)
    b.install("t")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")
    assert a.rows("t", 0) == b.rows("t", 0) == [("INSERT", {"id": 1, "name": "a", "u": "x"}, None)]
    b.uninstall()
    # a's objects are exactly as before b came (its triggers' schema cookie aside)
    assert {(t, n) for t, n, _, _ in listing(sqlite_db)} == {(t, n) for t, n, _, _ in mine}
    tx(sqlite_db, "INSERT INTO t VALUES (2, 'b', 'y')")
    assert [r for _, r, _ in a.rows("t", 1)] == [{"id": 2, "name": "b", "u": "y"}]


@pytest.mark.parametrize(
    "setup, entry, problem",
    [
        ("CREATE TABLE k (a INT, b TEXT)", {"name": "k"}, "table k: has no primary key; name"),
        (
            "CREATE TABLE k (a INT, b TEXT)",
            {"name": "k", "key": ["x"]},
            "table k: key column 'x' does not exist",
        ),
        (
            "CREATE VIEW k AS SELECT 1 AS a",
            {"name": "k"},
            "table k: is a view, not an ordinary table",
        ),
        (
            "CREATE TABLE k (a INT PRIMARY KEY)",
            {"name": "other.k"},
            "table other.k: SQLite locations have only the schema 'main'",
        ),
        (
            "CREATE TABLE k (a INT PRIMARY KEY, e TEXT)",
            {"name": "nope"},
            "table nope: does not exist",
        ),
        (
            "CREATE TABLE repl_k (a INT PRIMARY KEY)",
            {"name": "repl_k"},
            "table repl_k: its name starts with the prefix 'repl_'",
        ),
        (
            "CREATE TABLE k (a INT PRIMARY KEY, e TEXT); CREATE UNIQUE INDEX ke ON k (lower(e))",
            {"name": "k"},
            "table k: unique index 'ke' is on an expression",
        ),
    ],
)
def test_check_refuses_what_cannot_be_captured(
    sqlite_db: Any, setup: str, entry: dict[str, Any], problem: str
) -> None:
    sqlite_db.execute(*setup.split("; "))
    sl = Sl(sqlite_db)
    found = sl.call("check", [TableConfig(**entry)])
    assert any(p.startswith(problem) for p in found), found


def test_check_refuses_writers_that_distrust_the_schema(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    sl = Sl(sqlite_db)
    conn = sl.cap.connect()
    conn.execute("PRAGMA trusted_schema = OFF")
    [problem] = sl.cap.check(conn, [TableConfig(name="t")])
    conn.close()
    assert problem.startswith("connections start with trusted_schema=OFF here")


def test_check_accepts_a_keyless_table_with_a_key(sqlite_db: Any) -> None:
    sqlite_db.execute("CREATE TABLE k (a INT, b TEXT)")
    assert Sl(sqlite_db).call("check", [TableConfig(name="k", key=["a"])]) == []


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "syncpoint.cli.main", "-c", str(tmp_path / "s.yaml"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_install_status_uninstall(sqlite_db: Any, tmp_path: Path) -> None:
    sqlite_db.execute(T)
    (tmp_path / "s.yaml").write_text(
        "channel: shop\n"
        f"locations:\n  dec01: {{url: '{sqlite_db.url}', capture: true}}\n"
        "tables:\n  - {name: t}\n  - {name: missing}\n"
    )
    before = listing(sqlite_db, include_internal=True)
    for cmd in ("validate", "install"):
        r = _cli(tmp_path, cmd)
        assert r.returncode == 2, r.stdout + r.stderr
        # validate reports on stdout (in order with the ok lines), install refuses on stderr
        assert "dec01: table missing: does not exist" in (
            r.stdout if cmd == "validate" else r.stderr
        )
    assert listing(sqlite_db, include_internal=True) == before

    (tmp_path / "s.yaml").write_text(
        "channel: shop\n"
        f"locations:\n  dec01: {{url: '{sqlite_db.url}', capture: true}}\n"
        "tables:\n  - {name: t}\n"
    )
    r = _cli(tmp_path, "install")
    assert (r.returncode, r.stdout.strip()) == (0, "dec01: installed")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'x')")
    r = _cli(tmp_path, "status", "--json")
    assert r.returncode == 0, r.stderr
    st = json.loads(r.stdout)["capture"]["dec01"]
    assert st["installed"] and st["pending"] == 1
    assert [(t["table"], t["status"]) for t in st["tables"]] == [("t", "OK")]
    r = _cli(tmp_path, "uninstall")
    assert (r.returncode, r.stdout.strip()) == (0, "dec01: uninstalled")
    assert not any(n.startswith("repl_") for _, n, _, _ in listing(sqlite_db))
