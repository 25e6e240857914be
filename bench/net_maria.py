"""The netting of a round's operations staged at a MariaDB target (the direct path from
PostgreSQL), old statement against new, on the same operations, interleaved in one run.

W1's operations (``--changes``: 5/8 inserts, 5/16 updates of inserted keys, 1/16 deletes)
are made in ``{p}staging``'s shape by SQL (MariaDB's sequence engine), then copied afresh
before each timing and netted by

- ``join``: the window function's result joined as a derived table (the statement before);
- ``listed``: the superseded operations listed in a temporary table keyed by their place,
  which the staging's scan probes (``sql/integrate/ops_net.sql``).

Each is checked to leave the same rows. Server time, so the figures move with the load
of the machine: the ratio within the run is the figure to read.

    .venv/bin/python bench/net_maria.py [--changes N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

import pymysql

from syncpoint.vendors.sqlfiles import SqlFiles

JOIN = """
DELETE s FROM w s
  JOIN (SELECT o.round_id, o.tbl, o.repl_key, o.sp_sub
          FROM (SELECT w.round_id, w.tbl, w.repl_key, w.sp_sub,
                       ROW_NUMBER() OVER (PARTITION BY w.tbl, SHA2(w.sp_key, 256)
                                          ORDER BY w.repl_key DESC, w.sp_sub DESC) AS n
                  FROM w w WHERE w.round_id = %s) o
         WHERE o.n > 1) d
    ON s.round_id = d.round_id AND s.tbl = d.tbl AND s.repl_key = d.repl_key
   AND s.sp_sub = d.sp_sub
"""
STAGING = """
CREATE TABLE st (
    application_name varchar(64) NOT NULL, sync_name varchar(512) NOT NULL,
    round_id varchar(64) NOT NULL, tbl int NOT NULL, action varchar(1) NOT NULL,
    content longtext, repl_key bigint NOT NULL, origin varchar(64), sp_key longtext,
    sp_sub smallint, KEY st_round (round_id, tbl, action)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
"""
ROW = (
    "SELECT 'bench', 'g', 'r1', 1, '{a}', CONCAT('{{\"id\": ', {k}, ', \"amount\": \"', "
    "seq % 100000 / 100, '\", \"status\": \"{st}\", \"note\": \"note ', seq, '\"}}'), seq, "
    "NULL, CONCAT('{{\"id\": ', {k}, '}}'), {sub} FROM seq_{lo}_to_{hi}"
)


def make(cur: object, changes: int) -> None:
    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    n_del = changes - n_ins - n_upd
    cur.execute(STAGING)  # type: ignore[attr-defined]
    parts = [
        ("U", "seq", "new", 1, 1, n_ins),
        ("U", f"seq - {n_ins}", "paid", 1, n_ins + 1, n_ins + n_upd),
        ("D", f"seq - {n_ins + n_upd} + {n_ins - n_del}", "", 0, n_ins + n_upd + 1, changes),
    ]
    for a, k, st, sub, lo, hi in parts:
        row = ROW.format(a=a, k=k, st=st, sub=sub, lo=lo, hi=hi)
        cur.execute(f"INSERT INTO st {row}")  # type: ignore[attr-defined]


def timed(conn: pymysql.Connection, statements: list[str]) -> tuple[float, tuple[int, int]]:
    cur = conn.cursor()
    cur.execute("DROP TABLE IF EXISTS w")
    cur.execute("CREATE TABLE w LIKE st")
    cur.execute("INSERT INTO w SELECT * FROM st")
    conn.commit()
    t = time.perf_counter()
    for s in statements:
        cur.execute(s, ("r1",))
    conn.commit()
    took = time.perf_counter() - t
    cur.execute("SELECT count(*), SUM(CRC32(CONCAT(tbl, ':', repl_key, ':', sp_sub))) FROM w")
    n, crc = cur.fetchone()
    return took, (int(n), int(crc))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    name = f"sp_net_{uuid.uuid4().hex[:8]}"
    admin = pymysql.connect(host="127.0.0.1", user="root", autocommit=True)
    admin.cursor().execute(f"CREATE DATABASE `{name}` COLLATE utf8mb4_bin")
    try:
        conn = pymysql.connect(host="127.0.0.1", user="root", database=name)
        make(conn.cursor(), args.changes)
        conn.commit()
        files = SqlFiles("mariadb", "integrate", {"staging": "w", "tmp": "d"}, comments=False)
        listed = files.statements("ops_net") + files.statements("ops_net_done")
        print(f"{args.changes:,} operations; load average {os.getloadavg()[0]:.1f}")
        got: dict[str, list[float]] = {"join": [], "listed": []}
        left_by: dict[str, set[tuple[int, int]]] = {"join": set(), "listed": set()}
        for _ in range(args.repeat):
            for mode, stmts in (("join", [JOIN]), ("listed", listed[:2])):
                took, left = timed(conn, stmts)
                if mode == "listed":
                    conn.cursor().execute(listed[2])
                got[mode].append(took)
                left_by[mode].add(left)
                print(f"  {mode:7s} {took:6.2f} s, {left[0]:,} rows left "
                      f"(load {os.getloadavg()[0]:.1f})")  # fmt: skip
        same = left_by["join"] == left_by["listed"] and len(left_by["join"]) == 1
        print(f"the same operations left by both: {same}")
        j, li = min(got["join"]), min(got["listed"])
        print(f"best: join {j:.2f} s, listed {li:.2f} s: {j / li:.1f}x")
        conn.close()
    finally:
        admin.cursor().execute(f"DROP DATABASE `{name}`")


if __name__ == "__main__":
    main()
