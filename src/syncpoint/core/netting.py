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

4. Keys are compared as text (below), but a database may hold two texts equal: citext
   'abc' and 'ABC', numeric 1.0 and 1.00, a case-insensitive or PAD SPACE collation's 'x'
   and 'X '. Capture records a change of the key's text as a key change (rule 1), so one
   row's *class* of equal keys may end a round as the delete of one text and the upsert
   of another, never as two upserts: a text's last operation is an upsert only while the
   row holds it, and the row holds one text at a time. That upsert is the class's last
   operation. The apply therefore upserts every column, the key's too (the row takes the
   source's text), and its delete spares a target row equal to a key the same window
   upserts: that row is the one the upsert wrote. Deleting it after the upsert would lose
   the row; not setting the key would leave the old text.

Keys are compared as decoded JSON values (decimals exactly, as ``Decimal``). Spark cannot
decode exact decimals (its JSON reader goes through ``double``), so the Spark path takes the
key as JSON text extracted by the *source* database, which writes one value the same way
every time. ``net_rows`` is the same rule on those rows (key texts), for rounds small enough
to be netted by the driver without Spark: it gives what Spark gives.
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


def _ops(
    action: str, new_key: Any, old_key: Any, content: str | None, oldcontent: str | None
) -> list[tuple[Any, int, str, str]]:
    """Rules 1 and 2: (key, sub, action, content) of one row record, given the keys of its
    new and old row (``old_key`` None: the record has no old row)."""
    if action == "INSERT":
        return [(new_key, 1, UPSERT, content or "")]
    if action == "DELETE":
        return [(old_key, 0, DELETE, oldcontent or "")]
    if action == "UPDATE":
        if old_key is not None and old_key != new_key:
            return [(old_key, 0, DELETE, oldcontent or ""), (new_key, 1, UPSERT, content or "")]
        return [(new_key, 1, UPSERT, content or "")]
    raise ValueError(f"not a row change: {action}")


def _last(
    last: dict[Any, tuple[Any, ...]],
    repl_key: int,
    ops: list[tuple[Any, int, str, str]],
    origin: str | None = None,
) -> None:
    """Rule 3: keep, per key, the operation last by (repl_key, sub), with its record's
    origin (where the change was first made)."""
    for k, sub, action, content in ops:
        seen = last.get(k)
        if seen is None or (repl_key, sub) >= (seen[0], seen[1]):
            last[k] = (repl_key, sub, action, content, origin)


def split(rec: ChangeRecord, key: Sequence[str]) -> list[tuple[tuple[Any, ...], int, str, str]]:
    """(key, sub, action, content) of one row record, after rule 1 and 2."""
    if rec.db_action not in ROW_ACTIONS:
        raise ValueError(f"not a row change: {rec.db_action}")
    new_key = key_of(rec.row, key) if rec.db_action != "DELETE" else None
    has_old = rec.oldcontent is not None or rec.db_action == "DELETE"
    old_key = key_of(rec.old, key) if has_old else None
    return _ops(rec.db_action, new_key, old_key, rec.content, rec.oldcontent)


def net(records: Iterable[ChangeRecord], key: Sequence[str]) -> list[NetChange]:
    """The net operations of ``records`` (row records only), in repl_key order."""
    last: dict[Any, tuple[Any, ...]] = {}
    for rec in records:
        if rec.db_action in ROW_ACTIONS:
            _last(last, rec.repl_key, split(rec, key))
    out = [NetChange(k, a, c, rk) for k, (rk, _sub, a, c, _o) in last.items()]
    return sorted(out, key=lambda n: n.repl_key)


@dataclass(frozen=True)
class NetRows:
    """A round netted by the driver: (window, action, content, repl_key, origin) per key."""

    rows: list[tuple[int, str, str, int, str | None]]

    def counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for tbl, *_ in self.rows:
            out[tbl] = out.get(tbl, 0) + 1
        return out


Text = str | None


def net_rows(rows: Iterable[tuple[int, int, str, Text, Text, Text, Text, Text]]) -> NetRows:
    """The rule on rows as the round reads them: (window, repl_key, db_action, content,
    oldcontent, dbid, key text of content, key text of oldcontent), keys compared as the
    source wrote them (as Spark compares them); each net row keeps the dbid of the record
    that won as its origin. A row record without its key fails: netting on a missing key
    would merge unrelated rows."""
    last: dict[Any, tuple[Any, ...]] = {}
    for tbl, repl_key, action, content, oldcontent, dbid, key, old_key in rows:
        if action not in ROW_ACTIONS:
            continue
        if (key if action != "DELETE" else old_key) is None:
            raise ValueError("a change record lacks its key columns")
        old = (tbl, old_key) if old_key is not None else None
        _last(last, int(repl_key), _ops(action, (tbl, key), old, content, oldcontent), dbid)
    return NetRows([(k[0], a, c, rk, o) for k, (rk, _sub, a, c, o) in last.items()])


def apply_to(
    state: dict[tuple[Any, ...], dict[str, Any]], ops: Iterable[NetChange], key: Sequence[str]
) -> None:
    """Apply net operations to an in-memory table (tests' oracle)."""
    for op in ops:
        if op.action == DELETE:
            state.pop(op.key, None)
        else:
            state[op.key] = loads(op.content)
