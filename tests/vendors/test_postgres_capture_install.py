"""PostgreSQL capture: install, uninstall, status, check, plan, and the CLI around them."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_postgres_capture_support import Pg, listing, tx

from syncpoint.config import TableConfig
from syncpoint.errors import LocationError

T = "CREATE TABLE public.t (id integer PRIMARY KEY, name text)"


def test_uninstall_restores_the_catalog_exactly(pg_db: Any) -> None:
    pg_db.execute(T)
    before = listing(pg_db)
    pg = Pg(pg_db)
    pg.install("public.t")
    installed = listing(pg_db)
    assert ("public", "repl_items", "r") in installed["pg_class"]
    assert ("public", "repl_repl_key_seq", "S") in installed["pg_class"]
    assert [e[0] for e in installed["pg_event_trigger"]] == [
        "repl_ddl_drop",
        "repl_ddl_end",
        "repl_ddl_start",
    ]
    assert {(t[0], t[1]) for t in installed["pg_trigger"]} >= {
        ("t", "repl_capture_1_ins"),
        ("t", "repl_capture_1_upd"),
        ("t", "repl_capture_1_del"),
        ("t", "repl_capture_1_trunc"),
    }
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    pg.tick()
    pg.uninstall()
    assert listing(pg_db) == before
    pg.uninstall()  # idempotent
    assert listing(pg_db) == before
    assert pg_db.query("SELECT * FROM t") == [(1, "a")]


def test_install_twice_changes_nothing(pg_db: Any) -> None:
    pg_db.execute(T)
    pg = Pg(pg_db)
    pg.install("public.t")
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    first = listing(pg_db)
    state = pg_db.query("SELECT stream_id, location, context FROM repl_service_context")
    tables = pg_db.query("SELECT id, schemaname, tablename, status, version FROM repl_tables")
    pg.install("public.t")
    assert listing(pg_db) == first
    assert pg_db.query("SELECT stream_id, location, context FROM repl_service_context") == state
    assert pg_db.query("SELECT id, schemaname, tablename, status, version FROM repl_tables") == (
        tables
    )
    p, recs = pg.window("public.t", 0)
    assert [r.row for r in recs] == [{"id": 1, "name": "a"}]


def test_install_failure_leaves_nothing_behind(pg_db: Any) -> None:
    pg_db.execute(T, "CREATE TABLE public.nokey (a integer, b text)")
    before = listing(pg_db)
    pg = Pg(pg_db)
    with pytest.raises(LocationError) as err:
        pg.install("public.t", "public.nokey")
    assert "nokey" in str(err.value) and "no primary key" in str(err.value)
    assert listing(pg_db) == before
    with pytest.raises(LocationError) as err:
        pg.install("public.t", "public.missing")
    assert "missing" in str(err.value) and "does not exist" in str(err.value)
    assert listing(pg_db) == before


def test_reinstall_follows_the_channel_file(pg_db: Any) -> None:
    pg_db.execute(T, "CREATE TABLE public.u (id integer PRIMARY KEY)")
    pg = Pg(pg_db)
    pg.install("public.t", "public.u")
    pg.install(TableConfig(name="public.t", actions="IU"))
    st = pg.status()
    assert [(t.table, t.actions, t.status) for t in st.tables] == [("public.t", "IU", "OK")]
    triggers = pg_db.query(
        "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE tgrelid = 't'::regclass"
        " ORDER BY 2"
    )
    assert triggers == [("t", "repl_capture_1_ins"), ("t", "repl_capture_1_upd")]
    assert pg_db.query("SELECT count(*) FROM pg_proc WHERE proname = 'repl_capture_2'") == [(0,)]


def test_status_reports_tables_pending_and_broken_triggers(pg_db: Any) -> None:
    pg_db.execute(T)
    pg = Pg(pg_db)
    assert not pg.status().installed
    pg.install(TableConfig(name="public.t", actions="ID"))
    tx(pg_db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    st = pg.status()
    assert st.installed and len(st.stream_id) == 32 and st.context == 0 and st.pending == 2
    (t,) = st.tables
    assert (t.table, t.status, t.actions, t.trigger_name, t.pending, t.debug) == (
        "public.t",
        "OK",
        "ID",
        "repl_capture_1",
        2,
        0,
    )
    # a trigger disabled or dropped by hand stops the table where capture broke
    pg_db.execute("ALTER TABLE t DISABLE TRIGGER repl_capture_1_del")
    assert (
        pg.status()
        .tables[0]
        .status.startswith(
            "ERROR: capture trigger repl_capture_1_del on public.t was disabled by hand"
        )
    )
    assert pg_db.query("SELECT db_action FROM repl_items ORDER BY repl_key DESC LIMIT 1") == [
        ("STOP",)
    ]
    pg_db.execute("DROP TRIGGER repl_capture_1_ins ON t")
    assert pg.status().tables[0].status.startswith("ERROR: capture trigger")
    assert pg.tick() == 1
    assert pg.status().context == 1


def test_check_reports_tables_capture_cannot_take(pg_db: Any) -> None:
    pg_db.execute(
        T,
        "CREATE TABLE public.nokey (a integer, b text)",
        "CREATE VIEW public.v AS SELECT * FROM t",
        "CREATE TABLE public.j (doc json, n integer)",
    )
    pg = Pg(pg_db)
    assert pg.check("public.t", TableConfig(name="public.nokey", key=["a"])) == []
    problems = pg.check(
        "public.nokey",
        "public.missing",
        "public.v",
        TableConfig(name="public.j", key=["doc"]),
        TableConfig(name="public.t", key=["nope"]),
    )
    assert any("nokey" in p and "no primary key" in p for p in problems)
    assert any("missing" in p and "does not exist" in p for p in problems)
    assert any("public.v" in p and "is a view" in p for p in problems)
    assert any("public.j" in p and "equality" in p for p in problems)
    assert any("'nope'" in p and "does not exist" in p for p in problems)


def test_check_refuses_partitions_alone_and_inheritance(pg_db: Any) -> None:
    pg_db.execute(
        "CREATE TABLE public.pt (id integer, d date, PRIMARY KEY (id, d)) PARTITION BY RANGE (d)",
        "CREATE TABLE public.pt_2024 PARTITION OF pt FOR VALUES FROM ('2024-01-01')"
        " TO ('2025-01-01')",
        "CREATE TABLE public.parent (id integer PRIMARY KEY)",
        "CREATE TABLE public.child (extra text) INHERITS (parent)",
        "ALTER TABLE public.child ADD PRIMARY KEY (id)",
    )
    pg = Pg(pg_db)
    problems = pg.check("public.pt", "public.pt_2024", "public.parent", "public.child")
    assert len(problems) == 3
    assert "public.pt_2024: is a partition of public.pt" in problems[0]
    assert "list the partitioned table public.pt instead" in problems[0]
    for p, name in zip(problems[1:], ("parent", "child"), strict=True):
        assert f"public.{name}: takes part in inheritance" in p
    with pytest.raises(LocationError) as err:
        pg.install("public.pt_2024")
    assert "list a partitioned table, not its partitions" in str(err.value)


def test_check_says_ddl_is_polled_without_a_superuser(pg_db: Any) -> None:
    role = f"sp_user_{uuid.uuid4().hex[:8]}"
    pg_db.execute(T, f"CREATE ROLE {role} LOGIN", f"GRANT ALL ON SCHEMA public TO {role}")
    try:
        url = pg_db.url.replace("postgres@", f"{role}@", 1)
        pg = Pg(type(pg_db)("postgres", url, pg_db.name))
        # its triggers are enabled by ALTER TABLE: the owner's (validate says so)
        assert [p for p in pg.check("public.t") if "does not own it" in p]
        pg_db.execute(f"ALTER TABLE t OWNER TO {role}")
        assert pg.check("public.t") == []  # not a problem: DDL is found by polling instead
        conn = pg.conn()
        try:
            (note,) = pg.cap.notes(conn)
        finally:
            conn.close()
        assert (
            f"found by polling the catalog at each tick, not by event triggers: user '{role}'"
            in note
        )
        assert "is not a superuser, and only a superuser can create event triggers" in note
    finally:
        pg_db.execute(
            f"REASSIGN OWNED BY {role} TO postgres",
            f"REVOKE ALL ON SCHEMA public FROM {role}",
            f"DROP ROLE {role}",
        )


def test_check_refuses_a_sql_ascii_database(pg_db: Any) -> None:
    name = f"sp_ascii_{uuid.uuid4().hex[:8]}"
    pg_db.execute(
        f"CREATE DATABASE {name} ENCODING 'SQL_ASCII' TEMPLATE template0 "
        "LC_COLLATE 'C' LC_CTYPE 'C'"
    )
    try:
        db = type(pg_db)("postgres", pg_db.url.rsplit("/", 1)[0] + "/" + name, name)
        db.execute(T)
        problems = Pg(db).check("public.t")
        assert len(problems) == 1 and "SQL_ASCII" in problems[0]
    finally:
        pg_db.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_plan_shows_the_sql_and_changes_nothing(pg_db: Any) -> None:
    pg_db.execute(T)
    before = listing(pg_db)
    pg = Pg(pg_db)
    conn = pg.conn()
    stmts = pg.cap.plan(conn, [TableConfig(name="public.t")])
    conn.close()
    text = "\n".join(stmts)
    assert 'CREATE TABLE IF NOT EXISTS "public"."repl_items"' in text
    assert 'CREATE EVENT TRIGGER "repl_ddl_end"' in text
    assert "'public', 't', 'IUD', 'CREATING'" in text
    assert listing(pg_db) == before


def test_two_prefixes_install_and_uninstall_apart(pg_db: Any) -> None:
    pg_db.execute(T)
    a, b = Pg(pg_db, prefix="repl_"), Pg(pg_db, prefix="repl_x_")
    a.install("public.t")
    only_a = listing(pg_db)
    b.install("public.t")
    both = listing(pg_db)
    assert ("public", "repl_x_items", "r") in both["pg_class"]
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    b.uninstall()
    assert listing(pg_db) == only_a
    _, recs = a.window("public.t", 0)
    assert [r.row for r in recs] == [{"id": 1, "name": "a"}]


def test_a_tick_needs_an_idle_connection_and_an_install(pg_db: Any) -> None:
    pg_db.execute(T)
    pg = Pg(pg_db)
    conn = pg.conn()
    with pytest.raises(Exception) as err:
        pg.cap.tick(conn)
    assert "not installed" in str(err.value)
    conn.close()
    pg.install("public.t")
    conn = pg.conn()
    conn.execute("SELECT 1")
    with pytest.raises(Exception) as err:
        pg.cap.tick(conn)
    assert "open transaction" in str(err.value)
    conn.close()


def _cli(cfg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "syncpoint"
    return subprocess.run(
        [str(exe), "-c", str(cfg), *args], capture_output=True, text=True, timeout=120
    )


def _config(tmp_path: Path, db: Any, tables: list[str]) -> Path:
    cfg = tmp_path / "syncpoint.yaml"
    lines = [
        "channel: shop",
        "locations:",
        f'  dec01: {{url: "{db.url}", capture: true}}',
        "tables:",
        *[f"  - {{name: {t}}}" for t in tables],
    ]
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


def test_cli_refuses_a_missing_table_and_touches_nothing(pg_db: Any, tmp_path: Path) -> None:
    pg_db.execute(T)
    before = listing(pg_db)
    cfg = _config(tmp_path, pg_db, ["public.t", "public.nosuch"])
    res = _cli(cfg, "validate")
    assert res.returncode == 2
    assert "public.nosuch: does not exist at location dec01" in res.stdout
    res = _cli(cfg, "install")
    assert res.returncode == 2, res.stderr
    assert "nosuch" in res.stderr
    assert listing(pg_db) == before


def test_cli_install_status_uninstall(pg_db: Any, tmp_path: Path) -> None:
    pg_db.execute(T)
    before = listing(pg_db)
    cfg = _config(tmp_path, pg_db, ["public.t"])
    assert _cli(cfg, "validate").returncode == 0
    res = _cli(cfg, "install")
    assert res.returncode == 0, res.stderr
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    res = _cli(cfg, "status", "--json")
    assert res.returncode == 0, res.stderr
    st = json.loads(res.stdout)["capture"]["dec01"]
    assert st["installed"] and st["pending"] == 1
    assert [(t["table"], t["status"]) for t in st["tables"]] == [("public.t", "OK")]
    res = _cli(cfg, "uninstall")
    assert res.returncode == 0, res.stderr
    assert listing(pg_db) == before


def test_connection_errors_name_the_location_without_password(pg_db: Any) -> None:
    url = pg_db.url.replace("postgres@", "postgres:s3cret@", 1).replace(":5432", ":1")
    pg = Pg(type(pg_db)("postgres", url, pg_db.name))
    with pytest.raises(LocationError) as err:
        pg.conn()
    assert "s3cret" not in str(err.value) and "dec01" in str(err.value)
    assert isinstance(err.value.__cause__, psycopg.Error) or err.value.__cause__ is None
