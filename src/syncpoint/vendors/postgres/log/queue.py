"""Writing decoded records into the queue ``{p}items`` (PostgreSQL log capture).

A row record's values travel as the text pgoutput sent, inside one JSON document per
relation and set of columns (one ``json.dumps`` in C for the whole group, one statement):
the server casts them back to the columns' types and makes the JSON content with the
trigger capture's own projection, so a record is, character for character, what the
trigger would have written. DDL and TRUNCATE records carry their content as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.log.names import LogNames
from syncpoint.vendors.postgres.log.pgoutput import Relation

ROW_ACTIONS = ("INSERT", "UPDATE", "DELETE")


class Record:
    """One record to write, with the table's name and version as of its place in the log.

    A row record has ``rel`` and its values as lists of text: ``new`` every column of the
    relation, ``old`` every column (``old_kind`` "O") or the identity columns only ("K").
    A DDL or TRUNCATE record has no ``rel``; ``new`` and ``old`` are its content texts."""

    __slots__ = ("action", "schema", "table", "version", "origin", "at", "rel", "new", "old",
                 "old_kind")  # fmt: skip

    def __init__(
        self,
        action: str,
        schema: str,
        table: str,
        version: int,
        origin: str,
        at: str,
        rel: Relation | None,
        new: Any,
        old: Any,
        old_kind: str = "",
    ):
        self.action, self.schema, self.table, self.version = action, schema, table, version
        self.origin, self.at, self.rel = origin, at, rel
        self.new, self.old, self.old_kind = new, old, old_kind


# built-in types (oids below FirstNormalObjectId) are the same in every database and never
# change: known once per process, not once per capture object (a follower makes one a pass)
_BUILTIN_OIDS = 16384
_BUILTIN: dict[tuple[int, int], tuple[str, str, str, str]] = {}


class Types:
    """Column types as the catalog names them, cached per (type oid, typmod)."""

    def __init__(self, o: LogNames):
        self.o = o
        self.found: dict[tuple[int, int], tuple[str, str, str, str]] = {}

    def of(self, conn: Any, oid: int, mod: int) -> tuple[str, str, str, str]:
        """(declared type, base type, base typtype, base category) of a column type."""
        cache = _BUILTIN if oid < _BUILTIN_OIDS else self.found
        found = cache.get((oid, mod))
        if found is None:
            row = conn.execute(self.o.one("log/types.sql"), {"oid": oid, "mod": mod}).fetchone()
            found = cache[(oid, mod)] = (str(row[0]), str(row[1]), str(row[2]), str(row[3]))
        return found


def identity_columns(rel: Relation) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(rel.columns) if c[3])


def write(
    conn: Any, o: LogNames, types: Types, sid: str, recs: list[Record], copy: bool = False
) -> None:
    """Write ``recs`` in their order (queue keys allocated in that order). ``copy``: the
    rows whose content can be made here go in by one COPY (``conn`` not in pipeline mode,
    where COPY cannot run); the rest through the server's casts."""
    if not recs:
        return
    (keys,) = conn.execute(o.one("log/keys.sql"), {"n": len(recs)}).fetchone()
    groups: dict[tuple[int, bool, str], list[int]] = {}
    texts: list[int] = []
    for n, r in enumerate(recs):
        if r.rel is None:
            texts.append(n)
        else:
            groups.setdefault((id(r.rel), r.new is not None, r.old_kind), []).append(n)
    if copy:
        groups = _copied(conn, o, types, sid, recs, keys, groups)
    for (_rid, has_new, old_kind), members in groups.items():
        rel = recs[members[0]].rel
        assert rel is not None
        every = tuple(range(len(rel.columns)))
        ocols = None if not old_kind else (every if old_kind == "O" else identity_columns(rel))
        raw = {
            "content": _encoder(conn, types, rel, every, "(r->7)") if has_new else "NULL::text",
            "oldcontent": "NULL::text" if ocols is None else _encoder(conn, types, rel, ocols,
                                                                      "(r->8)"),
        }  # fmt: skip
        rows = [
            [keys[m], r.origin, r.schema, r.table, r.action, r.version, r.at, r.new, r.old]
            for m in members
            for r in (recs[m],)
        ]
        conn.execute(
            o.one("log/insert_rows.sql", raw=raw),
            {"sid": sid, "rows": json.dumps(rows, ensure_ascii=False, separators=(",", ":"))},
        )
    if texts:
        sel = [recs[n] for n in texts]
        conn.execute(
            o.one("log/insert.sql"),
            {
                "sid": sid,
                "k": [keys[n] for n in texts],
                "o": [r.origin for r in sel],
                "t": [r.table for r in sel],
                "s": [r.schema for r in sel],
                "a": [r.action for r in sel],
                "c": [r.new for r in sel],
                "oc": [r.old for r in sel],
                "v": [r.version for r in sel],
                "at": [r.at for r in sel],
            },
        )
        ddl = [n for n in texts if recs[n].action not in ROW_ACTIONS]
        if ddl:
            conn.execute(
                o.one("log/insert_ddl.sql"),
                {
                    "k": [keys[n] for n in ddl],
                    "a": [recs[n].action for n in ddl],
                    "s": [recs[n].schema for n in ddl],
                    "t": [recs[n].table for n in ddl],
                    "v": [recs[n].version for n in ddl],
                    "at": [recs[n].at for n in ddl],
                },
            )


