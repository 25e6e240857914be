"""What a MariaDB cascade costs a round: parents deleted with ``ON DELETE CASCADE`` to
children and grandchildren (the rounds make the cascade at the target, docs/log-capture.md,
"Foreign keys with cascades"), against the same rows deleted one by one by the application
(every row a change record). Trigger capture on the shared MariaDB into PostgreSQL; prints
the seconds of each round and their ratio.

    .venv/bin/python bench/cascade_maria.py [--parents 200] [--children 20]
"""

from __future__ import annotations

import argparse
import time
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg
import pymysql
import yaml

from syncpoint.ops.channel import Channel

MY = {"host": "127.0.0.1", "user": "root"}
PG = "postgresql://postgres@127.0.0.1:5432"


def schema(cascade: bool) -> list[str]:
    rule = "ON DELETE CASCADE" if cascade else ""
    return [
        "CREATE TABLE p (id int PRIMARY KEY, v varchar(20)) ENGINE=InnoDB",
        f"CREATE TABLE c (id int PRIMARY KEY, pid int NOT NULL, v varchar(20), "
        f"FOREIGN KEY (pid) REFERENCES p (id) {rule}) ENGINE=InnoDB",
        f"CREATE TABLE g (id int PRIMARY KEY, cid int NOT NULL, v varchar(20), "
        f"FOREIGN KEY (cid) REFERENCES c (id) {rule}) ENGINE=InnoDB",
    ]


def one(cascade: bool, parents: int, children: int, tmp: Path) -> float:
    db = f"sp_bench_{uuid.uuid4().hex[:8]}"
    admin = pymysql.connect(**MY, autocommit=True)
    admin.cursor().execute(f"CREATE DATABASE {db}")
    pg = psycopg.connect(PG + "/postgres", autocommit=True)
    pg.execute(f"CREATE DATABASE {db}")
    try:
        conn = pymysql.connect(**MY, database=db, autocommit=True)
        cur = conn.cursor()
        for s in schema(cascade):
            cur.execute(s)
        cfg = tmp / f"{db}.yaml"
        cfg.write_text(
            yaml.safe_dump(
                {
                    "channel": "b",
                    "application": "b",
                    "locations": {
                        "src": {"url": f"mysql://root@127.0.0.1/{db}", "capture": True},
                        "dst": {"url": f"{PG}/{db}", "integrate": True},
                    },
                    "tables": [{"name": t, "snapshot": "none"} for t in ("p", "c", "g")],
                    "sync_groups": {"all": ["p", "c", "g"]},
                    "spark": {"master": "local[2]"},
                }
            )
        )
        ch = Channel.from_file(cfg)
        ch.install()
        cur.executemany("INSERT INTO p VALUES (%s, 'p')", [(i,) for i in range(parents)])
        kids = [(i * children + j, i) for i in range(parents) for j in range(children)]
        cur.executemany("INSERT INTO c VALUES (%s, %s, 'c')", kids)
        cur.executemany(
            "INSERT INTO g VALUES (%s, %s, 'g')", [(k * 2 + n, k) for k, _ in kids for n in (0, 1)]
        )
        ch.run(once=True)
        if cascade:
            cur.execute("DELETE FROM p")
        else:
            cur.execute("DELETE FROM g")
            cur.execute("DELETE FROM c")
            cur.execute("DELETE FROM p")
        t0 = time.monotonic()
        ch.run(once=True)
        took = time.monotonic() - t0
        left = pg.execute(f"SELECT 1 FROM pg_database WHERE datname = '{db}'").fetchall()
        with psycopg.connect(f"{PG}/{db}") as t:
            n = t.execute("SELECT (SELECT count(*) FROM p) + (SELECT count(*) FROM c) + "
                          "(SELECT count(*) FROM g)").fetchone()  # fmt: skip
        assert left and n == (0,), n
        ch.uninstall()
        conn.close()
        return took
    finally:
        admin.cursor().execute(f"DROP DATABASE {db}")
        pg.execute(f"DROP DATABASE {db} WITH (FORCE)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parents", type=int, default=200)
    ap.add_argument("--children", type=int, default=20)
    a = ap.parse_args()
    rows = a.parents * (1 + a.children * 3)
    with TemporaryDirectory() as tmp:
        explicit = one(False, a.parents, a.children, Path(tmp))
        cascaded = one(True, a.parents, a.children, Path(tmp))
    print(f"{rows} rows deleted: explicit deletes {explicit:.2f} s, cascade {cascaded:.2f} s, "
          f"ratio {cascaded / explicit:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
