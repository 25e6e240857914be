"""``validate``, ``plan`` and ``status`` change nothing anywhere: every database's catalog and
every syncpoint table's rows, and every file of a SQLite location, are exactly as before;
``validate`` reports a SQLite file that does not exist instead of creating it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from syncpoint.ops.channel import Channel
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

PG_CATALOG = (
    "SELECT c.relname, c.relkind, c.reltuples::bigint * 0 FROM pg_class c "
    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
    "UNION ALL SELECT tgname, 't', 0 FROM pg_trigger WHERE NOT tgisinternal "
    "UNION ALL SELECT evtname, 'e', 0 FROM pg_event_trigger "
    "UNION ALL SELECT proname, 'f', 0 FROM pg_proc p JOIN pg_namespace n "
    "ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1, 2"
)
MY_CATALOG = (
    "SELECT table_name, table_type, create_time FROM information_schema.tables "
    "WHERE table_schema = database() UNION ALL SELECT trigger_name, action_statement, created "
    "FROM information_schema.triggers WHERE trigger_schema = database() ORDER BY 1, 2"
)


def _digest(rs: list[Any]) -> str:
    return hashlib.sha256(json.dumps(sorted(map(repr, rs))).encode()).hexdigest()


def _table(db: Any, table: str) -> str:
    """Every row of a table, the application's and syncpoint's control tables alike (the
    change queue with its tick stamps, the ticks, the service context): status never ticks."""
    q = '"' if db.vendor != "mariadb" else "`"
    return _digest(db.query(f"SELECT * FROM {q}{table}{q}"))


def state(db: Any) -> Any:
    """What must not change: the catalog (tables, triggers, functions), the rows of the
    application's tables and of syncpoint's, and (SQLite) the files of the folder."""
    if db.vendor == "sqlite":
        path = Path(db.url.split("sqlite:///", 1)[1])
        files = sorted(p.name for p in path.parent.iterdir())
        if not path.exists():
            return files
        catalog = db.query("SELECT type, name, sql FROM sqlite_master ORDER BY 1, 2")
        tables = [r[1] for r in catalog if r[0] == "table" and not r[1].startswith("sqlite_")]
    else:
        catalog = db.query(PG_CATALOG if db.vendor == "postgres" else MY_CATALOG)
        tables = [r[0] for r in catalog if r[1] in ("r", "BASE TABLE")]
        files = []
    return files, catalog, {t: _table(db, t) for t in tables}


def test_validate_plan_and_status_change_nothing(pg_db: Any, maria_db: Any, tmp_path: Path) -> None:
    lite_dir = tmp_path / "lite"
    lite_dir.mkdir()
    lite = type(pg_db)("sqlite", f"sqlite:///{lite_dir / 'src.db'}", "src")
    target_dir = tmp_path / "target"
    target_dir.mkdir()
    dst = type(pg_db)("sqlite", f"sqlite:///{target_dir / 'dst.db'}", "dst")
    for db in (pg_db, maria_db, lite):
        rk.setup_source(db)
    data = yaml.safe_load(rk.write_config(tmp_path / "sp.yaml", {"pg": pg_db}, dst).read_text())
    data["locations"]["my"] = {"url": maria_db.url, "capture": True}
    data["locations"]["lite"] = {"url": lite.url, "capture": True}
    data["locations"]["pg2"] = {"url": pg_db.url, "integrate": True}
    data["tables"] = [
        {"name": "parent", "locations": ["my", "lite"]},
        {"name": "public.parent", "locations": ["pg"]},
    ]
    data["sync_groups"] = {}
    path = tmp_path / "sp.yaml"
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    for db in (pg_db, maria_db, lite):
        sql(db, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
    # a shape change no run has polled yet: status must not poll it either
    sql(lite, "ALTER TABLE parent ADD COLUMN extra TEXT")
    sql(maria_db, "ALTER TABLE parent ADD COLUMN extra TEXT")
    before = {db.name: state(db) for db in (pg_db, maria_db, lite, dst)}

    # install made the SQLite target file (validate reports it missing before install)
    assert (target_dir / "dst.db").exists()
    assert ch.validate() == {"pg": [], "my": [], "lite": [], "cen": [], "pg2": []}
    ch.plan()
    ch.plan_uninstall()
    for _ in range(3):  # each status used to make a tick: position 0 -> 1 -> 2
        status = rk.syncpoint(path, "status", "--json")
        assert status.returncode == 0, status.stderr
    doc = json.loads(status.stdout)
    assert doc["capture"]["lite"]["pending"] >= 1
    # the backlog still counts the row written since install, without a tick
    backlog = {(t["location"], t["backlog"]) for t in doc["integrate"]["cen"]["tables"]}
    assert backlog == {("pg", 1), ("my", 1), ("lite", 1)}, backlog
    assert {db.name: state(db) for db in (pg_db, maria_db, lite, dst)} == before


def test_validate_reports_a_missing_sqlite_file_and_creates_nothing(
    sqlite_db: Any, tmp_path: Path
) -> None:
    rk.setup_source(sqlite_db)
    typo = tmp_path / "sorce.db"
    path = rk.write_config(tmp_path / "sp.yaml", {"src": sqlite_db}, sqlite_db)
    data = yaml.safe_load(path.read_text())
    data["locations"]["src"]["url"] = f"sqlite:///{typo}"
    data["locations"]["cen"]["url"] = f"sqlite:///{tmp_path / 'nowhere' / 'dst.db'}"
    path.write_text(yaml.safe_dump(data))
    files = sorted(p.name for p in tmp_path.iterdir())
    for cmd in (["validate"], ["plan"], ["status"]):
        done = rk.syncpoint(path, *cmd)
        assert done.returncode != 0, (cmd, done.stdout)
    done = rk.syncpoint(path, "validate", "--json")
    assert done.returncode == 2
    problems = json.loads(done.stdout)["problems"]
    assert f"SQLite file {typo} does not exist" in problems["src"][0]
    assert "does not exist" in problems["cen"][0]
    # status: exit 1 when no location can be read, the JSON document still printed
    done = rk.syncpoint(path, "status", "--json")
    assert done.returncode == 1
    assert "does not exist" in json.loads(done.stdout)["capture"]["src"]["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == files


def test_a_missing_sqlite_target_is_reported_and_made_by_install(
    sqlite_db: Any, tmp_path: Path
) -> None:
    rk.setup_source(sqlite_db)
    dst = tmp_path / "warehouse.db"
    path = rk.write_config(tmp_path / "sp.yaml", {"src": sqlite_db}, sqlite_db)
    data = yaml.safe_load(path.read_text())
    data["locations"]["cen"]["url"] = f"sqlite:///{dst}"
    path.write_text(yaml.safe_dump(data))
    done = rk.syncpoint(path, "validate")
    assert done.returncode == 2, done.stdout
    assert f"SQLite file {dst} does not exist; `install` creates it" in done.stdout + done.stderr
    assert not dst.exists()
    done = rk.syncpoint(path, "install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert dst.exists() and "cen" in done.stdout
    done = rk.syncpoint(path, "validate")
    assert done.returncode == 0, done.stdout
