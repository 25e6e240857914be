"""A row the target refuses for good (here a ``tsvector`` too large for the target's B-tree
index, SQLSTATE 54000) stops its sync group once, with the target's own message in
``status --json`` and the ``syncpoint_table_stopped`` series of a follower's metrics; the
follower logs it once, not at every poll; another group goes on. After the target's index
is fixed, ``run --once`` applies what waited: source and target equal by a count and a
checksum of every row computed here."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from tests.operator.test_serve_page import metric_values
from tests.system import roundkit as rk

TABLES = [
    "CREATE TABLE doc (id int PRIMARY KEY, body tsvector)",
    "CREATE TABLE doc_tag (id int PRIMARY KEY, doc_id int NOT NULL REFERENCES doc (id), tag text)",
    "CREATE TABLE other (id int PRIMARY KEY, v text)",
]
# 700 distinct 32-character lexemes: a tsvector of about 26 kB that hardly compresses
BIG = "to_tsvector('simple', (SELECT string_agg(md5(g::text), ' ') FROM generate_series(1, 700) g))"


def _sum(table: str, row: str) -> str:
    """A count and a checksum of every row, in key order."""
    return f"SELECT count(*), md5(coalesce(string_agg({row}, ',' ORDER BY id), '')) FROM {table}"


SUMS = {
    "doc": _sum("doc", "id || ':' || body::text"),
    "doc_tag": _sum("doc_tag", "id || ':' || doc_id || ':' || tag"),
    "other": _sum("other", "id || ':' || v"),
}


def _stopped(dst: Any) -> list[tuple[str]]:
    """The tables whose stop the target holds (none before the follower made the table)."""
    try:
        return dst.query("SELECT table_name FROM repl_table_stops ORDER BY 1")
    except Exception:  # noqa: BLE001 - psycopg's UndefinedTable: not made yet
        return []


def _status(cfg: Path) -> dict[str, dict[str, Any]]:
    r = rk.syncpoint(cfg, "status", "--json")
    doc = json.loads(r.stdout)
    return {t["table"]: t for t in doc["integrate"]["cen"]["tables"]}


def test_a_refused_row_stops_its_group_once_and_resumes_after_the_fix(
    pg_db: Any, tmp_path: Path
) -> None:
    from tests.conftest import make_pg

    gen = make_pg()
    dst = next(gen)
    src = pg_db
    try:
        src.execute(*TABLES, "CREATE INDEX doc_body ON doc USING gist (body)")
        # the target's index is a B-tree (as syncpoint created such an index before)
        dst.execute(*TABLES, "CREATE INDEX doc_body ON doc (body)")
        cfg = tmp_path / "sp.yaml"
        cfg.write_text(
            yaml.safe_dump(
                {
                    "channel": "shop",
                    "application": "wh",
                    "locations": {
                        "src": {"url": src.url, "capture": True},
                        "cen": {"url": dst.url, "integrate": True},
                    },
                    "tables": [
                        {"name": f"public.{n}", "snapshot": "none"}
                        for n in ("doc", "doc_tag", "other")
                    ],
                    "sync_groups": {"docs": ["doc", "doc_tag"], "rest": ["other"]},
                    "spark": {"master": "local[1]"},
                }
            )
        )
        assert rk.syncpoint(cfg, "install").returncode == 0
        src.execute(
            "INSERT INTO doc VALUES (1, to_tsvector('simple', 'small one'))",
            f"INSERT INTO doc VALUES (2, {BIG})",
            "INSERT INTO doc_tag VALUES (1, 1, 'a'), (2, 2, 'b')",
            "INSERT INTO other VALUES (1, 'x'), (2, 'y')",
        )
        log = tmp_path / "follow.log"
        exe = str(Path(sys.executable).with_name("syncpoint"))
        env = {k: v for k, v in os.environ.items() if k != "SYNCPOINT_FAILPOINT"}
        args = [
            "run",
            "--follow",
            "--interval",
            "0.2",
            "--metrics-port",
            "0",
            "--metrics-interval",
            "1",
        ]
        proc = subprocess.Popen(
            [exe, "-c", str(cfg), *args],
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
            env=env,
        )
        try:
            deadline = time.monotonic() + 90
            while not (_stopped(dst) and dst.query("SELECT count(*) FROM other") == [(2,)]):
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.3)
            st = _status(cfg)
            reason = st["public.doc"]["stopped"]
            assert reason and "index row requires" in reason and "54000" in reason, st
            # the partner stops with it, saying why; the other group went on
            assert "public.doc" in (st["public.doc_tag"]["stopped"] or ""), st
            assert st["public.other"]["stopped"] is None
            assert dst.query(SUMS["other"]) == src.query(SUMS["other"])
            assert dst.query("SELECT count(*) FROM doc")[0][0] == 0  # nothing half applied
            url = re.search(r"metrics: (http://\S+/metrics)", log.read_text()).group(1)  # type: ignore[union-attr]
            values = metric_values(url)
            labels = (("integrate", "cen"), ("location", "src"))

            def stopped(table: str) -> float:
                return next(
                    v
                    for (n, ls), v in values.items()
                    if n == "syncpoint_table_stopped"
                    and ("table", table) in ls
                    and all(x in ls for x in labels)
                )

            deadline = time.monotonic() + 30
            while stopped("public.doc") != 1 and time.monotonic() < deadline:
                time.sleep(0.5)
                values = metric_values(url)
            assert stopped("public.doc") == 1 and stopped("public.other") == 0
            # more polls go by (the other group's rows keep arriving): said once all the same
            src.execute("INSERT INTO other VALUES (3, 'z')")
            deadline = time.monotonic() + 30
            while dst.query("SELECT count(*) FROM other")[0][0] < 3:
                assert time.monotonic() < deadline
                time.sleep(0.3)
            assert log.read_text().count("index row requires") == 1, log.read_text()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        # the way back: the target's index made as the source's, then a round
        dst.execute("DROP INDEX doc_body", "CREATE INDEX doc_body ON doc USING gist (body)")
        r = rk.syncpoint(cfg, "run", "--once")
        assert r.returncode == 0, r.stdout + r.stderr
        for q in SUMS.values():
            assert dst.query(q) == src.query(q), q
        assert dst.query(SUMS["doc"])[0][0] == 2
        assert _stopped(dst) == []
    finally:
        next(gen, None)
