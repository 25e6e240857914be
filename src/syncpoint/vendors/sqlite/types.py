"""SQLite types: a column's declared type (free-form) read into the neutral ``NType`` by
SQLite's own affinity rules; the affinity itself; and the type a target column created here
gets for a source column (every exact numeric as TEXT: NUMERIC affinity would turn ``12.50``
into the float ``12.5``). The choices: docs/internals.md, "Types between vendors"."""

from __future__ import annotations

from syncpoint.core.types import NType
from syncpoint.vendors.typetext import args, normal

NAME = "sqlite"


def affinity(declared: str) -> str:
    """SQLite's affinity rules (https://www.sqlite.org/datatype3.html §3.1)."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if any(w in t for w in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB"
    if any(w in t for w in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def parse(declared: str) -> NType:
    """The neutral type of ``declared``: the affinity's, refined by the usual names of
    booleans, decimals, times and JSON (which SQLite stores as they come)."""
    t = normal(declared)
    a = args(t)

    def mk(kind: str, **kw: object) -> NType:
        return NType(kind, source_vendor=NAME, declared=declared.strip(), **kw)  # type: ignore[arg-type]

    # SQLite's own affinity rules, in order.
    if "int" in t:
        return mk("int", bits=64)
    if any(w in t for w in ("char", "clob", "text")):
        return mk("text")
    if "blob" in t or t == "":
        return mk("binary" if "blob" in t else "other")
    if any(w in t for w in ("real", "floa", "doub")):
        return mk("float", bits=64)
    if "bool" in t:
        return mk("bool")
    if t.startswith(("decimal", "numeric")):
        return mk(
            "decimal",
            precision=a[0] if a else None,
            scale=(a[1] if len(a) > 1 else 0) if a else None,
        )
    if t.startswith("datetime") or t.startswith("timestamp"):
        return mk("timestamp", precision=6, tz="zone" in t or "tz" in t)
    if t == "date":
        return mk("date")
    if t.startswith("time"):
        return mk("time", precision=6)
    if t == "json":
        return mk("json")
    return mk("other")


def render(t: NType, *, key: bool = False) -> str:
    """The type of a target column created here for a source column of type ``t`` (a SQLite
    source keeps its declared type, and so its affinity, even none)."""
    if t.source_vendor == NAME:
        return t.declared
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


def blank_padded(declared: str) -> bool:
    """SQLite keeps trailing blanks as part of every text value: none is padded."""
    return False
