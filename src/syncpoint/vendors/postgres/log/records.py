"""From decoded transactions to the queue's records (PostgreSQL log capture): which table a
change belongs to, its origin, DDL in its place, TOASTed values an UPDATE left unchanged,
and a key change as a DELETE and an INSERT, as the trigger capture records it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from psycopg import sql

from syncpoint.vendors.postgres.log import pgoutput
from syncpoint.vendors.postgres.log.names import LogNames
from syncpoint.vendors.postgres.log.pgoutput import UNCHANGED, Relation
from syncpoint.vendors.postgres.log.queue import Record, Types, identity_columns


@dataclass
class Watched:
    """A watched table as the decoder sees it (``{p}log_tables`` joined with its entry)."""

    id: int
    relid: int | None
    schema: str
    table: str
    version: int
    shape: str | None
    actions: str
    status: str
    key: list[str]


def watched(rows: Any) -> list[Watched]:
    """The rows of log/log_tables.sql."""
    return [
        Watched(i, relid, schema, table, int(version), shape, actions or "IUD", status,
                list(key) if key else _pk(shape))
        for i, relid, schema, table, version, shape, actions, status, key in rows
    ]  # fmt: skip


class Records:
    """Turns a batch's transactions into records; DDL seen on the way updates the
    decoder's view of the tables (``{p}log_tables``) in the batch's transaction."""

    def __init__(
        self,
        conn: Any,
        o: LogNames,
        types: Types,
        tables: list[Watched],
        location: str,
        ddl_by_relation: bool,
    ):
        self.conn, self.o, self.types, self.tables = conn, o, types, tables
        self.location, self.ddl_by_relation = location, ddl_by_relation
        self.by_id = {w.id: w for w in tables}
        self.found: dict[int, Watched | None] = {}  # relid -> table, until the next DDL
        self.compared: set[tuple[int, int]] = set()
        self.keys: dict[tuple[int, tuple[str, ...]], list[int | None]] = {}
        self.identity: dict[int, tuple[int, ...]] = {}  # id(relation) -> its identity columns
        self.out: list[Record] = []

    def add(self, txn: pgoutput.Transaction, rels: dict[int, Relation]) -> None:
        o, out = self.o, self.out
        origin = self.location
        at = txn.commit_time.isoformat()
        msg_origin, msg_ddl = o.message_prefix + "origin", o.message_prefix + "ddl"
        found = self.found  # cleared in place by DDL
        for ch in txn.changes:
            kind = ch.kind
            if kind == "M":
                if ch.prefix == msg_origin:
                    origin = ch.content.decode() or self.location
                elif ch.prefix == msg_ddl:
                    self._ddl_message(json.loads(ch.content), origin, at)
                continue
            if kind == "T":
                for relid in ch.relids:
                    w = self._find(rels.get(relid), relid)
                    if w is not None and "D" in w.actions:
                        out.append(Record("TRUNCATE", w.schema, w.table, w.version, origin, at,
                                          None, w.shape, None))  # fmt: skip
                continue
            rel = ch.rel or rels[ch.relid]
            w = found.get(ch.relid, _MISSING)
            if w is _MISSING:
                w = self._find(rel, ch.relid)
            # whatever the table's status now (dropped since, say): the log says what
            # happened while it was watched
            if w is None:
                continue
            if self.ddl_by_relation and (w.id, id(rel)) not in self.compared:
                self.compared.add((w.id, id(rel)))  # once per relation message, not per row
                self._relation_ddl(w, rel, origin, at)
            if kind == "I":
                if "I" in w.actions:
                    out.append(Record("INSERT", w.schema, w.table, w.version, origin, at, rel,
                                      ch.new, None))  # fmt: skip
            elif kind == "D":
                if "D" in w.actions:
                    old, old_kind = self._old(rel, ch.old or [], ch.old_kind)
                    out.append(Record("DELETE", w.schema, w.table, w.version, origin, at, rel,
                                      None, old, old_kind))  # fmt: skip
            elif "U" in w.actions:
                new = ch.new or []
                if ch.unchanged:
                    new = self._unchanged(rel, list(new), ch.old, ch.old_kind)
                old, old_kind = self._old(
                    rel, new if ch.old is None else ch.old, ch.old_kind or "K"
                )
                before = ch.old
                if before is not None and any(
                    i is not None and before[i] != new[i] for i in self._key(rel, w.key)
                ):
                    out.append(Record("DELETE", w.schema, w.table, w.version, origin, at, rel,
                                      None, old, old_kind))  # fmt: skip
                    out.append(Record("INSERT", w.schema, w.table, w.version, origin, at, rel,
                                      new, None))  # fmt: skip
                else:
                    out.append(Record("UPDATE", w.schema, w.table, w.version, origin, at, rel,
                                      new, old, old_kind))  # fmt: skip

    def _ddl_message(self, d: dict[str, Any], origin: str, at: str) -> None:
        """A DDL record the event trigger emitted, in its place among the rows."""
        w = self.by_id.get(int(d["id"]))
        if w is None:
            return
        if d["action"] == "STOP":  # capture cannot go on exactly: rounds stop here
            self.out.append(Record("STOP", w.schema, w.table, w.version, origin, at, None,
                                   d["content"], None))  # fmt: skip
            return
        w.version = int(d["version"])
        self.out.append(Record(d["action"], d["schema"], d["table"], w.version, origin, at,
                               None, d["content"], d["oldcontent"]))  # fmt: skip
        w.schema, w.table = d["new_schema"], d["new_table"]
        w.relid = int(d["relid"]) if d["action"] != "DROP" else None
        w.shape = d["content"] if d["action"] != "DROP" else w.shape
        self.found.clear()
        self._put(w)

    def _old(self, rel: Relation, values: list[Any], kind: str) -> tuple[list[Any], str]:
        """The old row as the record carries it: whole (REPLICA IDENTITY FULL) or the
        values of the identity columns."""
        if kind == "O":
            return values, "O"
        cols = self.identity.get(id(rel))
        if cols is None:
            cols = self.identity[id(rel)] = identity_columns(rel)
        return [values[i] for i in cols], "K"

    def _find(self, rel: Relation | None, relid: int) -> Watched | None:
        if relid in self.found:
            return self.found[relid]
        w = next((w for w in self.tables if w.relid == relid), None)
        if w is None and rel is not None:
            name = (rel.schema, rel.name)
            w = next((w for w in self.tables if w.relid is None and (w.schema, w.table) == name),
                     None)  # fmt: skip
        if w is not None and w.relid == relid:
            self.found[relid] = w  # a table found by name may take its relid later
        return w

    def _key(self, rel: Relation, key: list[str]) -> list[int | None]:
        """Where the channel's key columns are among the relation's."""
        k = (id(rel), tuple(key))
        found = self.keys.get(k)
        if found is None:
            names = [c[0] for c in rel.columns]
            found = self.keys[k] = [names.index(n) if n in names else None for n in key]
        return found

    def _put(self, w: Watched) -> None:
        self.conn.execute(
            self.o.one("log/log_table_put.sql"),
            {"id": w.id, "relid": w.relid, "schema": w.schema, "table": w.table,
             "version": w.version, "shape": w.shape},
        )  # fmt: skip

    def _relation_ddl(self, w: Watched, rel: Relation, origin: str, at: str) -> None:
        """Without event triggers: a relation message whose columns differ from the shape
        last recorded is an ALTER, recorded before the row that brought it."""
        conn, o = self.conn, self.o
        old = json.loads(w.shape) if w.shape else {"columns": []}
        seen = [(c[0], self.types.of(conn, c[1], c[2])[0]) for c in rel.columns]
        # generated columns are not in the log (PostgreSQL 15): not a change of shape
        generated = {str(n) for (n,) in conn.execute(o.one("log/generated.sql"),
                                                     {"relid": rel.relid})}  # fmt: skip
        if seen == [(c["name"], c["type"]) for c in old["columns"] if c["name"] not in generated]:
            return
        (shape,) = conn.execute(
            o.one("log/relation_shape.sql"),
            {"schema": w.schema, "table": w.table, "relid": rel.relid,
             "names": [c[0] for c in seen], "types": [c[1] for c in seen]},
        ).fetchone()  # fmt: skip
        old_shape = w.shape
        (content,) = conn.execute(
            o.one("log/shape_added.sql"),
            {"relid": rel.relid, "new": shape, "old": old_shape or '{"columns": []}'},
        ).fetchone()
        w.version += 1
        w.shape = shape
        self.out.append(Record("ALTER", w.schema, w.table, w.version, origin, at, None, content,
                               old_shape))  # fmt: skip
        self._put(w)

    def _unchanged(
        self, rel: Relation, new: list[Any], old: list[Any] | None, old_kind: str
    ) -> list[Any]:
        """An UPDATE's TOASTed values it did not change: from the old row when the table
        sends it whole (REPLICA IDENTITY FULL), else read from the table by key."""
        missing = [i for i, v in enumerate(new) if v is UNCHANGED]
        if not missing:
            return new
        if old is not None and old_kind == "O":
            for i in missing:
                new[i] = old[i]
            return new
        conn, o = self.conn, self.o
        keys = identity_columns(rel)
        (name,) = conn.execute(o.one("log/regclass.sql"), {"relid": rel.relid}).fetchone()
        cols = sql.SQL(", ").join(
            sql.SQL("{}::text").format(sql.Identifier(rel.columns[i][0])) for i in missing
        )
        cond = sql.SQL(" AND ").join(
            sql.SQL("{} = %s::{}").format(
                sql.Identifier(rel.columns[i][0]),
                sql.SQL(self.types.of(conn, rel.columns[i][1], rel.columns[i][2])[0]),
            )
            for i in keys
        )
        raw = {"columns": cols.as_string(conn), "rel": name, "condition": cond.as_string(conn)}
        row = conn.execute(o.one("log/unchanged.sql", raw=raw), [new[i] for i in keys]).fetchone()
        for n, i in enumerate(missing):
            # a row gone since: its DELETE comes later in the log and removes it anyway
            new[i] = None if row is None else row[n]
        return new


_MISSING: Any = object()


def _pk(shape: str | None) -> list[str]:
    cols = json.loads(shape)["columns"] if shape else []
    return [c["name"] for c in sorted((c for c in cols if c.get("pk")), key=lambda c: c["pk"])]
