"""Canonical values for ``verify``: one text per value whatever the vendor wrote, so a row
read at the source and the same row read at a target of another vendor compare equal.

Rows are read as the capture writes them (JSON content, ``vendors/base.py``), then each
value is reduced: numbers to their shortest decimal (``12.50`` and ``12.5`` agree; beyond
15 significant digits a number is compared as the double it denotes, since one side may
hold it as a float); text of a ``padded`` column (char(n) at a target that pads or strips
blanks) without its trailing blanks; timestamps to UTC without offset (an offset-less
timestamp is UTC, as rounds write it), with the fraction trimmed; booleans to 1/0 (MariaDB
and SQLite have no boolean); JSON documents to sorted-key text. Plain Python: it runs in
Spark's executors.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any


def _number(d: Decimal) -> str:
    if not d.is_finite():
        return str(d)
    if len(d.as_tuple().digits) > 15:
        d = Decimal(repr(float(d)))
    n = d.normalize()
    return format(n, "f") if n != 0 else "0"


def value(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float | Decimal):
        return _number(Decimal(str(v)) if isinstance(v, float) else v)
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    s = str(v)
    if s in ("NaN", "Infinity", "-Infinity"):
        return s
    try:
        return _number(Decimal(s))
    except (InvalidOperation, ValueError):
        pass
    if len(s) >= 10 and s[4:5] == "-" and s[7:8] == "-":
        try:
            d = datetime.fromisoformat(s.replace(" ", "T", 1) if "T" not in s else s)
        except ValueError:
            return s
        if d.tzinfo is not None:
            d = d.astimezone(UTC).replace(tzinfo=None)
        text = d.isoformat(sep=" ")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return s


def row(
    content: str | None, columns: list[str], padded: frozenset[str] = frozenset()
) -> dict[str, str | None]:
    """The canonical values of ``columns`` in a content JSON text (absent: None);
    ``padded``: columns whose trailing blanks the target does not keep (char(n))."""
    data = json.loads(content or "{}", parse_float=Decimal)
    return {c: value(_unpadded(data.get(c)) if c in padded else data.get(c)) for c in columns}


def _unpadded(v: Any) -> Any:
    return v.rstrip(" ") if isinstance(v, str) else v


def key_and_hash_text(
    content: str | None, key: list[str], columns: list[str], padded: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """(the key as JSON text, the row's canonical JSON text) of a content JSON text."""
    r = row(content, columns, padded)
    return (
        json.dumps([r.get(k) for k in key], separators=(",", ":")),
        json.dumps([r[c] for c in columns], separators=(",", ":")),
    )


def key_text(content: str | None, key: list[str], padded: frozenset[str] = frozenset()) -> str:
    """The key as JSON text of a content JSON text (as ``key_and_hash_text`` makes it)."""
    r = row(content, key, padded)
    return json.dumps([r.get(k) for k in key], separators=(",", ":"))


def raw_key(content: str | None, key: list[str]) -> list[Any]:
    """The key's values as the content holds them (to bind when rows are fetched by key)."""
    data = json.loads(content or "{}", parse_float=Decimal)
    return [data.get(k) for k in key]
