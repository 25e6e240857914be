"""PostgreSQL types: a column's type as ``format_type`` writes it, read into the neutral
``NType``; and the type a target column created here gets for a source column. The choices:
docs/internals.md, "Types between vendors"."""

from __future__ import annotations

from syncpoint.core.types import NType
from syncpoint.vendors.typetext import args, base, normal

NAME = "postgres"
_INT = {"smallint": 16, "int2": 16, "integer": 32, "int": 32, "int4": 32, "bigint": 64}
_INT |= {"int8": 64, "smallserial": 16, "serial": 32, "bigserial": 64, "serial4": 32}
_INT |= {"serial8": 64, "serial2": 16}


def parse(declared: str) -> NType:
    """The neutral type of ``declared`` as PostgreSQL's catalog writes it."""
    t = normal(declared)
    a, b = args(t), base(t)

    def mk(kind: str, **kw: object) -> NType:
        return NType(kind, source_vendor=NAME, declared=declared.strip(), **kw)  # type: ignore[arg-type]

    if t.endswith("[]"):
        return mk("other")
    if b in _INT:
        return mk("int", bits=_INT[b])
    if b in ("numeric", "decimal"):
        return mk(
            "decimal",
            precision=a[0] if a else None,
            scale=(a[1] if len(a) > 1 else 0) if a else None,
        )
    if b in ("real", "float4"):
        return mk("float", bits=32)
    if b in ("double precision", "float8", "float"):
        return mk("float", bits=64)
    if b in ("boolean", "bool"):
        return mk("bool")
    if b in ("text", "character varying", "varchar", "name", "citext"):
        return mk("text", length=a[0] if a else None)
    if b in ("character", "char", "bpchar"):
        return mk("text", length=a[0] if a else 1, fixed=True)
    if b == "bytea":
        return mk("binary")
    if b == "date":
        return mk("date")
    frac = a[0] if a else 6
    if b in ("time", "time without time zone"):
        return mk("time", precision=frac)
    if b in ("time with time zone", "timetz"):
        return mk("time", precision=frac, tz=True)
    if b in ("timestamp", "timestamp without time zone"):
        return mk("timestamp", precision=frac)
    if b in ("timestamp with time zone", "timestamptz"):
        return mk("timestamp", precision=frac, tz=True)
    if b.startswith("interval"):
        return mk("interval")
    if b in ("json", "jsonb"):
        return mk("json")
    if b == "uuid":
        return mk("uuid")
    return mk("other")


def blank_padded(declared: str) -> bool:
    """A ``character(n)`` column: PostgreSQL pads its values with blanks and ignores them
    when it compares, so ``verify`` compares values stored here without them."""
    try:
        t = parse(declared)
    except ValueError:
        return False
    return t.kind == "text" and bool(t.fixed)


def render(t: NType, *, key: bool = False) -> str:
    """The type of a target column created here for a source column of type ``t`` (a
    PostgreSQL source keeps its declared type)."""
    if t.source_vendor == NAME and t.declared:
        return t.declared
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
        return f"time({t.fraction})" + (" with time zone" if t.tz else "")
    if k == "timestamp":
        return f"timestamp({t.fraction})" + (" with time zone" if t.tz else "")
    if k == "json":
        return "jsonb"
    return "text"
