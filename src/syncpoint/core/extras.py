"""What a created target table carries of its source besides columns, types and the key:
portable column defaults, unique and secondary indexes, and foreign keys among the
channel's tables, in a form no vendor owns (each vendor's ``shape.py`` reads them from its
catalog; ``ops/created.py`` writes them at a target). NOT NULL travels with the columns.

A default is portable when it is a constant (text, number, boolean) or the current time;
anything else (a sequence, a function of one vendor) is left out, as are indexes on
expressions or partial ones: the target gets its values from the source's rows anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from syncpoint.config import TableName

# a string literal, with a ::cast after it or a charset introducer (_charset) before it
_TEXT = re.compile(r"^(?:_\w+|[nN])?'((?:[^']|'')*)'(?:::[\w\s\".\[\]()]+)?$", re.S)
_NUMBER = re.compile(r"^\(?([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\)?(?:::[\w\s\".()]+)?$")
_NOW = re.compile(
    r"^(now|current_timestamp|transaction_timestamp|statement_timestamp|localtimestamp)"
    r"(\(\d?\))?$",
    re.I,
)


@dataclass(frozen=True)
class Default:
    kind: str  # "text", "number", "bool" or "now"
    value: str = ""


@dataclass(frozen=True)
class Index:
    name: str
    columns: tuple[str, ...]
    unique: bool
    # the access method as the source's catalog names it, lower case (btree, hash, gist,
    # gin, fulltext, ...): each vendor's shape says which it can create
    method: str = "btree"
    # per column, the operator class where it is not the type's default ("" where it is);
    # empty when every column has its default
    opclasses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForeignKey:
    name: str
    columns: tuple[str, ...]
    parent: TableName  # the referenced table at the source
    parent_columns: tuple[str, ...]


@dataclass
class TableExtras:
    defaults: dict[str, Default] = field(default_factory=dict)
    indexes: list[Index] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # what is not carried, and why


def portable_default(text: str | None) -> Default | None:
    """The default a catalog wrote (an expression's text, casts and charset introducers
    included) as a portable one, or None (no default, or not portable)."""
    if text is None:
        return None
    t = text.strip()
    while t.startswith("(") and t.endswith(")") and not t.startswith("()"):
        t = t[1:-1].strip()
    if not t or t.upper() == "NULL" or t.upper().startswith("NULL::"):
        return None
    m = _TEXT.match(t)
    if m:
        return Default("text", m.group(1).replace("''", "'"))
    m = _NUMBER.match(t)
    if m:
        return Default("number", m.group(1))
    if t.lower() in ("true", "false"):
        return Default("bool", "1" if t.lower() == "true" else "0")
    if _NOW.match(t):
        return Default("now")
    return None
