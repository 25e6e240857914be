"""Conflict resolution at a PostgreSQL site: the bookkeeping ``cdr add`` puts on a table,
the read of its change records with the versions they were made from, and the apply step
that decides each incoming change in SQL inside the round's transaction (``core/cdr.py``
holds the rules this SQL follows, as a table).

Bookkeeping on the table (``{p}cdr_kv`` key version, ``{p}cdr_v`` the default group's
version, ``{p}cdr_v_<group>`` each named group's): versions are ``time|location`` text, the
time in UTC with microseconds, so ``COLLATE "C"`` order is the order of ``(time, location)``
at every site. A BEFORE trigger stamps them on local writes and leaves replicated writes
(the origin setting is set) as they came; an AFTER DELETE trigger writes the tombstone of a
local delete. Keys are compared as ``json_build_array(<key columns>)::text`` everywhere.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.cdr import DEFAULT_GROUP
from syncpoint.core.rounds import TableWindow
from syncpoint.vendors.integratebase import ApplyTable
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.integrate import PostgresIntegrate
from syncpoint.vendors.sqlfiles import SqlFiles

C = ' COLLATE "C"'


@dataclass(frozen=True)
class CdrTable:
    """A table's settings as stored at the site (``{p}cdr``)."""

    table: str
    resolution: str
    groups: dict[str, list[str]]  # named groups only
    key: list[str]


def column_names(prefix: str, groups: list[str]) -> tuple[str, dict[str, str]]:
    """The key version column and the version column of each group (default first)."""
    vs = {DEFAULT_GROUP: f"{prefix}cdr_v"}
    vs.update({g: f"{prefix}cdr_v_{g}" for g in groups})
    return f"{prefix}cdr_kv", vs


