"""Types as vendor data: each vendor's ``types.py`` reads its catalog's types into the
neutral model and renders the type of a created target column so that it holds every value
of the source's; ``widens`` says which source type changes lose nothing."""

from __future__ import annotations

import pytest

from syncpoint.core import types
from syncpoint.vendors.mariadb import types as mariadb
from syncpoint.vendors.postgres import types as postgres
from syncpoint.vendors.sqlite import types as sqlite

TYPES = {"postgres": postgres, "mariadb": mariadb, "sqlite": sqlite}


@pytest.mark.parametrize(
    ("vendor", "declared", "pg", "my", "sl"),
    [
        ("postgres", "numeric(12,2)", "numeric(12,2)", "decimal(12,2)", "TEXT"),
        ("postgres", "numeric", "numeric", "decimal(65,30)", "TEXT"),
        ("postgres", "numeric(80,40)", "numeric(80,40)", "decimal(65,30)", "TEXT"),
        (
            "postgres",
            "timestamp(3) with time zone",
            "timestamp(3) with time zone",
            "datetime(3)",
            "TEXT",
        ),
        ("postgres", "bytea", "bytea", "longblob", "BLOB"),
        ("postgres", "character varying(20)", "character varying(20)", "varchar(20)", "TEXT"),
        ("postgres", "double precision", "double precision", "double", "REAL"),
        ("postgres", "boolean", "boolean", "tinyint(1)", "BOOLEAN"),
        ("postgres", "jsonb", "jsonb", "longtext", "TEXT"),
        ("postgres", "interval", "interval", "longtext", "TEXT"),
        ("mariadb", "bigint(20) unsigned", "numeric(20,0)", "bigint(20) unsigned", "TEXT"),
        ("mariadb", "int(10) unsigned", "bigint", "int(10) unsigned", "INTEGER"),
        ("mariadb", "tinyint(1)", "boolean", "tinyint(1)", "BOOLEAN"),
        ("mariadb", "decimal(65,30)", "numeric(65,30)", "decimal(65,30)", "TEXT"),
        ("mariadb", "datetime(6)", "timestamp(6)", "datetime(6)", "TEXT"),
        # MariaDB's CHAR holds no trailing spaces: character(n) would pad them back
        ("mariadb", "char(20)", "character varying(20)", "char(20)", "TEXT"),
        (
            "mariadb",
            "enum('G','PG-13') character set utf8mb3 collate utf8mb3_general_ci",
            "text",
            "enum('G','PG-13') character set utf8mb3 collate utf8mb3_general_ci",
            "TEXT",
        ),
        (
            "mariadb",
            "varchar(50) character set latin1 collate latin1_swedish_ci",
            "character varying(50)",
            "varchar(50) character set latin1 collate latin1_swedish_ci",
            "TEXT",
        ),
        ("mariadb", "geometry", "bytea", "geometry", "BLOB"),
        ("mariadb", "point", "bytea", "point", "BLOB"),
        ("mariadb", "timestamp(6)", "timestamp(6) with time zone", "timestamp(6)", "TEXT"),
        ("mariadb", "enum('a','B')", "text", "enum('a','B')", "TEXT"),
        ("mariadb", "longblob", "bytea", "longblob", "BLOB"),
        ("sqlite", "INTEGER", "bigint", "bigint", "INTEGER"),
        ("sqlite", "NUMERIC", "numeric", "decimal(65,30)", "NUMERIC"),
        ("sqlite", "", "text", "longtext", ""),
        ("sqlite", "VARCHAR(10)", "text", "longtext", "VARCHAR(10)"),
    ],
)
def test_every_vendor_pair_gets_a_type_that_holds_every_value(
    vendor: str, declared: str, pg: str, my: str, sl: str
) -> None:
    t = TYPES[vendor].parse(declared)
    assert postgres.render(t) == pg
    assert mariadb.render(t) == my
    assert sqlite.render(t) == sl


