"""Conflict resolution at a site, shared by the vendors (``vendors/<v>/cdr.py``): the
bookkeeping tables, the read of a table's change records with the versions they were made
from, and the apply step that decides each incoming change in SQL inside the round's
transaction, on a temporary table of the window's rows (``{p}cdr_d``). ``core/cdr.py``
holds the rules as a table; docs/internals.md ("Conflict resolution between sites") says
how the read and the apply work and why. Vendors differ only in their ``sql/cdr/*.sql`` and
in the dialect data of their ``CdrSite`` subclass.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from syncpoint.config import TableName
from syncpoint.core.cdr import DEFAULT_GROUP, RESOLUTIONS
from syncpoint.core.rounds import TableWindow
from syncpoint.errors import DuplicateKey, TransientError
from syncpoint.vendors.integratebase import ApplyColumn, ApplyTable, Integrate, Params
from syncpoint.vendors.sqlfiles import SqlFiles

# purge's check of the tombstones it deleted, in their transaction: the ones to keep
Purged = Callable[[Any], set[tuple[str, str, int]]]


@dataclass(frozen=True)
class CdrTable:
    """A table's settings as stored at the site (``{p}cdr``)."""

    table: str
    resolution: str
    groups: dict[str, list[str]]  # named groups only
    key: list[str]