class PostgresCdr:
    vendor = "postgres"

    def __init__(self, integ: PostgresIntegrate, origin_setting: str):
        self.integ = integ
        self.prefix = integ.prefix
        self.origin_setting = origin_setting
        p = self.prefix
        self.idents = {
            "cdr": f"{p}cdr",
            "tombstones": f"{p}tombstones",
            "conflicts": f"{p}conflicts",
        }

    def q(self, name: str) -> str:
        return str(dialect.quote(name))

    def _stmts(self, name: str, raw: dict[str, str] | None = None, **lits: str) -> list[str]:
        sql = SqlFiles(self.vendor, "cdr", self.idents, comments=False)
        return sql.statements(name, raw=raw, literals=lits)

    def _run(self, conn: Any, name: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        cur = conn.cursor()
        with dialect.translated(self.integ.location, None):
            for s in self._stmts(name, **kw):
                cur.execute(s, params) if params and "%(" in s else cur.execute(s)
        return cur

    # -- settings ---------------------------------------------------------------------------
    def has_tables(self, conn: Any) -> bool:
        cur = conn.cursor()
        cur.execute("SELECT to_regclass(%s) IS NOT NULL", (self.q(self.idents["cdr"]),))
        return bool(cur.fetchone()[0])

    def settings(self, conn: Any) -> dict[str, CdrTable]:
        if not self.has_tables(conn):
            return {}
        rows = self._run(conn, "settings").fetchall()
        return {t: CdrTable(t, r, json.loads(g), json.loads(k)) for t, r, g, k in rows}

    # -- add / remove -------------------------------------------------------------------------
    def _names(self, t: TableName) -> dict[str, str]:
        h = hashlib.sha1(str(t).encode()).hexdigest()[:10]
        schema = self.q(t.schema_ or dialect.DEFAULT_SCHEMA)
        return {
            "target": self.integ.qualified(t),
            "fn": f"{schema}.{self.q(f'{self.prefix}cdr_{h}')}",
            "trg_row": self.q(f"{self.prefix}cdr_row"),
            "trg_del": self.q(f"{self.prefix}cdr_del"),
            "tombstones": f"{self.q(dialect.DEFAULT_SCHEMA)}.{self.q(self.idents['tombstones'])}",
        }

    def add_statements(
        self, table: str, ref: TableName, setting: CdrTable, columns: list[str], location: str
    ) -> list[str]:
        kv, vs = column_names(self.prefix, list(setting.groups))
        grouped = {c for cols in setting.groups.values() for c in cols}
        members = {DEFAULT_GROUP: [c for c in columns if c not in grouped and c not in setting.key]}
        members.update(setting.groups)
        add = [f"ADD COLUMN {self.q(kv)} bigint NOT NULL DEFAULT 1"] + [
            f"ADD COLUMN {self.q(v)} text NOT NULL DEFAULT ''" for v in vs.values()
        ]
        stamp_all = " ".join(f"NEW.{self.q(v)} := v;" for v in vs.values())
        changed = []
        for g, v in vs.items():
            cols = members[g]
            if cols:
                new = ", ".join(f"NEW.{self.q(c)}" for c in cols)
                old = ", ".join(f"OLD.{self.q(c)}" for c in cols)
                changed.append(
                    f"IF ROW({new}) IS DISTINCT FROM ROW({old}) THEN NEW.{self.q(v)} := v; "
                    f"ELSE NEW.{self.q(v)} := OLD.{self.q(v)}; END IF;"
                )
            else:
                changed.append(f"NEW.{self.q(v)} := OLD.{self.q(v)};")
        raw = dict(self._names(ref))
        raw.update(
            add_columns=", ".join(add),
            kv=self.q(kv),
            stamp_all=stamp_all,
            stamp_changed=" ".join(changed),
            new_key=_key_json("NEW", setting.key),
            old_key=_key_json("OLD", setting.key),
        )
        return self._stmts(
            "add", raw, origin_guc=self.origin_setting, location=location, table=table
        )

    def add(
        self,
        conn: Any,
        table: str,
        ref: TableName,
        setting: CdrTable,
        columns: list[str],
        location: str,
    ) -> None:
        """Bookkeeping tables, columns, triggers and the settings row (caller commits)."""
        cur = conn.cursor()
        with dialect.translated(self.integ.location, table):
            for s in self._stmts("create"):
                cur.execute(s)
            for s in self.add_statements(table, ref, setting, columns, location):
                if "%(" in s:
                    cur.execute(
                        s,
                        {
                            "table": table,
                            "resolution": setting.resolution,
                            "groups": json.dumps(setting.groups),
                            "key": json.dumps(setting.key),
                        },
                    )
                else:
                    cur.execute(s)

    def remove(self, conn: Any, table: str, ref: TableName, setting: CdrTable) -> None:
        kv, vs = column_names(self.prefix, list(setting.groups))
        raw = dict(self._names(ref))
        raw["drop_columns"] = ", ".join(
            f"DROP COLUMN IF EXISTS {self.q(c)}" for c in [kv, *vs.values()]
        )
        cur = conn.cursor()
        with dialect.translated(self.integ.location, table):
            for s in self._stmts("remove", raw):
                cur.execute(s, {"table": table}) if "%(" in s else cur.execute(s)
            cur.execute(self._stmts("settings")[0])
            if not cur.fetchall():
                for s in self._stmts("drop_tables"):
                    cur.execute(s)

    def set_resolution(self, conn: Any, table: str, resolution: str) -> None:
        self._run(conn, "set_resolution", {"table": table, "resolution": resolution})

    def conflicts(self, conn: Any) -> dict[str, dict[str, Any]]:
        """Per table: how many conflicts were decided here, and the latest."""
        if not self.has_tables(conn):
            return {}
        out: dict[str, dict[str, Any]] = {}
        for table, n, key, group, winner, rule, at in self._run(conn, "conflict_counts"):
            if table not in out:
                out[table] = {
                    "count": int(n),
                    "latest": {
                        "key": key,
                        "column_group": group,
                        "winner": winner,
                        "resolution": rule,
                        "decided_at": at,
                    },
                }
        return out

    def tombstones(self, conn: Any) -> list[tuple[str, str, int, Any]]:
        return list(self._run(conn, "tombstones").fetchall())

    def purge_tombstones(self, conn: Any, keys: list[tuple[str, str, int]]) -> None:
        (stmt,) = self._stmts("tombstone_purge")
        cur = conn.cursor()
        for table, key, kv in keys:
            cur.execute(stmt, {"table": table, "key": key, "kv": kv})

    # -- read at the source --------------------------------------------------------------------
    def read_query(self, plain: str, table: str) -> str:
        (stmt,) = self._stmts("read", {"read": plain}, table=table, kv=f"{self.prefix}cdr_kv")
        return stmt

    # -- apply at the target -------------------------------------------------------------------
    def upsert(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, setting: CdrTable
    ) -> None:
        for _name, sql, p in _apply_sql(self, round_id, w, t, setting, "U"):
            with dialect.translated(self.integ.location, str(t.target.ref)):
                conn.cursor().execute(sql, p)

    def delete(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, setting: CdrTable
    ) -> None:
        for _name, sql, p in _apply_sql(self, round_id, w, t, setting, "D"):
            with dialect.translated(self.integ.location, str(t.target.ref)):
                conn.cursor().execute(sql, p)


def _key_json(row: str, key: list[str]) -> str:
    return "json_build_array(" + ", ".join(f"{row}.{dialect.quote(k)}" for k in key) + ")::text"


def _apply_sql(
    cdr: PostgresCdr, round_id: str, w: TableWindow, t: ApplyTable, s: CdrTable, action: str
) -> list[tuple[str, str, Any]]:
    """The statements of one window's CDR apply (see ``apply_*.sql`` for what each does)."""
    from syncpoint.vendors.integratebase import Params

    q = cdr.q
    integ = cdr.integ
    kvcol, vs = column_names(cdr.prefix, list(s.groups))
    p = Params()
    p["round_id"], p["tbl"], p["table"], p["rule"] = round_id, w.tbl, w.table, s.resolution
    cols = list(t.columns)
    values = ", ".join(
        f"{integ._value(c, p)} AS v{i}"
        for i, c in enumerate(cols)  # noqa: SLF001
    )
    idx = {c.name: i for i, c in enumerate(cols)}
    match = " AND ".join(f"t.{q(k)} = x.v{idx[k]}" for k in t.key)
    key_text = "json_build_array(" + ", ".join(f"x.v{idx[k]}" for k in t.key) + ")::text"
    # records captured before cdr add carry no bookkeeping: key version 1, the empty version
    kv_r = f"coalesce((x.c->>{p.bind(kvcol)})::bigint, 1)"
    op = ">" if s.resolution == "latest" else "<"
    grouped = {c: g for g, cs in s.groups.items() for c in cs}
    version_of = {v: g for g, v in vs.items()}

    def ver(src: str, g: str) -> str:
        if src == "x.b":  # null for an insert: no version it was made from
            return (
                f"(CASE WHEN jsonb_typeof(x.b) = 'object' "
                f"THEN coalesce(x.b->>{p.bind(vs[g])}::text, '') END)"
            )
        return f"coalesce({src}->>{p.bind(vs[g])}::text, '')"

    def loc(g: str) -> str:
        return f"t.{q(vs[g])}"

    newest_r = "GREATEST(" + ", ".join(f"{ver('x.c', g)}{C}" for g in vs) + ")"
    newest_l = "GREATEST(" + ", ".join(f"{loc(g)}{C}" for g in vs) + ")"
    raw = {
        "staging": q(integ.idents["staging"]),
        "target": integ.qualified(t.target.ref),
        "values": values,
        "match": match,
        "key_text": key_text,
        "kv_r": kv_r,
        "kv": q(kvcol),
        "tombstones": q(cdr.idents["tombstones"]),
        "conflicts": q(cdr.idents["conflicts"]),
        "newest_r": newest_r,
        "newest_l": newest_l,
        "op": op,
        "action": "'U'" if action == "U" else "'D'",
    }
    if action == "U":
        take = {
            g: (
                f"({kv_r} > t.{q(kvcol)} OR ({ver('x.c', g)} IS DISTINCT FROM {loc(g)} AND "
                f"({loc(g)} = {ver('x.b', g)} OR ({ver('x.c', g)} IS DISTINCT FROM "
                f"{ver('x.b', g)} AND {ver('x.c', g)}{C} {op} {loc(g)}{C}))))"
            )
            for g in vs
        }
        sets = []
        for c in cols:
            if c.name in t.key:
                continue
            if c.name == kvcol:
                sets.append(f"{q(c.name)} = GREATEST(t.{q(kvcol)}, {kv_r})")
                continue
            g = next((gg for gg, v in vs.items() if v == c.name), None)
            if g is None:
                g = grouped.get(c.name, DEFAULT_GROUP)
            value = ver("x.c", g) if c.name in vs.values() else f"x.v{idx[c.name]}"
            sets.append(f"{q(c.name)} = CASE WHEN {take[g]} THEN {value} ELSE t.{q(c.name)} END")
        groups_values = ", ".join(
            f"({p.bind(g)}::text, {loc(g)}, {ver('x.c', g)}, {ver('x.b', g)})" for g in vs
        )
        raw.update(
            sets=", ".join(sets) or f"{q(kvcol)} = t.{q(kvcol)}",
            groups_values=groups_values,
            columns=", ".join(q(c.name) for c in cols),
            column_values=", ".join(
                kv_r
                if c.name == kvcol
                else ver("x.c", version_of[c.name])
                if c.name in version_of
                else f"x.v{i}"
                for i, c in enumerate(cols)
            ),
        )
        names = ["apply_upsert"]
    else:
        changed = " OR ".join(f"{loc(g)} IS DISTINCT FROM {ver('x.b', g)}" for g in vs)
        raw.update(changed=f"({changed})")
        names = ["apply_delete"]
    out: list[tuple[str, str, Any]] = []
    for name in names:
        for stmt in cdr._stmts(name, raw):  # noqa: SLF001
            out.append((name, stmt, p))
    return out
