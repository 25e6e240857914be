"""The last step: two SQLite sites that replicate both ways, ``paris`` and ``lisbon``, with
conflict resolution on their ``products`` table (``latest`` wins; ``price`` and
``currency`` form the column group ``pricing``), shown one exchange at a time:

1. paris adds two products; one exchange brings them to lisbon;
2. at the same time, paris renames product 1 and lisbon reprices it (different groups:
   both changes are kept), and both reprice product 2 (one group: the later wins, and
   each site records the conflict it decided);
3. paris also added product 3, lisbon deletes it, then paris adds it again: the new row
   has key version 2 and wins over the tombstone of version 1 at lisbon;

then checks: the sites are identical (bookkeeping included), the expected values, the
conflicts recorded, and a last exchange that has nothing left to apply (no change went
back where it was made). The channel file is ``bidi.yaml`` in the demo's folder.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import yaml

from syncpoint.demo.setup import SPARK_CONF
from syncpoint.demo.state import DemoState
from syncpoint.ops.cdr import setup as cdr_setup
from syncpoint.ops.channel import Channel

SITES = ("paris", "lisbon")
TABLE = "products"
SCHEMA = (
    "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, stock INTEGER, "
    "price TEXT, currency TEXT)"
)
ADD = "INSERT INTO products (id, name, stock, price, currency) VALUES ({}, '{}', {}, '{}', 'EUR')"
ROW = "SELECT id, name, stock, price, currency FROM products WHERE id = ?"
ROWS = (
    "SELECT id, name, stock, price, currency, repl_cdr_kv, repl_cdr_v, repl_cdr_v_pricing "
    "FROM products ORDER BY id"
)
KEY_VERSION = "SELECT repl_cdr_kv FROM products WHERE id = ?"
CONFLICTS = (
    "SELECT key, column_group, winner, local_version, remote_version FROM repl_conflicts "
    "ORDER BY id"
)


def _sql(state: DemoState, site: str, *statements: str) -> None:
    conn = sqlite3.connect(state.path(site), isolation_level=None, timeout=30)
    try:
        for s in statements:
            conn.execute(s)
            time.sleep(0.002)  # the next change is later, at either site
    finally:
        conn.close()


def _query(state: DemoState, site: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(state.path(site), timeout=30)
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def _exchange(state: DemoState, ch: Channel, what: str) -> int:
    report = ch.run(once=True)
    state.note(f"exchange ({what}): {report.changes} change(s) applied, both ways")
    return int(report.changes)


def _show(state: DemoState, key: int) -> None:
    for site in SITES:
        rows = _query(state, site, ROW, key)
        state.note(f"  {site:6}: {rows[0] if rows else 'no row'}")


def bidirectional(state: DemoState) -> None:
    for site in SITES:
        path = state.path(site)
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        _sql(state, site, "PRAGMA journal_mode=WAL", SCHEMA)
    data = {
        "channel": "bidi",
        "application": "sync",
        "locations": {s: {"url": state.url(s), "capture": True, "integrate": True} for s in SITES},
        "tables": [{"name": TABLE, "snapshot": "none"}],
        "conflicts": {
            TABLE: {"resolution": "latest", "column_groups": {"pricing": ["price", "currency"]}}
        },
        "spark": {"master": state.spark_master, "conf": SPARK_CONF},
    }
    path = state.workdir / "bidi.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    ch = Channel.from_file(path)
    ch.install()
    added = cdr_setup.add(ch.cfg, TABLE, None, None)
    state.note(
        f"sites paris and lisbon capture and integrate {TABLE}; cdr add: latest wins, "
        "column group pricing = price, currency (bidi.yaml)"
    )

    _sql(state, "paris", ADD.format(1, "mug", 10, "9.90"), ADD.format(2, "plate", 5, "14.00"))
    _sql(state, "paris", ADD.format(3, "bowl", 3, "7.00"))
    _exchange(state, ch, "paris added products 1, 2 and 3")

    _sql(state, "paris", "UPDATE products SET name = 'blue mug' WHERE id = 1")
    _sql(state, "lisbon", "UPDATE products SET price = '11.50' WHERE id = 1")
    _sql(state, "lisbon", "UPDATE products SET price = '15.00', currency = 'EUR' WHERE id = 2")
    _sql(state, "paris", "UPDATE products SET price = '16.00', currency = 'USD' WHERE id = 2")
    _sql(state, "lisbon", "DELETE FROM products WHERE id = 3")
    state.note(
        "paris renames product 1 while lisbon reprices it; both reprice product 2, paris "
        "later; lisbon deletes product 3"
    )
    _exchange(state, ch, "both ways at once")
    _show(state, 1)
    _show(state, 2)
    _sql(state, "paris", ADD.format(3, "bowl, new model", 4, "8.00"))
    _exchange(state, ch, "paris added product 3 again: key version 2")
    _show(state, 3)
    quiet = _exchange(state, ch, "a last one")

    conflicts = {site: _query(state, site, CONFLICTS) for site in SITES}
    for site, found in conflicts.items():
        for key, group, winner, local, remote in found:
            state.note(
                f"  conflict at {site}: key {key}, group {group}: {winner} won "
                f"(local {local}, remote {remote})"
            )
    rows = {s: _query(state, s, ROWS) for s in SITES}
    kv = {s: _query(state, s, KEY_VERSION, 3) for s in SITES}
    state.results["cdr"] = {
        "built": True,
        "sites": list(SITES),
        "setting": added,
        "rows": {s: [list(r[:5]) for r in rs] for s, rs in rows.items()},
        "conflicts": {s: [list(c[:3]) for c in cs] for s, cs in conflicts.items()},
    }
    want = [
        (1, "blue mug", 10, "11.50", "EUR"),
        (2, "plate", 5, "16.00", "USD"),
        (3, "bowl, new model", 4, "8.00", "EUR"),
    ]
    state.check(
        "paris and lisbon identical, bookkeeping included",
        rows["paris"] == rows["lisbon"],
        f"{len(rows['paris'])} rows at paris, {len(rows['lisbon'])} at lisbon",
    )
    state.check(
        "column groups: the rename and the reprice of product 1 both kept; product 2 at the "
        "later price",
        [r[:5] for r in rows["paris"]] == want,
        str([r[:5] for r in rows["paris"]]),
    )
    state.check(
        "the pricing conflict recorded at both sites, decided the same way",
        [c[:3] for c in conflicts["paris"]] == [("[2]", "pricing", "local")]
        and [c[:3] for c in conflicts["lisbon"]] == [("[2]", "pricing", "remote")],
        str({s: [c[:3] for c in cs] for s, cs in conflicts.items()}),
    )
    state.check(
        "product 3 added again after its delete: key version 2 at both sites",
        kv["paris"] == kv["lisbon"] == [(2,)],
        str(kv),
    )
    state.check("nothing left to exchange, nothing sent back", quiet == 0, f"{quiet} change(s)")
