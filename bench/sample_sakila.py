"""MySQL's Sakila sample loaded into MariaDB and replicated to PostgreSQL and to MariaDB
under a writer: install, snapshot while the writer runs, rounds while the schema moves
(``MOVES``: a column added empty, a foreign key made ON DELETE CASCADE, a column added
with a default, whose stop is taken back by copying the sync group again), then
``verify``.

The sample is not part of the repository: give the paths of ``sakila-schema.sql`` and
``sakila-data.sql`` (MySQL's sample database, e.g. a copy on GitHub). Sakila as published
has what capture refuses, so the schema is loaded with these changes, each printed: the
MyISAM ``film_text`` becomes InnoDB, and views, procedures and functions are left out (not
replicated). Its foreign keys keep their rules (``ON UPDATE CASCADE``, ``ON DELETE SET
NULL``): the rounds make those cascades at the target (docs/log-capture.md, "Foreign keys
with cascades"). The writer (two sessions) does what a rental shop does, plus UPDATEs that
change nothing: new rentals and their payments, returns, deleted payments, film ratings,
descriptions (the schema's own trigger keeps ``film_text`` up to date), customers, actors.
Prints snapshot rates, the writer's operations and ``verify``'s differences per table.

    .venv/bin/python bench/sample_sakila.py SCHEMA.sql DATA.sql [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pymysql
import yaml

from syncpoint.errors import SyncpointError
from syncpoint.ops.channel import Channel

TABLES = [
    "actor", "address", "category", "city", "country", "customer", "film", "film_actor",
    "film_category", "film_text", "inventory", "language", "payment", "rental", "staff", "store",
]  # fmt: skip
MY = {"host": "127.0.0.1", "user": "root"}
PG = "postgresql://postgres@127.0.0.1:5432"
# The schema's moves while the channel runs, one between two rounds under the writers, and
# whether the move needs the way back its stop names (a copy of the sync group again)
MOVES = [
    ("a nullable column added empty to customer",
     ["ALTER TABLE customer ADD COLUMN nickname varchar(40)"], False),
    ("payment's key to rental made ON DELETE CASCADE",
     # one statement: between a DROP and an ADD the writers could leave orphans
     ["ALTER TABLE payment DROP FOREIGN KEY fk_payment_rental, "
      "ADD CONSTRAINT fk_payment_rental_cascade FOREIGN KEY (rental_id) "
      "REFERENCES rental (rental_id) ON DELETE CASCADE ON UPDATE CASCADE"], False),
    ("a column added to film, its rows given the default",
     ["ALTER TABLE film ADD COLUMN in_stock tinyint NOT NULL DEFAULT 1"], True),
]  # fmt: skip


def schema_for_capture(text: str) -> str:
    """The tables and triggers of Sakila's schema file, changed as the docstring says."""
    text = text.split("-- View structure", 1)[0]
    text = re.sub(r"(?m)^(CREATE SCHEMA|USE) .*$", "", text)
    return text.replace("ENGINE=MyISAM", "ENGINE=InnoDB")


def mysql_load(db: str, sql: bytes) -> None:
    # the files hold DELIMITER and binary data: the mariadb client reads them as written
    subprocess.run(["mariadb", "-h", MY["host"], "-u", MY["user"], db], input=sql, check=True)


