"""Writing decoded records into the queue ``{p}items`` (PostgreSQL log capture).

A row record's values travel as the text pgoutput sent, inside one JSON document per
relation and set of columns (one ``json.dumps`` in C for the whole group, one statement):
the server casts them back to the columns' types and makes the JSON content with the
trigger capture's own projection, so a record is, character for character, what the
trigger would have written. DDL and TRUNCATE records carry their content as text.
"""

from __future__ import annotations

import json
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


def write(conn: Any, o: LogNames, types: Types, sid: str, recs: list[Record]) -> None:
    """Write ``recs`` in their order (queue keys allocated in that order)."""
    if not recs:
        return
    keys = [int(k) for (k,) in conn.execute(o.one("log/keys.sql"), {"n": len(recs)})]
    groups: dict[tuple[int, bool, str], list[int]] = {}
    texts: list[int] = []
    for n, r in enumerate(recs):
        if r.rel is None:
            texts.append(n)
        else:
            groups.setdefault((id(r.rel), r.new is not None, r.old_kind), []).append(n)
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
