"""Capture at PostgreSQL as the tables' owner without superuser (what managed services
give): ``validate`` passes and says DDL will be found by polling and why, ``install``
makes everything but the event triggers, rounds carry rows, an ALTER TABLE is found by the
next tick's poll (rows written between the ALTER and the poll arrive with the new column),
a dropped and re-created table is captured again in full, and ``uninstall`` leaves no
object of the prefix behind. The role is made for the test and dropped after it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import psycopg
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import PG_ADMIN, make_pg
from tests.system import roundkit as rk


def _as(url: str, role: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{role}@{rest.split('@', 1)[1]}"


def test_install_rounds_ddl_and_uninstall_as_a_table_owner_without_superuser(
    sqlite_db: Any, tmp_path: Path
) -> None:
    role = f"sp_owner_{uuid.uuid4().hex[:8]}"
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    admin.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER')
    gen = make_pg()
    db = next(gen)
    try:
        admin.execute(f'ALTER DATABASE "{db.name}" OWNER TO "{role}"')
        src = type(db)("postgres", _as(db.url, role), db.name)
        src.execute("CREATE TABLE parent (id integer PRIMARY KEY, name text)")
        src.execute("CREATE TABLE child (id integer PRIMARY KEY, note text)")
        sqlite_db.execute("CREATE TABLE kept (id integer)")  # the target's file exists
        path = tmp_path / "sp.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "channel": "owner",
                    "application": "wh",
                    "locations": {
                        "src": {"url": src.url, "capture": True},
                        "cen": {"url": sqlite_db.url, "integrate": True},
                    },
                    "tables": [
                        {"name": "public.parent", "snapshot": "none"},
                        {"name": "public.child", "snapshot": "none", "ddl_policy": "apply"},
                    ],
                }
            )
        )
        done = rk.syncpoint(path, "validate", "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        notes = json.loads(done.stdout)["notes"]["src"]
        assert notes == [
            "DDL of watched tables is found by polling the catalog at each tick, not by event "
            f"triggers: user '{role}' is not a superuser, and only a superuser can create "
            "event triggers"
        ]
        ch = Channel.from_file(path)
        ch.install()
        src.execute(
            "INSERT INTO parent VALUES (1, 'a'), (2, 'b')", "INSERT INTO child VALUES (1, 'x')"
        )
        ch.run(once=True)
        assert sqlite_db.query("SELECT id, name FROM parent ORDER BY id") == [(1, "a"), (2, "b")]
        # DDL, then rows in the new shape before any tick has polled it
        src.execute(
            "ALTER TABLE parent ADD COLUMN extra text",
            "INSERT INTO parent VALUES (3, 'c', 'new')",
            "UPDATE parent SET extra = 'old' WHERE id = 1",
        )
        ch.run(once=True)
        assert sqlite_db.query("SELECT id, name, extra FROM parent ORDER BY id") == [
            (1, "a", "old"),
            (2, "b", None),
            (3, "c", "new"),
        ]
        # a table dropped and made again: rows written before the poll are not lost
        src.execute(
            "DROP TABLE child",
            "CREATE TABLE child (id integer PRIMARY KEY, note text)",
            "INSERT INTO child VALUES (7, 'again')",
        )
        ch.run(once=True)
        src.execute("INSERT INTO child VALUES (8, 'later')")
        ch.run(once=True)
        assert (7, "again") in sqlite_db.query("SELECT id, note FROM child")
        assert (8, "later") in sqlite_db.query("SELECT id, note FROM child")
        ch.uninstall()
        left = src.query(
            "SELECT relname FROM pg_class WHERE relname LIKE 'repl\\_%' UNION ALL "
            "SELECT proname FROM pg_proc WHERE proname LIKE 'repl\\_%' UNION ALL "
            "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'repl\\_%'"
        )
        assert left == []
        assert admin.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = %s", (role,)
        ).fetchone() == (False,)
    finally:
        next(gen, None)
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        admin.close()
