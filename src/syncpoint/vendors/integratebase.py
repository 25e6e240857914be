"""The integrate side of a location, shared by the vendors (``vendors/<v>/integrate.py``).

It owns the control tables (``{p}stream_positions``, ``{p}sync_points``, ``{p}table_stops``,
``{p}staging``), the target catalog, target table creation, DDL at the target, and the
apply transaction of a round (compare-and-set, staged rows checked, upserts parents first,
deletes children first, stops, COMMIT: docs/internals.md, "The apply transaction"). A
vendor module adds what really differs: the value conversions of its upsert and delete
statements and how a transaction begins.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from syncpoint import failpoints, vendors
from syncpoint.config import TableName
from syncpoint.core import cascade
from syncpoint.core.ddl import DdlChange
from syncpoint.core.model import TableShape
from syncpoint.core.positions import Position, SyncPoint
from syncpoint.core.rounds import RoundPlan, Stop, TableWindow
from syncpoint.core.types import NType
from syncpoint.errors import (
    DuplicateKey,
    PositionConflict,
    SyncpointError,
    TransientError,
    WorkFailed,
)
from syncpoint.vendors.sqlfiles import SqlFiles

log = logging.getLogger("syncpoint.integrate")


class Params(dict[str, Any]):
    """Named bound parameters, so fragments can be built in any order."""

    def bind(self, value: Any) -> str:
        name = f"p{len(self)}"
        self[name] = value
        return f"%({name})s"


@dataclass(frozen=True)
class ApplyColumn:
    """A target column and where its value is in a change record: ``keys`` are the JSON
    names to read, the first present one wins (a renamed column also reads its old name)."""

    name: str
    type: str
    keys: tuple[str, ...]
    source: NType | None
    pk: bool = False


@dataclass(frozen=True)
class ApplyTable:
    target: TableShape
    columns: tuple[ApplyColumn, ...]
    key: tuple[str, ...]

    @property
    def key_columns(self) -> tuple[ApplyColumn, ...]:
        by = {c.name: c for c in self.columns}
        return tuple(by[k] for k in self.key)

    @property
    def keyed(self) -> bool:
        """Whether the target has a unique index on exactly the key (an upsert can use it);
        if not, a round deletes the rows having a net upsert's key and inserts the row."""
        return self.target.unique_on(self.key)


def signature(table: ApplyTable) -> tuple[tuple[str, str, bool], ...]:
    """The target columns a typed staging was made for (name, type, key)."""
    return tuple((c.name, c.type, c.pk) for c in table.columns)


# The direct path's typed staging (vendors/<v>/round_direct.py): a window's table of its
# own for one round, holding its operations in the target's column types, named after the
# application's sync group (``typed_owner``) so that the apply drops a crashed round's.
TYPED_PREFIX = "rstage_"
TYPED_BOOKKEEPING = ("sp_repl_key", "sp_sub", "sp_action", "sp_key")


@dataclass(frozen=True)
class Typed:
    """A window's typed staging in one round: its name, the apply table's columns it was
    made for (name, type, key), and each column's staged type."""

    name: str
    columns: tuple[tuple[str, str, bool], ...]
    staged: tuple[str, ...]


def typed_owner(prefix: str, application: str, group: str) -> str:
    """The start of the names of the typed stagings of an application's sync group."""
    digest = hashlib.sha256(f"{application}\n{group}".encode()).hexdigest()[:10]
    return f"{prefix}{TYPED_PREFIX}{digest}_"


