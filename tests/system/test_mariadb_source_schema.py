"""A MariaDB source shaped like MySQL's Sakila sample (a trimmed copy of two of its tables:
ENUM and SET with upper-case labels in a utf8mb3_general_ci table, YEAR, ``ON UPDATE
CURRENT_TIMESTAMP`` columns, generated columns, GEOMETRY with an SRID) replicated to a
created PostgreSQL and a created MariaDB target: snapshot, an UPDATE that changes nothing
(the row keeps its timestamp; the trigger's NEW shows another), a round, and ``verify``
finds the target equal. At MariaDB the created table keeps the labels, the character set
and collation, and the spatial values byte for byte; at PostgreSQL a spatial value is
EWKB in ``bytea`` (docs/types.md). And a snapshot with a table that cannot be loaded loads
the others and says which were loaded and which failed (exit 1)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = pytest.mark.spark

SCHEMA = [
    "CREATE TABLE film (\n"
    "  film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n"
    "  title VARCHAR(128) NOT NULL,\n"
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
        "INSERT INTO film (film_id, title) VALUES (1, 'x') ON DUPLICATE KEY UPDATE film_id = 1",
        "UPDATE film SET rating = 'R' WHERE film_id = 2",  # a change: a new time
        "UPDATE address SET touched = '2020-01-01 00:00:00.25' WHERE address_id = 2",
        "INSERT INTO film (title, rating, special_features) VALUES "
        "('AIRPLANE SIERRA', 'PG-13', 'Trailers,Commentaries')",
        "INSERT INTO address (address, location) VALUES "
        "('1913 Hanoi Way', ST_GeomFromText('LINESTRING(1 1, 2 2, 3 5)', 4326))",
    )


def loaded(src: Any, dst: Any, tmp: Path, spark: Any) -> Channel:
    src.execute(*SCHEMA)
    cfg = rk.write_config(tmp / "syncpoint.yaml", {"src": src}, dst, tables=TABLES)
    ch = Channel.from_file(cfg)
    ch.install()
    ch.snapshot(spark=spark)
    workload(src)
    ch.run(once=True, spark=spark)
    report = ch.verify(spark=spark, recheck=False)
    assert report.differences == 0, report.to_dict()
    return ch


def stored_times(db: Any) -> list[tuple[Any, ...]]:
    return rk.rows(db, "film", "film_id, last_update") + rk.rows(
        db, "address", "address_id, touched, last_update"
    )


@pytest.fixture
def source() -> Any:
    gen = make_mariadb()
    yield next(gen)
    next(gen, None)


def test_sakila_like_tables_to_a_created_postgresql_target(
    source: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_pg()
    dst = next(gen)
    try:
        loaded(source, dst, tmp_path, spark)
        assert stored_times(dst) == stored_times(source)
        assert dst.query("SELECT rating, special_features FROM film WHERE film_id = 1") == [
            ("PG", "Deleted Scenes,Behind the Scenes")
        ]
        types = dict(
            dst.query(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = 'address'"
            )
        )
        assert types["location"] == "bytea" and types["spot"] == "bytea"
        got = dst.query("SELECT address_id, encode(location, 'hex') FROM address ORDER BY 1")
        want = source.query(
            "SELECT address_id, HEX(IF(SUBSTRING(location, 1, 4) = X'00000000', "
            "SUBSTRING(location, 5), CONCAT(SUBSTRING(location, 5, 4), "
            "CHAR(ASCII(SUBSTRING(location, 9, 1)) | 32), SUBSTRING(location, 1, 4), "
            "SUBSTRING(location, 10)))) FROM address ORDER BY 1"
        )
        assert [(i, h.upper()) for i, h in got] == want
        assert got[0][1].upper() == EWKB_4326
        assert dst.query("SELECT encode(spot, 'hex') FROM address WHERE address_id = 1") == [
            ("0101000000000000000000f03f0000000000000040",)  # SRID 0: plain WKB
        ]
    finally:
        next(gen, None)


def test_sakila_like_tables_to_a_created_mariadb_target(
    source: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_mariadb()
    dst = next(gen)
    try:
        loaded(source, dst, tmp_path, spark)
        assert stored_times(dst) == stored_times(source)
        cols = (
            "SELECT COLUMN_NAME, COLUMN_TYPE, COLLATION_NAME FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'film' "
            "AND COLUMN_NAME IN ('title', 'rating', 'special_features') ORDER BY 1"
        )
        assert dst.query(cols, (dst.name,)) == source.query(cols, (source.name,))
        assert {n: t for n, t, _ in dst.query(cols, (dst.name,))}[
            "rating"
        ] == "enum('G','PG','PG-13','R','NC-17')"
        geo = "SELECT address_id, HEX(location), HEX(spot) FROM address ORDER BY 1"
        assert dst.query(geo) == source.query(geo)
        assert dst.query("SELECT ST_SRID(location) FROM address ORDER BY address_id") == [
            (4326,),
            (3857,),
            (0,),
            (4326,),
        ]
    finally:
        next(gen, None)


def test_snapshot_loads_the_other_tables_and_names_the_failed_one(
    source: Any, tmp_path: Path
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
        assert rk.syncpoint(cfg, "install").returncode == 0
        r = rk.syncpoint(cfg, "snapshot")
        assert r.returncode == 1, r.stdout + r.stderr
        text = r.stdout + r.stderr
        assert "cen: items from src: 50 rows copied" in text, text
        assert "loaded: items" in text and "failed: bad" in text, text
        assert dst.query("SELECT COUNT(*) FROM items") == [(50,)]
        assert "Traceback" not in text
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
