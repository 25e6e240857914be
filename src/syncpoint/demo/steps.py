"""The demo's steps, one function each, sharing one ``DemoState``.

v1 covers capture: two SQLite sources (``dec01``, ``dec02``) with customers, orders and
order lines; a channel file; ``install``; application transactions (one rolled back, one
with a foreign-key cascade, one ``INSERT OR REPLACE``); a tick per location; the change
records read back; a replay of those records checked against the source tables; status.
Later steps (rounds into a target, receive stamps, a conflict, a gate handshake) are added
here as further functions and called from ``syncpoint.demo.run``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from syncpoint.channel import Channel
from syncpoint.config import TableName
from syncpoint.core.model import loads

LOCATIONS = ("dec01", "dec02")
TABLES = ("customers", "orders", "order_lines")
KEYS = {"customers": ("id",), "orders": ("id",), "order_lines": ("order_id", "line_no")}
READ = {
    "customers": "SELECT * FROM customers",
    "orders": "SELECT * FROM orders",
    "order_lines": "SELECT * FROM order_lines",
}

SCHEMA = (
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
    "email TEXT UNIQUE, country TEXT)",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, "
    "customer_id INTEGER NOT NULL REFERENCES customers (id), "
    "ordered_at TEXT NOT NULL, status TEXT NOT NULL, total NUMERIC)",
    "CREATE TABLE order_lines (order_id INTEGER NOT NULL REFERENCES orders (id) "
    "ON DELETE CASCADE, line_no INTEGER NOT NULL, product TEXT NOT NULL, qty INTEGER, "
    "price REAL, PRIMARY KEY (order_id, line_no))",
)


@dataclass
class Transaction:
    """One application transaction of the demo and whether it is committed."""

    label: str
    statements: list[tuple[str, tuple[Any, ...]]]
    commit: bool = True


@dataclass
class DemoState:
    workdir: Path
    config: Path | None = None
    channel: Channel | None = None
    written: dict[str, list[str]] = field(default_factory=dict)
    ticks: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)

    def path(self, location: str) -> Path:
        return self.workdir / f"{location}.db"

    @property
    def ok(self) -> bool:
        return all(c["ok"] for c in self.checks)


def create_sources(state: DemoState) -> None:
    """Two fresh SQLite files with the shop's related tables."""
    state.workdir.mkdir(parents=True, exist_ok=True)
    for loc in LOCATIONS:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{state.path(loc)}{suffix}").unlink(missing_ok=True)
        conn = sqlite3.connect(state.path(loc), isolation_level=None)
        for ddl in SCHEMA:
            conn.execute(ddl)
        conn.close()


def write_config(state: DemoState) -> None:
    """The channel file: both files capture, the three tables form one sync group."""
    data = {
        "channel": "shop",
        "application": "demo",
        "prefix": "repl_",
        "locations": {
            loc: {"url": f"sqlite:///{state.path(loc)}", "capture": True} for loc in LOCATIONS
        },
        "tables": [{"name": t} for t in TABLES],
        "sync_groups": {"shop": list(TABLES)},
    }
    state.config = state.workdir / "syncpoint.yaml"
    state.config.write_text(
        "# written by `syncpoint demo`\n" + yaml.safe_dump(data, sort_keys=False),
        encoding="utf-8",
    )
    state.channel = Channel.from_file(state.config)


def install(state: DemoState) -> None:
    assert state.channel is not None
    state.channel.install()


def _transactions(loc: str) -> list[Transaction]:
    base = 100 if loc == "dec01" else 200  # keys of the two sites never collide
    c1, c2, o1, o2 = base + 1, base + 2, base * 10 + 1, base * 10 + 2
    return [
        Transaction(
            "two customers and an order with two lines",
            [
                ("INSERT INTO customers VALUES (?, ?, ?, ?)", (c1, "Ada", f"ada@{loc}", "FR")),
                ("INSERT INTO customers VALUES (?, ?, ?, ?)", (c2, "Bo", f"bo@{loc}", "DE")),
                ("INSERT INTO orders VALUES (?, ?, ?, 'new', 30.50)", (o1, c1, "2024-05-01T10:00")),
                ("INSERT INTO order_lines VALUES (?, 1, 'pen', 2, 2.25)", (o1,)),
                ("INSERT INTO order_lines VALUES (?, 2, 'ink', 1, 26.0)", (o1,)),
            ],
        ),
        Transaction(
            "order paid, a line changed, a second order",
            [
                ("UPDATE orders SET status = 'paid' WHERE id = ?", (o1,)),
                ("UPDATE order_lines SET qty = 3 WHERE order_id = ? AND line_no = 1", (o1,)),
                ("INSERT INTO orders VALUES (?, ?, ?, 'new', 9.99)", (o2, c2, "2024-05-02T08:30")),
                ("INSERT INTO order_lines VALUES (?, 1, 'paper', 1, 9.99)", (o2,)),
            ],
        ),
        Transaction(
            "a customer that never was (rolled back)",
            [
                ("INSERT INTO customers VALUES (?, 'Ghost', NULL, 'XX')", (base + 9,)),
                ("DELETE FROM orders WHERE id = ?", (o1,)),
            ],
            commit=False,
        ),
        Transaction(
            "order cancelled (its lines go by ON DELETE CASCADE), email replaced",
            [
                ("DELETE FROM orders WHERE id = ?", (o2,)),
                (
                    "INSERT OR REPLACE INTO customers VALUES (?, 'Bo B.', ?, 'DE')",
                    (c2, f"bo@{loc}"),
                ),
            ],
        ),
    ]


