"""``validate`` names each privilege ``install`` and ``run`` will need that the channel's
users lack, with the GRANT that gives it, and exits 2 before anything is installed; once
that GRANT is run, ``install`` (which validates first) succeeds as that user. Real roles
and accounts made by the test: a PostgreSQL role for log capture without CREATE on the
database (its publication), a MariaDB account for trigger capture without CREATE ROUTINE
and ALTER ROUTINE (its function)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import yaml

from tests.conftest import make_mariadb
from tests.system import roundkit as rk


def _config(path: Path, src: str, dst: str, table: str, kind: Any) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "channel": "shop",
                "locations": {
                    "src": {"url": src, "capture": kind},
                    "cen": {"url": dst, "integrate": True},
                },
                "tables": [{"name": table, "snapshot": "none"}],
            }
        )
    )
    return path


def test_postgresql_log_capture_without_create_on_the_database(
    log_db: Any, sqlite_db: Any, tmp_path: Path
) -> None:
    role = f"sp_log_{uuid.uuid4().hex[:8]}"
    base = log_db.url.rsplit("/", 1)[0]
    admin = psycopg.connect(log_db.url, autocommit=True)
    try:
        admin.execute(f'CREATE ROLE "{role}" LOGIN REPLICATION')
        admin.execute(f'GRANT CREATE ON SCHEMA public TO "{role}"')
        admin.execute("CREATE TABLE t (id int PRIMARY KEY, v text)")
        admin.execute(f'ALTER TABLE t OWNER TO "{role}"')
        sqlite_db.execute("CREATE TABLE kept (id integer)")  # the target's file exists
        scheme, rest = base.split("://", 1)
        user_url = f"{scheme}://{role}@{rest.split('@', 1)[-1]}/{log_db.name}"
        cfg = _config(tmp_path / "sp.yaml", user_url, sqlite_db.url, "public.t", "log")
        r = rk.syncpoint(cfg, "validate")
        assert r.returncode == 2, r.stdout + r.stderr
        grant = f'GRANT CREATE ON DATABASE "{log_db.name}" TO "{role}"'
        lines = [ln for ln in r.stdout.splitlines() if "CREATE on database" in ln]
        assert len(lines) == 1 and lines[0].endswith(grant), r.stdout
        assert "publication" in lines[0]
        assert len([ln for ln in r.stdout.splitlines() if ln.startswith(f"{cfg}: ")]) == 1
        assert admin.execute(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'repl%'"
        ).fetchone() == (0,)
        admin.execute(grant)
        # install validates first: it refuses on any problem validate would list
        r = rk.syncpoint(cfg, "install")
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        admin.execute("DROP TABLE IF EXISTS t")
        admin.execute(f'DROP OWNED BY "{role}"')
        admin.close()
        with psycopg.connect(f"{base}/postgres", autocommit=True) as other:
            other.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_mariadb_trigger_capture_without_create_routine(sqlite_db: Any, tmp_path: Path) -> None:
    gen = make_mariadb()
    db = next(gen)
    user = f"sp_tr_{uuid.uuid4().hex[:8]}"
    admin = pymysql.connect(host="127.0.0.1", port=3306, user="root", autocommit=True)
    cur = admin.cursor()
    try:
        db.execute("CREATE TABLE t (id int PRIMARY KEY, v text) ENGINE=InnoDB")
        cur.execute(f"CREATE USER '{user}'@'%'")
        cur.execute(
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, TRIGGER, "
            f"CREATE VIEW, SHOW VIEW ON `{db.name}`.* TO '{user}'@'%'"
        )
        cur.execute(f"GRANT PROCESS ON *.* TO '{user}'@'%'")
        sqlite_db.execute("CREATE TABLE kept (id integer)")
        url = f"mysql://{user}@127.0.0.1:3306/{db.name}"
        cfg = _config(tmp_path / "sp.yaml", url, sqlite_db.url, "t", True)
        r = rk.syncpoint(cfg, "validate")
        assert r.returncode == 2, r.stdout + r.stderr
        grant = f"GRANT CREATE ROUTINE, ALTER ROUTINE ON `{db.name}`.* TO '{user}'@'%'"
        problems = [ln for ln in r.stdout.splitlines() if ln.startswith(f"{cfg}: ")]
        assert len(problems) == 1 and problems[0].endswith(grant), r.stdout
        assert db.query("SHOW TABLES") == [("t",)]
        cur.execute(grant)
        # install validates first: it refuses on any problem validate would list
        r = rk.syncpoint(cfg, "install")
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
        admin.close()
        next(gen, None)
