"""PostgreSQL log capture: logical decoding (``pgoutput``) drained into the trigger
capture's own queue at tick time, so that everything downstream reads ``{p}items`` as it
always does.

No trigger on the application's tables: a publication ``{p}pub`` of the watched tables
(through the partitioned root) and a logical slot ``{p}slot``. A tick first drains the slot
up to the WAL position sampled at its start, in batches; a batch is one transaction that
writes the records of whole source transactions, in commit order, with the end LSN of the
last one (``{p}log_state.decoded``); the slot is advanced only after that commit. A kill in
between decodes the same transactions again and skips those at or below ``decoded``. Then
the ordinary tick (its snapshot sees the batch transactions committed). How and why:
docs/internals.md, "Log capture on PostgreSQL".
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

from syncpoint import failpoints
from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, Tick, WatchedTableStatus
from syncpoint.errors import LocationError, UsageError
from syncpoint.vendors.base import Capture
from syncpoint.vendors.postgres import catalog, dialect, pgoutput
from syncpoint.vendors.postgres.capture import PostgresCapture, _no_open_transaction, ddl_events
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.lognames import LogNames
from syncpoint.vendors.postgres.pgoutput import UNCHANGED, Relation

BATCH = 20_000  # messages a drain transaction asks for (whole transactions: may be more)
# the queue's objects this capture shares with the trigger capture (install/ files)
_QUEUE_FILES = (
    "010_sequence",
    "020_items",
    "030_tables",
    "040_service",
    "100_fn_shape",
    "150_fn_tick",
    "160_fn_snap",
)
_ACTION = {"I": "INSERT", "U": "UPDATE", "D": "DELETE"}


@dataclass
class _Watched:
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


class _Rec:
    """One record to write; the table's name and version as of its place in the log."""

    __slots__ = ("action", "schema", "table", "version", "dbid", "content", "old", "at")

    def __init__(self, action: str, w: _Watched, dbid: str, content: Any, old: Any, at: datetime):
        self.action, self.dbid, self.at = action, dbid, at
        self.schema, self.table, self.version = w.schema, w.table, w.version
        self.content, self.old = content, old  # text, or (relation, values) to encode


