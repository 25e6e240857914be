"""A neutral type model, and the mapping of a source column's type to each target vendor.

``parse(vendor, declared)`` reads a type as the vendor's catalog spells it into an
``NType``; ``render(vendor, t)`` writes the type a target table of that vendor gets when
syncpoint creates it, keeping every value exact (never rounding); ``widens(old, new)`` says
whether a type change at the source is additive. The choices between vendors:
docs/internals.md, "Types between vendors".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = (
    "int",
    "decimal",
    "float",
    "bool",
    "text",
    "binary",
    "date",
    "time",
    "timestamp",
    "interval",
    "json",
    "uuid",
    "other",
)


@dataclass(frozen=True)
class NType:
    """A column type, independent of vendors."""

    kind: str
    bits: int | None = None  # int: 8/16/24/32/64; float: 32/64
    unsigned: bool = False
    precision: int | None = None  # decimal digits; for time/timestamp, fractional digits
    scale: int | None = None
    length: int | None = None  # text/binary length limit, None = unlimited
    fixed: bool = False  # char(n) / binary(n)
    tz: bool = False
    source_vendor: str = ""
    declared: str = ""  # the type as the source spelled it

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown type kind {self.kind!r}")


def _mk(p: tuple[str, str], kind: str, **kw: object) -> NType:
    return NType(kind, source_vendor=p[0], declared=p[1], **kw)  # type: ignore[arg-type]


_ARGS = re.compile(r"\(([^)]*)\)")


def _args(t: str) -> list[int]:
    m = _ARGS.search(t)
    if not m:
        return []
    out: list[int] = []
    for part in m.group(1).split(","):
        part = part.strip()
        if part.isdigit():
            out.append(int(part))
    return out


def _base(t: str) -> str:
    return _ARGS.sub("", t).replace(" unsigned", "").replace(" zerofill", "").strip()


_PG_INT = {"smallint": 16, "int2": 16, "integer": 32, "int": 32, "int4": 32, "bigint": 64}
_PG_INT |= {"int8": 64, "smallserial": 16, "serial": 32, "bigserial": 64, "serial4": 32}
_PG_INT |= {"serial8": 64, "serial2": 16}
_MY_INT = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32}
_MY_INT |= {"bigint": 64}


def parse(vendor: str, declared: str) -> NType:
    """The neutral type of ``declared`` as written by ``vendor``'s catalog."""
    t = " ".join(declared.strip().lower().split())
    a = _args(t)
    b = _base(t)
    p = (vendor, declared.strip())
    if vendor == "postgres":
        return _parse_pg(t, b, a, p)
    if vendor == "mariadb":
        return _parse_my(t, b, a, p)
    if vendor == "sqlite":
        return _parse_sqlite(t, a, p)
    raise ValueError(f"unknown vendor {vendor!r}")


def _parse_pg(t: str, b: str, a: list[int], p: tuple[str, str]) -> NType:
    if t.endswith("[]"):
        return _mk(p, "other")
    if b in _PG_INT:
        return _mk(p, "int", bits=_PG_INT[b])
    if b in ("numeric", "decimal"):
        return _mk(
            p,
            "decimal",
            precision=a[0] if a else None,
            scale=(a[1] if len(a) > 1 else 0) if a else None,
        )
    if b in ("real", "float4"):
        return _mk(p, "float", bits=32)
    if b in ("double precision", "float8", "float"):
        return _mk(p, "float", bits=64)
    if b in ("boolean", "bool"):
        return _mk(p, "bool")
    if b in ("text", "character varying", "varchar", "name", "citext"):
        return _mk(p, "text", length=a[0] if a else None)
    if b in ("character", "char", "bpchar"):
        return _mk(p, "text", length=a[0] if a else 1, fixed=True)
    if b == "bytea":
        return _mk(p, "binary")
    if b == "date":
        return _mk(p, "date")
    frac = a[0] if a else 6
    if b in ("time", "time without time zone"):
        return _mk(p, "time", precision=frac)
    if b in ("time with time zone", "timetz"):
        return _mk(p, "time", precision=frac, tz=True)
    if b in ("timestamp", "timestamp without time zone"):
        return _mk(p, "timestamp", precision=frac)
    if b in ("timestamp with time zone", "timestamptz"):
        return _mk(p, "timestamp", precision=frac, tz=True)
    if b.startswith("interval"):
        return _mk(p, "interval")
    if b in ("json", "jsonb"):
        return _mk(p, "json")
    if b == "uuid":
        return _mk(p, "uuid")
    return _mk(p, "other")


def _parse_my(t: str, b: str, a: list[int], p: tuple[str, str]) -> NType:
    unsigned = " unsigned" in t
    if b in ("tinyint",) and a == [1] and not unsigned:
        return _mk(p, "bool")
    if b in ("bool", "boolean"):
        return _mk(p, "bool")
    if b in _MY_INT:
        return _mk(p, "int", bits=_MY_INT[b], unsigned=unsigned)
    if b in ("decimal", "numeric", "dec", "fixed"):
        return _mk(
            p,
            "decimal",
            precision=a[0] if a else 10,
            scale=a[1] if len(a) > 1 else 0,
            unsigned=unsigned,
        )
    if b == "float":
        return _mk(p, "float", bits=32)
    if b in ("double", "double precision", "real"):
        return _mk(p, "float", bits=64)
    if b in ("varchar", "char", "tinytext", "text", "mediumtext", "longtext", "varchar2"):
        if b in ("varchar", "char"):
            return _mk(p, "text", length=a[0] if a else 1, fixed=b == "char")
        limits = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": None}
        return _mk(p, "text", length=limits.get(b))
    if b in ("binary", "varbinary"):
        return _mk(p, "binary", length=a[0] if a else 1, fixed=b == "binary")
    if b in ("tinyblob", "blob", "mediumblob", "longblob"):
        limits = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": None}
        return _mk(p, "binary", length=limits[b])
    if b == "date":
        return _mk(p, "date")
    frac = a[0] if a else 0
    if b == "time":
        return _mk(p, "time", precision=frac)
    if b == "datetime":
        return _mk(p, "timestamp", precision=frac)
    if b == "timestamp":
        # MariaDB TIMESTAMP is stored in UTC and shown in the session's zone: an instant.
        return _mk(p, "timestamp", precision=frac, tz=True)
    if b == "year":
        return _mk(p, "int", bits=16)
    if b == "json":
        return _mk(p, "json")
    if b == "uuid":
        return _mk(p, "uuid")
    return _mk(p, "other")