def write_changes(state: DemoState) -> None:
    """The application's transactions at each location, on plain sqlite3 connections, with
    a ticker making a position after each (as ``run --follow`` would, on its own clock)."""
    assert state.channel is not None
    for loc in LOCATIONS:
        cap = state.channel.capture(loc)
        conn = sqlite3.connect(state.path(loc), isolation_level=None, timeout=30)
        conn.execute("PRAGMA foreign_keys = ON")
        done = []
        for t in _transactions(loc):
            conn.execute("BEGIN")
            for sql, params in t.statements:
                conn.execute(sql, params)
            conn.execute("COMMIT" if t.commit else "ROLLBACK")
            done.append(("committed: " if t.commit else "rolled back: ") + t.label)
            ticker = cap.connect()
            try:
                cap.tick(ticker)
            finally:
                ticker.close()
        conn.close()
        state.written[loc] = done


def tick(state: DemoState) -> None:
    """A commit-ordered position per location: everything committed so far is at or below."""
    assert state.channel is not None
    for loc in LOCATIONS:
        cap = state.channel.capture(loc)
        conn = cap.connect()
        try:
            t = cap.tick(conn)
        finally:
            conn.close()
        state.ticks[loc] = {"context": t.context, "guaranteed": t.guaranteed.isoformat()}


def read_changes(state: DemoState) -> None:
    """Every change record up to the tick, per location, in repl_key order."""
    assert state.channel is not None
    for loc in LOCATIONS:
        cap = state.channel.capture(loc)
        conn = cap.connect()
        out: list[dict[str, Any]] = []
        try:
            for table in TABLES:
                for r in cap.changes(conn, TableName(name=table), 0, state.ticks[loc]["context"]):
                    out.append(
                        {
                            "repl_key": r.repl_key,
                            "context": r.context,
                            "trans_key": r.trans_key,
                            "dbid": r.dbid,
                            "table": r.tablename,
                            "action": r.db_action,
                            "content": r.content,
                            "oldcontent": r.oldcontent,
                            "captured_at": r.captured_at.isoformat() if r.captured_at else None,
                        }
                    )
        finally:
            conn.close()
        state.records[loc] = sorted(out, key=lambda r: r["repl_key"])


def verify(state: DemoState) -> None:
    """Replay the records onto empty tables and compare with the sources: nothing lost,
    nothing twice, nothing from the rolled-back transaction."""
    for loc in LOCATIONS:
        conn = sqlite3.connect(state.path(loc))
        for table in TABLES:
            replayed = _replay([r for r in state.records[loc] if r["table"] == table], KEYS[table])
            cur = conn.execute(READ[table])
            cols = [d[0] for d in cur.description]
            source = {
                tuple(row[cols.index(k)] for k in KEYS[table]): dict(zip(cols, row, strict=True))
                for row in cur.fetchall()
            }
            ok = replayed == source
            state.checks.append(
                {
                    "location": loc,
                    "table": table,
                    "rows": len(source),
                    "ok": ok,
                    "check": "replayed change records equal the source table",
                }
            )
        ghost = conn.execute("SELECT count(*) FROM customers WHERE name = 'Ghost'").fetchone()
        conn.close()
        captured = any("Ghost" in (r["content"] or "") for r in state.records[loc])
        state.checks.append(
            {
                "location": loc,
                "table": "customers",
                "rows": ghost[0],
                "ok": not captured,
                "check": "the rolled-back transaction left no change record",
            }
        )


def _replay(records: list[dict[str, Any]], key: tuple[str, ...]) -> dict[Any, Any]:
    state: dict[Any, Any] = {}
    for r in records:
        old, new = loads(r["oldcontent"]), loads(r["content"])
        if old is not None:
            state.pop(tuple(old[k] for k in key), None)
        if new is not None:
            state[tuple(new[k] for k in key)] = {
                k: float(v) if isinstance(v, Decimal) else v for k, v in new.items()
            }
    return state


def status(state: DemoState) -> None:
    assert state.channel is not None
    state.status = state.channel.capture_status()