def column_names(prefix: str, groups: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The key version column and the version column of each group (default first)."""
    vs = {DEFAULT_GROUP: f"{prefix}cdr_v"}
    vs.update({g: f"{prefix}cdr_v_{g}" for g in groups})
    return f"{prefix}cdr_kv", vs


def members(setting: CdrTable, columns: Sequence[str]) -> dict[str, list[str]]:
    """The data columns of each group (default first); the key is in no group."""
    grouped = {c for cols in setting.groups.values() for c in cols}
    out = {DEFAULT_GROUP: [c for c in columns if c not in grouped and c not in setting.key]}
    out.update(setting.groups)
    return out


def canonical_key(text: str) -> str:
    """A key's JSON text as one form for every vendor (spacing differs: ``[1, "a"]`` and
    ``[1,"a"]``), to compare tombstones between sites."""
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return text


HOPS_KEPT = 200  # moves of a receive stamp kept per capture location (see record_hops)

# befores[<version column> + MADE]: the versions the window's changes of a group made
MADE = ">"
RETRIES = 5  # a window's apply done again after the application inserted one of its keys

# The temporary table's own columns: (name, kind); kinds map to each vendor's types.
_META_FIXED = (
    ("sp_rk", "int"),
    ("sp_c", "text"),
    ("sp_dv", "version"),
    ("sp_hb", "int"),
    ("sp_hl", "int"),
    ("sp_lkv", "int"),
    ("sp_tkv", "int"),
    ("sp_tv", "version"),
    ("sp_tr", "text"),
    ("sp_k", "key"),
    ("sp_upd", "int"),
    ("sp_ins", "int"),
    ("sp_del", "int"),
    ("sp_tomb", "int"),
)


class CdrSite:
    """Conflict bookkeeping and resolution at one site of one vendor."""

    vendor: ClassVar[str]
    # dialect data (each vendor's subclass sets what differs)
    PARAM: ClassVar[str] = "%({})s"  # a named bound parameter
    COLLATE: ClassVar[str] = ""  # appended to a version so that it compares byte by byte
    TYPES: ClassVar[dict[str, str]] = {}  # int, text, version, key -> SQL type
    SET_PREFIX: ClassVar[str] = ""  # how an UPDATE's SET names a column of the updated table
    TRANSACTIONAL_DDL: ClassVar[bool] = True  # cdr add/remove in one transaction per site
    STAMP_SEP: ClassVar[str] = " "  # between the stamps of a trigger body (statements or SETs)

    def __init__(self, integ: Integrate):
        self.integ = integ
        self.prefix = integ.prefix
        self.dialect = integ.dialect
        p = self.prefix
        self.idents = {
            "cdr": f"{p}cdr",
            "tombstones": f"{p}tombstones",
            "conflicts": f"{p}conflicts",
            "d": f"{p}cdr_d",
            "hops": f"{p}cdr_hops",
            "staging": integ.idents["staging"],
        }

    # -- dialect: expressions ---------------------------------------------------------------
    def q(self, name: str) -> str:
        return str(self.dialect.quote(name))

    def lit(self, value: str) -> str:
        return str(self.dialect.literal(value))

    def same(self, a: str, b: str) -> str:
        """``a`` equals ``b``, NULL equal to NULL."""
        return f"{a} IS NOT DISTINCT FROM {b}"

    def newer(self, a: str, b: str, rule: str) -> str:
        """``a`` wins over ``b`` under ``rule`` (versions; neither is NULL)."""
        op = ">" if rule == "latest" else "<"
        return f"{a}{self.COLLATE} {op} {b}{self.COLLATE}"

    def made_here(self, version: str) -> str:
        """``version`` (``time|location``) was made at this site."""
        mark = "|" + self.integ.location
        return f"right({version}, {len(mark)}) = {self.lit(mark)}"

    def greatest(self, exprs: Sequence[str]) -> str:
        if len(exprs) == 1:
            return exprs[0]
        return "GREATEST(" + ", ".join(f"{e}{self.COLLATE}" for e in exprs) + ")"

    def key_json(self, exprs: Sequence[str]) -> str:
        raise NotImplementedError

    def row_json(self, alias: str, columns: Sequence[str]) -> str:
        """A row of the target as JSON text (what ``{p}conflicts`` keeps of the local row)."""
        raise NotImplementedError

    def as_text(self, expr: str) -> str:
        return f"CAST({expr} AS {self.TYPES['text']})"

    def deleted_row(self, alias: str, columns: Sequence[str]) -> str:
        """A row of the target as the text ``{p}tombstones.deleted_row`` keeps of it, every
        value exactly (``restore`` gives them back)."""
        return self.row_text([(c, f"{alias}.{self.q(c)}") for c in columns])

    def row_text(self, values: Sequence[tuple[str, str]]) -> str:
        """``deleted_row``'s text of a row given as (column, SQL expression) pairs."""
        raise NotImplementedError

    def restore(self, plan: ApplyPlan) -> dict[str, str]:
        """``d_tombstone``'s SETs giving the typed columns ``sp_o<i>`` of ``{p}cdr_d`` the
        values of the tombstone's deleted row (``d.sp_tr``)."""
        raise NotImplementedError

    def restore_rows(self, conn: Any, plan: ApplyPlan) -> None:
        """Where a vendor converts the deleted rows' values in Python (SQLite)."""

    # -- SQL files ----------------------------------------------------------------------------
    def sql(self, name: str, raw: dict[str, str] | None = None, **lits: str) -> list[str]:
        files = SqlFiles(self.vendor, "cdr", self.idents, literal=self.lit, comments=False)
        return files.statements(name, raw=raw or {}, literals=lits)

    def run(
        self,
        conn: Any,
        name: str,
        params: dict[str, Any] | None = None,
        raw: dict[str, str] | None = None,
        table: str | None = None,
        **lits: str,
    ) -> Any:
        cur = conn.cursor()
        with self.dialect.translated(self.integ.location, table):
            for s in self.sql(name, raw, **lits):
                if params and self._uses_params(s):
                    cur.execute(s, params)
                else:
                    cur.execute(s)
        return cur

    def _uses_params(self, stmt: str) -> bool:
        return "%(" in stmt

    # -- settings -------------------------------------------------------------------------------
    def has_tables(self, conn: Any, name: str = "cdr") -> bool:
        """Whether this site has conflict resolution's tables (``cdr add`` ran here); with
        ``name``, that one of them."""
        (found,) = self.run(conn, "has_tables", {"name": self.idents[name]}).fetchone()
        return bool(found)

    def ensure_hops(self, conn: Any) -> None:
        """``{p}cdr_hops`` where ``cdr add`` ran before it existed (outside a transaction:
        MariaDB commits DDL)."""
        if not self.has_tables(conn, "hops"):
            self.run(conn, "create")
            conn.commit()

    def ensure_ended_here(self, conn: Any) -> bool:
        """``{p}tombstones.ended_here`` where ``cdr add`` ran before it existed (outside a
        transaction: MariaDB commits DDL); whether it was added. Tombstones written before
        it read as passed on, so purge waits for every site to hold them, as it did."""
        found = self._tombstones_have(conn, "ended_here")
        if not found:
            self.run(conn, "add_ended_here")
            conn.commit()
        return not found

    def _tombstones_have(self, conn: Any, column: str) -> bool:
        """Whether ``{p}tombstones`` has ``column`` (bookkeeping of an older ``cdr add``
        lacks the later ones)."""
        (found,) = self.run(
            conn, "has_column", {"name": self.idents["tombstones"], "column": column}
        ).fetchone()
        conn.rollback()
        return bool(found)

    def has_deleted_rows(self, conn: Any) -> bool:
        """Whether ``{p}tombstones`` has the column ``deleted_row`` (``cdr add`` before it
        existed: no)."""
        return self._tombstones_have(conn, "deleted_row")

    def ensure_deleted_rows(
        self, conn: Any, tables: dict[str, tuple[TableName, list[str]]], renew: bool = False
    ) -> None:
        """``{p}tombstones.deleted_row`` where ``cdr add`` ran before it existed, and the
        delete triggers of the tables (by name: their reference and data columns) made
        again to write it. The column first: a failure between the two leaves the old
        triggers, which write no deleted row (a change beating their tombstone is then
        inserted whole, as before), never a trigger naming a column that is not there.
        ``renew``: the triggers made again all the same (bookkeeping older than a change of
        what they write)."""
        has = self.has_deleted_rows(conn)
        if has and not renew:
            return
        settings = self.settings(conn)
        if not has:
            self.run(conn, "add_deleted_row")
            conn.commit()
        for table, (ref, columns) in tables.items():
            if table in settings:
                self.renew(conn, table, ref, settings[table], columns, self.integ.location)
                conn.commit()

    def settings(self, conn: Any) -> dict[str, CdrTable]:
        if not self.has_tables(conn):
            return {}
        rows = self.run(conn, "settings").fetchall()
        return {t: CdrTable(t, r, json.loads(g), json.loads(k)) for t, r, g, k in rows}

    def set_resolution(self, conn: Any, table: str, resolution: str) -> None:
        if resolution not in RESOLUTIONS:
            raise ValueError(resolution)
        self.run(conn, "set_resolution", {"table": table, "resolution": resolution})

    def conflicts(self, conn: Any) -> dict[str, dict[str, Any]]:
        """Per table: how many conflicts were decided here, and the latest."""
        if not self.has_tables(conn):
            return {}
        out: dict[str, dict[str, Any]] = {}
        for table, n, key, group, winner, rule, at in self.run(conn, "conflict_counts"):
            if table not in out:
                out[table] = {
                    "count": int(n),
                    "latest": {
                        "key": key,
                        "column_group": group,
                        "winner": winner,
                        "resolution": rule,
                        "decided_at": self.integ.dialect_time(at),
                    },
                }
        return out

    def tombstones(self, conn: Any) -> list[tuple[str, str, int, Any, bool]]:
        """Every tombstone here with the local time it was written, and whether its delete
        ended here (applied and not passed on to the sites after this one)."""
        return [
            (t, k, int(kv), self.integ.dialect_time(at), bool(ended))
            for t, k, kv, at, ended in self.run(conn, "tombstones").fetchall()
        ]

    def row_key_versions(
        self, conn: Any, ref: TableName, key: Sequence[str], keys: Sequence[str], batch: int = 200
    ) -> dict[str, int]:
        """The key version of this site's row of each of ``keys`` (JSON arrays of the key's
        values, as tombstones write them) that has a row here, by the key in one form
        (``canonical_key``); looked up by the key's columns, so the table's key index
        serves it."""
        out: dict[str, int] = {}
        alias = [f"t.{self.q(c)}" for c in key]
        for i in range(0, len(keys), batch):
            params: dict[str, Any] = {}
            each = []
            for n, text in enumerate(keys[i : i + batch]):
                values = json.loads(text)
                names = [f"k{n}_{j}" for j in range(len(values))]
                params.update(zip(names, values, strict=True))
                each.append(
                    "(" + " AND ".join(
                        f"{a} = {self.PARAM.format(p)}" for a, p in zip(alias, names, strict=True)
                    ) + ")"
                )
            raw = {
                "key": self.key_json(alias),
                "kv": f"t.{self.q(column_names(self.prefix, [])[0])}",
                "target": self.integ.qualified(ref),
                "keys": " OR ".join(each),
            }
            for k, kv in self.run(conn, "row_kv", params, raw).fetchall():
                out[canonical_key(k)] = int(kv)
        return out

    def tombstone_stats(self, conn: Any) -> dict[str, Any]:
        """How many tombstones this site holds and the age of the oldest, in seconds (None
        without any): what ``purge`` has not taken away yet."""
        if not self.has_tables(conn, "tombstones"):
            return {"count": 0, "oldest_age_seconds": None}
        n, age = self.run(conn, "tombstone_stats").fetchone()
        oldest = None if age is None else round(max(float(age), 0.0), 3)
        return {"count": int(n), "oldest_age_seconds": oldest}

    def purge_tombstones(
        self, conn: Any, keys: list[tuple[str, str, int]], check: Purged | None = None
    ) -> set[tuple[str, str, int]]:
        """Delete these tombstones in one transaction. ``check`` is called after the deletes,
        in the transaction (each delete has waited for a writer of its tombstone, so it sees
        what such a writer did): the keys it returns must stay, and nothing is deleted then
        (they are returned; an empty set: committed)."""
        self.delete_tombstones(conn, keys)
        lost = check(conn) if check is not None else set()
        if lost:
            conn.rollback()
        else:
            conn.commit()
        return lost

    def delete_tombstones(self, conn: Any, keys: list[tuple[str, str, int]]) -> None:
        (stmt,) = self.sql("tombstone_purge")
        cur = conn.cursor()
        with self.dialect.translated(self.integ.location):
            for table, key, kv in keys:
                cur.execute(stmt, {"table": table, "key": key, "kv": kv})

    def record_hops(self, conn: Any, stamps: dict[str, Any]) -> None:
        """Record the receive stamps (capture location -> time) that moved past the newest
        recorded, with this site's clock now, inside the stamps' open transaction; only the
        newest ``HOPS_KEPT`` moves of each location stay (losing older ones only makes
        purge's bounds later, never earlier)."""
        for loc, stamp in sorted(stamps.items()):
            if stamp is None:
                continue
            at = self.integ.db_time(stamp)
            self.run(conn, "hop_record", {"loc": loc, "stamp": at})
            kept = self.run(conn, "hop_kept", {"loc": loc, "keep": HOPS_KEPT}).fetchone()
            if kept is not None:
                self.run(conn, "hop_prune", {"loc": loc, "oldest": kept[0]})

    def hops(self, conn: Any) -> dict[str, list[tuple[Any, Any]]]:
        """Per capture location: the recorded moves of this site's receive stamp of it
        (stamp, this site's time of the move), oldest first."""
        out: dict[str, list[tuple[Any, Any]]] = {}
        for loc, stamp, at in self.run(conn, "hops").fetchall():
            t = (self.integ.dialect_time(stamp), self.integ.dialect_time(at))
            out.setdefault(loc, []).append(t)
        return {loc: sorted(moves) for loc, moves in out.items()}

    # -- add / remove (vendor) ----------------------------------------------------------------
    def trigger_stem(self, t: TableName) -> str:
        """``{p}cdr_<hash of the table name>``: names of a table's bookkeeping objects, short
        enough for every vendor's identifier limit whatever the table is called."""
        return f"{self.prefix}cdr_{hashlib.sha1(str(t).encode()).hexdigest()[:10]}"

    def drop_columns(self, setting: CdrTable) -> str:
        """``DROP COLUMN IF EXISTS`` of every bookkeeping column of ``setting`` (where the
        vendor drops several in one ALTER)."""
        kv, vs = column_names(self.prefix, list(setting.groups))
        return ", ".join(f"DROP COLUMN IF EXISTS {self.q(c)}" for c in [kv, *vs.values()])

    def execute_all(self, cur: Any, statements: list[str], params: dict[str, Any]) -> None:
        """Run ``statements``, binding ``params`` to those that name any."""
        for s in statements:
            cur.execute(s, params) if self._uses_params(s) else cur.execute(s)

    def fragment(self, name: str, raw: dict[str, str] | None = None, **lits: str) -> str:
        """A piece of cdr add's SQL (``sql/cdr/trigger_<name>.sql``), rendered."""
        (text,) = self.sql(f"trigger_{name}", raw, **lits)
        return text

    def trigger_parts(self, setting: CdrTable, columns: list[str], location: str) -> dict[str, Any]:
        """What every vendor's ``add.sql`` is made of: the bookkeeping columns to add (a
        list), the key version column, the version a local write stamps (``now``), the
        stamps of an insert and of an update, whether any data column changed, and the
        new and old key as JSON."""
        q = self.q
        kv, vs = column_names(self.prefix, list(setting.groups))
        cols = members(setting, columns)
        now = self.fragment("now", location=location)

        def changed(names: list[str]) -> str:
            return " OR ".join(self.fragment("changed", {"column": q(c)}) for c in names)

        stamps = []
        for g, v in vs.items():
            if cols[g]:
                raw = {"version": q(v), "changed": changed(cols[g]), "now": now}
                stamps.append(self.fragment("stamp_changed", raw))
            else:
                stamps.append(self.fragment("keep", {"version": q(v)}))
        data = [c for g in vs for c in cols[g]]
        return {
            "add_columns": [self.fragment("column_kv", {"column": q(kv)})]
            + [
                self.fragment("column_version", {"column": q(v), "type": self.TYPES["version"]})
                for v in vs.values()
            ],
            "kv": q(kv),
            "now": now,
            "stamp_all": self.STAMP_SEP.join(
                self.fragment("stamp", {"version": q(v), "now": now}) for v in vs.values()
            ),
            "stamp_changed": self.STAMP_SEP.join(stamps),
            "any_changed": changed(data) or "0",
            "new_key": self.key_json([f"NEW.{q(k)}" for k in setting.key]),
            "old_key": self.key_json([f"OLD.{q(k)}" for k in setting.key]),
            "old_row": self.deleted_row("OLD", [*columns, kv, *vs.values()]),
        }

    def _names(self, t: TableName) -> dict[str, str]:
        """The raw names of a table's bookkeeping objects in the vendor's SQL files."""
        raise NotImplementedError

    def trigger_raw(
        self, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> dict[str, str]:
        """The raw texts of ``add.sql`` and ``renew.sql``: the table's names and the
        trigger parts (``add_columns`` joined as one ALTER's list)."""
        parts = self.trigger_parts(setting, columns, location)
        return {**self._names(ref), **parts, "add_columns": ", ".join(parts["add_columns"])}

    def add_statements(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> list[str]:
        raise NotImplementedError

    def add(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        raise NotImplementedError

    def remove(self, conn: Any, table: str, ref: TableName, setting: CdrTable) -> None:
        raise NotImplementedError

    def renew(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """The table's delete trigger (``sql/cdr/renew.sql``) made again (caller commits)."""
        raise NotImplementedError

    def setting_params(self, table: str, setting: CdrTable) -> dict[str, Any]:
        return {
            "table": table,
            "resolution": setting.resolution,
            "groups": json.dumps(setting.groups),
            "key": json.dumps(setting.key),
        }

    # -- read at the source -------------------------------------------------------------------
    def read_query(
        self, plain: str, setting: CdrTable, origins: Sequence[str] | None = None
    ) -> str:
        """The plain read of a window (``Integrate.read_query``) with content and oldcontent
        each made ``[row, befores, delete version]`` (see ``sql/cdr/read.sql``): befores
        holds, per version column, the versions the window's changes of that group were
        made from (``"*"`` for a change that made the row) and, under the column's name
        and ``MADE``, the versions they made, as JSON arrays.

        ``origins``: those the reader takes from this stream, nearest the reader first.
        A key's records of several origins net into one row, which the reader applies and
        captures marked with one origin, and it goes on only along that origin's way: the
        last record's origin (the plain rule) would never pass the row to that origin,
        although under conflict resolution the row holds the other origins' groups too
        (merged where the stream's site applied it), which it has from nowhere else. The
        nearest origin's way on from the reader is the longest: every site that takes any
        of the row's origins through the reader takes it. (A site getting its own groups
        back leaves them alone: ``ApplyPlan._own``.)"""
        kv, vs = column_names(self.prefix, list(setting.groups))
        parts = [
            self.sql(
                "before",
                {"name": self.lit(f'"{v}":'), "made": self.lit(f'"{v}{MADE}":')},
                column=self.kv_path(v),
            )[0]
            for v in vs.values()
        ]
        origin = "g.dbid"
        if origins is not None and len(origins) > 1:
            part = "CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key ELSE g.sp_key END"
            rank = " ".join(f"WHEN {self.lit(o)} THEN {i}" for i, o in enumerate(origins))
            origin = (
                f"FIRST_VALUE(g.dbid) OVER (PARTITION BY {part} "
                f"ORDER BY CASE g.dbid {rank} ELSE {len(origins)} END, g.repl_key)"
            )
        raw = {"read": plain, "befores": self.json_object(parts), "origin": origin}
        (stmt,) = self.sql("read", raw, table=setting.table, kv=self.kv_path(kv))
        return stmt

    def json_object(self, members: list[str]) -> str:
        """SQL concatenating ``"name":value`` texts into a JSON object's text."""
        raise NotImplementedError

    def json_with(self, text: str, members: list[tuple[str, str]]) -> str:
        """SQL: the JSON object ``text`` with the members (name, SQL text value) set."""
        raise NotImplementedError

    def kv_path(self, column: str) -> str:
        """How the read finds a bookkeeping column in a record's JSON (a literal's text)."""
        return column

    # -- versions the changes were made from ------------------------------------------------
    def in_set(self, befores: str, version: str) -> str:
        """``version`` is one of the JSON array ``befores``."""
        raise NotImplementedError

    # -- apply at the target ------------------------------------------------------------------
    def upsert(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, setting: CdrTable
    ) -> None:
        self._apply(conn, round_id, w, t, setting, "U")

    def delete(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, setting: CdrTable
    ) -> None:
        self._apply(conn, round_id, w, t, setting, "D")

    def _apply(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, s: CdrTable, action: str
    ) -> None:
        """One window's incoming rows of one action, decided and applied. The rows of the
        keys are locked before they are read; a key the application inserts meanwhile (no
        row to lock yet) fails the insert: the window is then done again from a savepoint,
        that row now locked and decided on with the others."""
        table = str(t.target.ref)
        for _attempt in range(RETRIES):
            self.run(conn, "savepoint", table=table)
            try:
                self._decide_and_write(conn, round_id, w, t, s, action)
            except DuplicateKey:
                self.run(conn, "savepoint_back", table=table)
                continue
            self.run(conn, "savepoint_done", table=table)
            return
        raise TransientError(
            f"the application kept inserting keys of this round's rows while it was applied "
            f"({RETRIES} attempts); the round is retried",
            location=self.integ.location,
            table=table,
        )

    def _decide_and_write(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, s: CdrTable, action: str
    ) -> None:
        plan = ApplyPlan(self, t, s)
        table = str(t.target.ref)
        params = {"round_id": round_id, "tbl": w.tbl, "action": action}
        params.update({"table": w.table, "rule": s.resolution})
        self.run(conn, "d_create", raw=plan.create(), table=table)
        self.fill(conn, plan, params)
        self.run(conn, "d_lock", raw=plan.local(), table=table)
        self.run(conn, "d_local", params, raw=plan.local(), table=table)
        # keys without a row here: their newest tombstone and the row it kept, either way
        restore = plan.restore()
        self.run(conn, "d_tombstone", params, raw=restore, table=table)
        self.restore_rows(conn, plan)
        if action == "U":
            self.run(conn, "d_remade", raw=restore, table=table)
            self.run(conn, "decide_upsert", raw=plan.decide_upsert(), table=table)
            self.run(conn, "apply_upsert", params, raw=plan.apply_upsert(), table=table)
            if self.undelete(conn, plan, params, plan.merged()):
                raw = {**plan.apply_upsert(), "restored": plan.merged()}
                self.run(conn, "pass_on_merged", params, raw=raw, table=table)
        else:
            if self.undelete(conn, plan, params):
                self.run(conn, "d_local", params, raw=plan.local(), table=table)
            self.run(conn, "decide_delete", raw=plan.decide_delete(), table=table)
            self.run(conn, "apply_delete", params, raw=plan.apply_delete(), table=table)
            raw, lits = self.capture_queue(t.target.ref)
            raw["rkv"] = plan.rkv()
            raw["made_from"] = plan.made_from()
            self.run(conn, "forward_delete", params, raw=raw, table=table, **lits)
        self.after_write(conn, t)
        self.run(conn, "d_drop", table=table)

    def undelete(
        self, conn: Any, plan: ApplyPlan, params: dict[str, Any], which: str | None = None
    ) -> bool:
        """Incoming deletes of an incarnation whose row this site deleted already (the
        tombstone of that incarnation kept the row): the deleted row is put back
        (``undelete.sql``), for the delete to take away as a row, taking first the groups
        its window made (so the tombstone's row, and the row this site passes on with the
        delete, hold this site's groups and those). Passing on the incoming delete's own
        row instead would lose this site's: a reader that gets this site's delete and this
        one in one round nets them into the one passed on last. The insert that puts the
        row back is no change of the application's: its capture record is taken out of
        the queue again, in the same transaction. Whether any row was put back.

        ``which``: the keys whose deleted rows to put back, else those of such deletes
        (``pass_on_merged.sql`` puts back those of incoming changes that lost here to the
        delete, to pass them on)."""
        ref = plan.t.target.ref
        table = str(ref)
        raw, lits = self.capture_queue(ref)
        raw.update(plan.undelete())
        if which is not None:
            raw["restored"] = which
        n, mark = self.run(conn, "undelete_mark", params, raw, table, **lits).fetchone()
        if not n:
            return False
        self.run(conn, "undelete", params, raw, table, **lits)
        queued = self.run(conn, "undelete_queued", {"mark": mark}, raw, table, **lits)
        for (key,) in queued.fetchall():
            self.run(conn, "unqueue", {"key": key}, raw, table, **lits)
        return True

    def capture_queue(self, ref: TableName) -> tuple[dict[str, str], dict[str, str]]:
        """``forward_delete.sql``'s names of this site's capture objects (its queue, its
        watched tables, where the origin of the apply is set) for the table ``ref``: raw
        tokens, and literals. A delete applied where no row of its incarnation is left
        deletes nothing, so no capture trigger records it; the apply records it there
        itself (conflict resolution runs with trigger capture only: ``validate``)."""
        raise NotImplementedError

    def fill(self, conn: Any, plan: ApplyPlan, params: dict[str, Any]) -> None:
        """Put the window's staged rows of one action into ``{p}cdr_d``, converted."""
        p = Params(params)
        raw = plan.fill(p)
        self.run(conn, "d_fill", dict(p), raw=raw, table=str(plan.t.target.ref))

    def after_write(self, conn: Any, t: ApplyTable) -> None:
        """What the vendor checks after statements that convert values (MariaDB: warnings)."""

    def value(self, col: ApplyColumn, p: Params) -> str:
        """SQL converting a staged row's value of ``col`` (``Integrate._value``)."""
        return str(self.integ._value(col, p))  # type: ignore[attr-defined]  # noqa: SLF001

    def befores(self, version_col: str, p: Params) -> str:
        """SQL: a staged row's versions one group's changes were made from (JSON array)."""
        raise NotImplementedError


class ApplyPlan:
    """The SQL fragments of one window's apply under conflict resolution."""

    def __init__(self, site: CdrSite, t: ApplyTable, s: CdrTable):
        self.site, self.t, self.s = site, t, s
        prefix = site.prefix
        self.kv, self.vs = column_names(prefix, list(s.groups))
        cols = list(t.columns)
        have = {c.name for c in cols}
        byname = {c.name: c for c in t.target.columns}
        for name in [self.kv, *self.vs.values()]:
            if name not in have and name in byname:
                # the records carry them even when the source's shape was read before cdr add
                cols.append(ApplyColumn(name, byname[name].type, (name,), None))
        self.cols = cols
        self.idx = {c.name: i for i, c in enumerate(cols)}
        self.groups = list(self.vs)  # default first
        grouped = {c: g for g, cs in s.groups.items() for c in cs}
        version_group = {v: g for g, v in self.vs.items()}

        def group(col: str) -> str | None:
            if col in t.key or col == self.kv:
                return None
            if col in version_group:
                return version_group[col]
            return grouped.get(col, DEFAULT_GROUP)

        self.group_of = {c.name: group(c.name) for c in cols}

    # -- names --------------------------------------------------------------------------------
    def v(self, col: str, alias: str = "d") -> str:
        return f"{alias}.sp_v{self.idx[col]}"

    def rkv(self, alias: str = "d") -> str:
        return self.v(self.kv, alias)

    def rver(self, j: int, alias: str = "d") -> str:
        return self.v(self.vs[self.groups[j]], alias)

    def match(self) -> str:
        q = self.site.q
        return " AND ".join(f"t.{q(k)} = {self.v(k)}" for k in self.t.key)

    def _set(self, name: str) -> str:
        return f"{self.site.SET_PREFIX}{name}"

    def newest_r(self) -> str:
        return self.site.greatest([self.rver(j) for j in range(len(self.groups))])

    def newest_l(self) -> str:
        return self.site.greatest([f"d.sp_l{j}" for j in range(len(self.groups))])

    # -- the temporary table ------------------------------------------------------------------
    def meta(self) -> list[tuple[str, str]]:
        out = list(_META_FIXED)
        for j in range(len(self.groups)):
            out += [(f"sp_b{j}", "text"), (f"sp_n{j}", "text")]
            out += [(f"sp_l{j}", "version"), (f"sp_f{j}", "int")]
        return out

    def create(self) -> dict[str, str]:
        q, types = self.site.q, self.site.TYPES
        meta = self.meta()
        return {
            "target": self.site.integ.qualified(self.t.target.ref),
            "typed": ", ".join(
                [f"t.{q(c.name)} AS sp_v{i}" for i, c in enumerate(self.cols)]
                + [f"o.{q(c.name)} AS sp_o{i}" for i, c in enumerate(self.cols)]
            ),
            "meta_select": ", ".join(f"CAST(NULL AS {types[k]}) AS {n}" for n, k in meta),
            "meta_defs": ", ".join(f"{n} {types[k]} NULL" for n, k in meta),
        }

    def fill(self, p: Params) -> dict[str, str]:
        site = self.site
        values = []
        for c in self.cols:
            expr = site.value(c, p)
            if c.name == self.kv:
                expr = f"COALESCE({expr}, 1)"
            elif c.name in self.vs.values():
                expr = f"COALESCE({expr}, '')"
            values.append(expr)
        # sp_o<i> NULL in so many words: MariaDB's copy of a NOT NULL column has no default
        return {
            "columns": ", ".join(
                [f"sp_b{j}, sp_n{j}" for j in range(len(self.groups))]
                + [f"sp_v{i}" for i in range(len(self.cols))]
                + [f"sp_o{i}" for i in range(len(self.cols))]
            ),
            "values": ", ".join(
                [
                    f"{site.befores(self.vs[g], p)}, {site.befores(self.vs[g] + MADE, p)}"
                    for g in self.groups
                ]
                + values
                + ["NULL"] * len(self.cols)
            ),
        }

    def local(self) -> dict[str, str]:
        q, s = self.site.q, self._set
        sets = [f"{s('sp_hl')} = 1", f"{s('sp_lkv')} = t.{q(self.kv)}"]
        sets += [f"{s(f'sp_l{j}')} = t.{q(self.vs[g])}" for j, g in enumerate(self.groups)]
        return {
            "target": self.site.integ.qualified(self.t.target.ref),
            "match": self.match(),
            "sets": ", ".join(sets),
            "key_json": self.site.key_json([self.v(k) for k in self.t.key]),
        }

    # -- decisions ----------------------------------------------------------------------------
    def _touched(self, j: int) -> str:
        """The change made group ``j``'s version (not one applied at its site from elsewhere
        since), and the local version is one it was made from (a fast-forward) or the rule
        prefers the change's: the change takes the group (a row's or a deleted row's, in
        ``sp_l<j>``)."""
        site, rule = self.site, self.s.resolution
        r, mine, b = self.rver(j), f"d.sp_l{j}", f"d.sp_b{j}"
        touched = (
            f"NOT ({site.same(r, mine)}) AND {site.in_set(f'd.sp_n{j}', r)} AND {self._own(j)}"
        )
        either = f"({site.in_set(b, mine)} OR {site.newer(r, mine, rule)})"
        return f"({touched} AND {either})"

    def _remade(self) -> str:
        """A key without a row whose tombstone of the change's incarnation kept the deleted
        row (in ``sp_o<i>``, its versions in ``sp_l<j>``): the change is decided against it
        group by group, and the row made again if the change beats the delete, else the
        groups taken merged into the deleted row (``merged_row``)."""
        return f"d.sp_hl = 0 AND d.sp_tkv = {self.rkv()} AND d.sp_tr IS NOT NULL"

    def _restored(self) -> str:
        """A key whose row of the delete's incarnation this site deleted already, its
        tombstone keeping the row (in ``sp_o<i>``): put back for the delete to take away
        (``CdrSite.undelete``)."""
        return f"(d.sp_tkv IS NOT NULL AND d.sp_tkv = {self.rkv()} AND d.sp_tr IS NOT NULL)"

    def merged(self) -> str:
        """An incoming insert/update that lost to the delete of its incarnation here and took
        some group into the tombstone's deleted row (``apply_upsert.sql``, 2)."""
        anyf = " OR ".join(f"d.sp_f{j} = 1" for j in range(len(self.groups)))
        return f"(d.sp_ins = 0 AND {self._remade()} AND ({anyf}))"

    def undelete(self) -> dict[str, str]:
        """``undelete.sql``'s: the deleted rows put back, every column as deleted."""
        q = self.site.q
        return {
            "target": self.site.integ.qualified(self.t.target.ref),
            "columns": ", ".join(q(c.name) for c in self.cols),
            "values": ", ".join(f"d.sp_o{i}" for i in range(len(self.cols))),
            "restored": self._restored(),
        }

    def decide_upsert(self) -> dict[str, str]:
        site, rule = self.site, self.s.resolution
        rkv = self.rkv()
        takes = []
        for j in range(len(self.groups)):
            # a row of the same incarnation, or a deleted row made again: per group; a newer
            # incarnation, or a key without a row or deleted row: every group
            takes.append(
                f"{self._set(f'sp_f{j}')} = CASE WHEN d.sp_hl = 1 AND ({rkv} > d.sp_lkv OR "
                f"({rkv} = d.sp_lkv AND {self._touched(j)})) THEN 1 "
                f"WHEN d.sp_hl = 0 AND NOT ({self._remade()}) THEN 1 "
                f"WHEN {self._remade()} AND (d.sp_l{j} IS NULL OR {self._touched(j)}) THEN 1 "
                "ELSE 0 END"
            )
        anyf = " OR ".join(f"d.sp_f{j} = 1" for j in range(len(self.groups)))
        ins = (
            f"d.sp_hl = 0 AND (d.sp_tkv IS NULL OR d.sp_tkv < {rkv} OR (d.sp_tkv = {rkv} AND "
            f"{site.newer(self.newest_r(), 'd.sp_tv', rule)}))"
        )
        return {
            "takes": ", ".join(takes),
            "flags": (
                f"{self._set('sp_upd')} = CASE WHEN d.sp_hl = 1 AND ({anyf}) THEN 1 ELSE 0 END, "
                f"{self._set('sp_ins')} = CASE WHEN {ins} THEN 1 ELSE 0 END"
            ),
        }

    def changed(self) -> str:
        """The local row changed since the version the incoming change was made from."""
        site = self.site
        return (
            "("
            + " OR ".join(
                f"NOT ({site.in_set(f'd.sp_b{j}', f'd.sp_l{j}')})" for j in range(len(self.groups))
            )
            + ")"
        )

    def decide_delete(self) -> dict[str, str]:
        rule, rkv = self.s.resolution, self.rkv()
        wins = self.site.newer("COALESCE(d.sp_dv, '')", self.newest_l(), rule)
        # a row put back (this site deleted it already) is deleted again, whatever changed
        delete = (
            f"d.sp_hl = 1 AND (d.sp_lkv < {rkv} OR (d.sp_lkv = {rkv} AND "
            f"(NOT {self.changed()} OR {wins} OR {self._restored()})))"
        )
        # the groups the delete's window changed before it deleted (its row's versions it
        # made) are taken as an update's: a delete that loses leaves them in the row; one
        # that wins, in the row it deletes (the capture of that row and its tombstone)
        takes = ", ".join(
            f"{self._set(f'sp_f{j}')} = CASE WHEN d.sp_hl = 1 AND "
            f"d.sp_lkv = {rkv} AND {self._touched(j)} THEN 1 ELSE 0 END"
            for j in range(len(self.groups))
        )
        anyf = " OR ".join(f"d.sp_f{j} = 1" for j in range(len(self.groups)))
        # every incoming delete leaves its tombstone, also one skipped because the key is a
        # newer incarnation here and one the row here wins against: its own site keeps one
        # (its trigger wrote it), so every site then holds it, and purge can take it away
        return {
            "delete": f"{self._set('sp_del')} = CASE WHEN {delete} THEN 1 ELSE 0 END",
            "tomb": f"{self._set('sp_tomb')} = 1",
            "takes": takes,
            # a delete of a newer incarnation takes away a row of an older one: the row is
            # given the delete's key version first, so that its capture here says which
            # incarnation ended (a site after this one in a ring then ends the same one,
            # and ignores the older incarnation's changes as this one does)
            "flags": f"{self._set('sp_upd')} = CASE WHEN {anyf} OR "
            f"(d.sp_del = 1 AND d.sp_lkv < {rkv}) THEN 1 ELSE 0 END",
        }

    def made_from(self) -> str:
        """``forward_delete.sql``'s row a delete's window changed into the row it deleted
        (``d.sp_c``): its version of each group the window made is ``*``, the others as
        they are, so the read of an UPDATE from it to the row says the window made those
        groups and no others (what the deleting site's window said: ``sp_n<j>``)."""
        site = self.site
        members = []
        for j, g in enumerate(self.groups):
            r = self.rver(j)
            made = site.in_set(f"d.sp_n{j}", r)
            members.append((self.vs[g], f"CASE WHEN {made} THEN '*' ELSE {r} END"))
        return site.json_with("d.sp_c", members)

    def restore(self) -> dict[str, str]:
        """``d_tombstone``'s: the deleted row's values and versions (``CdrSite.restore``)."""
        raw = self.site.restore(self)
        raw["versions"] = ", ".join(
            f"{self._set(f'sp_l{j}')} = d.sp_o{self.idx[self.vs[g]]}"
            for j, g in enumerate(self.groups)
        )
        raw["remade"] = self._remade()
        return raw

    # -- writes -------------------------------------------------------------------------------
    def _common(self) -> dict[str, str]:
        site = self.site
        target_cols = [c.name for c in self.t.target.columns]
        return {
            "target": site.integ.qualified(self.t.target.ref),
            "match": self.match(),
            "local_row": site.row_json("t", target_cols),
            "rkv": self.rkv(),
            "rkv_text": site.as_text(self.rkv()),
            "lkv_text": site.as_text("d.sp_lkv"),
            "newest_r": self.newest_r(),
            "newest_l": self.newest_l(),
        }

    def group_conflicts(self, raw: dict[str, str], rows: str, local_row: str | None = None) -> str:
        """The conflicts of every group (``group_conflicts.sql``) of the rows ``rows``, the
        local row ``local_row`` (else the target's)."""
        site = self.site
        return "\nUNION ALL\n".join(
            site.sql(
                "group_conflicts",
                {
                    **raw,
                    "group": site.lit(g),
                    "local": f"d.sp_l{j}",
                    "remote": self.rver(j),
                    "taken": f"d.sp_f{j}",
                    "local_row": local_row or raw["local_row"],
                    "both": f"{rows} AND {self._both(j)}",
                },
            )[0]
            for j, g in enumerate(self.groups)
        )

    def _live(self) -> str:
        """A row at the target of the change's incarnation."""
        return f"d.sp_hl = 1 AND {self.rkv()} = d.sp_lkv"

    def apply_upsert(self) -> dict[str, str]:
        site, q = self.site, self.site.q
        raw = self._common()
        raw["group_conflicts"] = self.group_conflicts(raw, self._live())
        # a deleted row made again: its groups' conflicts with the change, its row the local
        raw["remade_conflicts"] = self.group_conflicts(
            raw, f"d.sp_ins = 1 AND {self._remade()}", "d.sp_tr"
        )
        raw.update(self._sets())
        raw["columns"] = ", ".join(q(c.name) for c in self.cols)
        values = []
        for i, c in enumerate(self.cols):
            g = self.group_of[c.name]
            if g is None:
                values.append(f"d.sp_v{i}")
            else:
                # a group not taken: the deleted row's (a key without one takes every group)
                j = self.groups.index(g)
                values.append(f"CASE WHEN d.sp_f{j} = 1 THEN d.sp_v{i} ELSE d.sp_o{i} END")
        raw["d_values"] = ", ".join(values)
        raw["remade"] = self._remade()
        raw["merged_row"] = site.row_text(
            [(c.name, v) for c, v in zip(self.cols, values, strict=True)]
        )
        return raw

    def _both(self, j: int) -> str:
        """Group ``j`` changed at both sites since the version the change was made from."""
        site, r, mine = self.site, self.rver(j), f"d.sp_l{j}"
        return (
            f"NOT ({site.same(r, mine)}) AND {site.in_set(f'd.sp_n{j}', r)} "
            f"AND NOT ({site.in_set(f'd.sp_b{j}', mine)}) AND {self._own(j)}"
        )

    def _own(self, j: int) -> str:
        """The change's version of group ``j`` was not made here. A site's own version
        comes back to it only inside a row of several origins (``CdrSite.read_query``);
        the site had it first, and what it holds now it has decided since: it keeps it,
        and there is no conflict."""
        return f"NOT ({self.site.made_here(self.rver(j))})"

    def _sets(self) -> dict[str, str]:
        """The SETs of an UPDATE of the target taking the groups decided (``sp_f<j>``)."""
        q = self.site.q
        sets = []
        for c in self.cols:
            if c.name in self.t.key:
                continue
            col = q(c.name)
            if c.name == self.kv:
                value = f"CASE WHEN {self.rkv()} > t.{col} THEN {self.rkv()} ELSE t.{col} END"
            else:
                j = self.groups.index(self.group_of[c.name] or DEFAULT_GROUP)
                value = f"CASE WHEN d.sp_f{j} = 1 THEN {self.v(c.name)} ELSE t.{col} END"
            sets.append(f"{self._target_set(col)} = {value}")
        return {"sets": ", ".join(sets) or f"{self._target_set(q(self.kv))} = t.{q(self.kv)}"}

    def _target_set(self, col: str) -> str:
        return f"t.{col}" if self.site.SET_PREFIX else col

    def apply_delete(self) -> dict[str, str]:
        raw = self._common()
        raw["changed"] = self.changed()
        op = ">" if self.s.resolution == "latest" else "<"
        raw["op"] = op
        # per group, also of a delete that wins: the groups its window changed go into the
        # row it deletes, and one the row changed too loses its version there
        raw["group_conflicts"] = self.group_conflicts(raw, self._live())
        # two deletes of one row are no conflict of the row ("*"): a row put back records
        # none (a group both changed is one, as above)
        raw["restored"] = self._restored()
        raw.update(self._sets())
        target_cols = [c.name for c in self.t.target.columns]
        raw["deleted_row"] = self.site.deleted_row("t", target_cols)
        return raw


def quote_all(quote: Callable[[str], str], names: Sequence[str]) -> str:
    return ", ".join(quote(n) for n in names)
