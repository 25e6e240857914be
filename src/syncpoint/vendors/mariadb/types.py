"""MariaDB types: a column's ``COLUMN_TYPE`` read into the neutral ``NType``; and the type a
target column created here gets for a source column. The choices: docs/internals.md,
"Types between vendors"."""

from __future__ import annotations

import re

from syncpoint.core.types import NType
from syncpoint.vendors.mariadb.encode import SPATIAL
from syncpoint.vendors.typetext import args, base, normal

NAME = "mariadb"
_INT = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}
_TEXT_LIMITS = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": None}
_BLOB_LIMITS = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": None}


# The character set and collation the catalog reading adds to a character column's type
# (``varchar(10) character set utf8mb3 collate utf8mb3_general_ci``): names are words.
_CHARSET = re.compile(r"\s+character set \w+(\s+collate \w+)?$", re.IGNORECASE)


def bare(declared: str) -> str:
    """``declared`` without the character set and collation the catalog reading adds."""
    return _CHARSET.sub("", declared.strip())


_UNESCAPED = {"0": "\0", "n": "\n", "r": "\r", "\\": "\\"}


def enum_labels(declared: str) -> list[str] | None:
    """The labels of an ``enum(...)`` or ``set(...)`` type as the catalog writes it (each
    quoted, a quote doubled, a backslash, NUL, newline and carriage return escaped by a
    backslash); None where the text is not read so."""
    t = bare(declared)
    start = t.find("(") + 1
    if t[:start].lower() not in ("enum(", "set(") or not t.endswith(")"):
        return None
    body, i = t[start:-1], 0
    out: list[str] = []
    while i < len(body):
        if body[i] != "'":
            return None
        i += 1
        label: list[str] = []
        while True:
            if i >= len(body):
                return None
            ch = body[i]
            if ch == "'" and body[i + 1 : i + 2] == "'":
                label.append("'")
                i += 2
            elif ch == "'":
                i += 1
                break
            elif ch == "\\" and i + 1 < len(body):
                label.append(_UNESCAPED.get(body[i + 1], body[i + 1]))
                i += 2
            else:
                label.append(ch)
                i += 1
        out.append("".join(label))
        if i < len(body):
            if body[i] != ",":
                return None
            i += 1
    return out


def blank_padded(declared: str) -> bool:
    """A CHAR(n) column: its values come back without trailing blanks, so ``verify``
    compares values stored here without them (``parse`` reads CHAR as variable text, so
    that a created target elsewhere does not pad them back)."""
    return declared.strip().lower().split("(")[0].strip() in ("char", "character", "nchar")


def parse(declared: str) -> NType:
    """The neutral type of ``declared`` as MariaDB's catalog writes it (a MariaDB target
    created from it keeps ``declared`` whole: labels, character set and collation)."""
    t = normal(bare(declared))
    if t.startswith(("enum(", "set(")):
        # labels may hold any character (parentheses, commas): never read as arguments
        return NType("other", source_vendor=NAME, declared=declared.strip())
    a, b = args(t), base(t)
    unsigned = " unsigned" in t

    def mk(kind: str, **kw: object) -> NType:
        return NType(kind, source_vendor=NAME, declared=declared.strip(), **kw)  # type: ignore[arg-type]

    if b in ("tinyint",) and a == [1] and not unsigned:
        return mk("bool")
    if b in ("bool", "boolean"):
        return mk("bool")
    if b in _INT:
        return mk("int", bits=_INT[b], unsigned=unsigned)
    if b in ("decimal", "numeric", "dec", "fixed"):
        return mk(
            "decimal",
            precision=a[0] if a else 10,
            scale=a[1] if len(a) > 1 else 0,
            unsigned=unsigned,
        )
    if b == "float":
        return mk("float", bits=32)
    if b in ("double", "double precision", "real"):
        return mk("float", bits=64)
    if b in ("varchar", "char"):
        # not fixed: MariaDB's CHAR gives its values back without trailing spaces, so a
        # fixed-width type elsewhere (PostgreSQL's character(n)) would pad them back
        return mk("text", length=a[0] if a else 1)
    if b in ("tinytext", "text", "mediumtext", "longtext", "varchar2"):
        return mk("text", length=_TEXT_LIMITS.get(b))
    if b in ("binary", "varbinary"):
        return mk("binary", length=a[0] if a else 1, fixed=b == "binary")
    if b in _BLOB_LIMITS:
        return mk("binary", length=_BLOB_LIMITS[b])
    if b in SPATIAL:
        # captured as EWKB (encode.py): bytes elsewhere, the same spatial type here
        return mk("binary")
    if b == "date":
        return mk("date")
    frac = a[0] if a else 0
    if b == "time":
        return mk("time", precision=frac)
    if b == "datetime":
        return mk("timestamp", precision=frac)
    if b == "timestamp":
        # MariaDB TIMESTAMP is stored in UTC and shown in the session's zone: an instant.
        return mk("timestamp", precision=frac, tz=True)
    if b == "year":
        return mk("int", bits=16)
    if b == "json":
        return mk("json")
    if b == "uuid":
        return mk("uuid")
    return mk("other")


