"""MariaDB capture under concurrent writers: replaying the ticks in order, window by window,
rebuilds the table exactly (nothing lost, nothing twice), with rollbacks, savepoints, long
transactions and deadlocks among the writers while a ticker runs."""

from __future__ import annotations

import random
import threading
from typing import Any

import pymysql
from test_mariadb_capture_support import install

from syncpoint.core.model import ChangeRecord

WRITERS = 4
TRANSACTIONS = 60


def _writer(db: Any, seed: int, errors: list[BaseException]) -> None:
    rnd = random.Random(seed)
    conn = db.connect(autocommit=False)
    cur = conn.cursor()
    try:
        for _ in range(TRANSACTIONS):
            try:
                for _ in range(rnd.randint(1, 4)):
                    k = rnd.randint(1, 40)
                    op = rnd.random()
                    if op < 0.5:
                        cur.execute(
                            "INSERT INTO kv VALUES (%s, %s) ON DUPLICATE KEY UPDATE v = v + 1",
                            (k, rnd.randint(0, 9)),
                        )
                    elif op < 0.7:
                        cur.execute("DELETE FROM kv WHERE id = %s", (k,))
                    elif op < 0.85:
                        cur.execute("SAVEPOINT sp")
                        cur.execute("UPDATE kv SET v = -1 WHERE id = %s", (k,))
                        cur.execute("ROLLBACK TO SAVEPOINT sp")
                    else:
                        cur.execute(
                            "UPDATE kv SET v = v * 2 WHERE id BETWEEN %s AND %s", (k, k + 3)
                        )
                if rnd.random() < 0.2:
                    conn.rollback()
                else:
                    conn.commit()
            except pymysql.err.OperationalError as exc:
                if exc.args[0] not in (1213, 1205):  # deadlock, lock wait: the writer retries
                    raise
                conn.rollback()
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)
    finally:
        conn.rollback()
        conn.close()


def _apply(state: dict[int, int], recs: list[ChangeRecord]) -> None:
    for r in recs:
        if r.db_action == "DELETE":
            state.pop(r.old["id"])
        elif r.db_action == "INSERT":
            assert r.row["id"] not in state, r
            state[r.row["id"]] = r.row["v"]
        else:
            assert state.get(r.old["id"]) == r.old["v"], r
            state.pop(r.old["id"])
            state[r.row["id"]] = r.row["v"]


def test_replaying_ticks_rebuilds_the_table(maria_db: Any) -> None:
    maria_db.execute("CREATE TABLE kv (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    cap = install(maria_db, "kv")
    pos = cap.tick()
    state: dict[int, int] = {}
    errors: list[BaseException] = []
    seen: list[int] = []
    long = maria_db.connect(autocommit=False)
    threads = [
        threading.Thread(target=_writer, args=(maria_db, seed, errors)) for seed in range(WRITERS)
    ]
    try:
        long.cursor().execute("INSERT INTO kv VALUES (1000, 1)")  # open through most of the run
        for th in threads:
            th.start()
        ticks = 0
        while any(th.is_alive() for th in threads) or ticks < 3:
            pos_new, recs = cap.window(pos)
            _apply(state, recs)
            seen += [r.repl_key for r in recs]
            pos = pos_new
            ticks += 1
            if ticks == 5:
                long.commit()
    finally:
        long.commit()
        long.close()
        for th in threads:
            th.join()
    pos, recs = cap.window(pos)
    _apply(state, recs)
    seen += [r.repl_key for r in recs]
    assert errors == []
    assert len(seen) == len(set(seen))
    assert dict(maria_db.query("SELECT id, v FROM kv")) == state
    assert state.get(1000) == 1
    # every record of the queue was read, once
    assert sorted(seen) == [k for (k,) in maria_db.query("SELECT repl_key FROM repl_items")]