# Base types whose JSON in the trigger capture's content (row_to_json) is made here from
# the text the log sent: numbers as they are, strings escaped as the server's escape_json
# does (json's encode_basestring escapes the same characters the same way), booleans, and
# timestamps without time zone as row_to_json writes them (an ISO text's blank made a T;
# another form, BC or infinity, goes the server's way).
_NUMBER, _STRING, _BOOLEAN, _TIMESTAMP = 0, 1, 2, 3
_KINDS = {
    "smallint": _NUMBER,
    "integer": _NUMBER,
    "bigint": _NUMBER,
    "text": _STRING,
    "character varying": _STRING,
    "character": _STRING,
    "boolean": _BOOLEAN,
    "timestamp without time zone": _TIMESTAMP,
}
_ISO_TIMESTAMP = re.compile(r"\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?").fullmatch


def _json_maker(
    conn: Any, types: Types, rel: Relation, cols: tuple[int, ...]
) -> Callable[[list[Any]], str | None] | None:
    """A function making the JSON content of the values of ``cols`` (None where a value
    needs the server), or None when a column's type needs the server."""
    spec: list[tuple[str, int]] = []
    for i in cols:
        name, oid, mod, _k = rel.columns[i]
        kind = _KINDS.get(types.of(conn, oid, mod)[1])
        if kind is None:
            return None
        spec.append((encode_basestring(name) + ":", kind))

    def make(values: list[Any]) -> str | None:
        parts = []
        for (key, kind), v in zip(spec, values, strict=True):
            if v is None:
                parts.append(key + "null")
            elif kind == _NUMBER:
                parts.append(key + v)
            elif kind == _STRING:
                parts.append(key + encode_basestring(v))
            elif kind == _BOOLEAN:
                parts.append(key + ("true" if v == "t" else "false"))
            elif _ISO_TIMESTAMP(v):
                parts.append(key + encode_basestring(v.replace(" ", "T", 1)))
            else:
                return None
        return "{" + ",".join(parts) + "}"

    return make


def _copied(
    conn: Any,
    o: LogNames,
    types: Types,
    sid: str,
    recs: list[Record],
    keys: list[int],
    groups: dict[tuple[int, bool, str], list[int]],
) -> dict[tuple[int, bool, str], list[int]]:
    """COPY the row records whose content is made here; the groups of those left."""
    left: dict[tuple[int, bool, str], list[int]] = {}
    rows: list[tuple[Any, ...]] = []
    for g, members in groups.items():
        has_new, old_kind = g[1], g[2]
        rel = recs[members[0]].rel
        assert rel is not None
        every = tuple(range(len(rel.columns)))
        ocols = None if not old_kind else (every if old_kind == "O" else identity_columns(rel))
        new_json = _json_maker(conn, types, rel, every) if has_new else None
        old_json = None if ocols is None else _json_maker(conn, types, rel, ocols)
        if (has_new and new_json is None) or (ocols is not None and old_json is None):
            left[g] = members
            continue
        for m in members:
            r = recs[m]
            content = new_json(r.new) if new_json is not None else None
            old = old_json(r.old) if old_json is not None else None
            if (content is None and has_new) or (old is None and ocols is not None):
                left.setdefault(g, []).append(m)
                continue
            k = keys[m]
            rows.append((k, f"{sid}:{k}", r.origin, r.table, r.schema, r.action, content, old,
                         r.version, r.at))  # fmt: skip
    if rows:
        xid, db = conn.execute(o.one("log/copy_xact.sql")).fetchone()
        with conn.cursor().copy(o.one("log/copy_rows.sql")) as cp:
            for k, guid, origin, table, schema, action, content, old, version, at in rows:
                cp.write_row((k, guid, xid, origin, table, db, schema, action, content, old,
                              version, at))  # fmt: skip
    return left


def _encoder(conn: Any, types: Types, rel: Relation, cols: tuple[int, ...], src: str) -> str:
    """SQL making the JSON content of a row whose values (text) are the JSON array ``src``
    (in the order of ``cols``): cast back to the columns' types, then the projection the
    trigger capture makes of them (see install/110_fn_make_capture.sql)."""
    casts, proj = [], []
    for n, i in enumerate(cols):
        name, oid, mod, _k = rel.columns[i]
        decl, base, typtype, cat = types.of(conn, oid, mod)
        q = dialect.quote(name)
        casts.append(f"({src}->>{n})::{decl} AS {q}")
        if base == "bytea":
            proj.append(f"translate(encode(s.{q}::bytea, 'base64'), E'\\n', '') AS {q}")
        elif base == "money":
            proj.append(f"(s.{q}::money)::numeric AS {q}")
        elif base in ("real", "double precision", "json", "jsonb") or typtype == "c" or cat == "A":
            proj.append(f"s.{q}::text AS {q}")
        else:
            proj.append(f"s.{q} AS {q}")
    return types.o.sql.one(
        "log/encoder.sql",
        raw={"projection": ", ".join(proj), "casts": ", ".join(casts)},
        comments=False,
    ).strip()
