"""Shared pieces of the snapshot and verify scenarios: a one-table schema per vendor with
existing rows made inside the database, cheap writers (inserts, updates, deletes and key
moves by random key, in short bursts), channel files, and comparisons of source and target
(checksums in the database for large tables, normalized rows otherwise)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import yaml

from tests.system import roundkit as rk

DDL = {
    "postgres": "CREATE TABLE items (id bigint PRIMARY KEY, name text, amount numeric(12,2), "
    "ver text NOT NULL, updated_at timestamptz)",
    "mariadb": "CREATE TABLE items (id bigint PRIMARY KEY, name text, amount decimal(12,2), "
    "ver varchar(40) NOT NULL, updated_at datetime(6)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, amount NUMERIC, "
    "ver TEXT NOT NULL, updated_at TEXT)",
}
SEED = {
    "postgres": "INSERT INTO items SELECT g, 'name ' || g || ' ✓', (g % 100000) / 100.0, "
    "'s' || g, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' "
    "FROM generate_series(1, {n}) g",
    "mariadb": "INSERT INTO items SELECT seq, CONCAT('name ', seq, ' ✓'), (seq % 100000) / 100, "
    "CONCAT('s', seq), TIMESTAMP'2024-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_1_to_{n}",
    "sqlite": "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < {n}) "
    "INSERT INTO items SELECT x, 'name ' || x || ' ✓', (x % 100000) / 100.0, 's' || x, "
    "datetime('2024-01-01', '+' || x || ' seconds') FROM g",
}
TABLE = {"postgres": "public.items", "mariadb": "items", "sqlite": "items"}
COLS = "id, name, amount, ver, updated_at"


def seed(db: Any, n: int, offset: int = 0) -> None:
    db.execute(DDL[db.vendor])
    if n:
        db.execute(SEED[db.vendor].format(n=int(n)))
    if offset:
        db.execute(f"UPDATE items SET id = id + {int(offset)}")


def config(
    path: Path, sources: dict[str, Any], target: Any, *, snapshot: str = "required", **extra: Any
) -> Path:
    vendor = next(iter(sources.values())).vendor
    data: dict[str, Any] = {
        "channel": "shop",
        "application": "wh",
        "locations": {
            **{n: {"url": db.url, "capture": True} for n, db in sources.items()},
            "cen": {"url": target.url, "integrate": True},
        },
        "tables": [{"name": TABLE[vendor], "snapshot": snapshot, **extra}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def writer(
    vendor: str,
    url: str,
    no: int,
    n: int,
    seconds: float,
    seed_: int,
    even: bool = False,
    pause: float = 0.01,
) -> None:
    """Short transactions on random keys of ``1..n``: updates, deletes, inserts of new keys,
    key moves; a few roll back. Errors (lock waits, a key taken) roll the transaction back.
    ``even``: only even keys of ``1..n`` are changed, so the odd ones a copy reads are never
    changed after it: a copy that loses rows shows (a changed row reaches the target with the
    rounds after the copy's hand-over however the copy went). ``pause``: the longest rest
    between two transactions (random up to it)."""
    from syncpoint.vendors import connect

    rng = random.Random(seed_)
    p = "?" if vendor == "sqlite" else "%s"
    conn = connect(url)
    cur = conn.cursor()
    k = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        k += 1
        try:
            if vendor == "sqlite":
                cur.execute("BEGIN IMMEDIATE")
            for _ in range(rng.randint(1, 3)):
                ver = f"w{no}-{k}-{rng.getrandbits(32)}"
                roll = rng.random()
                rid = rng.randint(1, max(n, 1))
                if even:
                    rid += rid % 2
                new = 10_000_000 + no * 1_000_000 + k * 4 + rng.randint(0, 3)
                if roll < 0.45:
                    cur.execute(
                        f"UPDATE items SET amount = {p}, ver = {p} WHERE id = {p}",
                        (rk.amount(vendor, rng.randint(0, 10**6)), ver, rid),
                    )
                elif roll < 0.6:
                    cur.execute(f"DELETE FROM items WHERE id = {p}", (rid,))
                elif roll < 0.85:
                    cur.execute(
                        f"INSERT INTO items (id, name, amount, ver) VALUES ({p}, {p}, {p}, {p})",
                        (new, f"new {new}", rk.amount(vendor, rng.randint(0, 10**6)), ver),
                    )
                else:  # a key move: the row leaves one chunk for another
                    cur.execute(
                        f"UPDATE items SET id = {p}, ver = {p} WHERE id = {p}", (new, ver, rid)
                    )
            if rng.random() < 0.1:
                conn.rollback()
            else:
                conn.commit()
        except Exception:  # noqa: BLE001 - a transaction that did not happen
            try:
                conn.rollback()
            except Exception:  # noqa: BLE001
                conn = connect(url)
                cur = conn.cursor()
        time.sleep(rng.uniform(0, pause))
    conn.close()


def start_writers(
    vendor: str,
    url: str,
    count: int,
    n: int,
    seconds: float,
    even: bool = False,
    pause: float = 0.01,
) -> list[Any]:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=writer, args=(vendor, url, i, n, seconds, 7000 + i, even, pause))
        for i in range(count)
    ]
    for pr in procs:
        pr.start()
    return procs


def join(procs: list[Any]) -> None:
    for pr in procs:
        pr.join(timeout=120)
        assert pr.exitcode == 0


PG_SUM = (
    "SELECT count(*), md5(coalesce(string_agg(id || '|' || coalesce(name, '') || '|' || "
    "coalesce(amount::text, '') || '|' || ver || '|' || coalesce(extract(epoch FROM "
    "updated_at)::text, ''), ',' ORDER BY id), '')) FROM items"
)


def same(src: Any, dst: Any) -> tuple[bool, str]:
    """Target equals source row for row; in the database when both are PostgreSQL."""
    if src.vendor == dst.vendor == "postgres":
        a, b = src.query(PG_SUM)[0], dst.query(PG_SUM)[0]
        return a == b, f"source {a}, target {b}"
    a, b = rk.rows(src, "items", COLS), rk.rows(dst, "items", COLS)
    if a == b:
        return True, ""
    missing = [r for r in a if r not in b][:3]
    extra = [r for r in b if r not in a][:3]
    return False, f"source {len(a)} rows, target {len(b)}; missing {missing} extra {extra}"


def keys_unique(dst: Any) -> bool:
    n, d = dst.query("SELECT count(*), count(DISTINCT id) FROM items")[0]
    return int(n) == int(d)


def stop(procs: list[Any]) -> None:
    for pr in procs:
        pr.terminate()
    for pr in procs:
        pr.join(timeout=30)
