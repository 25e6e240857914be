"""The demo's application: a small shop (customers, orders, order lines with foreign keys)
and its SQL, kept in this one place. This is the user's application as the demo plays it,
not syncpoint's SQL (which lives in each vendor's ``sql/`` files).

Each source starts with rows of its own (``EXISTING_ROWS``), there before capture is
installed: ``snapshot`` loads them. Keys of the two sites never collide (each site has its
own id range), so the target holds the union of both sources. Rows of rolled-back
transactions carry the name ``GHOST`` so a check can prove none of them reached the target.
"""

from __future__ import annotations

LOCATIONS = ("dec01", "dec02")
TARGET = "cen"
TABLES = ("customers", "orders", "order_lines")
KEYS = {"customers": ("id",), "orders": ("id",), "order_lines": ("order_id", "line_no")}
ID_BASE = {"dec01": 1_000_000, "dec02": 2_000_000}
GHOST = "GHOST"

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

# Rows the sources already hold when capture is installed (loaded by `snapshot`), in an id
# range of their own at each site (base + EXISTING_OFFSET + n).
EXISTING_OFFSET = 900_000
EXISTING = {"customers": 30, "orders": 45, "order_lines": 90}
EXISTING_ROWS = (
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :customers) "
    "INSERT INTO customers (id, name, email, country) "
    "SELECT :base + x, 'old customer ' || x, 'old' || x || '@site' || :base || '.example', "
    "CASE x % 3 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' ELSE 'IT' END FROM n",
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :orders) "
    "INSERT INTO orders (id, customer_id, ordered_at, status, total) "
    "SELECT :base + x, :base + 1 + (x % :customers), '2024-01-01T10:00:00', 'shipped', 0 FROM n",
    "WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x + 1 < :lines) "
    "INSERT INTO order_lines (order_id, line_no, product, qty, price) "
    "SELECT :base + 1 + (x % :orders), 1 + x / :orders, 'old product ' || x, 1 + x % 4, "
    "round(1.5 + x % 7, 2) FROM n",
    "UPDATE orders SET total = (SELECT round(coalesce(sum(qty * price), 0), 2) "
    "FROM order_lines WHERE order_id = orders.id) WHERE id > :base",
)

# The operational system's nightly extract, filled under the gate (producer's turn).
TRANSPORT_TABLE = "daily_totals"
TRANSPORT_SCHEMA = (
    "CREATE TABLE daily_totals (customer_id INTEGER PRIMARY KEY, orders INTEGER NOT NULL, "
    "amount NUMERIC NOT NULL, extracted_at TEXT NOT NULL)"
)
TRANSPORT_FILL = (
    "INSERT INTO daily_totals (customer_id, orders, amount, extracted_at) "
    "SELECT customer_id, count(*), round(sum(total), 2), strftime('%Y-%m-%dT%H:%M:%f', 'now') "
    "FROM orders GROUP BY customer_id"
)

# The application's statements (parameters bound, never pasted).
INSERT = {
    "customers": "INSERT INTO customers (id, name, email, country) VALUES (?, ?, ?, ?)",
    "orders": "INSERT INTO orders (id, customer_id, ordered_at, status, total) "
    "VALUES (?, ?, ?, ?, ?)",
    "order_lines": "INSERT INTO order_lines (order_id, line_no, product, qty, price) "
    "VALUES (?, ?, ?, ?, ?)",
}
ORDER_TOTAL = (
    "UPDATE orders SET total = (SELECT round(coalesce(sum(qty * price), 0), 2) "
    "FROM order_lines WHERE order_id = orders.id) WHERE id = ?"
)
ORDER_STATUS = "UPDATE orders SET status = ? WHERE id = ?"
LINE_QTY = "UPDATE order_lines SET qty = ? WHERE order_id = ? AND line_no = ?"
CUSTOMER_MOVE = "UPDATE customers SET country = ?, email = ? WHERE id = ?"
DELETE_ORDER = "DELETE FROM orders WHERE id = ?"  # its lines go by ON DELETE CASCADE
DELETE_CUSTOMER = "DELETE FROM customers WHERE id = ?"
SELECT = {
    "customers": "SELECT id, name, email, country FROM customers",
    "orders": "SELECT id, customer_id, ordered_at, status, total FROM orders",
    "order_lines": "SELECT order_id, line_no, product, qty, price FROM order_lines",
}
ORPHANS = {
    "orders without their customer": "SELECT count(*) FROM orders o "
    "WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)",
    "order lines without their order": "SELECT count(*) FROM order_lines l "
    "WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = l.order_id)",
}
GHOSTS = (
    "SELECT (SELECT count(*) FROM customers WHERE name = 'GHOST') "
    "+ (SELECT count(*) FROM orders WHERE status = 'GHOST') "
    "+ (SELECT count(*) FROM order_lines WHERE product = 'GHOST')"
)
# SQLite's clock, the one capture stamps records and ticks with (UTC, milliseconds).
CLOCK = "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')"
TRANSPORT_SELECT = "SELECT customer_id, orders, amount, extracted_at FROM daily_totals"
