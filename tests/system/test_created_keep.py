"""Target tables syncpoint creates keep what their source declared: a GiST index on a
tsvector stays GiST at a PostgreSQL target (a B-tree there refuses a large tsvector the
source holds), and is left out at MariaDB, which has none; MariaDB's ``tinyint(1) NOT
NULL DEFAULT 1`` becomes a boolean defaulting to true at PostgreSQL, and a full-text index
PostgreSQL cannot make is left out and named by ``validate``; a snapshot killed after
creating its tables, run again, still adds their indexes and foreign keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk

# in this process, on the shared SparkSession: a command's start-up is most of these tests
pytestmark = pytest.mark.spark

BIG = (
    "to_tsvector('simple', "
    "(SELECT string_agg(md5((g + {n})::text), ' ') FROM generate_series(1, 700) g))"
)
DOC_SUM = (
    "SELECT count(*), md5(coalesce(string_agg(id || ':' || body::text, ',' ORDER BY id), '')) "
    "FROM doc"
)


def _config(path: Path, src: Any, dst: Any, tables: list[str], **extra: Any) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "channel": "shop",
                "application": "wh",
                "locations": {
                    "src": {"url": src.url, "capture": True},
                    "cen": {"url": dst.url, "integrate": True},
                },
                "tables": [{"name": t} for t in tables],
                "spark": {"master": "local[1]"},
                **extra,
            }
        )
    )
    return path


def _methods(db: Any, table: str) -> list[tuple[str, str]]:
    return db.query(
        "SELECT i.relname::text, am.amname::text FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam "
        "WHERE x.indrelid = %s::regclass AND NOT x.indisprimary ORDER BY 1",
        (table,),
    )


def test_a_gist_index_stays_gist_and_takes_a_tsvector_too_large_for_a_btree(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    gens = [make_pg(), make_mariadb()]
    dst, my = (next(g) for g in gens)
    try:
        src = pg_db
        src.execute(
            "CREATE TABLE doc (id int PRIMARY KEY, title text, body tsvector)",
            "CREATE INDEX doc_body ON doc USING gist (body)",
            "CREATE INDEX doc_words ON doc USING gin (body)",
            "CREATE INDEX doc_title ON doc (title)",
        )
        cfg = _config(tmp_path / "sp.yaml", src, dst, ["public.doc"])
        doc = yaml.safe_load(cfg.read_text())
        doc["locations"]["my"] = {"url": my.url, "integrate": True}
        cfg.write_text(yaml.safe_dump(doc))
        ch = Channel.from_file(cfg)
        ch.install()  # empty: the first round creates the targets
        src.execute(
            f"INSERT INTO doc SELECT 1, repeat('t', 2000), {BIG.format(n=0)}",
            f"INSERT INTO doc SELECT 2, 'two', {BIG.format(n=1000)}",
        )
        ch.run(once=True, spark=spark)
        assert _methods(dst, "doc") == [
            ("doc_body", "gist"),
            ("doc_title", "btree"),
            ("doc_words", "gin"),
        ]
        assert dst.query(DOC_SUM) == src.query(DOC_SUM)
        assert dst.query(DOC_SUM)[0][0] == 2
        # MariaDB has no GiST or GIN (left out); its B-tree takes a long text by a prefix
        assert my.query(
            "SELECT INDEX_NAME, COLUMN_NAME, SUB_PART IS NOT NULL FROM "
            "information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() "
            "AND TABLE_NAME = 'doc' AND INDEX_NAME <> 'PRIMARY'"
        ) == [("doc_title", "title", 1)]
        # a checksum of each row's checksum (group_concat cuts its result at 1024 bytes)
        titles = "SELECT count(*), md5(group_concat(md5(title) ORDER BY id)) FROM doc"
        want = "SELECT count(*), md5(string_agg(md5(title), ',' ORDER BY id)) FROM doc"
        assert my.query(titles) == src.query(want)
    finally:
        for g in gens:
            next(g, None)


def test_a_mariadb_tinyint_1_default_becomes_a_boolean_default_at_postgresql(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_mariadb()
    src = next(gen)
    try:
        dst = pg_db
        src.execute(
            "CREATE TABLE staff (id int PRIMARY KEY, active tinyint(1) NOT NULL DEFAULT 1, "
            "name varchar(200), FULLTEXT KEY staff_name (name)) ENGINE=InnoDB"
        )
        cfg = _config(tmp_path / "sp.yaml", src, dst, ["staff"])
        _, in_file, problems, notes = Channel.check_file(cfg)
        assert not in_file and not any(problems.values()), problems
        said = [n for n in notes["cen"] if "staff_name" in n]
        assert said and "index staff_name (fulltext at the source) is not created" in said[0]
        ch = Channel.from_file(cfg)
        ch.install()
        src.execute("INSERT INTO staff (id, name) VALUES (1, 'ann'), (2, 'bob')")
        src.execute("INSERT INTO staff VALUES (3, 0, 'cy')")
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, active, name FROM staff ORDER BY id") == [
            (1, True, "ann"),
            (2, True, "bob"),
            (3, False, "cy"),
        ]
        dst.execute("INSERT INTO staff (id) VALUES (9)")  # the default holds at the target
        assert dst.query("SELECT active FROM staff WHERE id = 9") == [(True,)]
        assert _methods(dst, "staff") == []
    finally:
        next(gen, None)


def test_a_snapshot_run_again_adds_the_indexes_and_foreign_keys_of_the_tables_it_made(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_pg()
    dst = next(gen)
    try:
        src = pg_db
        src.execute(
            "CREATE TABLE parent (id int PRIMARY KEY, name text)",
            "CREATE INDEX parent_name ON parent (name)",
            "CREATE TABLE child (id int PRIMARY KEY, parent_id int NOT NULL "
            "REFERENCES parent (id), note text)",
            "CREATE INDEX child_parent ON child (parent_id)",
            "INSERT INTO parent SELECT g, 'p' || g FROM generate_series(1, 5) g",
            "INSERT INTO child SELECT g, 1 + g % 5, 'c' || g FROM generate_series(1, 10) g",
        )
        cfg = _config(
            tmp_path / "sp.yaml",
            src,
            dst,
            ["public.parent", "public.child"],
            sync_groups={"g": ["parent", "child"]},
        )
        ch = Channel.from_file(cfg)
        ch.install()
        # killed once the first table's rows are in: both tables made, nothing handed over
        first = rk.syncpoint(cfg, "snapshot", env={"SYNCPOINT_FAILPOINT": "snapshot_after_chunk@1"})
        assert first.returncode != 0
        assert dst.query("SELECT count(*) FROM pg_tables WHERE tablename = 'parent'") == [(1,)]
        ch.snapshot(spark=spark)
        assert _methods(dst, "parent") == [("parent_name", "btree")]
        assert _methods(dst, "child") == [("child_parent", "btree")]
        fks = dst.query(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
            "WHERE contype = 'f'"
        )
        assert fks == [("child", "parent")]
        for t in ("parent", "child"):
            q = f"SELECT count(*), md5(string_agg({t}::text, ',' ORDER BY id)) FROM {t}"
            assert dst.query(q) == src.query(q)
        # nothing is owed any more
        assert dst.query("SELECT count(*) FROM repl_created_tables") == [(0,)]
    finally:
        next(gen, None)
