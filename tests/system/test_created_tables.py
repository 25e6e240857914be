"""A target table syncpoint creates looks like its source: NOT NULL, portable defaults,
unique and secondary indexes (after the initial load), foreign keys among the channel's
tables where the target vendor can add them; compared with the source's catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.config import TableName
from syncpoint.ops.channel import Channel
from syncpoint.vendors import shapebase
from tests.conftest import make_mariadb, make_pg, make_sqlite

pytestmark = pytest.mark.spark

SOURCE = [
    "CREATE TABLE customer (id bigint PRIMARY KEY, code varchar(20) NOT NULL UNIQUE, "
    "name varchar(100) DEFAULT 'nobody', score integer NOT NULL DEFAULT 0, "
    "active boolean DEFAULT true, "
    "seen timestamptz DEFAULT now(), serial_no bigserial)",
    "CREATE INDEX customer_name_idx ON customer (name, score)",
    "CREATE INDEX customer_lower_idx ON customer (lower(name))",
    "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint NOT NULL "
    "REFERENCES customer (id), note varchar(200), amount numeric(10,2) DEFAULT 1.50)",
    "CREATE INDEX orders_customer_idx ON orders (customer_id)",
    "INSERT INTO customer (id, code, name) SELECT g, 'c' || g, 'n' || g "
    "FROM generate_series(1, 20) g",
    "INSERT INTO orders SELECT g, 1 + g % 20, 'o' || g, g FROM generate_series(1, 40) g",
]
TARGETS = {"postgres": make_pg, "mariadb": make_mariadb, "sqlite": None}


@pytest.fixture(params=list(TARGETS))
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    (tmp_path / "t").mkdir()
    make = TARGETS[request.param] or (lambda: make_sqlite(tmp_path / "t"))
    gens = [make_pg(), make()]
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


def _extras(db: Any, table: str) -> Any:
    conn = db.connect(autocommit=False)
    try:
        ref = TableName(schema="public", name=table) if db.vendor == "postgres" else None
        return shapebase.extras(db.vendor, conn, ref or TableName(name=table))
    finally:
        conn.close()


def test_created_target_tables_carry_not_null_defaults_indexes_and_foreign_keys(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    src.execute(*SOURCE)
    cfg = tmp_path / "syncpoint.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "channel": "shop",
                "application": "wh",
                "locations": {
                    "src": {"url": src.url, "capture": True},
                    "cen": {"url": dst.url, "integrate": True},
                },
                "tables": [{"name": "public.customer"}, {"name": "public.orders"}],
                "sync_groups": {"g": ["customer", "orders"]},
                "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
            }
        )
    )
    ch = Channel.from_file(cfg)
    ch.install()
    ch.snapshot(spark=spark)
    for table in ("customer", "orders"):
        a, b = _extras(src, table), _extras(dst, table)
        # a boolean's default reads back as a number where booleans are numbers
        kinds = {"bool": "number"} if dst.vendor != "postgres" else {}
        assert {k: kinds.get(d.kind, d.kind) for k, d in a.defaults.items()} == {
            k: d.kind for k, d in b.defaults.items()
        }, table
        # MariaDB: unique indexes besides the key are plain (docs/types.md)
        plain = dst.vendor == "mariadb"
        assert sorted((i.columns, i.unique and not plain) for i in a.indexes) == sorted(
            (i.columns, i.unique) for i in b.indexes
        ), table
        fks = [(f.columns, f.parent.name, f.parent_columns) for f in b.foreign_keys]
        expected = [(f.columns, f.parent.name, f.parent_columns) for f in a.foreign_keys]
        assert fks == ([] if dst.vendor == "sqlite" else expected), table
    assert _extras(src, "customer").defaults["name"].value == "nobody"
    assert _extras(dst, "customer").defaults["name"].value == "nobody"
    # NOT NULL and UNIQUE hold at the target
    p = "?" if dst.vendor == "sqlite" else "%s"
    for bad in ((99, None), (98, "c1")) if dst.vendor != "mariadb" else ((99, None),):
        with pytest.raises(Exception):  # noqa: B017, PT011 - each vendor's driver error
            dst.execute(f"INSERT INTO customer (id, code) VALUES ({p}, {p})", params=bad)
    assert dst.query("SELECT count(*) FROM orders")[0][0] == 40
    # the source drops a NOT NULL the target took from it: rows with NULL still arrive
    # (SQLite cannot alter a column; its target keeps the NOT NULL)
    if dst.vendor != "sqlite":
        src.execute(
            "ALTER TABLE customer ALTER COLUMN score DROP NOT NULL",
            "INSERT INTO customer (id, code, score) VALUES (500, 'c500', NULL)",
            # a parent row its children refer to changes: applied in place, never deleted
            # and inserted again (which the foreign key from orders would refuse)
            "UPDATE customer SET name = 'changed' WHERE id = 1",
        )
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT score FROM customer WHERE id = 500") == [(None,)]
        assert dst.query("SELECT name FROM customer WHERE id = 1") == [("changed",)]
