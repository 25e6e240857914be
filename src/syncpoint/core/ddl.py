"""DDL change records and the table's ``ddl_policy``: ``classify`` compares a DDL record's
old and new shape (additive, destructive or ambiguous); ``decide`` applies the policy
(``apply``, ``stop`` or ``ignore``; additive changes are always applied). The rules:
docs/internals.md, "Schema changes". A STOP record is capture saying it cannot go on exactly
for that table (a capture trigger dropped by hand, a replica identity removed, a partition
it cannot follow): every policy stops there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from syncpoint.core import types
from syncpoint.core.model import Column

ADDITIVE, DESTRUCTIVE, AMBIGUOUS = "additive", "destructive", "ambiguous"
APPLY, STOP, IGNORE = "apply", "stop", "ignore"


@dataclass(frozen=True)
class DdlChange:
    """What one DDL record changes. ``steps`` are the target operations that apply it."""

    action: str
    kind: str
    summary: str
    repl_key: int = 0
    added: tuple[Column, ...] = ()
    dropped: tuple[Column, ...] = ()
    renamed: tuple[tuple[Column, Column], ...] = ()
    retyped: tuple[tuple[Column, Column], ...] = ()
    new_columns: tuple[Column, ...] = ()
    empties: bool = False  # TRUNCATE / DROP TABLE
    key_changed: bool = False
    # added columns whose existing rows the source gave a value no row record carries (a
    # default, NOT NULL, an identity, a generated column): a target cannot follow them
    filled: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


def _columns(text: str | None) -> list[dict[str, Any]]:
    try:
        data: Any = json.loads(text or "")
    except ValueError:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("columns"), list):
        return []
    return [c for c in data["columns"] if isinstance(c, dict) and "name" in c]


def _filled(text: str | None) -> set[str]:
    """The columns a DDL record's new shape marks ``"filled"`` (the vendor's capture marks
    the columns it finds added with values in the rows it held)."""
    return {str(c["name"]) for c in _columns(text) if c.get("filled")}


def _labels(text: str | None) -> dict[str, list[str]]:
    """The enum labels a shape holds per column (where the capture's types have labels)."""
    return {
        str(c["name"]): [str(x) for x in c["labels"]]
        for c in _columns(text)
        if isinstance(c.get("labels"), list)
    }


def _cols(text: str | None) -> list[Column] | None:
    if not text:
        return None
    data: Any = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("columns"), list):
        return None
    return [
        Column(str(c["name"]), str(c.get("type") or ""), bool(c.get("nullable", True)), c.get("pk"))
        for c in data["columns"]
    ]


Parse = Callable[[str], types.NType]


def _reason(content: str | None) -> str:
    try:
        data: Any = json.loads(content or "")
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("reason"):
        return str(data["reason"])
    return "capture cannot go on exactly"


def classify(
    parse: Parse, action: str, content: str | None, oldcontent: str | None, repl_key: int = 0
) -> DdlChange:
    """Classify one DDL record; ``parse`` reads the capture location's declared types (its
    vendor's ``types.parse``)."""
    if action == "STOP":
        return DdlChange(action, AMBIGUOUS, _reason(content), repl_key)
    new, old = _cols(content), _cols(oldcontent)
    if action == "TRUNCATE":
        return DdlChange(action, DESTRUCTIVE, "TRUNCATE", repl_key, empties=True)
    if action == "DROP":
        return DdlChange(action, DESTRUCTIVE, "DROP TABLE", repl_key, empties=True)
    if action == "CREATE":
        return DdlChange(action, ADDITIVE, "CREATE TABLE", repl_key, new_columns=tuple(new or ()))
    if action != "ALTER" or new is None or old is None:
        return DdlChange(action, AMBIGUOUS, f"{action} without a readable shape", repl_key)
    return _alter(parse, old, new, repl_key, _filled(content), _gone_labels(content, oldcontent))


def _gone_labels(content: str | None, oldcontent: str | None) -> dict[str, list[str]]:
    """Per column kept, the enum labels the old shape had and the new one lacks: renamed
    (labels that can only be added are lost no other way), so every row holding one
    changed its value without a row record. A shape written before labels were kept says
    nothing."""
    new, old = _labels(content), _labels(oldcontent)
    out = {}
    for name, was in old.items():
        gone = [x for x in was if x not in new.get(name, was)]
        if gone:
            out[name] = gone
    return out


_QUALIFIER = re.compile(r'^(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\.', re.IGNORECASE)


def same_type(a: str, b: str) -> bool:
    """Whether two declared type texts name the same type: equal but for case, or one the
    other with its schema (``public.year`` and ``year``: the catalog writes a type's schema
    where the reading session's search_path does not make it visible)."""
    a, b = a.strip().lower(), b.strip().lower()
    if a == b:
        return True
    bare_a, bare_b = _QUALIFIER.sub("", a, count=1), _QUALIFIER.sub("", b, count=1)
    return (bare_a == b and bare_a != a) or (bare_b == a and bare_b != b)


