"""Reducing the change records of a round to their net effect per key (the reference rule).

The rule, applied per table (Spark implements the same in ``spark/transforms.py``; the
tests check the two agree):

1. An UPDATE whose key changed is split into a DELETE of the old key and an INSERT of the
   new key at the same position, the delete first (``sub`` 0, the insert ``sub`` 1). A key
   that moves away and back within a round (k -> k' -> k) thus nets correctly.
2. Every record gets the key it touches: INSERT and UPDATE the key of ``content`` (the new
   row), DELETE the key of ``oldcontent``.
3. Per key, the last record by ``(repl_key, sub)`` wins: repl_key order is the order of
   changes to any one row (row locks serialize its writers). Its action decides: DELETE ->
   delete the key at the target; INSERT or UPDATE -> upsert the full new row (``content``).

So many changes of one key in one round (insert, updates, key moves, delete, re-insert)
become exactly one target operation, never "several source rows for one target row".

Keys are compared as decoded JSON values (decimals exactly, as ``Decimal``). Spark cannot
decode exact decimals (its JSON reader goes through ``double``), so the Spark path takes the
key as JSON text extracted by the *source* database, which writes one value the same way
every time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from syncpoint.core.model import ROW_ACTIONS, ChangeRecord, loads

UPSERT = "U"
DELETE = "D"


@dataclass(frozen=True)
class NetChange:
    """One operation at the target: upsert ``content`` or delete the row keyed by ``key``."""

    key: tuple[Any, ...]
    action: str  # UPSERT or DELETE
    content: str  # JSON text: the new row (upsert) or the old row holding the key (delete)
    repl_key: int


def key_of(row: Any, key: Sequence[str]) -> tuple[Any, ...]:
    if not isinstance(row, dict):
        raise ValueError("a change record without a row")
    missing = [k for k in key if k not in row]
    if missing:
        raise ValueError(f"key column(s) {missing} missing from a change record")
    return tuple(_hashable(row[k]) for k in key)


def _hashable(v: Any) -> Any:
    if isinstance(v, dict | list):
        return repr(v)
    return v


def split(rec: ChangeRecord, key: Sequence[str]) -> list[tuple[tuple[Any, ...], int, str, str]]:
    """(key, sub, action, content) of one row record, after rule 1 and 2."""
    if rec.db_action == "INSERT":
        return [(key_of(rec.row, key), 1, UPSERT, rec.content or "")]
    if rec.db_action == "DELETE":
        return [(key_of(rec.old, key), 0, DELETE, rec.oldcontent or "")]
    if rec.db_action == "UPDATE":
        new_key = key_of(rec.row, key)
        old_key = key_of(rec.old, key) if rec.oldcontent is not None else new_key
        if old_key != new_key:
            return [
                (old_key, 0, DELETE, rec.oldcontent or ""),
                (new_key, 1, UPSERT, rec.content or ""),
            ]
        return [(new_key, 1, UPSERT, rec.content or "")]
    raise ValueError(f"not a row change: {rec.db_action}")


def net(records: Iterable[ChangeRecord], key: Sequence[str]) -> list[NetChange]:
    """The net operations of ``records`` (row records only), in repl_key order."""
    last: dict[tuple[Any, ...], tuple[int, int, str, str]] = {}
    for rec in records:
        if rec.db_action not in ROW_ACTIONS:
            continue
        for k, sub, action, content in split(rec, key):
            seen = last.get(k)
            if seen is None or (rec.repl_key, sub) >= (seen[0], seen[1]):
                last[k] = (rec.repl_key, sub, action, content)
    out = [NetChange(k, a, c, rk) for k, (rk, _sub, a, c) in last.items()]
    return sorted(out, key=lambda n: n.repl_key)


def apply_to(
    state: dict[tuple[Any, ...], dict[str, Any]], ops: Iterable[NetChange], key: Sequence[str]
) -> None:
    """Apply net operations to an in-memory table (tests' oracle)."""
    for op in ops:
        if op.action == DELETE:
            state.pop(op.key, None)
        else:
            state[op.key] = loads(op.content)
