"""A MariaDB source shaped like MySQL's Sakila sample (a trimmed copy of two of its tables:
ENUM and SET with upper-case labels in a utf8mb3_general_ci table, YEAR, ``ON UPDATE
CURRENT_TIMESTAMP`` columns, generated columns, GEOMETRY with an SRID, a BEFORE trigger of
the application) replicated to a created PostgreSQL and a created MariaDB target: snapshot,
UPDATEs that change nothing (the row keeps its timestamp; the trigger's NEW shows another),
a round, and ``verify`` finds the targets equal. At MariaDB the created table keeps the
labels, the character set and collation, and the spatial values byte for byte; at
PostgreSQL a spatial value is EWKB in ``bytea`` (docs/types.md). A snapshot with a table
that cannot be loaded loads the others and says which were loaded and which failed; and
``validate`` says what a spatial column becomes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from syncpoint.ops.snapshot import SnapshotIncomplete
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = pytest.mark.spark

SCHEMA = [
    "CREATE TABLE film (\n"
    "  film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
    "  title VARCHAR(128) NOT NULL,\n"
    "  code CHAR(8) NOT NULL DEFAULT 'F',\n"  # given back without trailing spaces
    "  release_year YEAR DEFAULT NULL,\n"
    "  rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',\n"
    "  special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes'),\n"
    "  slug VARCHAR(140) AS (LOWER(title)) VIRTUAL,\n"
    "  title_len INT AS (CHAR_LENGTH(title)) STORED,\n"
    "  last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP\n"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci",
    "CREATE TABLE address (\n"
    "  address_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
    "  address VARCHAR(50) NOT NULL,\n"
    "  location GEOMETRY NOT NULL,\n"
    "  spot POINT NULL,\n"
    "  touched DATETIME(6) NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),\n"
    "  last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP\n"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "INSERT INTO film (title, release_year, rating, special_features, last_update) VALUES "
    "('ACADEMY DINOSAUR', 2006, 'PG', 'Deleted Scenes,Behind the Scenes', '2006-02-15 05:03:42'),"
    "('ACE GOLDFINGER', 2006, 'G', 'Trailers,Deleted Scenes', '2006-02-15 05:03:42'),"
    "('ADAPTATION HOLES', 2006, 'NC-17', NULL, '2006-02-15 05:03:42'),"
    "('AFFAIR PREJUDICE', NULL, 'PG-13', 'Commentaries', '2006-02-15 05:03:42')",
    "INSERT INTO address (address, location, spot, touched, last_update) VALUES "
    "('47 MySakila Drive', ST_GeomFromText('POINT(-112.8185647 49.6999986)', 4326), "
    " ST_GeomFromText('POINT(1 2)'), '2014-09-25 22:30:27.5', '2014-09-25 22:30:27'),"
    "('28 MySQL Boulevard', ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))', 3857), NULL, "
    " NULL, '2014-09-25 22:30:09'),"
    "('23 Workhaven Lane', ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1),"
    "LINESTRING(0 0,0.1 0.30000000000000004))'), NULL, NULL, '2014-09-25 22:30:27')",
    # the application's own trigger: titles are kept in upper case
    "CREATE TRIGGER film_upper BEFORE UPDATE ON film FOR EACH ROW SET NEW.title = UPPER(NEW.title)",
]
TABLES = ["film", "address"]
# MariaDB's stored bytes of the first address as EWKB (PostGIS's form, SRID 4326)
EWKB_4326 = "0101000020E61000003E0A325D63345CC0761FDB8D99D94840"


def workload(src: Any) -> None:
    """What the application does after the snapshot: UPDATEs that change nothing (the rows
    keep their times), an UPDATE of one temporal column, real changes, new rows."""
    time.sleep(1.1)  # the statements' time is not the stored one
    src.execute(
        "UPDATE film SET rating = rating",  # Rows matched: 4, Changed: 0
        "UPDATE address SET address = address",
        # the application's trigger turns it back into the title it was: nothing changed
        "UPDATE film SET title = 'Ace Goldfinger' WHERE film_id = 2",
        "INSERT INTO film (film_id, title) VALUES (1, 'x') ON DUPLICATE KEY UPDATE film_id = 1",
        "UPDATE film SET rating = 'R' WHERE film_id = 3",  # a change: a new time
        "UPDATE address SET touched = '2020-01-01 00:00:00.25' WHERE address_id = 2",
        "INSERT INTO film (title, rating, special_features) VALUES "
        "('AIRPLANE SIERRA', 'PG-13', 'Trailers,Commentaries')",
        "INSERT INTO address (address, location) VALUES "
        "('1913 Hanoi Way', ST_GeomFromText('LINESTRING(1 1, 2 2, 3 5)', 4326))",
    )


def stored_times(db: Any) -> list[tuple[Any, ...]]:
    return rk.rows(db, "film", "film_id, last_update") + rk.rows(
        db, "address", "address_id, touched, last_update"
    )


@pytest.fixture
def source() -> Any:
    gen = make_mariadb()
    yield next(gen)
    next(gen, None)


@pytest.fixture
def targets() -> Any:
    gens = [make_pg(), make_mariadb()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


def test_sakila_like_tables_to_created_postgresql_and_mariadb_targets(
    source: Any, targets: Any, tmp_path: Path, spark: Any
) -> None:
    pg, maria = targets
    source.execute(*SCHEMA)
    cfg = tmp_path / "syncpoint.yaml"
    rk.write_config(cfg, {"src": source}, pg, tables=TABLES)
    data = yaml.safe_load(cfg.read_text())
    data["locations"]["cen2"] = {"url": maria.url, "integrate": True}
    cfg.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(cfg)
    ch.install()
    ch.snapshot(spark=spark)
    workload(source)
    ch.run(once=True, spark=spark)
    report = ch.verify(spark=spark, recheck=False)
    assert report.differences == 0, report.to_dict()
    assert stored_times(pg) == stored_times(source)
    assert stored_times(maria) == stored_times(source)

    # PostgreSQL: labels as text, spatial values as EWKB in bytea
    assert pg.query("SELECT rating, special_features FROM film WHERE film_id = 1") == [
        ("PG", "Deleted Scenes,Behind the Scenes")
    ]
    types = dict(
        pg.query(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'address'"
        )
    )
    assert types["location"] == "bytea" and types["spot"] == "bytea"
    got = pg.query("SELECT address_id, encode(location, 'hex') FROM address ORDER BY 1")
    want = source.query(
        "SELECT address_id, HEX(IF(SUBSTRING(location, 1, 4) = X'00000000', "
        "SUBSTRING(location, 5), CONCAT(SUBSTRING(location, 5, 4), "
        "CHAR(ASCII(SUBSTRING(location, 9, 1)) | 32), SUBSTRING(location, 1, 4), "
        "SUBSTRING(location, 10)))) FROM address ORDER BY 1"
    )
    assert [(i, h.upper()) for i, h in got] == want
    assert got[0][1].upper() == EWKB_4326
    assert pg.query("SELECT encode(spot, 'hex') FROM address WHERE address_id = 1") == [
        ("0101000000000000000000f03f0000000000000040",)  # SRID 0: plain WKB
    ]

    # MariaDB: the declared types (labels, character set, collation), spatial values exact
    cols = (
        "SELECT COLUMN_NAME, COLUMN_TYPE, COLLATION_NAME FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'film' "
        "AND COLUMN_NAME IN ('title', 'rating', 'special_features') ORDER BY 1"
    )
    assert maria.query(cols, (maria.name,)) == source.query(cols, (source.name,))
    declared = {n: t for n, t, _ in maria.query(cols, (maria.name,))}
    assert declared["rating"] == "enum('G','PG','PG-13','R','NC-17')"
    geo = "SELECT address_id, HEX(location), HEX(spot) FROM address ORDER BY 1"
    assert maria.query(geo) == source.query(geo)
    assert maria.query("SELECT ST_SRID(location) FROM address ORDER BY address_id") == [
        (4326,),
        (3857,),
        (0,),
        (4326,),
    ]


def test_snapshot_loads_the_other_tables_and_names_the_failed_one(
    source: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_mariadb()
    dst = next(gen)
    try:
        source.execute(
            "CREATE TABLE bad (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
            "INSERT INTO bad VALUES (1, 'not a number')",
        )
        sk.seed(source, 50)
        # a target made beforehand that cannot hold the source's values
        dst.execute("CREATE TABLE bad (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        cfg = rk.write_config(
            tmp_path / "syncpoint.yaml",
            {"src": source},
            dst,
            tables=["bad", "items"],
            snapshot="required",
        )
        # two sync groups: a group's tables are loaded and handed over together, so a
        # failing table holds back its own group only
        data = yaml.safe_load(cfg.read_text())
        data["sync_groups"] = {"g1": ["bad"], "g2": ["items"]}
        cfg.write_text(yaml.safe_dump(data))
        ch = Channel.from_file(cfg)
        ch.install()
        with pytest.raises(SnapshotIncomplete) as got:
            ch.snapshot(spark=spark)
        states = {r["table"]: r["state"] for r in got.value.report["tables"]}
        assert states == {"bad": "failed", "items": "done"}
        text = str(got.value)
        assert "loaded: items from src into cen" in text, text
        # MariaDB's refusal names the value (the apply's check that an INT column would not
        # round a number reads it as a decimal first: "Truncated incorrect DECIMAL value")
        assert "failed: bad from src into cen: " in text and "'not a number'" in text, text
        assert got.value.exit_code == 1
        assert dst.query("SELECT COUNT(*) FROM items") == [(50,)]
    finally:
        next(gen, None)


def test_validate_says_what_a_spatial_column_becomes(source: Any, tmp_path: Path) -> None:
    gen = make_pg()
    dst = next(gen)
    try:
        source.execute(*SCHEMA[:2])
        cfg = rk.write_config(tmp_path / "syncpoint.yaml", {"src": source}, dst, tables=TABLES)
        r = rk.syncpoint(cfg, "validate")
        assert r.returncode == 0, r.stdout + r.stderr
        assert (
            "cen: target public.address: column location (geometry at src) becomes bytea "
            "holding EWKB (WKB with the SRID" in r.stdout
        ), r.stdout
        assert "column spot (point at src) becomes bytea" in r.stdout
        assert "column title" not in r.stdout
    finally:
        next(gen, None)