def test_a_text_key_at_mariadb_needs_a_length_and_compares_byte_for_byte() -> None:
    exact = "varchar(255) character set utf8mb4 collate utf8mb4_nopad_bin"
    assert mariadb.render(postgres.parse("text"), key=True) == exact
    assert mariadb.render(postgres.parse("character varying(20)"), key=True) == (
        "varchar(20) character set utf8mb4 collate utf8mb4_nopad_bin"
    )
    assert mariadb.render(postgres.parse("text")) == "longtext"  # not a key: unchanged
    assert mariadb.render(postgres.parse("integer"), key=True) == "int"
    # a MariaDB source's key keeps its own collation
    ci = "varchar(20) character set utf8mb4 collate utf8mb4_general_ci"
    assert mariadb.render(mariadb.parse(ci), key=True) == ci


@pytest.mark.parametrize(
    ("target", "source", "coarser"),
    [
        ("varchar(255) character set utf8mb4 collate utf8mb4_nopad_bin", "text", None),
        ("varchar(255)", "text", "utf8mb4_bin"),  # the tables' default pads: 'a' = 'a '
        ("varchar(255) character set utf8mb4 collate utf8mb4_general_ci", "text",
         "utf8mb4_general_ci"),
        ("int", "integer", None),
        ("char(3)", "character(3)", None),  # CHAR gives values back unpadded anyway
    ],
)  # fmt: skip
def test_an_existing_mariadb_key_coarser_than_a_postgresql_source_is_found(
    target: str, source: str, coarser: str | None
) -> None:
    assert mariadb.coarser_key(target, postgres.parse(source)) == coarser


def test_a_mariadb_key_in_the_mariadb_sources_own_collation_is_not_coarser() -> None:
    ci = "varchar(20) character set utf8mb4 collate utf8mb4_general_ci"
    assert mariadb.coarser_key(ci, mariadb.parse(ci)) is None
    assert mariadb.coarser_key(ci, mariadb.parse("varchar(20)")) == "utf8mb4_general_ci"


@pytest.mark.parametrize(
    ("old", "new", "widens"),
    [
        ("integer", "bigint", True),
        ("bigint", "integer", False),
        ("numeric(10,2)", "numeric(12,2)", True),
        ("numeric(10,2)", "numeric(10,3)", False),
        ("numeric(10,2)", "numeric", True),
        ("character varying(10)", "text", True),
        ("text", "character varying(10)", False),
        ("timestamp(3) without time zone", "timestamp(6) without time zone", True),
        ("timestamp without time zone", "timestamp with time zone", False),
        ("real", "double precision", True),
        ("integer", "text", False),
    ],
)
def test_widening(old: str, new: str, widens: bool) -> None:
    assert types.widens(postgres.parse(old), postgres.parse(new)) is widens


@pytest.mark.parametrize(
    ("vendor", "declared", "kind", "figures"),
    [
        ("postgres", "numeric(12,2)", "decimal", (12, 2)),
        ("mariadb", "decimal(10,0)", "decimal", (10, 0)),
        ("postgres", "character varying(20)", "text", (20,)),
        ("mariadb", "varchar(50)", "text", (50,)),
        ("mariadb", "tinyint(1)", "bool", ()),
        ("postgres", "boolean", "bool", ()),
        ("mariadb", "int(11)", "int", (32,)),
        ("postgres", "bigint", "int", (64,)),
        ("postgres", "interval", "interval", ()),
        ("postgres", "timestamp with time zone", "timestamp", (6, True)),
        ("postgres", "timestamp(6) without time zone", "timestamp", (6, False)),
        ("mariadb", "datetime(6)", "timestamp", (6, False)),
        ("postgres", "date", "date", ()),
        ("postgres", "time", "time", (6, False)),
        ("postgres", "double precision", "float", (64,)),
        ("postgres", "bytea", "binary", ()),
        ("mariadb", "longblob", "binary", ()),
        ("postgres", "jsonb", "json", ()),
        ("postgres", "uuid", "uuid", ()),
        ("mariadb", "longtext", "text", ()),
        ("sqlite", "", "other", ()),
    ],
)
def test_declared_types_are_read_by_their_vendor(
    vendor: str, declared: str, kind: str, figures: tuple[object, ...]
) -> None:
    """The catalog spellings transport tables and rounds both read (one mapping for both)."""
    t = TYPES[vendor].parse(declared)
    assert t.kind == kind
    if kind == "decimal":
        assert (t.precision, t.scale) == figures
    elif kind == "text" and figures:
        assert (t.length,) == figures
    elif kind in ("int", "float") and figures:
        assert (t.bits,) == figures
    elif kind in ("time", "timestamp"):
        assert (t.fraction, t.tz) == figures