# A key's text compared byte for byte, trailing spaces included: the tables syncpoint
# creates default to utf8mb4_bin, which pads ('a' = 'a '), and the server's default
# collations fold case and accents too. Keys another vendor holds apart ('a', 'A', 'a ')
# must stay apart here, or one row would silently take the others' place.
KEY_TEXT = " character set utf8mb4 collate utf8mb4_nopad_bin"


def collation(declared: str) -> str | None:
    """The collation of a character column as the catalog reading writes its type (no
    ``collate``: utf8mb4_bin, the default it leaves out); None for any other column."""
    if parse(declared).kind != "text" or blank_padded(declared):
        return None  # CHAR(n) gives its values back without trailing blanks anyway
    m = _CHARSET.search(declared.strip())
    return (m.group(1) or "").split()[-1].lower() if m and m.group(1) else "utf8mb4_bin"


def exact(collation_name: str) -> bool:
    """A collation equal only for the same bytes: binary, and no padding."""
    return collation_name.endswith("_nopad_bin")


def exact_column(declared: str) -> bool:
    """Whether a column of type ``declared`` (as the catalog reading writes it) is equal
    exactly when its value's text is: an integer type (not YEAR: 24 is 2024), text in a
    ``_nopad_bin`` collation (not CHAR, which drops trailing blanks), VARBINARY or a BLOB
    (not BINARY(n), which pads with zero bytes)."""
    t = parse(declared)
    if t.kind == "int":
        return base(normal(bare(declared))) != "year"
    if t.kind == "text":
        return exact(collation(declared) or "")
    return t.kind == "binary" and not t.fixed and not spatial(declared)


def coarser_key(target: str, source: NType) -> str | None:
    """Why a key column of type ``target`` here holds equal what the source column
    (``source``) holds apart, or None: a collation that folds case or accents, or pads,
    where the source compares otherwise. From MariaDB, the source's own collation is
    fine; elsewhere keys compare byte for byte."""
    mine = collation(target)
    if mine is None or exact(mine):
        return None
    if source.source_vendor == NAME and source.declared and collation(source.declared) == mine:
        return None
    return mine


def render(t: NType, *, key: bool = False) -> str:
    """The type of a target column created here for a source column of type ``t`` (``key``:
    part of the primary key, so text and binary need a length, and text compares byte for
    byte, ``KEY_TEXT``; a MariaDB source keeps its declared type, collation included)."""
    if t.source_vendor == NAME and t.declared:
        return t.declared
    out = _render(t, key)
    return out + KEY_TEXT if key and out.startswith("varchar") else out


def _render(t: NType, key: bool) -> str:
    k = t.kind
    u = " unsigned" if t.unsigned else ""
    if k == "int":
        return {8: "tinyint", 16: "smallint", 24: "mediumint", 32: "int"}.get(
            t.bits or 64, "bigint"
        ) + u
    if k == "decimal":
        if t.precision is None or t.precision > 65 or (t.scale or 0) > 30:
            return "decimal(65,30)"
        return f"decimal({t.precision},{t.scale or 0})" + u
    if k == "float":
        return "float" if t.bits == 32 else "double"
    if k == "bool":
        return "tinyint(1)"
    if k == "text":
        if key and (t.length is None or t.length > 255):
            return "varchar(255)"
        if t.length is not None and t.length <= 16383:
            return f"char({t.length})" if t.fixed and t.length <= 255 else f"varchar({t.length})"
        return "longtext"
    if k == "binary":
        if key and (t.length is None or t.length > 255):
            return "varbinary(255)"
        if t.length is not None and t.length <= 65535:
            return (
                f"binary({t.length})" if t.fixed and t.length <= 255 else f"varbinary({t.length})"
            )
        return "longblob"
    if k == "date":
        return "date"
    if k == "time" and not t.tz:
        return f"time({t.fraction})"
    if k == "timestamp":
        return f"datetime({t.fraction})"
    if k == "json":
        return "longtext"
    if k == "uuid":
        return "char(36)"
    return "varchar(255)" if key else "longtext"


def spatial(declared: str) -> bool:
    """Whether ``declared`` is one of MariaDB's spatial types."""
    return base(normal(bare(declared))) in SPATIAL


# What a spatial column becomes at a created target of each vendor (``validate`` says it).
_SPATIAL_AT = {
    "mariadb": "the same type, value for value (SRID included)",
    "postgres": "bytea holding EWKB (WKB with the SRID: PostGIS reads it with "
    "ST_GeomFromEWKB; plain WKB when the SRID is 0)",
    "sqlite": "BLOB holding EWKB (WKB with the SRID; plain WKB when the SRID is 0)",
}


def travel_note(declared: str, target_vendor: str) -> str | None:
    """What a column of type ``declared`` becomes at a target of ``target_vendor``, where
    that needs saying before install (docs/types.md, "MariaDB sources")."""
    if spatial(declared):
        return _SPATIAL_AT.get(target_vendor, "EWKB bytes")
    return None