class Integrate:
    """Control tables, target catalog and the apply transaction at one location."""

    vendor: ClassVar[str]

    def __init__(self, location: str, url: str, prefix: str):
        self.location = location
        self.url = url
        self.prefix = prefix
        # rows a cascade moved onto a key the round deletes afterwards (put back then)
        self._put_back: list[tuple[ApplyTable, dict[str, Any]]] = []
        # the middle rows of chains that held an event's values as the last round left them
        self._before: set[tuple[Any, ...]] = set()
        # a round's cascades as read before its upserts: edges, positions, events, windows
        self._pending: (
            tuple[list[cascade.Edge], dict[int, str], list[cascade.Event], dict[int, TableWindow]]
            | None
        ) = None
        self.dialect = vendors.get(self.vendor).dialect
        self.types = vendors.get(self.vendor).types
        self.idents = {
            "positions": f"{prefix}stream_positions",
            "sync_points": f"{prefix}sync_points",
            "stops": f"{prefix}table_stops",
            "staging": f"{prefix}staging",
            "staging_idx": f"{prefix}staging_round",
            "tmp": f"{prefix}apply_keys",
            "spare": f"{prefix}apply_spare",
            "spare_idx": f"{prefix}apply_spare_keys",
            "snapshots": f"{prefix}snapshots",
            "created": f"{prefix}created_tables",
        }
        # comment lines go: statements are also fragments of others, and Spark's JDBC
        # reader wraps them in its own SQL
        self.sql = SqlFiles(
            self.vendor, "integrate", self.idents, comments=False, location=location
        )
        # the windows of the round being applied that were staged typed (the vendor's
        # direct path: RoundPlan.typed)
        self._typed: dict[int, Any] = {}

    # -- SQL files -------------------------------------------------------------------
    def q(self, name: str) -> str:
        return str(self.dialect.quote(name))

    def qualified(self, t: TableName) -> str:
        return f"{self.q(t.schema_)}.{self.q(t.name)}" if t.schema_ else self.q(t.name)

    def _tokens(self, raw: dict[str, str]) -> dict[str, Any]:
        # ``column`` and ``old`` name a column (quoted); every other token is a fragment
        idents = {k: raw.pop(k) for k in [k for k in raw if k in ("column", "old")]}
        return {"idents": idents, "raw": raw}

    def stage_upserts(
        self, conn: Any, application: str, sync_name: str, round_id: str, contents: list[str]
    ) -> None:
        """Rows staged as upserts (action U) of one attempt, in one batch, inside the
        caller's transaction (a small snapshot chunk copied by this process)."""
        stmt = self.one("repair_stage")
        rows = [(application, sync_name, round_id, "U", c) for c in contents]
        with self.dialect.translated(self.location):
            conn.cursor().executemany(stmt, rows)

    def statements(self, name: str, **raw: str) -> list[str]:
        return self.sql.statements(name, **self._tokens(raw))

    def one(self, name: str, **raw: str) -> str:
        return self.sql.one(name, **self._tokens(raw))

    def run(
        self,
        conn: Any,
        name: str,
        params: Sequence[Any] | dict[str, Any] = (),
        table: str | None = None,
        **raw: str,
    ) -> Any:
        return self.sql.run(conn, name, params, table=table, **self._tokens(raw))

    # -- connections and transactions --------------------------------------------------
    def connect(self) -> Any:
        return self.dialect.connect(self.url, location=self.location)

    def begin(self, conn: Any) -> None:
        """Open the apply transaction (drivers open one implicitly; SQLite needs BEGIN)."""

    def commit(self, conn: Any) -> None:
        with self.dialect.translated(self.location):
            conn.commit()

    def rollback(self, conn: Any) -> None:
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001 - a dead connection rolled back already
            pass

    # -- control tables ----------------------------------------------------------------
    def ensure(self, conn: Any) -> None:
        """Create the control tables when missing (idempotent), in their own transaction."""
        self.begin(conn)
        self.run(conn, "create")
        self.commit(conn)
        staging = self.describe(conn, TableName(name=self.idents["staging"]))
        if staging is not None:
            self.upgrade_staging(conn, staging)

    def upgrade_staging(self, conn: Any, staging: TableShape) -> None:
        """A staging table made by an earlier version gets what rounds now write there."""
        if staging.column("origin") is None:
            # made before rows carried their origin (a ring forwards several in one window)
            self.begin(conn)
            self.run(conn, "staging_origin")
            self.commit(conn)

    def has_control_tables(self, conn: Any) -> bool:
        """Whether positions, sync points and stops exist here (``status`` reads, never
        creates them)."""
        have = {str(r[0]) for r in self.run(conn, "prefix_tables").fetchall()}
        self.end_read(conn)
        return all(self.idents[k] in have for k in ("positions", "sync_points", "stops"))

    def positions(self, conn: Any) -> list[tuple[str, Position]]:
        """Every stored position: (application, position)."""
        cur = self.run(conn, "positions")
        rows = cur.fetchall()
        self.end_read(conn)
        return [(a, Position(loc, t, int(c), s)) for a, loc, t, c, s in rows]

    def sync_points(self, conn: Any, application: str) -> dict[tuple[str, str], SyncPoint]:
        cur = self.run(conn, "sync_point_get", (application,))
        rows = cur.fetchall()
        self.end_read(conn)
        return {
            (loc, name): SyncPoint(
                loc, name, int(c), s, self.dialect_time(sa), self.dialect_time(ga)
            )
            for loc, name, c, s, sa, ga in rows
        }

    def put_sync_point(self, conn: Any, application: str, sp: SyncPoint) -> None:
        self.begin(conn)
        self.run(
            conn,
            "sync_point_put",
            (
                application,
                sp.location,
                sp.sync_name,
                sp.context,
                sp.stream_id,
                self.db_time(sp.sampled_at),
                self.db_time(sp.guaranteed_at),
            ),
        )
        self.commit(conn)

    def stops(self, conn: Any, application: str) -> list[dict[str, Any]]:
        cur = self.run(conn, "stops_get", (application,))
        keys = ("location", "table", "sync_name", "context", "repl_key", "reason", "stopped_at")
        rows = [dict(zip(keys, r, strict=True)) for r in cur.fetchall()]
        self.end_read(conn)
        for r in rows:
            r["stopped_at"] = self.dialect_time(r["stopped_at"])
        return rows

    def put_stops(self, conn: Any, application: str, group: str, stops: Iterable[Stop]) -> None:
        for s in stops:
            self.run(
                conn,
                "stop_put",
                (application, s.location, s.table, group, s.context, s.repl_key, s.reason),
            )

    def forget_stops(self, conn: Any, application: str, keep: set[tuple[str, str]]) -> int:
        """Delete the stops of (location, table) pairs not in ``keep`` (tables or locations
        taken out of the channel: nothing will ever clear them); returns how many."""
        gone = [s for s in self.stops(conn, application) if (s["location"], s["table"]) not in keep]
        if gone:
            self.begin(conn)
            for s in gone:
                self.run(conn, "stop_clear", (application, s["location"], s["table"]))
            self.commit(conn)
        return len(gone)

    def record_stops(self, conn: Any, application: str, group: str, stops: list[Stop]) -> None:
        """Store stops in their own transaction (after a failed apply)."""
        self.begin(conn)
        self.put_stops(conn, application, group, stops)
        self.commit(conn)

    def end_read(self, conn: Any) -> None:
        """End the read-only transaction a driver opened, so no snapshot is held."""
        self.rollback(conn)

    def dialect_time(self, v: Any) -> Any:
        conv: Callable[[Any], Any] | None = getattr(self.dialect, "py_time", None)
        return conv(v) if conv else v

    def db_time(self, v: Any) -> Any:
        conv: Callable[[Any], Any] | None = getattr(self.dialect, "db_time", None)
        return conv(v) if conv and v is not None else v

    def check(self, conn: Any) -> list[str]:
        """What keeps this server from being an integrate location (``validate``)."""
        return []

    def check_targets(self, conn: Any, targets: list[TableName]) -> list[str]:
        """What the user lacks on the target tables that exist already (``validate``);
        vendors whose grants are per table say it."""
        return []

    # -- target catalog (vendor) ------------------------------------------------------
    def resolve(self, target: TableName, explicit: bool, source_vendor: str) -> TableName:
        """The target table's name at this vendor (schemas where it has them)."""
        raise NotImplementedError

    def describe(self, conn: Any, target: TableName) -> TableShape | None:
        raise NotImplementedError

    def describe_many(self, conn: Any, targets: list[TableName]) -> dict[str, TableShape | None]:
        """``describe`` of each target (keyed by ``str(target)``); vendors that can read
        them all in a couple of queries do."""
        return {str(t): self.describe(conn, t) for t in targets}

    def with_uniques(self, conn: Any, table: TableShape | None, *params: Any) -> Any:
        """``table`` with its unique indexes (``unique_indexes.sql`` with ``params``); the
        caller ends the read as its vendor needs."""
        if table is None:
            return None
        cur = self.run(conn, "unique_indexes", params, table=str(table.ref))
        return self.uniques_of(table, cur.fetchall())

    @staticmethod
    def uniques_of(table: TableShape, rows: Iterable[Sequence[Any]]) -> TableShape:
        """``table`` with the unique indexes of ``rows`` (index name, column name; a NULL
        column: an expression)."""
        found: dict[str, list[str]] = {}
        skip: set[str] = set()
        for name, col in rows:
            if col is None:
                skip.add(str(name))  # an expression: no upsert can use it
            found.setdefault(str(name), []).append(str(col))
        uniques = tuple((n, tuple(c)) for n, c in found.items() if n not in skip)
        key = table.primary_key
        if key and not any(set(c) == set(key) for _, c in uniques):
            uniques = (("PRIMARY KEY", key), *uniques)  # SQLite's rowid key
        return TableShape(table.ref, table.columns, uniques)

    def apply_notes(
        self, ref: TableName, table: TableShape | None, key: Sequence[str]
    ) -> list[str]:
        """What ``validate`` says about applying to the target ``ref`` by ``key``."""
        if table is None:
            fks = (
                "foreign keys among the channel's tables"
                if getattr(self.dialect, "ADDS_FOREIGN_KEYS", False)
                else "no foreign keys"
            )
            return [
                f"target {ref} does not exist: created like its source (key, NOT NULL, "
                f"constant and current-time defaults, indexes on plain columns with their "
                f"method where this vendor has it, {fks}); not "
                "carried: other defaults, expression or partial indexes, CHECKs, triggers"
            ]
        return _notes(table, key, self.dialect)

    def coarse_key(
        self, w: TableWindow, t: ApplyTable, held: Any, staged: Any, count: int = 0
    ) -> WorkFailed:
        """The stop of a table whose target key holds ``held`` and ``staged`` (texts the
        source holds apart) as one key: applying would merge two source rows into one.
        With a ``count``, ``held`` is the target's key of that many source keys (whose
        texts are not at hand)."""

        def text(v: Any) -> str:
            return (
                bytes(v).decode("utf-8", "replace") if isinstance(v, bytes | bytearray) else str(v)
            )

        what = (
            f"{count} keys the round upserts as the one key {text(held)!r}" if count
            else f"{text(held)!r} and {text(staged)!r} as one key"
        )  # fmt: skip
        return WorkFailed(
            f"the key of the target {t.target.ref} holds {what}, which the source's "
            f"{w.table} holds apart (the target's key "
            "compares coarser: case, accents or trailing spaces, or a type that reads two "
            "texts as one value, such as '01' and '1' as the integer 1): applying would "
            "merge two source rows into one, so nothing of the table's round was applied. "
            "Make the target key's collation or type as strict as the source's (MariaDB: a "
            "collation such as utf8mb4_nopad_bin; PostgreSQL: text, not citext or a "
            "nondeterministic collation; SQLite: no COLLATE NOCASE; the source's type "
            "where it is not the target's), then load it again with syncpoint "
            f"snapshot --tables {w.table} --restart",
            location=self.location,
            table=str(t.target.ref),
        )

    def key_is_exact(self, t: ApplyTable) -> bool:
        """Whether two keys of ``t`` are equal at the target exactly when their texts are
        (so a net delete spares nothing and the coarse-key check finds nothing): every key
        column's equality is its text's (``Column.exact``, read with the target's shape,
        no query of its own: an integer, text in a byte-for-byte collation, ...), and a
        column other than text is fed by a source column of its kind, whose JSON text is
        the one canonical text of each value (a text key '01' into an integer column is
        not: '1' and '01' would be one row; nor a numeric's '1.0' and '1'). Not known: not
        exact."""
        for c in t.key_columns:
            have = t.target.column(c.name)
            if have is None or not have.exact:
                return False
            kind = self.types.parse(c.type).kind
            if kind != "text" and (c.source is None or c.source.kind != kind):
                return False
        return True

    def mixed_key(self, t: ApplyTable) -> bool:
        """Whether a key column of ``t`` is fed by a source column of another kind (a text
        or a number into an integer), whose two texts may be one key here ('01' and '1'):
        the vendors' checks of two source keys that one round upserts as one."""
        parse = self.types.parse
        return any(c.source is None or c.source.kind != parse(c.type).kind for c in t.key_columns)

    def set_columns(self, t: ApplyTable) -> list[ApplyColumn]:
        """The columns an upsert sets on the row it finds: every column, the key's too (a
        key equal at the target whose text differs takes the source's text), but for an
        exact key (``key_is_exact``: the row found holds the same text) the others only."""
        if self.key_is_exact(t):
            return [c for c in t.columns if c.name not in t.key]
        return list(t.columns)

    def loose_keys(self, conn: Any, table: TableShape, key: Sequence[str]) -> dict[str, str]:
        """The columns of ``key`` whose values the target holds equal while their text
        differs (a case-insensitive collation: 'abc' = 'ABC'), each with why."""
        return {}

    def key_notes(
        self, ref: TableName, table: TableShape, key: Sequence[str], source: dict[str, NType]
    ) -> list[str]:
        """Warnings of ``validate`` about an existing target whose key compares coarser
        than the source's (``source``: the source's column types by name): keys the
        source holds apart would become one row here. Here: a key column fed by a text
        column at the source that is not text here (an integer, a date, a uuid), whose
        value many texts read as ('1' and '01'). A round that brings two such keys stops
        the table; a key that a later round brings is taken as an update of the row the
        other made, which no round can tell from one."""
        out = []
        for k in key:
            have, src = table.column(k), source.get(k)
            if have is None or src is None or src.kind != "text":
                continue
            if self.types.parse(have.type).kind == "text":
                continue
            out.append(
                f"warning: target {ref}: key column {k} is {have.type} here and text at the "
                "source: texts the source holds apart that read as one value here (such as "
                "'1' and '01') would become one row, and when they arrive in different "
                "rounds nothing can tell. Give the column a text type, or keep the "
                "source's keys in one form"
            )
        return out

    def ensure_types(self, conn: Any, types: list[Any], add_labels: bool) -> list[str]:
        """Types of one's own of a source of this vendor (``Capture.own_types``) created
        here where missing, in their own transaction; what this target still lacks (an
        enum's labels added at the source, unless ``add_labels``). None on vendors that
        have no such types."""
        return []

    def foreign_keys(
        self, conn: Any, targets: list[TableName]
    ) -> list[tuple[TableName, TableName]]:
        raise NotImplementedError

    def create_table(
        self,
        conn: Any,
        target: TableName,
        columns: list[tuple[str, str, bool]],
        key: Sequence[str],
        defaults: dict[str, str] | None = None,
        pending_from: str | None = None,
    ) -> None:
        """Create a target table: (name, type, not null) columns, the key, and column
        defaults (SQL text for this vendor). ``pending_from``: the capture location of a
        snapshot that adds the table's indexes and foreign keys after its load (recorded
        until ``extras_added``)."""
        dflt = defaults or {}
        defs = ", ".join(
            f"{self.q(n)} {t}"
            + (f" DEFAULT {dflt[n]}" if n in dflt else "")
            + (" NOT NULL" if nn else "")
            for n, t, nn in columns
        )
        keys = ", ".join(self.q(k) for k in key)
        self.begin(conn)
        self.run(conn, "create_table", target=self.qualified(target), columns=defs, key=keys)
        if pending_from is not None:
            # in the CREATE's transaction where DDL has one (MariaDB commits the CREATE)
            self.run(conn, "created_put", (str(target), pending_from))
        self.commit(conn)

    def extras_pending(self, conn: Any, target: TableName) -> bool:
        """Whether ``target`` was created for a snapshot whose indexes and foreign keys
        were not added yet (the snapshot failed or was killed before its hand-over)."""
        found = self.run(conn, "created_get", (str(target),)).fetchone() is not None
        self.end_read(conn)
        return found

    def extras_added(self, conn: Any, target: TableName) -> None:
        self.begin(conn)
        self.run(conn, "created_clear", (str(target),))
        self.commit(conn)

    def apply_ddl(self, conn: Any, table: TableShape, change: DdlChange, src_vendor: str) -> None:
        """Apply one schema change to the target before a round's rows (own transaction;
        idempotent: a replay after a crash finds it done)."""
        t = self.qualified(table.ref)
        have = {c.name for c in table.columns}
        parse, render = vendors.get(src_vendor).types.parse, self.types.render
        self.begin(conn)
        for c in change.added:
            if c.name not in have:
                typ = render(parse(c.type))
                self.run(conn, "add_column", target=t, column=c.name, type=typ)
        for old, new in change.renamed:
            if old.name in have and new.name not in have:
                self.run(conn, "rename_column", target=t, column=new.name, old=old.name)
        for c in change.dropped:
            if c.name in have and c.name not in table.primary_key:
                self.run(conn, "drop_column", target=t, column=c.name)
        for _old, new in change.retyped:
            if new.name in have and self.dialect.ALTERS_TYPES:
                typ = render(parse(new.type), key=new.name in table.primary_key)
                self.run(conn, "alter_type", target=t, column=new.name, type=typ)
        # NOT NULL the target took from the source goes where the source dropped it (SQLite
        # cannot alter a column: such a column keeps it)
        strict = {c.name: c for c in table.columns if not c.nullable and not c.pk}
        for c in change.new_columns:
            if c.nullable and c.name in strict and self.dialect.ALTERS_TYPES:
                typ = strict[c.name].type
                self.run(conn, "drop_not_null", target=t, column=c.name, type=typ)
        self.commit(conn)

    # -- the apply transaction ------------------------------------------------------------
    def apply(
        self,
        conn: Any,
        plan: RoundPlan,
        staged: dict[int, int],
        tables: dict[int, ApplyTable],
        order: list[str],
        set_origin: Callable[[Any, str | None], None] | None,
        resolve: dict[int, Any] | None = None,
    ) -> None:
        """The one transaction of a round (see the module docstring). ``order``: target
        table names (``str(TableName)``) parents first. ``resolve``: per window of a table
        under conflict resolution, the step that applies it instead (``upsert``/``delete``
        with the same arguments; ``syncpoint.ops.cdr``)."""
        resolve = resolve or {}
        self._typed = dict(plan.typed)
        self.begin(conn)
        relaxed = bool(plan.events) and self.relax_foreign_keys(conn, True)
        try:
            self._cas(conn, plan)
            if plan.moves:
                self.run(conn, "staging_cleanup", (plan.application, plan.group, plan.round_id))
                self.typed_cleanup(conn, plan.application, plan.group)
            self._check_staged(conn, plan, {**staged, **plan.events})
            # before the upserts: the target still holds the rows as the last round left
            # them, which the check of rows made again after a cascade reads
            self._cascade_prepare(conn, plan, tables)
            rank = {name: i for i, name in enumerate(order)}
            ws = sorted(plan.windows, key=lambda w: (rank.get(str(w.target), 0), w.tbl))
            parts = {w.tbl: self._by_origin(conn, plan, w) for w in ws if staged.get(w.tbl)}
            for w in ws:
                if w.tbl not in tables:
                    continue
                if set_origin:
                    set_origin(conn, w.location)
                if w.empties:
                    self.run(
                        conn,
                        "empty",
                        table=str(w.target),
                        target=self.qualified(tables[w.tbl].target.ref),
                    )
                step = resolve.get(w.tbl, self)
                for part, origin in parts.get(w.tbl, []):
                    if set_origin:
                        set_origin(conn, origin)
                    step.upsert(conn, plan.round_id, part, tables[w.tbl])
            # after the upserts (a child row upserted by a change made after the cascade is
            # kept by its position), before the deletes (a parent the target's foreign keys
            # protect is deleted after its children)
            self._cascade(conn, plan, tables, set_origin)
            for w in reversed(ws):
                if w.tbl in tables:
                    step = resolve.get(w.tbl, self)
                    for part, origin in parts.get(w.tbl, []):
                        if set_origin:
                            set_origin(conn, origin)
                        step.delete(conn, plan.round_id, part, tables[w.tbl])
            for t, row in self._put_back:
                p = Params()
                values = ", ".join(p.bind(v) for v in row.values())
                columns = ", ".join(self.q(c) for c in row)
                self.run(
                    conn,
                    "cascade_insert",
                    p,
                    table=str(t.target.ref),
                    target=self.qualified(t.target.ref),
                    columns=columns,
                    values=values,
                )
            if set_origin:
                set_origin(conn, None)
            self.put_stops(conn, plan.application, plan.group, plan.stops)
            stopped = {(s.location, s.table) for s in plan.stops}
            clear: dict[str, list[str]] = {}
            for w in plan.windows:
                if (w.location, w.table) not in stopped:
                    clear.setdefault(w.location, []).append(w.table)
            for loc, names in clear.items():
                for chunk in _chunks(names):
                    self.run(
                        conn,
                        "stops_clear",
                        (plan.application, loc, *chunk),
                        tables=self._placeholders(chunk),
                    )
            self.run(conn, "staging_done", (plan.round_id,))
            self.typed_done(conn)
            failpoints.hit("before_commit")
            self.commit(conn)
        except BaseException:
            self.rollback(conn)
            raise
        finally:
            self._typed = {}
            if relaxed:
                try:
                    self.relax_foreign_keys(conn, False)
                except SyncpointError:
                    pass  # a lost connection takes its session's setting with it
        if not plan.typed:
            return  # a round staged as JSON text pays nothing here
        try:
            self.typed_committed(conn, plan.application, plan.group)
        except SyncpointError as exc:  # committed: the next typed round's drops them
            log.warning("round %s: typed stagings not dropped: %s", plan.round_id, exc)

    def _by_origin(
        self, conn: Any, plan: RoundPlan, w: TableWindow
    ) -> list[tuple[TableWindow, str]]:
        """The window's staged rows by the location where their changes were first made,
        each part with its origin (applied marked with it, so it never goes back there).
        A window of one origin is one part; the rows of several are set apart under
        window numbers of their own (negative: no window of the round has one)."""
        if len(w.origins) < 2:
            return [(w, w.origins[0] if w.origins else w.location)]
        out = []
        for i, origin in enumerate(w.origins):
            part = replace(w, tbl=-(w.tbl * 100 + i + 1))
            self.run(conn, "staging_split", (part.tbl, plan.round_id, w.tbl, w.location, origin))
            out.append((part, origin))
        return out

    @staticmethod
    def _whole(w: TableWindow) -> tuple[int, int]:
        """The first and last window number of every part of ``w``'s window (``_by_origin``
        numbers a window's parts one after the other): a net delete of one part spares a
        target row another part upserts too, whichever origin's changes brought it (a
        delete of 'abc' from one origin and an insert of 'ABC' from another, one row at a
        target whose key compares without case)."""
        if w.tbl >= 0 or len(w.origins) < 2:
            return w.tbl, w.tbl
        base = (-w.tbl - 1) // 100
        return -(base * 100 + len(w.origins)), -(base * 100 + 1)

    def _spare_params(self, round_id: str, w: TableWindow) -> Params:
        p = self._params(round_id, w)
        p["spare_lo"], p["spare_hi"] = self._whole(w)
        return p

    def _cas(self, conn: Any, plan: RoundPlan) -> None:
        """Compare-and-set of every position the round moves: one statement for the tables
        of a location that move from the same tick to the same one (all of a group's, in a
        steady channel), so a round over hundreds of tables writes its positions at once."""
        same: dict[tuple[str, int, int, str], list[TableWindow]] = {}
        for w in plan.windows:
            if w.moves and w.stored:
                same.setdefault((w.location, w.after, w.upto, w.stream_id), []).append(w)
        for (loc, after, upto, stream), ws in same.items():
            for chunk in _chunks(ws):
                cur = self.run(
                    conn,
                    "positions_move",
                    (upto, plan.application, loc, after, stream, *(w.table for w in chunk)),
                    tables=self._placeholders(chunk),
                )
                if cur.rowcount != len(chunk):
                    raise self._conflict(plan, self._moved_elsewhere(conn, plan, chunk))
        for w in plan.windows:
            if not w.moves or w.stored:
                continue
            try:
                self.run(
                    conn,
                    "position_insert",
                    (plan.application, w.location, w.table, w.upto, w.stream_id),
                )
            except DuplicateKey:
                raise self._conflict(plan, w) from None

    def _placeholders(self, items: Sequence[Any]) -> str:
        """One placeholder per item, for an ``IN (...)`` list of bound values."""
        return ", ".join([self.dialect.PARAM] * len(items))

    def _moved_elsewhere(
        self, conn: Any, plan: RoundPlan, ws: Sequence[TableWindow]
    ) -> TableWindow:
        """The first window whose position was not where the round found it."""
        now = {
            (p.location, p.table): (p.context, p.stream_id)
            for a, p in self._positions_in(conn)
            if a == plan.application
        }
        for w in ws:
            if now.get((w.location, w.table)) != (w.upto, w.stream_id):
                return w
        return ws[0]

    def _positions_in(self, conn: Any) -> list[tuple[str, Position]]:
        """The stored positions read in the caller's transaction (as it has them now)."""
        rows = self.run(conn, "positions").fetchall()
        return [(a, Position(loc, t, int(c), s)) for a, loc, t, c, s in rows]

    def _conflict(self, plan: RoundPlan, w: TableWindow) -> PositionConflict:
        return PositionConflict(
            f"another consumer with application name {plan.application} moved the position "
            f"of {w.table} from {w.location} since this round started at {w.after}; this "
            "round applied nothing. Run one consumer per application name at a time",
            location=self.location,
            table=w.table,
        )

    def _check_staged(self, conn: Any, plan: RoundPlan, staged: dict[int, int]) -> None:
        cur = self.run(conn, "staging_count", (plan.round_id,))
        found = {int(t): int(n) for t, n in cur.fetchall()}
        found.update({t: n for t, n in self.typed_counts(conn).items() if n})
        want = {t: n for t, n in staged.items() if n}
        if found != want:
            raise PositionConflict(
                f"the staged rows of round {plan.round_id} are not those written "
                f"({found} instead of {want}): another consumer of application "
                f"{plan.application} cleaned them up, or a staging write was partial or "
                "repeated; this round applied nothing",
                location=self.location,
            )

    def stage_rows(
        self,
        conn: Any,
        application: str,
        group: str,
        round_id: str,
        rows: Sequence[tuple[int, str, str, int, str | None]],
    ) -> str:
        """Write net rows (window, action, content, repl_key, origin) of a round netted by
        the driver to the staging table, committed, as Spark's staging write does; return
        how ("batched")."""
        (stmt,) = self.statements("staging_insert")
        self.begin(conn)
        with self.dialect.translated(self.location):
            conn.cursor().executemany(stmt, [(application, group, round_id, *r) for r in rows])
        self.commit(conn)
        return "batched"

    # -- cascades the capture could not see (core/cascade.py) ------------------------------
    def _cascade(
        self,
        conn: Any,
        plan: RoundPlan,
        tables: dict[int, ApplyTable],
        set_origin: Callable[[Any, str | None], None] | None,
    ) -> None:
        """Make at the target, in position order, the cascades of the round's staged events
        (docs/internals.md, "Foreign keys with cascades"), read by ``_cascade_prepare``."""
        if self._pending is None:
            return
        edges, pos, found, by_window = self._pending
        for e in found:
            if set_origin:
                set_origin(conn, by_window[e.window].location)
            self._follow(conn, [e], edges, tables, pos, by_window, 1)

    def _cascade_prepare(self, conn: Any, plan: RoundPlan, tables: dict[int, ApplyTable]) -> None:
        """The positions of the child windows' net rows and the round's events, read back;
        then, on the target's rows as the last round left them, the rows made again after a
        cascade that the round cannot follow (``_made_again``)."""
        self._put_back = []
        self._pending = None
        if not plan.events:
            return
        edges = [e for e in plan.edges if e.parent in tables and e.child in tables]
        by_window = {w.tbl: w for w in plan.windows}
        pos: dict[int, str] = {}
        for child in sorted({e.child for e in edges}):
            if len(by_window[child].origins) > 1:
                # its staged rows are split by origin: their positions are not all in one
                # window, and a cascade must not be made over a row changed after it
                raise WorkFailed(
                    "a foreign key with a cascade into a table whose changes come from "
                    "several sites (a ring) cannot be made at the target: replicate it "
                    "without the ring or make the rule RESTRICT or NO ACTION",
                    location=self.location,
                    table=by_window[child].table,
                )
            pos[child] = self.q(f"{self.prefix}cascade_{child}")
            self.cascade_positions(conn, plan.round_id, by_window[child], tables[child], pos[child])
        found: list[cascade.Event] = []
        for tbl in sorted(plan.events):
            parent = tbl - cascade.EVENTS
            cols = sorted({c for e in edges if e.parent == parent for c in e.fk.parent_columns})
            if not cols:
                continue
            # a middle row's key and foreign keys: where it pointed at a parent's event
            ups = {c for e in edges if e.child == parent for c in e.fk.columns}
            if ups:
                cols = sorted({*cols, *ups, *tables[parent].key})
            chosen = [self._column(tables[parent], c) for c in cols]
            rows = self.cascade_events(conn, plan.round_id, tbl, chosen)
            found += cascade.events(parent, rows, cols)
        found.sort(key=lambda e: e.repl_key)
        self._pending = (edges, pos, found, by_window)
        self._before = set()
        for window in sorted({e.window for e in found}):
            self._made_again(
                conn, [e for e in found if e.window == window], edges, tables, pos, by_window, 0
            )

    def _column(self, t: ApplyTable, name: str) -> ApplyColumn:
        c = next((c for c in t.columns if c.name == name), None)
        if c is None:
            raise WorkFailed(
                f"column {name} of {t.target.ref}, which a foreign key with a cascade refers "
                "to, is missing at the target: the cascade cannot be made there",
                table=str(t.target.ref),
            )
        return c

    def _follow(
        self,
        conn: Any,
        events: list[cascade.Event],
        edges: list[cascade.Edge],
        tables: dict[int, ApplyTable],
        pos: dict[int, str],
        by_window: dict[int, TableWindow],
        level: int = 2,
    ) -> None:
        """The cascades of ``events`` (one parent change, or the rows it changed a level up:
        one window, one position) on each child of their table, and on theirs in turn: only
        the child rows whose own last change in the round came before it (or none did) are
        the source's rows the cascade changed. Deletes go by sets of rows, children first
        (the target's foreign keys may protect a row)."""
        if not events:
            return
        window, rk = events[0].window, events[0].repl_key
        # the rows as this round's upserts left them (the check before the upserts saw
        # them as the last round left them)
        self._made_again(conn, events, edges, tables, pos, by_window, level)
        for edge in (x for x in edges if x.parent == window):
            asks = [a for a in (cascade.rule_for(e, edge.fk) for e in events) if a[0]]
            if not asks:
                continue
            child = tables[edge.child]
            below = [c for x in edges if x.parent == edge.child for c in x.fk.parent_columns]
            need = list(dict.fromkeys([*child.key, *edge.fk.columns, *below]))
            deleted = [old for rule, old, new in asks if new is None and rule == cascade.CASCADE]
            if deleted:
                gone = self._cascade_rows(
                    conn, child, need, edge.fk.columns, deleted, pos[edge.child], rk
                )
                self._follow(
                    conn,
                    [cascade.Event(rk, edge.child, was) for was in gone],
                    edges,
                    tables,
                    pos,
                    by_window,
                )
                self._delete_rows(conn, child, gone)
            changed = []
            for rule, old, new in asks:
                if new is None and rule == cascade.CASCADE:
                    continue
                fill = (None,) * len(edge.fk.columns) if rule == cascade.SET_NULL else new
                moves = bool(set(edge.fk.columns) & set(child.key))
                found = self._cascade_rows(
                    conn, child, need, edge.fk.columns, [old], pos[edge.child], rk, moves
                )
                for was in found:
                    now = {**was, **dict(zip(edge.fk.columns, fill or (), strict=True))}
                    self._cascade_update(conn, child, was, now, rk, pos[edge.child])
                    changed.append(cascade.Event(rk, edge.child, was, now))
            self._follow(conn, changed, edges, tables, pos, by_window)

    def _made_again(
        self,
        conn: Any,
        events: list[cascade.Event],
        edges: list[cascade.Edge],
        tables: dict[int, ApplyTable],
        pos: dict[int, str],
        by_window: dict[int, TableWindow],
        level: int,
    ) -> None:
        """Stop the round where a cascade of ``events`` (one window's) reaches a row with
        cascading children of its own whose net row is an upsert after the event, and rows
        below it that the cascade would take (their net row none or before the event): the
        row was made again after the cascade, or changed after it, and its net row does not
        say whether the source's cascade took its earlier self, and those rows with it.
        Where it pointed at the event (``_pointed``) decides; a row that may have pointed
        there stops the round (``WorkFailed``, every table of the group stopped): loud
        rather than a target that keeps rows the source no longer has. ``level``: 0 before
        the upserts, 1 for the round's own events, more for the rows they changed."""
        if not events:
            return
        window = events[0].window
        for edge in (x for x in edges if x.parent == window):
            below = [x for x in edges if x.parent == edge.child]
            referenced = {c for x in below for c in x.fk.parent_columns}
            asks: dict[tuple[Any, ...], list[int]] = {}
            for e in events:
                rule, old, new = cascade.rule_for(e, edge.fk)
                # a delete takes the row's children with it; a change of the columns its
                # own children refer to changes them
                if rule and (
                    (new is None and rule == cascade.CASCADE) or set(edge.fk.columns) & referenced
                ):
                    asks.setdefault(old, []).append(e.repl_key)
            if not below or not asks:
                continue
            child = tables[edge.child]
            need = list(dict.fromkeys([*child.key, *edge.fk.columns, *referenced]))
            # the middle table's own inserts and updates, by the values they pointed at
            kept: dict[tuple[str, ...], list[cascade.Event]] = {}
            for e in self._pending[2] if self._pending else []:
                if e.window == edge.child and e.new is not None:
                    now = tuple(str(e.new.get(c)) for c in edge.fk.columns)
                    kept.setdefault(now, []).append(e)
            # one value at a time: the target's rows and the events read their values in
            # types that need not compare equal in Python
            for value, ats in asks.items():
                for row, seen, action in self._matching(
                    conn, child, need, edge.fk.columns, [value], pos[edge.child]
                ):
                    if level == 0:  # the rows as the last round left them
                        self._before.add(_said(edge.child, child.key, row, value))
                    if seen is not None and action == "U":
                        self._made_again_row(
                            conn, edge, below, child, row, value, ats, int(seen), tables, pos, level
                        )
                # and rows that pointed there only in between (made or moved there, and
                # changed again after the event): their own inserts and updates say so
                for e in kept.get(tuple(str(v) for v in value), []):
                    if e.new is None or e.repl_key >= max(ats):
                        continue
                    p = Params()
                    found = self.run(
                        conn, "cascade_position", p, pos=pos[edge.child],
                        match=self._key_match(child, e.new, p),
                    ).fetchone()  # fmt: skip
                    if found is not None and found[1] == "U":
                        self._made_again_row(
                            conn, edge, below, child, e.new, value, ats, int(found[0]), tables,
                            pos, level,
                        )  # fmt: skip

    def _made_again_row(
        self,
        conn: Any,
        edge: cascade.Edge,
        below: list[cascade.Edge],
        child: ApplyTable,
        row: dict[str, Any],
        value: tuple[Any, ...],
        ats: list[int],
        seen: int,
        tables: dict[int, ApplyTable],
        pos: dict[int, str],
        level: int,
    ) -> None:
        """One row found by ``_made_again``: its net row at ``seen``, the events at ``ats``
        whose old values (``value``) it holds."""
        assert self._pending is not None
        by_window = self._pending[3]
        edges = self._pending[0]
        for at in ats:
            if at >= seen or not self._pointed(edge, child, row, value, at, level):
                continue
            for x in below:
                held = self._cascade_rows(
                    conn,
                    tables[x.child],
                    list(tables[x.child].key),
                    x.fk.columns,
                    [tuple(row[c] for c in x.fk.parent_columns)],
                    pos[x.child],
                    at,
                )
                if held:
                    self._unfollowed(edge, x, row, child, edges, by_window)

    def _pointed(
        self,
        edge: cascade.Edge,
        child: ApplyTable,
        row: dict[str, Any],
        value: tuple[Any, ...],
        at: int,
        level: int,
    ) -> bool:
        """Whether ``row`` of the middle table may have pointed at the event at ``at`` when
        it came. Its own last change before it, an event of its table (deletes, updates of
        its key or foreign keys), says where it pointed then, unless the parent's own
        cascades (``events``, of the parent's table) moved it after that change: those and
        a delete (made again by an insert, which is not kept) leave it possible. With no
        change of its own before the event, the row as found is taken as it was then."""
        if self._pending is None:
            return True
        found = self._pending[2]
        key = tuple(str(row[k]) for k in child.key)
        own = [
            e
            for e in found
            if e.window == edge.child
            and e.repl_key < at
            and e.new is not None
            and tuple(str(e.new.get(k)) for k in child.key) == key
        ]
        # deleted or moved to another key: made again since by an insert, which is not kept
        gone = [
            e
            for e in found
            if e.window == edge.child
            and e.repl_key < at
            and tuple(str(e.old.get(k)) for k in child.key) == key
            and (e.new is None or tuple(str(e.new.get(k)) for k in child.key) != key)
        ]
        if gone and (not own or gone[-1].repl_key > own[-1].repl_key):
            return True
        since = own[-1].repl_key if own else -1
        for e in found:
            # the parent's own cascade moved it onto the event's values meanwhile
            if e.window == edge.parent and since < e.repl_key < at:
                rule, _, new = cascade.rule_for(e, edge.fk)
                if rule and new is not None and _same(new, value):
                    return True
        if not own:
            # as the last round left it: seen before the upserts (the first level only)
            if level > 1:
                return True
            return _said(edge.child, child.key, row, value) in self._before
        last = own[-1]
        now = last.new or {}
        return _same(tuple(now.get(c) for c in edge.fk.columns), value)

    def _unfollowed(
        self,
        edge: cascade.Edge,
        below: cascade.Edge,
        row: dict[str, Any],
        child: ApplyTable,
        edges: list[cascade.Edge],
        by_window: dict[int, TableWindow],
    ) -> None:
        # the parent's table too (its events, replayed on the loaded rows, would take them),
        # and every table its cascades reach (emptied, it may not keep rows referring to it)
        names: list[str] = []
        todo = [edge.parent]
        while todo:
            w = todo.pop(0)
            if by_window[w].table not in names:
                names.append(by_window[w].table)
                todo += [x.child for x in edges if x.parent == w]
        key = ", ".join(f"{k} = {row[k]!r}" for k in child.key)
        raise WorkFailed(
            f"a row of {by_window[edge.child].table} ({key}) that the {edge.fk.rules} of "
            f"{edge.fk.name} from {by_window[edge.parent].table} may have changed at the "
            f"source was made again or changed later in the same round, and rows of "
            f"{by_window[below.child].table} refer to it: whether the source's cascade took "
            "them along depends on changes of the row within the round that the round does "
            "not keep apart, so nothing of the round was applied. Load the tables again with "
            f"syncpoint snapshot --tables {','.join(names)} --truncate --restart",
            location=self.location,
            table=by_window[edge.child].table,
        )

    def _in(
        self, columns: Sequence[str], values: Sequence[tuple[Any, ...]], p: Params, alias: str
    ) -> str:
        """``columns`` (of ``alias``, "" for none) among the tuples ``values``."""
        a = f"{alias}." if alias else ""
        if len(columns) == 1:
            return f"{a}{self.q(columns[0])} IN ({', '.join(p.bind(v[0]) for v in values)})"
        cols = ", ".join(f"{a}{self.q(c)}" for c in columns)
        rows = ", ".join("(" + ", ".join(p.bind(x) for x in v) + ")" for v in values)
        return f"({cols}) IN ({rows})"

    def _cascade_rows(
        self,
        conn: Any,
        t: ApplyTable,
        need: list[str],
        columns: tuple[str, ...],
        values: list[tuple[Any, ...]],
        pos: str,
        at: int,
        moves: bool = False,
    ) -> list[dict[str, Any]]:
        """The rows of ``t`` whose ``columns`` hold one of ``values`` and whose net row in
        the round is none, or an upsert before ``at`` (``need`` columns of each). ``moves``:
        the cascade changes the key; a key whose net row came after it may have held an
        earlier row that the cascade moved away, which the target no longer has: the table
        stops, saying so."""
        out: list[dict[str, Any]] = []
        for row, seen, action in self._matching(conn, t, need, columns, values, pos):
            if moves and seen is not None and int(seen) > at:
                raise WorkFailed(
                    f"an ON UPDATE CASCADE moved rows of {t.target.ref} to other keys, and "
                    "a key it moved from was used again later in the same round: the row "
                    "that moved is no longer at the target to follow. Load the table again "
                    f"with syncpoint snapshot --tables <table> --truncate --restart",
                    location=self.location,
                    table=str(t.target.ref),
                )
            # changed by a record after the cascade (its record says what it is), or
            # deleted by one before it (not there when the cascade came)
            if seen is None or (int(seen) < at and action == "U"):
                out.append(row)
        return out

    def _matching(
        self,
        conn: Any,
        t: ApplyTable,
        need: list[str],
        columns: tuple[str, ...],
        values: list[tuple[Any, ...]],
        pos: str,
    ) -> list[tuple[dict[str, Any], Any, Any]]:
        """The rows of ``t`` whose ``columns`` hold one of ``values`` (``need`` columns of
        each), with the position and action of their net row in the round (None: none)."""
        out: list[tuple[dict[str, Any], Any, Any]] = []
        step = max(1, IN_LIST_MAX // len(columns))
        unique = list(dict.fromkeys(values))
        for chunk in (unique[i : i + step] for i in range(0, len(unique), step)):
            p = Params()
            cur = self.run(
                conn,
                "cascade_rows",
                p,
                table=str(t.target.ref),
                target=self.qualified(t.target.ref),
                columns=", ".join(f"t.{self.q(c)}" for c in need),
                pos=pos,
                join=" AND ".join(f"p.{self.q(k)} = t.{self.q(k)}" for k in t.key),
                match=self._in(columns, chunk, p, "t"),
            )
            for *row, seen, action in cur.fetchall():
                out.append((dict(zip(need, row, strict=True)), seen, action))
        return out

    def _delete_rows(self, conn: Any, t: ApplyTable, rows: list[dict[str, Any]]) -> None:
        keys = [tuple(r[k] for k in t.key) for r in rows]
        step = max(1, IN_LIST_MAX // len(t.key))
        for chunk in (keys[i : i + step] for i in range(0, len(keys), step)):
            p = Params()
            self.run(
                conn,
                "cascade_delete",
                p,
                table=str(t.target.ref),
                target=self.qualified(t.target.ref),
                match=self._in(t.key, chunk, p, ""),
            )

    def _key_match(self, t: ApplyTable, row: dict[str, Any], p: Params) -> str:
        return " AND ".join(f"{self.q(k)} = {p.bind(row[k])}" for k in t.key)

    def _by_key(self, conn: Any, sql: str, t: ApplyTable, row: dict[str, Any], **raw: str) -> Any:
        p = Params()
        match = self._key_match(t, row, p)
        return self.run(
            conn,
            sql,
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            match=match,
            **raw,
        )

    def _same_row(self, conn: Any, t: ApplyTable, was: dict[str, Any], now: dict[str, Any]) -> bool:
        """Whether the target finds one row by both keys: equal in its own comparison."""
        p = Params()
        match = f"{self._key_match(t, was, p)} AND {self._key_match(t, now, p)}"
        cur = self.run(
            conn,
            "cascade_select",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            match=match,
            columns=", ".join(self.q(k) for k in t.key),
        )
        return cur.fetchone() is not None

    def _cascade_update(
        self,
        conn: Any,
        t: ApplyTable,
        was: dict[str, Any],
        now: dict[str, Any],
        at: int,
        pos: str,
    ) -> None:
        """Set a child row's foreign key columns as the cascade did. Where they are part of
        its key, the row moves to another key: a row a later record made there stays and
        this one goes."""
        moved = tuple(now[k] for k in t.key) != tuple(was[k] for k in t.key)
        if moved and not self.key_is_exact(t) and self._same_row(conn, t, was, now):
            # equal keys at the target whose text differs ('abc' and 'ABC' in a collation
            # without case): the row stays where it is and takes the new text; deleting
            # what the new key finds would delete the row itself (an exact key's texts
            # differ only where its values do: no query)
            p = Params()
            found = self.run(
                conn, "cascade_position", p, pos=pos, match=self._key_match(t, now, p)
            ).fetchone()
            if found is not None and int(found[0]) > at:
                return  # a later record wrote the row already (upserts come first)
            moved = False
        if moved:
            p = Params()
            found = self.run(
                conn, "cascade_position", p, pos=pos, match=self._key_match(t, now, p)
            ).fetchone()
            if found is not None and int(found[0]) > at:
                self._by_key(conn, "cascade_delete", t, was)
                return
            # a row the target still has there was gone at the source before the cascade
            self._by_key(conn, "cascade_delete", t, now)
            if found is not None and found[1] == "D":
                # the round's delete of that key comes after this step: the moved row is
                # taken out and put back after the deletes
                names = [c.name for c in t.target.columns]
                row = self._by_key(
                    conn, "cascade_select", t, was, columns=", ".join(self.q(c) for c in names)
                ).fetchone()
                self._by_key(conn, "cascade_delete", t, was)
                back = dict(zip(names, row, strict=True))
                back.update(now)
                self._put_back.append((t, back))
                return
        p = Params()
        assign = ", ".join(f"{self.q(c)} = {p.bind(now[c])}" for c in now if now[c] != was[c])
        if not assign:
            return
        match = self._key_match(t, was, p)
        self.run(
            conn,
            "cascade_update",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            assign=assign,
            match=match,
        )
        self._checked(conn, t)

    def relax_foreign_keys(self, conn: Any, on: bool) -> bool:
        """Where the target checks foreign keys row by row and cannot defer them (MariaDB),
        turn the checks off for a round with cascades to make (``on``) and back on: a row
        the round upserts may refer to a parent its cascade removes with the row. True when
        something was turned off. PostgreSQL's created foreign keys are deferrable instead."""
        return False

    def _checked(self, conn: Any, t: ApplyTable) -> None:
        """After a statement of the cascade step (MariaDB: its warnings fail the round)."""

    def cascade_positions(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, pos: str
    ) -> None:
        """A temporary table ``pos`` of the key of each staged net row of window ``w``, in
        the key columns' own types, with its ``sp_pos`` (repl_key) and ``sp_action``."""
        raise WorkFailed(
            f"foreign keys with cascades at the source need rounds to make the cascades at "
            f"the target, which a {self.dialect.TITLE} target cannot do yet: replicate these "
            "tables to PostgreSQL or MariaDB",
            location=self.location,
            table=str(t.target.ref),
        )

    def cascade_events(
        self, conn: Any, round_id: str, tbl: int, columns: list[ApplyColumn]
    ) -> list[tuple[Any, ...]]:
        """The staged events of one events window: (repl_key, action, *values of
        ``columns``), in the types the target reads them in, in position order."""
        raise NotImplementedError

    # -- uninstall -------------------------------------------------------------------------
    def uninstall_statements(self, conn: Any, keep_positions: bool = False) -> list[str]:
        """The DROPs that remove this prefix's control tables here: table stops, staging,
        the gate table, snapshot states and typed stagings (``{p}snapstage_*``) and, unless
        ``keep_positions``, positions, sync points and receive stamps (``{p}stin_*``). Only
        tables that exist; any other table is never named."""
        have = {str(r[0]) for r in self.run(conn, "prefix_tables").fetchall()}
        self.end_read(conn)
        names = [self.idents["stops"], self.idents["staging"], f"{self.prefix}load_state"]
        # snapshot states (a kept position says a table was loaded), and the typed stagings
        # of snapshots that did not finish (a finished one drops its own)
        names += [self.idents["snapshots"], self.idents["created"]]
        names += sorted(n for n in have if n.startswith(f"{self.prefix}snapstage_"))
        # and the typed stagings of rounds that did not finish (a round drops its own)
        names += sorted(n for n in have if n.startswith(f"{self.prefix}rstage_"))
        if not keep_positions:
            names += [self.idents["positions"], self.idents["sync_points"]]
            names += sorted(n for n in have if n.startswith(f"{self.prefix}stin_"))
        return [self.one("drop_table", target=self.q(n)) for n in names if n in have]

    def uninstall(self, conn: Any, keep_positions: bool = False) -> list[str]:
        """Drop this prefix's control tables (see ``uninstall_statements``); idempotent."""
        stmts = self.uninstall_statements(conn, keep_positions)
        self.begin(conn)
        cur = conn.cursor()
        with self.dialect.translated(self.location):
            for stmt in stmts:
                cur.execute(stmt)
        self.commit(conn)
        return stmts

    def staged_keys(self, conn: Any, round_id: str, tbl: int) -> set[str]:
        """The column names the staged upserts of one window carry."""
        rows = self.run(conn, "staged_keys", (round_id, tbl)).fetchall()
        self.end_read(conn)
        return {str(r[0]) for r in rows}

    # -- typed staging (a vendor's direct path) -------------------------------------------
    def typed_counts(self, conn: Any) -> dict[int, int]:
        """The net rows in the typed stagings of the round being applied, per window."""
        return {}

    def typed_cleanup(self, conn: Any, application: str, group: str) -> None:
        """Drop the typed stagings of earlier attempts of the sync group (in the apply)."""

    def _typed_of(self, w: TableWindow, t: ApplyTable) -> Any:
        """The window's typed staging (None: its rows are staged as JSON text), made for
        the target table as it still is."""
        typed = self._typed.get(w.tbl)
        if typed is None:
            return None
        if signature(t) != typed.columns:
            raise TransientError(
                f"the target table {t.target.ref} changed while the round staged its rows "
                "typed for it; this round applied nothing (the next one stages again)",
                location=self.location,
                table=str(t.target.ref),
            )
        return typed

    def typed_done(self, conn: Any) -> None:
        """Drop the typed stagings of the round being applied (in its transaction)."""

    def typed_committed(self, conn: Any, application: str, group: str) -> None:
        """After the apply's commit: drop typed stagings a vendor cannot drop inside it."""

    # -- vendor statements ----------------------------------------------------------------
    def upsert(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        raise NotImplementedError

    # Where the apply runs as SQL over the staging table (PostgreSQL, MariaDB): the bound
    # parameters of one window, a staged value typed for its column, and the plain insert of
    # a window's staged rows that keyless targets get after their keys' rows were deleted.
    def _params(self, round_id: str, w: TableWindow) -> Params:
        p = Params()
        p["round_id"], p["tbl"] = round_id, w.tbl
        return p

    def _value(self, col: ApplyColumn, p: Params) -> str:
        raise NotImplementedError

    def _insert_staged(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        p = self._params(round_id, w)
        self.run(
            conn,
            "insert",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            columns=", ".join(self.q(c.name) for c in t.columns),
            values=", ".join(self._value(c, p) for c in t.columns),
        )

    def delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        raise NotImplementedError

    # A snapshot chunk's range at the target left holding exactly the chunk's rows: ``where``
    # is the range (SQL over the target table's unqualified columns).
    def holds_rows(self, conn: Any, table: str, target: str, where: str) -> bool:
        """Whether the target table ``target`` (quoted) has a row where ``where`` holds."""
        cur = self.run(conn, "holds_rows", table=table, target=target, range=where)
        return cur.fetchone() is not None

    def prune(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, where: str) -> None:
        """Delete the target rows where ``where`` holds whose key is not among the rows the
        window stages as upserts (a snapshot chunk's), keys compared as the upsert compares
        them (``snapshot_prune.sql``); inside the caller's transaction."""
        raise NotImplementedError

    # Spark's CSV writer options of the files ``stage_files`` loads (the vendor's bulk
    # path), or None where the vendor has none
    staging_csv: dict[str, str] | None = None

    def stage_files(self, conn: Any, files: list[str]) -> None:
        """Load the CSV files Spark wrote (``spark.stage.write_staging_files``) into the
        staging table, committed."""
        raise NotImplementedError

    def jdbc(self) -> tuple[str, dict[str, str]]:
        """JDBC URL and properties for Spark's staging write."""
        url, props = self.dialect.spark_jdbc(self.url)
        return str(url), dict(props)


# the most values one ``IN (...)`` list binds (SQLite's default limit is 32,766 a
# statement; a smaller list keeps each statement short)
IN_LIST_MAX = 500


def _chunks(items: Sequence[Any]) -> list[Sequence[Any]]:
    return [items[i : i + IN_LIST_MAX] for i in range(0, len(items), IN_LIST_MAX)]


def _notes(table: TableShape, key: Sequence[str], dialect: Any) -> list[str]:
    keys = ", ".join(key)
    out: list[str] = []
    if not table.unique_on(key):
        out.append(
            f"target {table.ref} has no primary key or unique index on the key ({keys}): "
            "each round deletes the rows having the key of a changed row and inserts the "
            "row, in the round's one transaction (one row per key)"
        )
    how = (
        f" ({dialect.TITLE}: such a table is applied by deleting the key's rows and inserting, "
        "never by updating the row that index finds)"
        if dialect.UPSERT_ANY_UNIQUE
        else ""
    )
    for name, cols in table.other_uniques(key):
        out.append(
            f"warning: target {table.ref} has a unique index {name} on ({', '.join(cols)}), "
            f"other columns than the key ({keys}): a changed row whose values there equal "
            f"another row's stops the round{how}"
        )
    return out


def apply_table(
    target: TableShape,
    key: Sequence[str],
    source: dict[str, NType] | None,
    renames: dict[str, str] | None = None,
) -> ApplyTable:
    """The columns a round writes: every target column the change records can carry
    (``source``: their names and source types; None: all target columns). A target column
    the source does not have is left to its default and never overwritten."""
    renames = renames or {}
    cols: list[ApplyColumn] = []
    for c in target.columns:
        if source is not None and c.name not in source and c.name not in renames:
            continue
        keys = (c.name, renames[c.name]) if c.name in renames else (c.name,)
        src = source.get(c.name) or source.get(renames.get(c.name, "")) if source else None
        cols.append(ApplyColumn(c.name, c.type, keys, src, c.name in key))
    have = {c.name for c in cols}
    missing = [k for k in key if k not in have]
    if missing:
        raise WorkFailed(
            f"key column(s) {', '.join(missing)} missing at the target table {target.ref}; "
            "create them or point target: at another table",
            table=str(target.ref),
        )
    return ApplyTable(target, tuple(cols), tuple(key))


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Values read in types that need not compare equal in Python (a key's int, a decimal)."""
    return all(x == y or str(x) == str(y) for x, y in zip(a, b, strict=True))


def _said(window: int, key: Sequence[str], row: dict[str, Any], value: tuple[Any, ...]) -> Any:
    return (window, tuple(str(row[k]) for k in key), tuple(str(v) for v in value))
