"""MariaDB capture: install, uninstall, plan, check and status, compared on the catalog."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pymysql
import pytest
from test_mariadb_capture_support import install, listing

from syncpoint.config import TableConfig
from syncpoint.errors import ConfigError, LocationError
from syncpoint.vendors import of_url
from syncpoint.vendors.mariadb import triggers
from syncpoint.vendors.mariadb.capture import MariadbCapture

T = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB"
U = "CREATE TABLE u (id INT PRIMARY KEY, v INT) ENGINE=InnoDB"


def test_install_twice_changes_nothing_uninstall_restores_catalog(maria_db: Any) -> None:
    maria_db.execute(T, U)
    before = listing(maria_db)
    cap = install(maria_db, "t", TableConfig(name="u", actions="IU", debug=True))
    first = listing(maria_db)
    assert {r[0] for r in first["tables"]} >= {
        "repl_items",
        "repl_tables",
        "repl_debug_table",
        "repl_service_context",
        "repl_ticks",
        "repl_cols_snapshot",
        "repl_ddl_log",
        "repl_cols_view",
    }
    assert [r[0] for r in first["routines"]] == ["repl_trans_key"]
    assert len(first["triggers"]) == 5  # t: I, U, D; u: I, U (actions IU)
    conn = cap.conn()
    stream = cap.cap.stream_id(conn)
    cap.cap.install(conn, [TableConfig(name="t"), TableConfig(name="u", actions="IU", debug=True)])
    assert cap.cap.stream_id(conn) == stream
    conn.close()
    assert listing(maria_db) == first
    conn = cap.conn()
    cap.cap.uninstall(conn)
    cap.cap.uninstall(conn)
    assert not cap.cap.status(conn).installed
    conn.close()
    assert listing(maria_db) == before
    maria_db.execute("INSERT INTO t VALUES (1, 'after')")


def test_reinstall_follows_the_configuration(maria_db: Any) -> None:
    maria_db.execute(T, U)
    cap = install(maria_db, "t", "u")
    conn = cap.conn()
    cap.cap.install(conn, [TableConfig(name="t", actions="ID")])
    st = cap.cap.status(conn)
    conn.close()
    assert [(w.table, w.status, w.actions) for w in st.tables] == [("t", "OK", "ID")]
    trig = maria_db.query(
        "SELECT EVENT_OBJECT_TABLE, EVENT_MANIPULATION FROM information_schema.TRIGGERS"
        " WHERE TRIGGER_SCHEMA = %s ORDER BY 1, 2",
        (maria_db.name,),
    )
    assert trig == [("t", "DELETE"), ("t", "INSERT")]


@pytest.mark.parametrize(
    ("setup", "config", "expected"),
    [
        (["CREATE TABLE nokey (a INT) ENGINE=InnoDB"], {"name": "nokey"}, "has no primary key"),
        ([], {"name": "missing"}, "does not exist"),
        (
            ["CREATE TABLE k (id INT PRIMARY KEY)"],
            {"name": "k", "key": ["nope"]},
            "key column 'nope' does not exist",
        ),
        (["CREATE TABLE m (id INT PRIMARY KEY) ENGINE=MyISAM"], {"name": "m"}, "MyISAM engine"),
        (
            [
                "CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
                "CREATE TABLE c (id INT PRIMARY KEY, p INT, CONSTRAINT fk_c FOREIGN KEY (p)"
                " REFERENCES p (id) ON DELETE CASCADE) ENGINE=InnoDB",
            ],
            {"name": "c"},
            "foreign key 'fk_c' to 'p' has ON DELETE CASCADE",
        ),
        (
            [
                "CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
                "CREATE TABLE c (id INT PRIMARY KEY, p INT, CONSTRAINT fk_n FOREIGN KEY (p)"
                " REFERENCES p (id) ON UPDATE SET NULL) ENGINE=InnoDB",
            ],
            {"name": "c"},
            "ON UPDATE SET NULL",
        ),
        (
            ["CREATE TABLE b (id INT PRIMARY KEY)", "CREATE VIEW v AS SELECT id FROM b"],
            {"name": "v"},
            "is a view",
        ),
        (["CREATE TABLE o (id INT PRIMARY KEY)"], {"name": "otherdb.o"}, "own database"),
    ],
)
def test_check_refuses_and_install_creates_nothing(
    maria_db: Any, setup: list[str], config: dict[str, Any], expected: str
) -> None:
    maria_db.execute(*setup)
    before = listing(maria_db)
    cap = MariadbCapture("dec01", maria_db.url, "repl_")
    conn = cap.connect()
    problems = cap.check(conn, [TableConfig(**config)])
    assert any(expected in p for p in problems), problems
    with pytest.raises(ConfigError) as err:
        cap.install(conn, [TableConfig(**config)])
    assert expected in str(err.value)
    conn.close()
    assert listing(maria_db) == before


def test_restrict_foreign_key_and_configured_key_are_accepted(maria_db: Any) -> None:
    maria_db.execute(
        "CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
        "CREATE TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id)"
        " ON DELETE RESTRICT) ENGINE=InnoDB",
        "CREATE TABLE log (a INT, b VARCHAR(5)) ENGINE=InnoDB",
    )
    cap = MariadbCapture("dec01", maria_db.url, "repl_")
    conn = cap.connect()
    assert cap.check(conn, [TableConfig(name="c"), TableConfig(name="log", key=["a", "b"])]) == []
    conn.close()


def test_failed_install_leaves_nothing_behind(maria_db: Any, monkeypatch: Any) -> None:
    """The triggers of the second table cannot be created (a transaction holds the table's
    metadata lock): everything this install created is removed again."""
    maria_db.execute(T, U)
    monkeypatch.setattr(triggers, "LOCK_WAIT", 1)
    before = listing(maria_db)
    blocker = maria_db.connect(autocommit=False)
    blocker.cursor().execute("SELECT * FROM u")  # holds a shared metadata lock on u
    try:
        cap = MariadbCapture("dec01", maria_db.url, "repl_")
        conn = cap.connect()
        with pytest.raises(LocationError, match="Lock wait timeout"):
            cap.install(conn, [TableConfig(name="t"), TableConfig(name="u")])
        conn.close()
        assert listing(maria_db) == before
        # Installed with t alone, then adding u fails: the state of the first install stays.
        cap2 = install(maria_db, "t")
        first = listing(maria_db)
        conn = cap2.conn()
        with pytest.raises(LocationError, match="Lock wait timeout"):
            cap2.cap.install(conn, [TableConfig(name="t"), TableConfig(name="u")])
        assert [w.table for w in cap2.cap.status(conn).tables] == ["t"]
        conn.close()
        assert listing(maria_db) == first
    finally:
        blocker.rollback()
        blocker.close()


def test_prefixes_that_start_alike_keep_apart(maria_db: Any) -> None:
    maria_db.execute(T, "CREATE TABLE x_t (id INT PRIMARY KEY)")
    a = install(maria_db, "t", "x_t", prefix="repl_")
    b = install(maria_db, "t", prefix="repl_x_")
    assert a.cap.names.trigger("x_t", "I") != b.cap.names.trigger("t", "I")
    conn = a.conn()
    a.cap.uninstall(conn)
    conn.close()
    left = maria_db.query(
        "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = %s",
        (maria_db.name,),
    )
    assert sorted(n for (n,) in left) == sorted(b.cap.names.triggers("t").values())
    p0 = b.tick()
    b.tx("INSERT INTO t VALUES (1, 'x')")
    assert [r.row for r in b.window(p0)[1]] == [{"id": 1, "name": "x"}]


def test_plan_shows_the_sql_and_changes_nothing(maria_db: Any) -> None:
    maria_db.execute("CREATE TABLE `we``ird 'name` (id INT PRIMARY KEY, `select` INT)")
    before = listing(maria_db)
    cap = of_url(maria_db.url).Capture("dec01", maria_db.url, "repl_")
    conn = cap.connect()
    stmts = cap.plan(conn, [TableConfig(name="we`ird 'name")])
    conn.close()
    text = "\n".join(stmts)
    assert "CREATE TABLE IF NOT EXISTS `repl_items`" in text
    assert "AFTER INSERT ON `we``ird 'name`" in text
    assert "NEW.`select`" in text
    assert listing(maria_db) == before


def test_status_lists_tables_pending_and_debug_lines(maria_db: Any) -> None:
    maria_db.execute(T)
    cap = install(maria_db, TableConfig(name="t", debug=True))
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    conn = cap.conn()
    st = cap.cap.status(conn)
    conn.close()
    assert st.installed and st.context == 0 and st.pending == 2
    [w] = st.tables
    assert (w.table, w.status, w.actions, w.pending, w.debug) == ("t", "OK", "IUD", 2, 1)
    assert w.trigger_name == ",".join(cap.cap.names.triggers("t").values())
    lines = maria_db.query("SELECT repl_key, line FROM repl_debug_table ORDER BY repl_key")
    keys = maria_db.query("SELECT repl_key FROM repl_items ORDER BY repl_key")
    assert [k for k, _ in lines] == [k for (k,) in keys]
    assert all(line.startswith("INSERT t trans_key ") and "dbid dec01" in line for _, line in lines)


def test_check_and_tick_need_the_process_privilege(maria_db: Any) -> None:
    maria_db.execute(T)
    user = f"sp_{uuid.uuid4().hex[:10]}"
    maria_db.execute(
        f"CREATE USER '{user}'@'%'",
        f"GRANT ALL PRIVILEGES ON `{maria_db.name}`.* TO '{user}'@'%'",
    )
    try:
        install(maria_db, "t")  # as root
        url = maria_db.url.replace("mysql://root@", f"mysql://{user}@")
        cap = MariadbCapture("dec01", url, "repl_")
        conn = cap.connect()
        problems = cap.check(conn, [TableConfig(name="t")])
        assert any("PROCESS privilege" in p for p in problems)
        with pytest.raises(LocationError, match="PROCESS privilege"):
            cap.tick(conn)
        conn.close()
    finally:
        maria_db.execute(f"DROP USER '{user}'@'%'")


def _cli(tmp_path: Path, db: Any, tables: str, *args: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "syncpoint.yaml"
    cfg.write_text(
        "channel: shop\n"
        "locations:\n"
        f"  dec02: {{url: '{db.url}', capture: true}}\n"
        f"tables:\n{tables}",
        encoding="utf-8",
    )
    exe = Path(sys.executable).parent / "syncpoint"
    return subprocess.run(
        [str(exe), "-c", str(cfg), *args], capture_output=True, text=True, timeout=120
    )


def test_cli_refuses_a_missing_table_then_installs(maria_db: Any, tmp_path: Path) -> None:
    maria_db.execute(T)
    before = listing(maria_db)
    bad = _cli(tmp_path, maria_db, "  - {name: t}\n  - {name: nope}\n", "install")
    assert bad.returncode == 2, bad.stderr
    assert "nope" in bad.stderr and "does not exist" in bad.stderr
    assert listing(maria_db) == before
    ok = _cli(tmp_path, maria_db, "  - {name: t, actions: IU}\n", "install")
    assert ok.returncode == 0, ok.stderr
    maria_db.execute("INSERT INTO t VALUES (1, 'a')")
    st = _cli(tmp_path, maria_db, "  - {name: t, actions: IU}\n", "status", "--json")
    assert st.returncode == 0, st.stderr
    assert '"pending": 1' in st.stdout and '"actions": "IU"' in st.stdout
    un = _cli(tmp_path, maria_db, "  - {name: t, actions: IU}\n", "uninstall")
    assert un.returncode == 0, un.stderr
    assert listing(maria_db) == before


def test_driver_errors_are_translated(maria_db: Any) -> None:
    cap = MariadbCapture("dec01", maria_db.url, "repl_")
    conn = cap.connect()
    with pytest.raises(LocationError):
        cap.tick(conn)  # not installed: the service table does not exist
    conn.close()
    assert not isinstance(LocationError("x"), pymysql.err.Error)
