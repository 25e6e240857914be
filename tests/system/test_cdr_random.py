"""Conflict resolution under concurrency: writers at two PostgreSQL sites change the same
keys (inserts, updates of either column group, deletes, re-inserts) while rounds exchange
changes both ways; once the writers stop and the rounds go quiet, both sites are identical
by checksum, the conflicts are recorded, and nothing echoes.

The writers run for 12 s (not 30: the rules are the same, and three rounds both ways overlap
them; the suite's time budget is shared)."""

from __future__ import annotations

import hashlib
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from tests.conftest import make_pg

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SECONDS = 12.0
KEYS = 25


def writer(db: Any, seed: int, stop: threading.Event, written: dict[str, set[int]]) -> None:
    rnd = random.Random(seed)
    conn = db.connect(autocommit=True)
    cur = conn.cursor()
    try:
        while not stop.is_set():
            k = rnd.randint(1, KEYS)
            op = rnd.random()
            if op < 0.3:
                cur.execute(
                    "INSERT INTO item VALUES (%s, %s, %s, %s, 'EUR') ON CONFLICT (id) DO NOTHING",
                    (k, f"n{seed}-{rnd.randint(0, 999)}", rnd.randint(0, 99), rnd.randint(1, 500)),
                )
            elif op < 0.55:
                cur.execute("UPDATE item SET name = %s WHERE id = %s", (f"u{seed}-{op:.4f}", k))
            elif op < 0.8:
                cur.execute(
                    "UPDATE item SET price = %s, currency = %s WHERE id = %s",
                    (rnd.randint(1, 500), rnd.choice(["EUR", "USD"]), k),
                )
            else:
                cur.execute("DELETE FROM item WHERE id = %s", (k,))
            if cur.rowcount:
                written.setdefault("keys", set()).add(k)
            time.sleep(rnd.random() * 0.02)
    finally:
        conn.close()


def checksum(db: Any) -> str:
    rs = db.query(
        "SELECT id, name, qty, price::text, currency, repl_cdr_kv, repl_cdr_v, repl_cdr_v_pricing "
        "FROM item ORDER BY id"
    )
    return hashlib.sha256(repr(rs).encode()).hexdigest()


def test_writers_at_both_sites_converge_with_every_conflict_recorded(
    tmp_path: Path, spark: Any
) -> None:
    gens = [make_pg(), make_pg()]
    a, b = (next(g) for g in gens)
    try:
        for db in (a, b):
            db.execute(
                "CREATE TABLE item (id bigint PRIMARY KEY, name text, qty integer, "
                "price numeric(10,2), currency text)"
            )
        data = {
            "channel": "bi",
            "application": "sync",
            "locations": {
                "a": {"url": a.url, "capture": True, "integrate": True},
                "b": {"url": b.url, "capture": True, "integrate": True},
            },
            "tables": [{"name": "public.item", "snapshot": "none"}],
            "conflicts": {
                "item": {
                    "resolution": "latest",
                    "column_groups": {"pricing": ["price", "currency"]},
                }
            },
            "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
        }
        (tmp_path / "bi.yaml").write_text(yaml.safe_dump(data))
        ch = Channel.from_file(tmp_path / "bi.yaml")
        ch.install()
        setup.add(ch.cfg, "item", None, None)
        stop = threading.Event()
        written: dict[str, dict[str, set[int]]] = {"a": {}, "b": {}}
        threads = [
            threading.Thread(target=writer, args=(db, seed, stop, written[site]))
            for site, db, seed in (("a", a, 1), ("a", a, 2), ("b", b, 3), ("b", b, 4))
        ]
        for t in threads:
            t.start()
        rounds = 0
        deadline = time.monotonic() + SECONDS
        try:
            while time.monotonic() < deadline or rounds < 3:
                ch.run(once=True, spark=spark)
                rounds += 1
        finally:
            stop.set()
            for t in threads:
                t.join()
        # quiet: exchange until a run applies nothing
        for _ in range(6):
            if ch.run(once=True, spark=spark).changes == 0:
                break
        report = ch.run(once=True, spark=spark)
        assert report.changes == 0 and not report.stopped and not report.errors
        assert checksum(a) == checksum(b)
        both = written["a"].get("keys", set()) & written["b"].get("keys", set())
        recorded = a.query("SELECT key FROM repl_conflicts") + b.query(
            "SELECT key FROM repl_conflicts"
        )
        assert recorded, "writers on the same 25 keys at both sites made no conflict"
        assert {int(k.strip("[]")) for (k,) in recorded} <= both
        # no echo: every record at a site was made there or applied from the other site
        for db in (a, b):
            assert {d for (d,) in db.query("SELECT DISTINCT dbid FROM repl_items")} <= {"a", "b"}
    finally:
        for g in gens:
            next(g, None)
