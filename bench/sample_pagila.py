"""A public sample schema replicated under a workload: pagila (PostgreSQL's port of the
Sakila DVD rental schema: an enum, domains, arrays, tsvector, bytea, numeric, timestamps
with time zone, a generated column, foreign keys between every table, a trigger, views).

    .venv/bin/python bench/sample_pagila.py --schema PATH/pagila-schema.sql [--seconds 20]

``PATH`` is a checkout of https://github.com/devrimgunduz/pagila (only the schema file is
read; its data files are not needed). The schema is written for PostgreSQL 18: on an
older server ``uuidv7()`` becomes ``gen_random_uuid()`` and a VIRTUAL generated column
STORED; statements the server refuses (pgvector's table when the extension is missing)
are skipped and counted.

The script makes a source database on the shared PostgreSQL and three targets (a
PostgreSQL and a MariaDB database, a SQLite file) that syncpoint creates the tables in,
fills the source with generated rows (a few thousand rentals), installs capture for the
15 tables in one sync group (the partitioned ``payment`` listed, never its partitions),
runs ``snapshot`` while writers rent, pay, return, edit customers and films (ratings,
arrays, bytea pictures) and add addresses and customers, then rounds under the writers
while the schema moves between them (``MOVES``: an enum value added, this month's and the
next month's ``payment`` partitions created, which the writers' payments wait for, a
column added to ``customer`` with a default and an enum value renamed, which stop their
tables until the sync group is copied again, a cascading foreign key from ``payment`` to ``rental``
added, which the writers' deletes of rentals then follow), then a last round after them
and ``verify`` at every target. It prints what each step took, and exits 1 when a target
differs from the source.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pymysql
import yaml

PG = os.environ.get("SYNCPOINT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TABLES = [
    "language", "category", "actor", "film", "film_actor", "film_category", "country",
    "city", "address", "store", "staff", "customer", "inventory", "rental", "payment",
]  # fmt: skip

FILL = [
    "INSERT INTO language (name) SELECT unnest(ARRAY['English', 'Italian', 'Japanese', "
    "'Mandarin', 'French', 'German'])",
    "INSERT INTO category (name) SELECT 'category ' || g FROM generate_series(1, 16) g",
    "INSERT INTO actor (first_name, last_name) SELECT 'First' || g, 'Last' || g "
    "FROM generate_series(1, 200) g",
    "INSERT INTO film (title, description, release_year, language_id, rental_duration, "
    "rental_rate, length, replacement_cost, rating, special_features, fulltext) "
    "SELECT 'FILM ' || g, 'A story of ' || g || ' things', 1990 + g % 30, 1 + g % 6, "
    "3 + g % 5, (0.99 + (g % 5))::numeric(4,2), 40 + g % 150, (9.99 + g % 20)::numeric(5,2), "
    "(enum_range(NULL::mpaa_rating))[1 + g % 5], "
    "CASE g % 3 WHEN 0 THEN ARRAY['Trailers'] WHEN 1 THEN ARRAY['Commentaries', "
    "'Deleted Scenes'] ELSE ARRAY['Behind the Scenes'] END, '' "
    "FROM generate_series(1, 1000) g",
    "INSERT INTO film_actor (actor_id, film_id) SELECT DISTINCT 1 + (g * 7) % 200, 1 + g % 1000 "
    "FROM generate_series(1, 5000) g",
    "INSERT INTO film_category (film_id, category_id) SELECT g, 1 + g % 16 "
    "FROM generate_series(1, 1000) g",
    "INSERT INTO country (country) SELECT 'Country ' || g FROM generate_series(1, 100) g",
    "INSERT INTO city (city, country_id) SELECT 'City ' || g, 1 + g % 100 "
    "FROM generate_series(1, 600) g",
    "INSERT INTO address (address, district, city_id, postal_code, phone) "
    "SELECT g || ' Main Street', 'District ' || g % 50, 1 + g % 600, lpad(g::text, 5, '0'), "
    "'555-' || g FROM generate_series(1, 1200) g",
    "INSERT INTO store (store_id, manager_staff_id, address_id) VALUES (1, 1, 1), (2, 2, 2)",
    "INSERT INTO staff (first_name, last_name, address_id, email, store_id, username, "
    "password, picture) SELECT 'Staff' || g, 'Member', 2 + g, 's' || g || '@example.com', g, "
    "'staff' || g, md5(g::text), decode(repeat('89504e47', 16 + g), 'hex') "
    "FROM generate_series(1, 2) g",
    "INSERT INTO customer (store_id, first_name, last_name, email, address_id, active) "
    "SELECT 1 + g % 2, 'CUSTOMER' || g, 'NAME' || g, 'c' || g || '@example.com', "
    "4 + g, g % 2 FROM generate_series(1, 600) g",
    "INSERT INTO inventory (film_id, store_id) SELECT 1 + g % 1000, 1 + g % 2 "
    "FROM generate_series(1, 4500) g",
    "INSERT INTO rental (rental_date, inventory_id, customer_id, return_date, staff_id) "
    "SELECT timestamptz '2022-05-24 22:53:30+00' + g * interval '17 minutes', 1 + g % 4500, "
    "1 + g % 600, CASE WHEN g % 7 = 0 THEN NULL ELSE timestamptz '2022-05-26 00:00:00+00' "
    "+ g * interval '17 minutes' END, 1 + g % 2 FROM generate_series(1, 8000) g",
    "INSERT INTO payment (customer_id, staff_id, rental_id, amount, payment_date) "
    "SELECT customer_id, staff_id, rental_id, (0.99 + rental_id % 5)::numeric(5,2), "
    "rental_date + interval '2 hours' FROM rental WHERE rental_id % 3 <> 0",
]

# The schema's moves while the channel runs, one between two rounds under the writers; the
# third item: what a user runs after the next round (the way back a stop names), or None
MOVES = [
    ("an enum value added, films given it",
     ["ALTER TYPE mpaa_rating ADD VALUE IF NOT EXISTS 'NR'",
      "UPDATE film SET rating = 'NR' WHERE film_id % 10 = 0"], None),
    ("this month's and the next month's payment partitions created",
     ["DO $$DECLARE m timestamptz; BEGIN FOR m IN SELECT generate_series("
      "date_trunc('month', now()), date_trunc('month', now()) + interval '1 month', "
      "interval '1 month') LOOP EXECUTE format('CREATE TABLE payment_p%s PARTITION OF "
      "payment FOR VALUES FROM (%L) TO (%L)', to_char(m, 'YYYY_MM'), m, "
      "m + interval '1 month'); END LOOP; END$$"], None),
    # every customer gets 0, every NC-17 film becomes X, without a change record: the
    # tables stop, and the way back copies them again with their sync group (held behind
    # them meanwhile)
    ("a column added to customer, its rows given the default; a film rating renamed",
     ["ALTER TABLE customer ADD COLUMN loyalty integer NOT NULL DEFAULT 0",
      "ALTER TYPE mpaa_rating RENAME VALUE 'NC-17' TO 'X'"],
     ("snapshot", "--tables", ",".join(f"public.{t}" for t in TABLES), "--truncate",
      "--restart")),
    ("a cascading foreign key from payment to rental",
     ["DELETE FROM payment p WHERE NOT EXISTS "  # the partitions without a key's orphans
      "(SELECT 1 FROM rental r WHERE r.rental_id = p.rental_id)",
      "ALTER TABLE payment ADD CONSTRAINT payment_rental_cascade FOREIGN KEY (rental_id) "
      "REFERENCES rental (rental_id) ON DELETE CASCADE"], None),
]  # fmt: skip


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def load_schema(url: str, path: Path) -> int:
    """The sample's schema, adapted to the server's version; the statements it refused."""
    text = path.read_text(encoding="utf-8")
    text = text.replace("uuidv7()", "gen_random_uuid()")
    text = re.sub(r"\bVIRTUAL\b", "STORED", text)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(text)
    r = subprocess.run(
        ["psql", "-q", "-X", "-d", url, "-f", f.name], capture_output=True, text=True
    )
    os.unlink(f.name)
    return r.stderr.count("ERROR:")


def writer(url: str, no: int, stop: threading.Event, counts: dict[str, int]) -> None:
    rng = random.Random(no)
    with psycopg.connect(url) as conn:
        while not stop.is_set():
            try:
                roll = rng.random()
                if roll < 0.35:
                    (rid,) = conn.execute(
                        "INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id) "
                        "VALUES (now(), %s, (SELECT customer_id FROM customer ORDER BY random() "
                        "LIMIT 1), %s) RETURNING rental_id",
                        (rng.randint(1, 4500), rng.randint(1, 2)),
                    ).fetchone()
                    conn.commit()
                    # refused (rolled back) until this month's partition is made
                    conn.execute(
                        "INSERT INTO payment (customer_id, staff_id, rental_id, amount, "
                        "payment_date) SELECT customer_id, staff_id, rental_id, %s, now() "
                        "FROM rental WHERE rental_id = %s",
                        (rng.randint(99, 999) / 100, rid),
                    )
                elif roll < 0.55:
                    conn.execute(
                        "UPDATE rental SET return_date = now() WHERE rental_id = (SELECT "
                        "rental_id FROM rental WHERE return_date IS NULL LIMIT 1)"
                    )
                elif roll < 0.7:
                    conn.execute(
                        "UPDATE customer SET email = %s, activebool = NOT activebool "
                        "WHERE customer_id = %s",
                        (f"x{rng.getrandbits(30)}@example.org", rng.randint(1, 600)),
                    )
                    if rng.random() < 0.5:  # refused until the column is added
                        conn.commit()
                        conn.execute(
                            "UPDATE customer SET loyalty = loyalty + 1 WHERE customer_id = %s",
                            (rng.randint(1, 600),),
                        )
                elif roll < 0.8:
                    conn.execute(
                        "UPDATE film SET rating = (enum_range(NULL::mpaa_rating))[%s], "
                        "special_features = special_features || %s::text, rental_rate = %s, "
                        "description = description || ' ✓' WHERE film_id = %s",
                        (rng.randint(1, 5), "Extra", rng.randint(99, 499) / 100,
                         rng.randint(1, 1000)),
                    )  # fmt: skip
                elif roll < 0.9:
                    (aid,) = conn.execute(
                        "INSERT INTO address (address, district, city_id, phone) "
                        "VALUES (%s, 'New', %s, '555') RETURNING address_id",
                        (f"{rng.randint(1, 999)} New Road", rng.randint(1, 600)),
                    ).fetchone()
                    conn.execute(
                        "INSERT INTO customer (store_id, first_name, last_name, address_id) "
                        "VALUES (%s, 'NEW', %s, %s)",
                        (rng.randint(1, 2), f"N{aid}", aid),
                    )
                elif roll < 0.95:
                    conn.execute(
                        "UPDATE staff SET picture = picture || %s WHERE staff_id = %s",
                        (bytes([rng.randint(0, 255)]), rng.randint(1, 2)),
                    )
                else:
                    conn.execute(
                        "DELETE FROM rental WHERE rental_id = (SELECT max(rental_id) FROM rental "
                        "WHERE return_date IS NOT NULL)"
                    )
                conn.commit()
                counts[str(no)] = counts.get(str(no), 0) + 1
            except psycopg.Error:
                conn.rollback()
            time.sleep(rng.uniform(0, 0.02))


def syncpoint(cfg: Path, *args: str) -> tuple[int, str, float]:
    exe = str(Path(sys.executable).with_name("syncpoint"))
    t0 = time.monotonic()
    r = subprocess.run([exe, "-c", str(cfg), *args], capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip(), time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", type=Path, required=True, help="pagila-schema.sql")
    ap.add_argument("--seconds", type=float, default=20.0, help="writers' time after the load")
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--keep", action="store_true", help="keep the databases")
    a = ap.parse_args()
    # a SIGTERM (timeout, Ctrl-C's kin) still drops what was made
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    tag = uuid.uuid4().hex[:8]
    base = PG.rsplit("/", 1)[0]
    names = {"src": f"pagila_src_{tag}", "pg": f"pagila_pg_{tag}"}
    admin = psycopg.connect(PG, autocommit=True)
    for n in names.values():
        admin.execute(f'CREATE DATABASE "{n}"')
    my = pymysql.connect(host="127.0.0.1", user="root", password="", autocommit=True)
    my.cursor().execute(f"CREATE DATABASE pagila_my_{tag} CHARACTER SET utf8mb4")
    work = Path(tempfile.mkdtemp(prefix="pagila-"))
    src_url = f"{base}/{names['src']}"
    failed = 1
    try:
        refused = load_schema(src_url, a.schema)
        say(f"schema loaded ({refused} statements refused by this server)")
        with psycopg.connect(src_url, autocommit=True) as conn:
            for stmt in FILL:
                conn.execute(stmt)
            conn.execute("UPDATE film SET title = title")  # the fulltext trigger fills it
        cfg = work / "syncpoint.yaml"
        cfg.write_text(
            yaml.safe_dump(
                {
                    "channel": "pagila",
                    "application": "wh",
                    "locations": {
                        "src": {"url": src_url, "capture": True},
                        "pg": {"url": f"{base}/{names['pg']}", "integrate": True},
                        "my": {
                            "url": f"mysql://root@127.0.0.1:3306/pagila_my_{tag}",
                            "integrate": True,
                        },
                        "lite": {"url": f"sqlite:///{work}/target.db", "integrate": True},
                    },
                    "tables": [{"name": f"public.{t}", "ddl_policy": "apply"} for t in TABLES],
                    "sync_groups": {"rentals": TABLES},
                    "spark": {"master": "local[2]"},
                }
            )
        )
        for step in (("validate",), ("install",)):
            rc, out, secs = syncpoint(cfg, *step)
            say(f"{' '.join(step)}: exit {rc} in {secs:.1f} s\n{out}")
            if step == ("install",) and rc:
                return 1
        stop = threading.Event()
        counts: dict[str, int] = {}
        threads = [
            threading.Thread(target=writer, args=(src_url, i, stop, counts))
            for i in range(a.writers)
        ]
        for t in threads:
            t.start()
        try:
            rc, out, secs = syncpoint(cfg, "snapshot")
            say(f"snapshot under {a.writers} writers: exit {rc} in {secs:.1f} s\n{out}")
            end = time.monotonic() + a.seconds
            moves = list(MOVES)
            back: tuple[str, ...] | None = None
            while time.monotonic() < end or moves or back:
                rc, out, secs = syncpoint(cfg, "run", "--once")
                say(f"run --once under writers: exit {rc} in {secs:.1f} s {out[-300:]}")
                if back:
                    rc, out, secs = syncpoint(cfg, *back)
                    say(f"{back[0]} (the way back): exit {rc} in {secs:.1f} s\n{out[-1500:]}")
                    back = None
                elif moves:
                    what, stmts, back = moves.pop(0)
                    with psycopg.connect(src_url, autocommit=True) as conn:
                        for stmt in stmts:
                            conn.execute(stmt)
                    say(f"schema moved: {what}")
        finally:
            stop.set()
            for t in threads:
                t.join()
        say(f"writers' transactions: {sum(counts.values())}")
        rc, out, secs = syncpoint(cfg, "run", "--once")
        say(f"last round: exit {rc} in {secs:.1f} s {out[-300:]}")
        rc, out, secs = syncpoint(cfg, "verify")
        say(f"verify: exit {rc} in {secs:.1f} s\n{out[-3000:]}")
        failed = rc
    finally:
        if not a.keep:
            if (work / "syncpoint.yaml").exists():
                syncpoint(work / "syncpoint.yaml", "uninstall")
            for n in names.values():
                admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')
            my.cursor().execute(f"DROP DATABASE IF EXISTS pagila_my_{tag}")
            shutil.rmtree(work, ignore_errors=True)
        else:
            say(f"kept: {work}, databases {names} and pagila_my_{tag}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