def writer(db: str, seed: int, stop: threading.Event, counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    conn = pymysql.connect(**MY, database=db, autocommit=False)
    cur = conn.cursor()
    films = ["G", "PG", "PG-13", "R", "NC-17"]
    while not stop.is_set():
        r, fid = rng.random(), rng.randint(1, 1000)
        try:
            if r < 0.15:
                cur.execute("UPDATE film SET rating = rating WHERE film_id = %s", (fid,))
            elif r < 0.25:
                cur.execute(
                    "UPDATE film SET rating = %s, special_features = %s WHERE film_id = %s",
                    (
                        rng.choice(films),
                        rng.choice(["Trailers", "Commentaries,Deleted Scenes"]),
                        fid,
                    ),
                )
            elif r < 0.35:
                cur.execute(
                    "UPDATE film SET description = CONCAT(LEFT(description, 60), %s) "
                    "WHERE film_id = %s",
                    (f" v{rng.getrandbits(16)}", fid),
                )
            elif r < 0.55:
                cust = rng.randint(1, 599)
                cur.execute(
                    "INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id) "
                    "VALUES (NOW() - INTERVAL %s SECOND, %s, %s, %s)",
                    (rng.randint(0, 10**6), rng.randint(1, 4581), cust, rng.randint(1, 2)),
                )
                cur.execute(
                    "INSERT INTO payment (customer_id, staff_id, rental_id, amount, payment_date) "
                    "VALUES (%s, %s, %s, %s, NOW())",
                    (cust, rng.randint(1, 2), cur.lastrowid, f"{rng.randint(0, 1199) / 100:.2f}"),
                )
            elif r < 0.65:
                cur.execute(
                    "UPDATE rental SET return_date = NOW() "
                    "WHERE rental_id = %s AND return_date IS NULL",
                    (rng.randint(1, 16049),),
                )
            elif r < 0.70:
                cur.execute("DELETE FROM payment WHERE payment_id = %s", (rng.randint(1, 16049),))
            elif r < 0.72:
                # a rental's payments follow its foreign key's rule: SET NULL, then CASCADE
                # once the schema moved
                cur.execute(
                    "DELETE FROM rental WHERE rental_id = (SELECT MAX(rental_id) - %s FROM rental)",
                    (rng.randint(0, 50),),
                )
            elif r < 0.8:
                cur.execute(
                    "UPDATE customer SET active = 1 - active WHERE customer_id = %s",
                    (rng.randint(1, 599),),
                )
            elif r < 0.87:
                cur.execute(
                    "UPDATE address SET phone = phone WHERE address_id = %s", (rng.randint(1, 603),)
                )
            else:
                cur.execute(
                    "INSERT INTO actor (first_name, last_name) VALUES (%s, %s)",
                    ("ÉMILE", f"Zoë {rng.getrandbits(20)}"),
                )
            conn.rollback() if rng.random() < 0.05 else conn.commit()
            counts["ops"] += 1
        except pymysql.err.Error:
            conn.rollback()
            counts["errors"] += 1
    conn.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("schema", type=Path)
    ap.add_argument("data", type=Path)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    tag = f"sk_{uuid.uuid4().hex[:8]}"
    src, dst = f"{tag}_src", f"{tag}_dst"
    admin = pymysql.connect(**MY, autocommit=True)
    pg = psycopg.connect(f"{PG}/postgres", autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{src}`")
        cur.execute(f"CREATE DATABASE `{dst}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    pg.execute(f'CREATE DATABASE "{tag}"')
    stop, counts = threading.Event(), {"ops": 0, "errors": 0}
    try:
        print("schema changed for capture: film_text to InnoDB, no views")
        mysql_load(src, schema_for_capture(args.schema.read_text()).encode())
        data = re.sub(rb"(?m)^USE .*$", b"", args.data.read_bytes())
        mysql_load(src, data)
        cfg: dict[str, Any] = {
            "channel": "sakila",
            "application": tag,
            "locations": {
                "src": {"url": f"mysql://root@127.0.0.1:3306/{src}", "capture": True},
                "pg": {"url": f"{PG}/{tag}", "integrate": True},
                "my": {"url": f"mysql://root@127.0.0.1:3306/{dst}", "integrate": True},
            },
            "tables": [
                {"name": t, "snapshot": "required", "ddl_policy": "apply"} for t in TABLES
            ],
            # one sync group: the foreign keys' cascades are made at the target with
            # their parent's changes, in the parent's group
            "sync_groups": {"shop": TABLES},
            "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
        }
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "syncpoint.yaml"
            path.write_text(yaml.safe_dump(cfg))
            ch = Channel.from_file(str(path))
            ch.install()
            threads = [
                threading.Thread(target=writer, args=(src, i, stop, counts)) for i in range(2)
            ]
            for t in threads:
                t.start()
            started = time.monotonic()
            report = ch.snapshot()
            for r in report["tables"]:
                print(f"snapshot {r['integrate']} {r['table']}: {r.get('rows_copied')} rows, "
                      f"{r.get('rows_per_second')} rows/s")  # fmt: skip
            end = time.monotonic() + args.seconds
            moves, back = list(MOVES), False
            while time.monotonic() < end or moves or back:
                try:
                    ch.run(once=True)
                except SyncpointError as exc:
                    print(f"round stopped: {str(exc)[:600]}")
                if back:
                    # the way back the stop names: the sync group copied again
                    again = ch.snapshot(TABLES, truncate=True, restart=True)["tables"]
                    copied = sum(r.get("rows_copied") or 0 for r in again)
                    print(f"snapshot --truncate --restart of the group (way back): {copied} rows")
                    back = False
                elif moves:
                    what, stmts, back = moves.pop(0)
                    with pymysql.connect(**MY, database=src, autocommit=True) as conn:
                        for stmt in stmts:
                            for attempt in range(20):  # DDL beside writers: a deadlock
                                try:
                                    conn.cursor().execute(stmt)
                                    break
                                except pymysql.err.OperationalError as exc:
                                    if exc.args[0] not in (1205, 1213) or attempt == 19:
                                        raise
                                    time.sleep(0.2)
                    print(f"schema moved: {what}")
            stop.set()
            for t in threads:
                t.join()
            ch.run(once=True)
            print(f"writer: {counts} in {time.monotonic() - started:.0f} s; load {os.getloadavg()}")
            v = ch.verify(recheck=False)
            print("verify differences:", v.differences)
            for t in v.to_dict()["tables"]:
                if t["differences"]:
                    print(json.dumps(t, default=str)[:2000])
            ch.uninstall()
    finally:
        stop.set()
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{src}`")
            cur.execute(f"DROP DATABASE IF EXISTS `{dst}`")
        pg.execute(f'DROP DATABASE IF EXISTS "{tag}" WITH (FORCE)')


if __name__ == "__main__":
    main()
