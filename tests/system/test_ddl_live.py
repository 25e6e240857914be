"""An application migrates its schema with plain SQL while its writers keep writing: no
application write fails because capture is installed, and the target follows under each
``ddl_policy`` (apply: the same columns and rows; stop: the table stops with the reason and
goes on once the user allows; ignore: rows keep flowing into the old columns).

ADD COLUMN, RENAME COLUMN, a type widening and DROP COLUMN on each vendor (and on PostgreSQL
and MariaDB with `capture: log`, the DDL read from the log in commit order). SQLite has no
ALTER COLUMN TYPE, and refuses DROP COLUMN of a column a trigger names (its own check, before
anything runs): the test shows that refusal and runs the drop with ``syncpoint migrate``.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from syncpoint.vendors.sqlite import dialect as sqlite_dialect
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.logpg import make_log_db
from tests.private_mariadb import make_log_maria_db
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

CREATE = {
    "postgres": "CREATE TABLE t (id bigint PRIMARY KEY, k integer, note text, amount integer)",
    "mariadb": "CREATE TABLE t (id bigint PRIMARY KEY, k int, note text, amount int) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, note TEXT, amount INTEGER)",
}
RENAME = "ALTER TABLE t RENAME COLUMN note TO remark"
WIDEN = {
    "postgres": "ALTER TABLE t ALTER COLUMN k TYPE bigint",
    "mariadb": "ALTER TABLE t MODIFY k bigint",
}


TRIGGERS = {
    "postgres": "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal",
    "mariadb": "SELECT count(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()",
}


def _connect(db: Any) -> Any:
    if db.vendor == "sqlite":  # as an application opens it: the plain module, no pragmas
        path = sqlite_dialect.path_of(db.url)
        return sqlite3.connect(path, timeout=60, isolation_level=None)
    return db.connect(autocommit=True)


class Writers:
    """Application writers: single-row inserts, updates and deletes of the columns no
    migration touches, each its own transaction, until stopped; every error is kept."""

    def __init__(self, db: Any, count: int = 2):
        self.db, self.stop, self.errors = db, threading.Event(), []  # type: ignore[var-annotated]
        self.threads = [threading.Thread(target=self._run, args=(n,)) for n in range(count)]
        self.writes = 0

    def _run(self, n: int) -> None:
        ph = "?" if self.db.vendor == "sqlite" else "%s"
        rnd, conn = random.Random(n), _connect(self.db)
        cur, next_id = conn.cursor(), 1_000_000 * (n + 1)
        while not self.stop.is_set():
            try:
                op = rnd.random()
                if op < 0.5:
                    next_id += 1
                    cur.execute(f"INSERT INTO t (id, k) VALUES ({ph}, 0)", (next_id,))
                elif op < 0.9:
                    cur.execute(f"UPDATE t SET k = k + 1 WHERE id = {ph}", (rnd.randint(1, 40),))
                else:
                    cur.execute(f"DELETE FROM t WHERE id = {ph}", (next_id - 1,))
                self.writes += 1
            except Exception as exc:  # noqa: BLE001 - what the test asserts never happens
                self.errors.append(repr(exc))
            time.sleep(0.005)
        conn.close()

    def __enter__(self) -> Writers:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


def _ddl(db: Any, statement: str) -> None:
    conn = _connect(db)
    try:
        conn.cursor().execute(statement)
        if db.vendor != "sqlite":
            conn.commit()
    finally:
        conn.close()


def _columns(db: Any) -> list[str]:
    if db.vendor == "sqlite":
        return [r[1] for r in db.query("SELECT * FROM pragma_table_info('t')")]
    return [
        r[0]
        for r in db.query(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 't' "
            "AND table_schema = current_schema() ORDER BY ordinal_position"
            if db.vendor == "postgres"
            else "SELECT column_name FROM information_schema.columns WHERE table_name = 't' "
            "AND table_schema = database() ORDER BY ordinal_position"
        )
    ]


def _migrate(db: Any, ch: Channel, pause: float, run: Any) -> list[str]:
    """The migrations, one round after each; returns the stop reasons met."""
    stops: list[str] = []
    steps = ["ALTER TABLE t ADD COLUMN extra text", RENAME]
    if db.vendor in WIDEN:
        steps.append(WIDEN[db.vendor])
    steps.append("ALTER TABLE t DROP COLUMN amount")
    for s in steps:
        if db.vendor == "sqlite" and "DROP COLUMN" in s:
            # SQLite's own check of every trigger refuses it before anything runs
            with pytest.raises(sqlite3.OperationalError, match="after drop column"):
                _ddl(db, s)
            ch.migrate("src", [s])
        else:
            _ddl(db, s)
        time.sleep(pause)  # writes through the triggers rendered for the old shape
        try:
            run()
        except TableStopped as exc:
            stops.append(str(exc))
    return stops


def _source(request: pytest.FixtureRequest, tmp: Path) -> Any:
    kind = request.param
    if kind == "postgres-log":  # capture: log, from a private server with wal_level logical
        return make_log_db(request.getfixturevalue("log_pg"))
    if kind == "mariadb-log":  # capture: log, from a private server with the binary log on
        return make_log_maria_db(request.getfixturevalue("log_maria"))
    return {"postgres": make_pg, "mariadb": make_mariadb}.get(kind, lambda: make_sqlite(tmp))()


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    gens = [_source(request, tmp_path), make_pg()]
    src, dst = next(gens[0]), next(gens[1])
    src.capture = "log" if request.param.endswith("-log") else True
    yield src, dst
    for g in gens:
        next(g, None)


def _channel(tmp: Path, src: Any, dst: Any, policy: str) -> tuple[Path, Channel]:
    src.execute(CREATE[src.vendor])
    name = "public.t" if src.vendor == "postgres" else "t"
    path = rk.write_config(
        tmp / "sp.yaml",
        {"src": src},
        dst,
        tables=[name],
        extra={
            "tables": [
                {"name": name, "target": "public.t", "ddl_policy": policy, "snapshot": "none"}
            ]
        },
    )
    data = yaml.safe_load(path.read_text())
    data["locations"]["src"]["capture"] = src.capture
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    # the table starts empty (snapshot: none): its first rows are written under capture
    vals = ", ".join(f"({i}, 0, 'n{i}', {i})" for i in range(1, 41))
    src.execute(f"INSERT INTO t (id, k, note, amount) VALUES {vals}")
    return path, ch


@pytest.mark.parametrize(
    "dbs", ["postgres", "mariadb", "sqlite", "postgres-log", "mariadb-log"], indirect=True
)
def test_migrations_under_writers_apply_policy_target_follows(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    _, ch = _channel(tmp_path, src, dst, "apply")
    if src.capture == "log":  # read from the log: no trigger on the application's table
        assert src.query(TRIGGERS[src.vendor]) == [(0,)]
    ch.run(once=True, spark=spark)
    with Writers(src) as w:
        stops = _migrate(src, ch, 0.25, lambda: ch.run(once=True, spark=spark))
        time.sleep(0.2)
    assert w.errors == [] and w.writes > 50, w.errors
    assert stops == []
    ch.run(once=True, spark=spark)
    assert _columns(dst) == _columns(src) == ["id", "k", "remark", "extra"]
    cols = "id, k, remark, extra"
    assert rk.rows(dst, "t", cols) == rk.rows(src, "t", cols)


@pytest.mark.slow
@pytest.mark.parametrize("dbs", ["mariadb", "sqlite", "mariadb-log"], indirect=True)
def test_migrations_under_writers_stop_policy_stops_then_goes_on(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    path, ch = _channel(tmp_path, src, dst, "stop")
    ch.run(once=True, spark=spark)
    with Writers(src) as w:
        stops = _migrate(src, ch, 0.2, lambda: ch.run(once=True, spark=spark))
    assert w.errors == []
    # the ADD was applied by itself; the rename stopped the table with the reason
    assert stops and "RENAME COLUMN note TO remark" in stops[0]
    assert "extra" in _columns(dst) and "note" in _columns(dst)
    data = yaml.safe_load(path.read_text())
    data["tables"][0]["ddl_policy"] = "apply"
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.run(once=True, spark=spark)
    assert _columns(dst) == _columns(src)
    cols = "id, k, remark, extra"
    assert rk.rows(dst, "t", cols) == rk.rows(src, "t", cols)


@pytest.mark.slow
@pytest.mark.parametrize("dbs", ["postgres"], indirect=True)
def test_migrations_under_writers_ignore_policy_rows_keep_flowing(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    _, ch = _channel(tmp_path, src, dst, "ignore")
    ch.run(once=True, spark=spark)
    with Writers(src) as w:
        stops = _migrate(src, ch, 0.2, lambda: ch.run(once=True, spark=spark))
    assert w.errors == [] and stops == []
    ch.run(once=True, spark=spark)
    # the additive change is applied whatever the policy; the rest is skipped as asked
    assert _columns(dst) == ["id", "k", "note", "amount", "extra"]
    assert rk.rows(dst, "t", "id, k, extra") == rk.rows(src, "t", "id, k, extra")
