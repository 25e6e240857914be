"""Receive stamps tell the truth (docs/guarantees.md §4) under random capture/commit/run orders.

A hypothesis state machine drives three capture locations (PostgreSQL, MariaDB, SQLite) with
transactions that open, write, commit or roll back in any order, and integrate runs that
reach some or all locations. A run applies each location's records up to a fresh tick into
the target (here a set of applied change keys, the data path being tested elsewhere) and
moves the stamps with the real tick times and the real stamp tables. After every run: no
change captured before a location's stamp is missing from the target.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from syncpoint.config import TableConfig
from syncpoint.core import stamps
from syncpoint.vendors import connect, of_url
from syncpoint.vendors.stampstore import StampStore
from tests.conftest import make_mariadb, make_pg, make_sqlite

LOCS = ("pgloc", "myloc", "slloc")
DDL = {
    "postgres": "CREATE TABLE public.t (id bigint PRIMARY KEY, v text)",
    "mariadb": "CREATE TABLE t (id bigint PRIMARY KEY, v text) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)",
}
TNAME = {"postgres": "public.t", "mariadb": "t", "sqlite": "t"}
_ids = itertools.count(1)


class StampsMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        tmp = Path(f"/tmp/sp_{uuid.uuid4().hex}")
        tmp.mkdir()
        self._gens = [make_pg(), make_mariadb(), make_sqlite(tmp)]
        self.dbs = {loc: next(gen) for loc, gen in zip(LOCS, self._gens, strict=True)}
        self.caps: dict[str, Any] = {}
        self.pos: dict[str, int] = {}
        self.first: dict[str, int] = {}
        for loc, db in self.dbs.items():
            db.execute(DDL[db.vendor])
            cap = of_url(db.url).Capture(loc, db.url, "repl_")
            conn = cap.connect()
            cap.install(conn, [TableConfig(name=TNAME[db.vendor])])
            self.pos[loc] = self.first[loc] = cap.tick(conn).context
            conn.close()
            self.caps[loc] = cap
        self.table = {loc: TableConfig(name=TNAME[db.vendor]).ref for loc, db in self.dbs.items()}
        self.open: dict[str, list[Any]] = {loc: [] for loc in LOCS}
        self.applied: set[tuple[str, int]] = set()
        self.target = connect(f"sqlite:///{tmp / 'target.db'}")
        self.store = StampStore("sqlite", "repl_", "prop", "cen")
        self.store.ensure(self.target)

    def teardown(self) -> None:
        for conns in self.open.values():
            for c in conns:
                c.close()
        self.target.close()
        for gen in self._gens:
            for _ in gen:
                pass

    # -- capture side ---------------------------------------------------------------------
    @precondition(lambda self: any(len(v) < 2 for k, v in self.open.items() if k != "slloc"))
    @rule(loc=st.sampled_from(LOCS[:2]))
    def begin_and_write(self, loc: str) -> None:
        if len(self.open[loc]) >= 2:
            return
        conn = self.dbs[loc].connect(autocommit=False)
        conn.cursor().execute(f"INSERT INTO t (id, v) VALUES ({next(_ids)}, 'open')")
        self.open[loc].append(conn)

    @rule(loc=st.sampled_from(LOCS))
    def write_and_commit(self, loc: str) -> None:
        conn = self.dbs[loc].connect(autocommit=True)
        conn.cursor().execute(f"INSERT INTO t (id, v) VALUES ({next(_ids)}, 'auto')")
        conn.close()

    @precondition(lambda self: any(self.open.values()))
    @rule(data=st.data(), commit=st.booleans())
    def finish(self, data: Any, commit: bool) -> None:
        loc = data.draw(st.sampled_from([k for k, v in self.open.items() if v]))
        conn = self.open[loc].pop(0)
        conn.commit() if commit else conn.rollback()
        conn.close()

    # -- integrate side -------------------------------------------------------------------
    @rule(reach=st.sets(st.sampled_from(LOCS), min_size=1))
    def run(self, reach: set[str]) -> None:
        candidates: dict[str, tuple[Any, int]] = {}
        for loc in sorted(reach):
            cap = self.caps[loc]
            conn = cap.connect()
            tick = cap.tick(conn)
            for rec in cap.changes(conn, self.table[loc], self.pos[loc], tick.context):
                self.applied.add((loc, rec.repl_key))
            conn.close()
            self.pos[loc] = tick.context
            candidates[loc] = (stamps.candidate(loc, tick), tick.context)
        self.target.execute("BEGIN IMMEDIATE")
        self.store.record(self.target, list(LOCS), candidates)
        self.target.commit()

    @invariant()
    def nothing_before_a_stamp_is_missing(self) -> None:
        have = self.store.read(self.target)
        for loc in LOCS:
            stamp = have.get(loc, (None, None))[0]
            if stamp is None:
                continue
            cap = self.caps[loc]
            conn = cap.connect()
            # the oracle reads every committed record, ticking only its own reader
            upto = cap.tick(conn).context
            recs = cap.changes(conn, self.table[loc], self.first[loc], upto)
            conn.close()
            for rec in recs:
                if rec.captured_at is not None and rec.captured_at < stamp:
                    assert (loc, rec.repl_key) in self.applied, (loc, rec, stamp)


StampsMachine.TestCase.settings = settings(
    max_examples=8,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
test_stamps_never_ahead_of_data = StampsMachine.TestCase