class PostgresLogCapture(PostgresCapture):
    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.objects = LogNames(prefix)
        self._types: dict[tuple[int, int], tuple[str, str, str, str]] = {}

    @property
    def _o(self) -> LogNames:
        return self.objects  # type: ignore[return-value]

    # -- validate ----------------------------------------------------------------------
    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = Capture.check(self, conn, tables)
        with self._translated(None, conn):
            problems += self._check_server(conn)
            problems += self._check_tables(conn, tables)
            problems += catalog.check_sequence(conn, self.objects)
        return problems

    def _check_server(self, conn: Any) -> list[str]:
        o = self._o
        level, max_slots, slots, repl, _su, user = conn.execute(o.one("log/server.sql")).fetchone()
        out = []
        if level != "logical":
            out.append(
                f"wal_level is {level!r} at {self.location}: log capture needs wal_level = "
                "logical (ALTER SYSTEM SET wal_level = logical, then restart the server; on "
                "a managed service: rds.logical_replication = 1 on RDS/Aurora, "
                "cloudsql.logical_decoding = on on Cloud SQL, wal_level = logical on Azure)"
            )
        has_slot = catalog.installed(conn, o) and self._slot(conn) is not None
        if not has_slot and slots >= max_slots:
            out.append(
                f"no free replication slot at {self.location} ({slots} of "
                f"max_replication_slots = {max_slots} in use): raise max_replication_slots "
                "(restart needed) or drop an unused slot"
            )
        if not repl:
            out.append(
                f"user {user!r} has neither the REPLICATION attribute nor superuser at "
                f"{self.location}: run ALTER ROLE {dialect.quote(user)} REPLICATION"
            )
        (triggers,) = conn.execute(
            o.one("log/trigger_capture.sql"), {"fn": f"{o.qualified('fn_make')}(integer)"}
        ).fetchone()
        if triggers:
            out.append(
                f"trigger capture of prefix {self.prefix} is installed at {self.location}: "
                "run syncpoint uninstall with the channel's old capture setting first (both "
                "would capture every change)"
            )
        enc = conn.execute(o.one("queries/session.sql")).fetchone()[2]
        if enc == "SQL_ASCII":
            out.append(
                "the database encoding is SQL_ASCII: text may hold bytes that are not UTF-8 "
                "and cannot be captured as JSON; use a UTF8 database"
            )
        return out

    def _check_tables(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        o = self._o
        out = []
        for t in tables:
            found = catalog.describe(conn, o, t.ref)
            if found is None:
                continue  # reported by Capture.check
            kind, _shape = found
            ref = {"schema": schema_of(t.ref), "table": t.ref.name}
            if kind[0] == "r" and kind.endswith("i"):
                parent = catalog.partition_root(conn, o, t.ref)
                if parent:
                    out.append(
                        f"table {t.name}: is a partition of {parent} at {self.location}; "
                        f"list the partitioned table {parent} instead (its rows are "
                        "captured through it, whatever partition holds them)"
                    )
                else:
                    out.append(
                        f"table {t.name}: takes part in inheritance at {self.location}; "
                        "a publication sends a parent's and a child's rows apart, so it "
                        "cannot be captured as one table"
                    )
                continue
            if kind[0] not in ("r", "p"):
                out.append(
                    f"table {t.name}: is a {catalog.RELKINDS.get(kind[0], kind)} at "
                    f"{self.location}; only tables and partitioned tables can be captured"
                )
                continue
            found_why = conn.execute(o.one("log/identity.sql"), {**ref, "key": t.key}).fetchone()
            why = found_why[0] if found_why else None
            if why:
                out.append(
                    f"table {t.name}: no usable replica identity at {self.location} ({why}); "
                    "a publication would make its UPDATE and DELETE fail, so it is not "
                    "published: add a primary key, or ALTER TABLE ... REPLICA IDENTITY FULL"
                )
            (owner,) = conn.execute(o.one("log/owner.sql"), ref).fetchone()
            if not owner:
                out.append(
                    f"table {t.name}: the user does not own it at {self.location}; adding it "
                    "to a publication needs its owner (or a superuser)"
                )
        return out

    # -- install -----------------------------------------------------------------------
    def _superuser(self, conn: Any) -> bool:
        return bool(conn.execute(self._o.one("queries/session.sql")).fetchone()[0])

    def _install_steps(
        self, conn: Any, tables: list[TableConfig]
    ) -> list[tuple[str, dict[str, Any] | None]]:
        o = self._o
        stream_id = self._existing_stream(conn) or uuid.uuid4().hex
        refs = [t.ref for t in tables]
        kept = {"schemas": [schema_of(r) for r in refs], "names": [r.name for r in refs]}
        steps: list[tuple[str, dict[str, Any] | None]] = [
            (o.one("queries/lock_timeout.sql"), None),
            (o.one("queries/lock.sql"), {"key": f"syncpoint:{o.schema}.{self.prefix}"}),
        ]
        for f in _QUEUE_FILES:
            steps += [(s, None) for s in o.render(f"install/{f}.sql")]
        for rel in o.sql.listing("log/install"):
            if rel.endswith("060_event_triggers.sql") and not self._superuser(conn):
                continue  # DDL then comes from the decoded relation messages
            steps += [(s, None) for s in o.render(rel)]
        steps.append(
            (
                o.one("queries/service_upsert.sql"),
                {"stream_id": stream_id, "location": self.location},
            )
        )
        steps.append((o.one("log/state_init.sql"), {"slot": self._slot_name(conn)}))
        steps.append((o.one("queries/tick0.sql"), None))
        steps += [(s, kept) for s in o.render("log/unwatch.sql")]
        for t in tables:
            ref = {"schema": schema_of(t.ref), "table": t.ref.name}
            row = {**ref, "actions": t.actions, "debug": int(t.debug), "key": t.key}
            steps.append((o.one("queries/table_upsert.sql"), row))
            steps += [(s, ref) for s in o.render("log/watch.sql")]
        if not self._publication(conn):
            steps.append((o.one("log/publication_create.sql"), None))
        if refs:
            names = sql.SQL(", ").join(sql.Identifier(schema_of(r), r.name) for r in refs)
            steps.append(
                (o.one("log/publication_set.sql", raw={"tables": names.as_string(conn)}), None)
            )
        return steps

    def _publication(self, conn: Any) -> tuple[Any, ...] | None:
        row = conn.execute(self._o.one("log/publication.sql"), {"pub": self._o.name("pub")})
        found = row.fetchone()
        return None if found is None else tuple(found)

    def _slot_name(self, conn: Any) -> str:
        """Slots are named across the whole server, publications per database: the slot's
        name carries a digest of the database's, so that the same prefix in two databases
        of one server gets two slots."""
        digest = hashlib.sha1(str(conn.info.dbname).encode()).hexdigest()[:10]
        return f"{self._o.name('slot')}_{digest}"

    def _slot(self, conn: Any) -> tuple[Any, ...] | None:
        row = conn.execute(self._o.one("log/slot.sql"), {"slot": self._slot_name(conn)}).fetchone()
        return None if row is None else tuple(row)

    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with self._translated(None, conn):
            steps = self._install_steps(conn, tables)
            cur = psycopg.ClientCursor(conn)
            out = [s if p is None else cur.mogrify(s, p) for s, p in steps]
            if self._slot(conn) is None:
                out.append(
                    cur.mogrify(self._o.one("log/slot_create.sql"), {"slot": self._slot_name(conn)})
                )
            return out

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        _no_open_transaction(conn, "install")
        o = self._o
        with self._translated(None, conn):
            fresh = not _has_state(conn, o)
            refused = [p for p in self._check_tables(conn, tables) if "replica identity" in p]
        if refused:
            raise UsageError("; ".join(refused))
        current = ""
        try:
            with conn.transaction():
                for stmt, params in self._install_steps(conn, tables):
                    current = str(params.get("table", "")) if params else ""
                    conn.execute(stmt, params)
        except psycopg.Error as exc:
            raise dialect.translate(exc, self.location, current or None) from exc
        try:
            with self._translated(None, conn):
                self._make_slot(conn)
        except BaseException:
            if fresh:  # all or nothing: what this call made goes again
                self.uninstall(conn)
            raise

    def _make_slot(self, conn: Any) -> None:
        o = self._o
        slot = self._slot_name(conn)
        found = self._slot(conn)
        if found is not None and found[5] != "lost":
            conn.commit()
            return
        state = conn.execute(o.one("log/state_peek.sql")).fetchone()
        conn.commit()
        if found is not None:
            conn.execute(o.one("log/slot_drop.sql"), {"slot": slot})
            conn.commit()
        (lsn,) = conn.execute(o.one("log/slot_create.sql"), {"slot": slot}).fetchone()
        conn.commit()
        with conn.transaction():
            if state is not None and state[2] is not None:
                # the slot of an earlier install was lost: what it held is gone, so this is
                # a new stream (positions of the old one are refused, snapshot is the way)
                for stmt in o.render("log/new_stream.sql"):
                    conn.execute(stmt, {"stream_id": uuid.uuid4().hex})
            conn.execute(o.one("log/state_started.sql"), {"slot": slot, "lsn": lsn})

    def uninstall(self, conn: Any) -> None:
        _no_open_transaction(conn, "uninstall")
        o = self._o
        with self._translated(None, conn):
            conn.execute(o.one("log/slot_drop.sql"), {"slot": self._slot_name(conn)})
            conn.commit()
            with conn.transaction():
                conn.execute(o.one("queries/lock_timeout.sql"))
                conn.execute(
                    o.one("queries/lock.sql"), {"key": f"syncpoint:{o.schema}.{self.prefix}"}
                )
                for stmt in o.render("log/uninstall.sql"):
                    conn.execute(stmt)
                for stmt in o.folder("uninstall"):
                    conn.execute(stmt)

    def uninstall_plan(self, conn: Any) -> list[str]:
        o = self._o
        with self._translated(None, conn):
            cur = psycopg.ClientCursor(conn)
            return [
                cur.mogrify(o.one("log/slot_drop.sql"), {"slot": self._slot_name(conn)}),
                *o.render("log/uninstall.sql"),
                *o.folder("uninstall"),
            ]

    # -- status ------------------------------------------------------------------------
    def status(self, conn: Any) -> CaptureStatus:
        o = self._o
        with self._translated(None, conn):
            if not catalog.installed(conn, o) or not _has_state(conn, o):
                return CaptureStatus(installed=False)
            sid, _loc, ctx, *_ = conn.execute(o.one("queries/service_read.sql")).fetchone()
            pending = {
                (s, n): int(c) for s, n, c in conn.execute(o.one("queries/status_pending.sql"))
            }
            rows = conn.execute(o.one("log/status_tables.sql"))
            tables = []
            for schema, name, st, actions, debug, reason in rows.fetchall():
                tables.append(
                    WatchedTableStatus(
                        table=f"{schema}.{name}",
                        status=f"{st}: {reason}" if reason and st != "OK" else st,
                        actions=actions,
                        trigger_name=None,
                        pending=pending.get((schema, name), 0),
                        debug=int(debug),
                    )
                )
            ddl = ddl_events(conn, o)
            problems = catalog.check_sequence(conn, o)
            retained = self.retained(conn)
            if retained.get("lost"):
                problems.append(str(retained["lost"]))
        return CaptureStatus(
            installed=True,
            stream_id=sid,
            context=int(ctx),
            pending=sum(pending.values()),
            tables=tables,
            ddl_events=ddl,
            problems=problems,
            log=retained,
        )

    def retained(self, conn: Any) -> dict[str, Any]:
        """What the slot holds back: WAL bytes from its restart position, seconds since it
        last moved, its wal_status, and why capture stopped if it did."""
        o = self._o
        state = conn.execute(o.one("log/state_peek.sql")).fetchone()
        slot = self._slot(conn)
        out: dict[str, Any] = {"slot": self._slot_name(conn), "publication": o.name("pub")}
        if state is not None:
            out["decoded_lsn"] = str(state[1])
            out["lost"] = state[5]
            if state[4] is not None:
                out["age_seconds"] = _age(state[4])
        if slot is None:
            out["lost"] = out.get("lost") or _lost_text(self._slot_name(conn), "was dropped")
            return out
        out["wal_status"] = slot[5]
        out["retained_bytes"] = int(slot[6] or 0)
        if slot[5] == "lost":
            out["lost"] = out.get("lost") or _lost_text(self._slot_name(conn), "was invalidated")
        return out

    def status_tick(self, conn: Any) -> Tick | None:
        return None  # a tick drains the slot: status must not write

    def backlog_query(self, table: TableName, after: int) -> str | None:
        return None  # the slot is drained by ticks only: status counts up to the newest one

    def poll_ddl(self, conn: Any) -> int:
        return 0  # DDL comes with the log (event triggers, or relation messages without)

    # -- the stream --------------------------------------------------------------------
    def tick(self, conn: Any) -> Tick:
        _no_open_transaction(conn, "tick")
        with self._translated():
            clock, oldest = self._drain(conn)
            t = super().tick(conn)
            g = min(x for x in (clock, oldest, t.guaranteed) if x is not None)
            with conn.transaction():
                first, second = self._o.render("log/tick_guaranteed.sql")
                (g,) = conn.execute(first, {"g": g, "tick": t.context}).fetchone()
                conn.execute(second, {"g": g})
        return Tick(
            context=t.context, guaranteed=g.astimezone(t.guaranteed.tzinfo), sampled_at=t.sampled_at
        )

    def set_origin(self, conn: Any, origin: str | None) -> None:
        if conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            raise UsageError("set_origin() works inside an open transaction")
        with self._translated():
            conn.execute(self._o.one("log/origin.sql"), {"origin": origin or ""})

    def _drain(self, conn: Any) -> tuple[datetime, datetime | None]:
        """Decode the slot into the queue up to the position sampled now; return the
        clock and oldest transaction start sampled before that position."""
        o = self._o
        key = {"key": f"syncpoint:log:{o.schema}.{self.prefix}"}
        with conn.transaction():
            conn.execute(o.one("log/lock.sql"), key)
        try:
            with conn.transaction():
                clock, oldest, upto = conn.execute(o.one("log/horizon.sql")).fetchone()
            while self._batch(conn, upto):
                pass
        except _Lost as lost:
            with conn.transaction():  # every table stops with the reason, then it is raised
                for stmt in o.render("log/state_lost.sql"):
                    conn.execute(stmt, {"reason": str(lost)})
            raise LocationError(str(lost), location=self.location) from None
        finally:
            with conn.transaction():
                conn.execute(o.one("log/unlock.sql"), key)
        return clock, oldest

    def _batch(self, conn: Any, upto: str) -> bool:
        """One drain transaction; True when there may be more up to ``upto``."""
        o = self._o
        slot = self._slot_name(conn)
        with conn.transaction():
            conn.execute(o.one("log/settings.sql"))
            state = conn.execute(o.one("log/state_read.sql")).fetchone()
            if state is None:
                raise UsageError("log capture is not installed (run syncpoint install)")
            if state[5]:
                raise LocationError(state[5], location=self.location)
            decoded = pgoutput.lsn_int(str(state[1]))
            info = self._slot(conn)
            why = (
                "was dropped" if info is None else ("was invalidated" if info[5] == "lost" else "")
            )
            if why:
                raise _Lost(_lost_text(slot, why))
            params = {"slot": slot, "upto": upto, "n": BATCH, "pub": dialect.quote(o.name("pub"))}
            try:
                with conn.transaction():
                    data = [r[0] for r in conn.execute(o.one("log/peek.sql"), params)]
            except psycopg.errors.ObjectNotInPrerequisiteState as exc:
                raise _Lost(_lost_text(slot, f"cannot be read ({exc})")) from exc
            relations: dict[int, Relation] = {}
            txns = pgoutput.parse(data, relations)
            fresh = [t for t in txns if t.end_lsn > decoded]
            if fresh:
                self._write(conn, fresh, relations)
                decoded = fresh[-1].end_lsn
                conn.execute(o.one("log/state_decoded.sql"), {"lsn": pgoutput.lsn_text(decoded)})
            failpoints.hit("log_before_commit")
        if txns:
            with conn.transaction():
                conn.execute(
                    o.one("log/advance.sql"), {"slot": slot, "lsn": pgoutput.lsn_text(decoded)}
                )
                conn.execute(o.one("log/state_advanced.sql"))
        return len(data) >= BATCH

    # -- writing decoded transactions ----------------------------------------------------
    def _watched(self, conn: Any) -> list[_Watched]:
        out = []
        for i, relid, schema, table, version, shape, actions, status, key in conn.execute(
            self._o.one("log/log_tables.sql")
        ):
            out.append(
                _Watched(
                    i,
                    relid,
                    schema,
                    table,
                    int(version),
                    shape,
                    actions or "IUD",
                    status,
                    list(key) if key else _pk(shape),
                )
            )
        return out

    def _write(
        self, conn: Any, txns: list[pgoutput.Transaction], rels: dict[int, Relation]
    ) -> None:
        o = self._o
        sid, loc, *_ = conn.execute(o.one("queries/service_read.sql")).fetchone()
        watched = self._watched(conn)
        by_id = {w.id: w for w in watched}
        ddl_by_relation = not _event_triggers(conn, o)
        compared: set[tuple[int, int]] = set()
        recs: list[_Rec] = []
        for txn in txns:
            origin = loc
            for ch in txn.changes:
                if ch.kind == "M":
                    if ch.prefix == o.message_prefix + "origin":
                        origin = ch.content.decode() or loc
                    elif ch.prefix == o.message_prefix + "ddl":
                        d = json.loads(ch.content)
                        w = by_id.get(int(d["id"]))
                        if w is None:
                            continue
                        w.version = int(d["version"])
                        recs.append(
                            _Rec(
                                d["action"],
                                _copy(w, d["schema"], d["table"]),
                                origin,
                                d["content"],
                                d["oldcontent"],
                                txn.commit_time,
                            )
                        )
                        w.schema, w.table = d["new_schema"], d["new_table"]
                        w.relid = int(d["relid"]) if d["action"] != "DROP" else None
                        w.shape = d["content"] if d["action"] != "DROP" else w.shape
                        self._put(conn, w)
                    continue
                if ch.kind == "T":
                    for relid in ch.relids:
                        w = _find(watched, rels.get(relid), relid)
                        if w is not None and "D" in w.actions:
                            recs.append(
                                _Rec(
                                    "TRUNCATE",
                                    _copy(w, w.schema, w.table),
                                    origin,
                                    w.shape,
                                    None,
                                    txn.commit_time,
                                )
                            )
                    continue
                rel = ch.rel or rels[ch.relid]
                w = _find(watched, rel, ch.relid)
                # whatever the table's status now (dropped since, say): the log says what
                # happened while it was watched
                if w is None:
                    continue
                if ddl_by_relation and (w.id, id(rel)) not in compared:
                    compared.add((w.id, id(rel)))  # once per relation message, not per row
                    self._relation_ddl(conn, w, rel, origin, txn.commit_time, recs)
                if ch.kind == "I":
                    if "I" in w.actions:
                        recs.append(_Rec("INSERT", w, origin, (rel, ch.new), None, txn.commit_time))
                elif ch.kind == "D":
                    if "D" in w.actions:
                        old = _old_values(rel, ch.old or [], ch.old_kind)
                        recs.append(_Rec("DELETE", w, origin, None, (rel, old), txn.commit_time))
                elif "U" in w.actions:
                    new = self._unchanged(conn, rel, list(ch.new or []), ch.old, ch.old_kind)
                    if ch.old is not None:
                        old = _old_values(rel, ch.old, ch.old_kind)
                    else:
                        old = _old_values(rel, new, "K")
                    if _key_of(rel, w.key, old) != _key_of(rel, w.key, new):
                        recs.append(_Rec("DELETE", w, origin, None, (rel, old), txn.commit_time))
                        recs.append(_Rec("INSERT", w, origin, (rel, new), None, txn.commit_time))
                    else:
                        recs.append(
                            _Rec("UPDATE", w, origin, (rel, new), (rel, old), txn.commit_time)
                        )
        self._insert(conn, sid, recs)

    def _put(self, conn: Any, w: _Watched) -> None:
        conn.execute(
            self._o.one("log/log_table_put.sql"),
            {
                "id": w.id,
                "relid": w.relid,
                "schema": w.schema,
                "table": w.table,
                "version": w.version,
                "shape": w.shape,
            },
        )

    def _relation_ddl(
        self, conn: Any, w: _Watched, rel: Relation, origin: str, at: datetime, recs: list[_Rec]
    ) -> None:
        """Without event triggers: a relation message whose columns differ from the shape
        last recorded is an ALTER, recorded before the row that brought it."""
        old = json.loads(w.shape) if w.shape else {"columns": []}
        seen = [(c[0], self._type(conn, c[1], c[2])[0]) for c in rel.columns]
        # generated columns are not in the log (PostgreSQL 15): not a change of shape
        generated = {
            str(n) for (n,) in conn.execute(self._o.one("log/generated.sql"), {"relid": rel.relid})
        }
        if seen == [(c["name"], c["type"]) for c in old["columns"] if c["name"] not in generated]:
            return
        (shape,) = conn.execute(
            self._o.one("log/relation_shape.sql"),
            {
                "schema": w.schema,
                "table": w.table,
                "relid": rel.relid,
                "names": [c[0] for c in seen],
                "types": [c[1] for c in seen],
            },
        ).fetchone()
        old_shape = w.shape
        w.version += 1
        w.shape = shape
        recs.append(_Rec("ALTER", w, origin, shape, old_shape, at))
        self._put(conn, w)

    def _unchanged(
        self, conn: Any, rel: Relation, new: list[Any], old: list[Any] | None, old_kind: str
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
        keys = [i for i, c in enumerate(rel.columns) if c[3]]
        o = self._o
        (name,) = conn.execute(o.one("log/regclass.sql"), {"relid": rel.relid}).fetchone()
        cols = sql.SQL(", ").join(
            sql.SQL("{}::text").format(sql.Identifier(rel.columns[i][0])) for i in missing
        )
        cond = sql.SQL(" AND ").join(
            sql.SQL("{} = %s::{}").format(
                sql.Identifier(rel.columns[i][0]),
                sql.SQL(self._type(conn, rel.columns[i][1], rel.columns[i][2])[0]),
            )
            for i in keys
        )
        raw = {"columns": cols.as_string(conn), "rel": name, "condition": cond.as_string(conn)}
        query = o.one("log/unchanged.sql", raw=raw)
        row = conn.execute(query, [new[i] for i in keys]).fetchone()
        for n, i in enumerate(missing):
            # a row gone since: its DELETE comes later in the log and removes it anyway
            new[i] = None if row is None else row[n]
        return new

    def _type(self, conn: Any, oid: int, mod: int) -> tuple[str, str, str, str]:
        """(declared type, base type, base typtype, base category) of a column type."""
        found = self._types.get((oid, mod))
        if found is None:
            row = conn.execute(self._o.one("log/types.sql"), {"oid": oid, "mod": mod}).fetchone()
            found = self._types[(oid, mod)] = (str(row[0]), str(row[1]), str(row[2]), str(row[3]))
        return found

    def _encoder(self, conn: Any, rel: Relation, cols: tuple[int, ...], src: str) -> str:
        """SQL making the JSON content of a row whose values (text) are the JSON array
        ``src``: cast back to the columns' types, then the projection the trigger capture
        makes of them (see install/110_fn_make_capture.sql)."""
        casts, proj = [], []
        for n, i in enumerate(cols):
            name, oid, mod, _k = rel.columns[i]
            decl, base, typtype, cat = self._type(conn, oid, mod)
            q = dialect.quote(name)
            casts.append(f"({src}->>{n})::{decl} AS {q}")
            if base == "bytea":
                proj.append(f"translate(encode(s.{q}::bytea, 'base64'), E'\\n', '') AS {q}")
            elif base == "money":
                proj.append(f"(s.{q}::money)::numeric AS {q}")
            elif (
                base in ("real", "double precision", "json", "jsonb")
                or typtype == "c"
                or cat == "A"
            ):
                proj.append(f"s.{q}::text AS {q}")
            else:
                proj.append(f"s.{q} AS {q}")
        return self._o.sql.one(
            "log/encoder.sql",
            raw={"projection": ", ".join(proj), "casts": ", ".join(casts)},
            comments=False,
        ).strip()

    def _insert(self, conn: Any, sid: str, recs: list[_Rec]) -> None:
        if not recs:
            return
        o = self._o
        keys = [int(k) for (k,) in conn.execute(o.one("log/keys.sql"), {"n": len(recs)})]
        # records whose content is made from decoded values, grouped by relation message
        # and columns (one INSERT each); DDL records carry their content as text
        groups: dict[tuple[Any, ...], list[int]] = {}
        texts: list[int] = []
        for n, r in enumerate(recs):
            new, old = r.content, r.old
            if not isinstance(new, tuple) and not isinstance(old, tuple):
                texts.append(n)
                continue
            rel = new[0] if isinstance(new, tuple) else old[0]
            groups.setdefault((id(rel), _columns(new), _columns(old)), []).append(n)
        for (_rid, ncols, ocols), members in groups.items():
            first = recs[members[0]]
            rel = (first.content if isinstance(first.content, tuple) else first.old)[0]
            raw = {
                "content": "NULL::text"
                if ncols is None
                else self._encoder(conn, rel, ncols, "r.n"),
                "oldcontent": "NULL::text"
                if ocols is None
                else self._encoder(conn, rel, ocols, "r.od"),
            }
            sel = [recs[m] for m in members]
            conn.execute(
                o.one("log/insert_rows.sql", raw=raw),
                {
                    "sid": sid,
                    "k": [keys[m] for m in members],
                    "o": [r.dbid for r in sel],
                    "t": [r.table for r in sel],
                    "s": [r.schema for r in sel],
                    "a": [r.action for r in sel],
                    "n": [None if ncols is None else _values(r.content, ncols) for r in sel],
                    "od": [None if ocols is None else _values(r.old, ocols) for r in sel],
                    "v": [r.version for r in sel],
                    "at": [r.at for r in sel],
                },
            )
        if texts:
            sel = [recs[n] for n in texts]
            conn.execute(
                o.one("log/insert.sql"),
                {
                    "sid": sid,
                    "k": [keys[n] for n in texts],
                    "o": [r.dbid for r in sel],
                    "t": [r.table for r in sel],
                    "s": [r.schema for r in sel],
                    "a": [r.action for r in sel],
                    "c": [r.content for r in sel],
                    "oc": [r.old for r in sel],
                    "v": [r.version for r in sel],
                    "at": [r.at for r in sel],
                },
            )
        ddl = [n for n, r in enumerate(recs) if r.action not in _ACTION.values()]
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


def _columns(part: Any) -> tuple[int, ...] | None:
    """The columns a record's decoded values carry (None: no values to encode)."""
    if not isinstance(part, tuple):
        return None
    return tuple(i for i, v in enumerate(part[1]) if v is not _ABSENT)


def _values(part: Any, cols: tuple[int, ...]) -> str:
    values = part[1]
    return json.dumps([values[i] for i in cols])


class _Lost(Exception):
    """The slot is gone or cannot be read any more (the message says why and what to do)."""


# a column a row record leaves out (the old row of a table whose replica identity is a key)
_ABSENT: Any = type("Absent", (), {})()


def _old_values(rel: Relation, old: list[Any], kind: str) -> list[Any]:
    """The old row as the record carries it: whole (REPLICA IDENTITY FULL) or its key."""
    if kind == "O":
        return old
    return [v if c[3] else _ABSENT for c, v in zip(rel.columns, old, strict=True)]


def _key_of(rel: Relation, key: list[str], values: list[Any]) -> list[Any]:
    names = [c[0] for c in rel.columns]
    return [values[names.index(k)] if k in names else None for k in key]


def _pk(shape: str | None) -> list[str]:
    cols = json.loads(shape)["columns"] if shape else []
    return [c["name"] for c in sorted((c for c in cols if c.get("pk")), key=lambda c: c["pk"])]


def _find(watched: list[_Watched], rel: Relation | None, relid: int) -> _Watched | None:
    for w in watched:
        if w.relid == relid:
            return w
    if rel is not None:
        for w in watched:
            if w.relid is None and (w.schema, w.table) == (rel.schema, rel.name):
                return w
    return None


def _copy(w: _Watched, schema: str, table: str) -> _Watched:
    return _Watched(w.id, w.relid, schema, table, w.version, w.shape, w.actions, w.status, w.key)


def _has_state(conn: Any, o: LogNames) -> bool:
    return bool(
        conn.execute(o.one("log/installed.sql"), {"state": o.qualified("log_state")}).fetchone()[0]
    )


def _event_triggers(conn: Any, o: LogNames) -> bool:
    row = conn.execute(o.one("log/event_triggers.sql"), {"name": o.name("et_ddl")}).fetchone()
    return bool(row[0])


def _age(at: datetime) -> float:
    from datetime import UTC

    return max(0.0, (datetime.now(UTC) - at).total_seconds())


def _lost_text(slot: str, why: str) -> str:
    return (
        f"the replication slot {slot} {why}: the changes it held are lost, so capture "
        "stopped; run syncpoint install (a new slot and stream), then syncpoint snapshot "
        "of the tables"
    )