def _alter(
    parse: Parse,
    old: list[Column],
    new: list[Column],
    repl_key: int,
    marked: set[str],
    relabeled: dict[str, list[str]],
) -> DdlChange:
    old_by = {c.name: c for c in old}
    new_by = {c.name: c for c in new}
    dropped = [c for c in old if c.name not in new_by]
    added = [c for c in new if c.name not in old_by]
    renamed: list[tuple[Column, Column]] = []
    if len(dropped) == 1 and len(added) == 1:
        d, a = dropped[0], added[0]
        if same_type(d.type, a.type) and old.index(d) == new.index(a):
            renamed, dropped, added = [(d, a)], [], []
    retyped = [
        (old_by[c.name], c)
        for c in new
        if c.name in old_by and not same_type(old_by[c.name].type, c.type)
    ]
    key_changed = [c.name for c in old if c.pk] != [c.name for c in new if c.pk] and not renamed
    kind, parts = ADDITIVE, []
    filled = [c.name for c in added if not c.nullable or c.name in marked]
    for name, gone in relabeled.items():
        if name in new_by and name in old_by:
            parts.append(f"enum labels of {name} renamed ({', '.join(map(repr, gone))} gone)")
            filled.append(name)
            kind = _worse(kind, AMBIGUOUS)
    for c in added:
        parts.append(
            f"ADD COLUMN {c.name} {c.type}"
            + ("" if c.nullable else " NOT NULL")
            + (" with values in the rows already there" if c.name in filled else "")
        )
        if not c.nullable or c.pk or c.name in filled:
            kind = _worse(kind, AMBIGUOUS)
    for c in dropped:
        parts.append(f"DROP COLUMN {c.name}")
        kind = _worse(kind, DESTRUCTIVE)
    for d, a in renamed:
        parts.append(f"RENAME COLUMN {d.name} TO {a.name}")
        kind = _worse(kind, DESTRUCTIVE)
    for o, n in retyped:
        widen = types.widens(parse(o.type), parse(n.type))
        parts.append(f"ALTER COLUMN {n.name} TYPE {o.type} -> {n.type}")
        if not widen:
            kind = _worse(kind, DESTRUCTIVE)
    if key_changed:
        parts.append("PRIMARY KEY changed")
        kind = _worse(kind, AMBIGUOUS)
    return DdlChange(
        "ALTER",
        kind,
        "; ".join(parts) or "no column change",
        repl_key,
        added=tuple(added),
        dropped=tuple(dropped),
        renamed=tuple(renamed),
        retyped=tuple(retyped),
        new_columns=tuple(new),
        key_changed=bool(key_changed),
        filled=tuple(filled),
    )


_ORDER = {ADDITIVE: 0, DESTRUCTIVE: 1, AMBIGUOUS: 2}


def _worse(a: str, b: str) -> str:
    return a if _ORDER[a] >= _ORDER[b] else b


def decide(change: DdlChange, policy: str) -> str:
    """``apply``, ``stop`` or ``ignore`` for one change under the table's ``ddl_policy``."""
    if change.action == "STOP":
        return STOP  # no policy makes up for changes that were not captured
    if change.kind == ADDITIVE:
        return APPLY
    if change.key_changed and policy == APPLY:
        return STOP  # a key change cannot be replayed on the target's rows
    if change.filled and policy == APPLY:
        return STOP  # the rows' values of the new column are in no record
    if policy not in (APPLY, STOP, IGNORE):
        raise ValueError(f"unknown ddl_policy {policy!r}")
    return policy


def stop_reason(
    change: DdlChange, table: str, location: str, policy: str, group: tuple[str, ...] = ()
) -> str:
    """Why the rounds stop at ``change``; ``group``: the tables of the table's sync group,
    which a copy of the table must come with (the group's rounds are held together, so its
    other tables are behind where the copy would start)."""
    if change.action == "STOP":
        return (
            f"capture at {location} of {table} stopped: {change.summary}. Rounds of the "
            "table stop before that point. To go on: run syncpoint install (it puts "
            f"capture back in place), then syncpoint snapshot --tables {table} --restart "
            "(it copies the table again, with what was not captured)."
        )
    if change.filled and not change.key_changed:
        cols = ", ".join(change.filled)
        others = [t for t in group if t != table]
        tables = ",".join([table, *others])
        # a group's tables are held together and may refer to each other: emptied
        # (children first) and copied again together, no stale child blocks a parent's row
        how = (
            "--truncate --restart (it empties the table and the other tables of its sync "
            "group at the target, children first, and copies them again as they are now)"
            if others
            else "--restart (it copies the table again as it is now)"
        )
        return (
            f"DDL at {location} on {table}: {change.summary} ({change.kind}). The rows the "
            f"table already held were given values in {cols} (a default, NOT NULL, an identity "
            "or a generated column; an enum label renamed) that no change record carries, so "
            f"the target cannot follow it. To go on: syncpoint snapshot --tables {tables} "
            f"{how}, or set ddl_policy: ignore for this table to go on past it (the target "
            "keeps what it has)."
        )
    what = "a key change cannot be applied" if change.key_changed else f"ddl_policy {policy}"
    return (
        f"DDL at {location} on {table}: {change.summary} ({change.kind}; {what}). "
        "Adapt the target table and set ddl_policy: apply or ignore for this table "
        "to continue; the change records are kept."
    )
