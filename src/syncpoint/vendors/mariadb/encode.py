"""Row content as JSON, one SQL expression per column type (the content rules of
``vendors/base.py``): ``JSON_OBJECT`` where it is exact, an expression of its own for FLOAT,
BIT, binary, DATETIME, TIMESTAMP, JSON and spatial columns. Which and why:
docs/internals.md, "Capture on MariaDB".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from syncpoint.core.model import Column
from syncpoint.vendors.mariadb.dialect import literal, quote

BINARY = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
# Text types, whose values JSON_OBJECT takes in the column's collation: two columns of one
# character set in collations of equal standing (utf8mb4_nopad_bin beside utf8mb4_bin)
# make it refuse the row ("Illegal mix of collations"), and the user's write with it.
TEXT = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}
# The types ON UPDATE CURRENT_TIMESTAMP may be declared on.
TEMPORAL = {"timestamp", "datetime"}
SPATIAL = {
    "geometry",
    "point",
    "linestring",
    "polygon",
    "multipoint",
    "multilinestring",
    "multipolygon",
    "geometrycollection",
}


@dataclass(frozen=True)
class ColumnInfo:
    """One column as ``columns_select.sql`` reads it."""

    name: str
    data_type: str
    column_type: str
    fsp: int | None
    nullable: bool
    pk: int | None
    is_json: bool

    @property
    def type(self) -> str:
        """The declared type as reported in table shapes and DDL records."""
        return "json" if self.is_json else self.column_type

    @property
    def binary(self) -> bool:
        return self.data_type in BINARY or self.data_type in SPATIAL

    def column(self) -> Column:
        return Column(self.name, self.type, self.nullable, self.pk)


def _base64(ref: str) -> str:
    return f"REPLACE(TO_BASE64({ref}), CHAR(10 USING ascii), '')"


def ewkb(ref: str) -> str:
    """EWKB of the spatial value ``ref``: MariaDB stores a 4-byte SRID and then WKB (always
    little-endian); EWKB is that WKB with the SRID flag (0x20000000) in its type and the
    SRID after it (PostGIS's form), plain WKB when the SRID is 0."""
    srid, wkb = f"SUBSTRING({ref}, 1, 4)", f"SUBSTRING({ref}, 5)"
    flagged = (
        f"CONCAT(SUBSTRING({ref}, 5, 4), CHAR(ASCII(SUBSTRING({ref}, 9, 1)) | 32), "
        f"{srid}, SUBSTRING({ref}, 10))"
    )
    return f"IF({srid} = X'00000000', {wkb}, {flagged})"


def value(col: ColumnInfo, alias: str) -> str:
    """The JSON value of ``col`` of row ``alias`` (``NEW``, ``OLD`` or a table alias)."""
    ref = f"{alias}.{quote(col.name)}"
    t = col.data_type
    frac = ".%f" if col.fsp else ""
    if col.is_json:
        return f"CONCAT({ref}, '')"  # plain text: JSON_OBJECT would nest a JSON column
    if t == "float":
        return f"CAST({ref} AS DOUBLE)"
    if t == "bit":
        return f"CAST({ref} AS UNSIGNED)"
    if t in SPATIAL:
        return _base64(ewkb(ref))
    if col.binary:
        return _base64(ref)
    if t == "datetime":
        return f"DATE_FORMAT({ref}, '%Y-%m-%dT%H:%i:%s{frac}')"
    if t in TEXT:
        # each text value in utf8mb4 (what the JSON holds anyway) under one collation
        return f"CONVERT({ref} USING utf8mb4) COLLATE utf8mb4_bin"
    if t == "timestamp":
        micros = f"CAST(UNIX_TIMESTAMP({ref}) * 1000000 AS SIGNED)"
        utc = f"TIMESTAMP'1970-01-01 00:00:00' + INTERVAL {micros} MICROSECOND"
        return (
            f"IF(UNIX_TIMESTAMP({ref}) = 0, CAST({ref} AS CHAR), "
            f"DATE_FORMAT({utc}, '%Y-%m-%dT%H:%i:%s{frac}+00:00'))"
        )
    return ref


def pair(col: ColumnInfo, alias: str) -> str:
    """``'col', value`` of one column, as ``JSON_OBJECT`` takes it."""
    return f"{literal(col.name)}, {value(col, alias)}"


def row_json(columns: Sequence[ColumnInfo], alias: str) -> str:
    """``JSON_OBJECT('col', value, ...)`` of every column, in table order."""
    parts = [pair(c, alias) for c in columns]
    return "JSON_OBJECT(" + ",\n        ".join(parts) + ")"
