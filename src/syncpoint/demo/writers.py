"""Live writers: one thread per source playing the shop's application for a few seconds.

Each writer makes small transactions on its own plain ``sqlite3`` connection (as any
application would, knowing nothing of syncpoint): new customers, orders with lines, status
and quantity changes, cancelled orders (their lines go by ``ON DELETE CASCADE``), customers
leaving with their orders, and transactions that roll back (their rows are named ``GHOST``).
What it did is counted per table and action, only for committed transactions.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from syncpoint.demo import shop

Statement = tuple[str, tuple[Any, ...]]
KINDS = (  # (kind, weight)
    ("new customer", 14),
    ("new order", 30),
    ("order progress", 24),
    ("customer moved", 10),
    ("order cancelled", 8),
    ("customer left", 4),
    ("rolled back", 10),
)
STATUSES = ("new", "paid", "shipped", "delivered")
PRODUCTS = (("pen", 2.25), ("ink", 26.0), ("paper", 9.99), ("stapler", 14.5), ("clips", 1.2))
COUNTRIES = ("FR", "DE", "NL", "BE", "IT", "ES")


@dataclass
class Plan:
    """One transaction: its statements, what it changes, and the bookkeeping after COMMIT."""

    statements: list[Statement]
    counts: list[tuple[str, str, int]]
    after_commit: Callable[[], None] = lambda: None
    commit: bool = True


@dataclass
class Order:
    customer: int
    lines: list[int]
    status: str = "new"


class Writer(threading.Thread):
    """The application at one source for ``seconds``; ``seed`` makes its choices repeatable."""

    def __init__(self, location: str, path: Path, seconds: float, seed: int):
        super().__init__(name=f"writer-{location}", daemon=True)
        self.location, self.path, self.seconds = location, path, seconds
        self.rnd = random.Random(seed)
        self.base = shop.ID_BASE[location]
        self.committed = self.rolled_back = 0
        self.busy = 0  # transactions given up on a lock timeout (rolled back, counted nowhere)
        self.changes: dict[str, dict[str, int]] = {}
        self.last_change_at: datetime | None = None  # of the last committed transaction
        self.error: str | None = None
        self.next_customer = self.next_order = 1
        self.customers: dict[int, str] = {}  # id -> email
        self.orders: dict[int, Order] = {}

    # -- the loop ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def opening(self, customers: int) -> None:
        """The shop's first customers (half of them with an order), before the live part."""
        conn = self._connect()
        try:
            for _ in range(customers):
                self._one(conn, self._new_customer())
        finally:
            conn.close()

    def run(self) -> None:
        try:
            conn = self._connect()
        except sqlite3.Error as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return
        try:
            deadline = time.monotonic() + self.seconds
            while time.monotonic() < deadline:
                self._one(conn, self._plan())
                time.sleep(self.rnd.uniform(0.005, 0.03))
        except Exception as exc:  # noqa: BLE001 - reported by the demo as a failed step
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            conn.close()

    def _one(self, conn: sqlite3.Connection, plan: Plan) -> None:
        try:
            conn.execute("BEGIN IMMEDIATE")  # the write lock first: no upgrade deadlock
            for sql, params in plan.statements:
                conn.execute(sql, params)
            # after the last write, on the capture's clock: every change of this
            # transaction was captured at or before this time
            clock = conn.execute(shop.CLOCK).fetchone()[0]
            conn.execute("COMMIT" if plan.commit else "ROLLBACK")
        except sqlite3.OperationalError as exc:
            busy = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if (exc.sqlite_errorcode or 0) & 0xFF not in busy:
                raise
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self.busy += 1
            return
        if not plan.commit:
            self.rolled_back += 1
            return
        self.committed += 1
        self.last_change_at = datetime.fromisoformat(clock).replace(tzinfo=UTC)
        plan.after_commit()
        for table, action, n in plan.counts:
            per = self.changes.setdefault(table, {})
            per[action] = per.get(action, 0) + n

    def _plan(self) -> Plan:
        kinds, weights = zip(*KINDS, strict=True)
        kind = self.rnd.choices(kinds, weights)[0]
        if not self.customers or (kind != "rolled back" and len(self.customers) < 3):
            kind = "new customer"
        if kind in ("order progress", "order cancelled") and not self.orders:
            kind = "new order"
        return getattr(self, "_" + kind.replace(" ", "_"))()

    # -- transactions -----------------------------------------------------------------------
    def _new_customer(self) -> Plan:
        cid = self.base + self.next_customer
        email = f"c{cid}@{self.location}.example"
        plan = self._new_order(cid) if self.rnd.random() < 0.5 else Plan([], [])

        def done() -> None:
            self.next_customer += 1
            self.customers[cid] = email
            inner()

        inner = plan.after_commit
        stmt = (shop.INSERT["customers"], (cid, f"Customer {cid}", email, self._country()))
        return Plan([stmt, *plan.statements], [("customers", "INSERT", 1), *plan.counts], done)

    def _new_order(self, customer: int | None = None) -> Plan:
        cid = customer if customer is not None else self.rnd.choice(list(self.customers))
        oid = self.base + self.next_order
        stmts: list[Statement] = [
            (shop.INSERT["orders"], (oid, cid, datetime.now(UTC).isoformat(), "new", 0))
        ]
        lines = list(range(1, self.rnd.randint(1, 3) + 1))
        for n in lines:
            product, price = self.rnd.choice(PRODUCTS)
            qty = self.rnd.randint(1, 5)
            stmts.append((shop.INSERT["order_lines"], (oid, n, product, qty, price)))
        stmts.append((shop.ORDER_TOTAL, (oid,)))

        def done() -> None:
            self.next_order += 1
            self.orders[oid] = Order(cid, lines)

        counts = [("orders", "INSERT", 1), ("order_lines", "INSERT", len(lines))]
        return Plan(stmts, [*counts, ("orders", "UPDATE", 1)], done)

    def _order_progress(self) -> Plan:
        oid = self.rnd.choice(list(self.orders))
        order = self.orders[oid]
        nxt = STATUSES[min(STATUSES.index(order.status) + 1, len(STATUSES) - 1)]
        stmts: list[Statement] = [(shop.ORDER_STATUS, (nxt, oid))]
        counts = [("orders", "UPDATE", 1)]
        if order.lines:
            line = self.rnd.choice(order.lines)
            stmts += [
                (shop.LINE_QTY, (self.rnd.randint(1, 9), oid, line)),
                (shop.ORDER_TOTAL, (oid,)),
            ]
            counts += [("order_lines", "UPDATE", 1), ("orders", "UPDATE", 1)]

        def done() -> None:
            order.status = nxt

        return Plan(stmts, counts, done)

    def _customer_moved(self) -> Plan:
        cid = self.rnd.choice(list(self.customers))
        email = f"c{cid}.{self.rnd.randint(1, 999)}@{self.location}.example"

        def done() -> None:
            self.customers[cid] = email

        return Plan(
            [(shop.CUSTOMER_MOVE, (self._country(), email, cid))],
            [("customers", "UPDATE", 1)],
            done,
        )

    def _order_cancelled(self) -> Plan:
        oid = self.rnd.choice(list(self.orders))
        lines = len(self.orders[oid].lines)

        def done() -> None:
            self.orders.pop(oid, None)

        counts = [("orders", "DELETE", 1), ("order_lines", "DELETE", lines)]
        return Plan([(shop.DELETE_ORDER, (oid,))], counts, done)

    def _customer_left(self) -> Plan:
        cid = self.rnd.choice(list(self.customers))
        mine = [o for o, v in self.orders.items() if v.customer == cid]
        stmts = [(shop.DELETE_ORDER, (o,)) for o in mine] + [(shop.DELETE_CUSTOMER, (cid,))]
        lines = sum(len(self.orders[o].lines) for o in mine)

        def done() -> None:
            for o in mine:
                self.orders.pop(o, None)
            self.customers.pop(cid, None)

        counts = [("orders", "DELETE", len(mine)), ("order_lines", "DELETE", lines)]
        return Plan(stmts, [("customers", "DELETE", 1), *counts], done)

    def _rolled_back(self) -> Plan:
        """Rows that never were: the application changes its mind."""
        ghost = self.base + 900_000 + self.rnd.randint(1, 99_999)
        stmts: list[Statement] = [
            (shop.INSERT["customers"], (ghost, shop.GHOST, None, "XX")),
            (shop.INSERT["orders"], (ghost, ghost, datetime.now(UTC).isoformat(), shop.GHOST, 1)),
            (shop.INSERT["order_lines"], (ghost, 1, shop.GHOST, 1, 1.0)),
        ]
        if self.orders:
            stmts.append((shop.ORDER_STATUS, (shop.GHOST, self.rnd.choice(list(self.orders)))))
        return Plan(stmts, [], commit=False)

    def _country(self) -> str:
        return self.rnd.choice(COUNTRIES)

    def summary(self) -> dict[str, Any]:
        return {
            "committed": self.committed,
            "rolled_back": self.rolled_back,
            "busy": self.busy,
            "changes": self.changes,
            "total_changes": sum(n for per in self.changes.values() for n in per.values()),
            "last_change_at": self.last_change_at.isoformat() if self.last_change_at else None,
            "error": self.error,
        }