def _parse_sqlite(t: str, a: list[int], p: tuple[str, str]) -> NType:
    # SQLite's own affinity rules (https://www.sqlite.org/datatype3.html §3.1), in order.
    if "int" in t:
        return _mk(p, "int", bits=64)
    if any(w in t for w in ("char", "clob", "text")):
        return _mk(p, "text")
    if "blob" in t or t == "":
        return _mk(p, "binary" if "blob" in t else "other")
    if any(w in t for w in ("real", "floa", "doub")):
        return _mk(p, "float", bits=64)
    if "bool" in t:
        return _mk(p, "bool")
    if t.startswith(("decimal", "numeric")):
        return _mk(
            p,
            "decimal",
            precision=a[0] if a else None,
            scale=(a[1] if len(a) > 1 else 0) if a else None,
        )
    if t.startswith("datetime") or t.startswith("timestamp"):
        return _mk(p, "timestamp", precision=6, tz="zone" in t or "tz" in t)
    if t == "date":
        return _mk(p, "date")
    if t.startswith("time"):
        return _mk(p, "time", precision=6)
    if t == "json":
        return _mk(p, "json")
    return _mk(p, "other")


def render(vendor: str, t: NType, *, key: bool = False) -> str:
    """The type a created target column of ``vendor`` gets for a source column of type ``t``
    (``key``: the column is part of the primary key)."""
    if vendor == t.source_vendor and (t.declared or vendor == "sqlite"):
        return t.declared  # the same vendor keeps the declared type, affinity and all
    if vendor == "postgres":
        return _render_pg(t)
    if vendor == "mariadb":
        return _render_my(t, key)
    if vendor == "sqlite":
        return _render_sqlite(t)
    raise ValueError(f"unknown vendor {vendor!r}")


def _render_pg(t: NType) -> str:
    k = t.kind
    if k == "int":
        if t.unsigned:
            return {8: "smallint", 16: "integer", 24: "integer", 32: "bigint"}.get(
                t.bits or 64, "numeric(20,0)"
            )
        return {8: "smallint", 16: "smallint", 24: "integer", 32: "integer"}.get(
            t.bits or 64, "bigint"
        )
    if k == "decimal":
        return "numeric" if t.precision is None else f"numeric({t.precision},{t.scale or 0})"
    if k == "float":
        return "real" if t.bits == 32 else "double precision"
    if k == "bool":
        return "boolean"
    if k == "text":
        if t.length is None or t.length > 10485760:
            return "text"
        return f"character({t.length})" if t.fixed else f"character varying({t.length})"
    if k == "binary":
        return "bytea"
    if k in ("date", "interval", "uuid"):
        return k
    if k == "time":
        return f"time({_frac(t)})" + (" with time zone" if t.tz else "")
    if k == "timestamp":
        return f"timestamp({_frac(t)})" + (" with time zone" if t.tz else "")
    if k == "json":
        return "jsonb"
    return "text"


def _frac(t: NType) -> int:
    return 6 if t.precision is None else min(t.precision, 6)


def _render_my(t: NType, key: bool) -> str:
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
        return f"time({_frac(t)})"
    if k == "timestamp":
        return f"datetime({_frac(t)})"
    if k == "json":
        return "longtext"
    if k == "uuid":
        return "char(36)"
    return "varchar(255)" if key else "longtext"


def _render_sqlite(t: NType) -> str:
    k = t.kind
    if k == "int" and not (t.unsigned and (t.bits or 64) >= 64):
        return "INTEGER"
    if k == "float":
        return "REAL"
    if k == "bool":
        return "BOOLEAN"
    if k == "binary":
        return "BLOB"
    return "TEXT"


def widens(old: NType, new: NType) -> bool:
    """True when every value of ``old`` is a value of ``new`` (a type change that loses
    nothing: int to bigint, varchar(10) to varchar(20) or text, numeric(10,2) to (12,2))."""
    if old == new or (old.kind, old.declared.lower()) == (new.kind, new.declared.lower()):
        return True
    if old.kind != new.kind or old.tz != new.tz:
        return False
    if old.kind == "int":
        if old.unsigned and not new.unsigned:
            return (new.bits or 64) > (old.bits or 64)
        if new.unsigned and not old.unsigned:
            return False
        return (new.bits or 64) >= (old.bits or 64)
    if old.kind == "float":
        return (new.bits or 64) >= (old.bits or 64)
    if old.kind == "decimal":
        if new.precision is None:
            return True
        if old.precision is None:
            return False
        ints_old = old.precision - (old.scale or 0)
        ints_new = new.precision - (new.scale or 0)
        return ints_new >= ints_old and (new.scale or 0) >= (old.scale or 0)
    if old.kind in ("text", "binary"):
        if new.length is None:
            return True
        return old.length is not None and new.length >= old.length and not new.fixed
    if old.kind in ("time", "timestamp"):
        return _frac(new) >= _frac(old)
    return False
