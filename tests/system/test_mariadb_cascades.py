"""Foreign keys with cascades at a MariaDB source, replicated exactly: InnoDB writes none of
the rows a cascade changes to the binary log and fires no trigger for them, so the rounds
make those changes at the target. Both capture kinds, into a PostgreSQL target syncpoint
creates (with the foreign keys, as created targets have them) and into a MariaDB one
syncpoint creates:
ON DELETE CASCADE, ON DELETE SET NULL, ON UPDATE CASCADE (a key that moves too), a chain of
three levels, the parent deleted and inserted again with a new child in one round, a child
changed in the round before its parent goes; and a cascading foreign key added while
``run --follow`` runs. Every check is by count and checksum of every row, computed here."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system import sakila

pytestmark = [pytest.mark.spark]

SCHEMA = [
    # code: an index InnoDB lets a foreign key refer to (not unique: a unique one at the
    # target would refuse the upsert of a moved key before the old key's delete)
    "CREATE TABLE cust (id int PRIMARY KEY, code varchar(10) NOT NULL, name varchar(40), "
    "KEY (code)) ENGINE=InnoDB",
    # level 2 of the chain: deleted with its customer, moved with its customer's id
    "CREATE TABLE rental (id int PRIMARY KEY, cust_id int NOT NULL, note varchar(40), "
    "CONSTRAINT r_c FOREIGN KEY (cust_id) REFERENCES cust (id) "
    "ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB",
    # level 3
    "CREATE TABLE payment (id int PRIMARY KEY, rental_id int NOT NULL, amount decimal(8,2), "
    "CONSTRAINT p_r FOREIGN KEY (rental_id) REFERENCES rental (id) ON DELETE CASCADE) "
    "ENGINE=InnoDB",
    # SET NULL, and ON UPDATE CASCADE through a column that is not the key
    "CREATE TABLE review (id int PRIMARY KEY, cust_code varchar(10), body varchar(40), "
    "CONSTRAINT v_c FOREIGN KEY (cust_code) REFERENCES cust (code) "
    "ON DELETE SET NULL ON UPDATE CASCADE) ENGINE=InnoDB",
    # the foreign key is part of the key: ON UPDATE CASCADE moves the row's key
    "CREATE TABLE tag (cust_id int NOT NULL, tag varchar(10) NOT NULL, "
    "PRIMARY KEY (cust_id, tag), CONSTRAINT t_c FOREIGN KEY (cust_id) REFERENCES cust (id) "
    "ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB",
]
TABLES = ["cust", "rental", "payment", "review", "tag"]
KEYS = {"cust": "id", "rental": "id", "payment": "id", "review": "id", "tag": "cust_id, tag"}


def fill(src: Any) -> None:
    custs = [(i, f"c{i}", f"n{i}") for i in range(1, 11)]
    rentals = [(i * 10 + j, i, f"r{i}.{j}") for i in range(1, 11) for j in range(3)]
    payments = [(r * 10 + k, r, f"{r}.{k}5") for r, _, _ in rentals for k in range(2)]
    reviews = [(i, f"c{i}", f"v{i}") for i in range(1, 11)]
    tags = [(i, t) for i in range(1, 11) for t in ("a", "b")]
    conn = src.connect(autocommit=True)
    cur = conn.cursor()
    cur.executemany("INSERT INTO cust VALUES (%s, %s, %s)", custs)
    cur.executemany("INSERT INTO rental VALUES (%s, %s, %s)", rentals)
    cur.executemany("INSERT INTO payment VALUES (%s, %s, %s)", payments)
    cur.executemany("INSERT INTO review VALUES (%s, %s, %s)", reviews)
    cur.executemany("INSERT INTO tag VALUES (%s, %s)", tags)
    conn.close()


def cascading_round(src: Any) -> None:
    """One round's worth of changes whose cascades the capture cannot see."""
    src.execute(
        # a three-level delete: rentals 10-12 and their payments; review 1 set null
        "DELETE FROM cust WHERE id = 1",
        # the trap: deleted (cascading to rentals 20-22, their payments, tags), inserted
        # again with the same key, and a new child (and grandchild) made for it: the old
        # children go, the new ones stay
        "DELETE FROM cust WHERE id = 2",
        "INSERT INTO cust VALUES (2, 'c2', 'again')",
        "INSERT INTO rental VALUES (25, 2, 'new')",
        "INSERT INTO payment VALUES (250, 25, 9.99)",
        "INSERT INTO tag VALUES (2, 'a')",
        "UPDATE review SET body = 'kept' WHERE id = 2",
        # ON UPDATE CASCADE: rentals of 3 move to 33, tags (3, a/b) move their key
        "UPDATE cust SET id = 33 WHERE id = 3",
        # through the unique code: review 4 follows
        "UPDATE cust SET code = 'c4x' WHERE id = 4",
        # a child moved to customer 6 in the round before customer 6 is deleted goes too
        "UPDATE rental SET cust_id = 6, note = 'moved' WHERE id = 50",
        "INSERT INTO rental VALUES (68, 6, 'late')",
        "DELETE FROM cust WHERE id = 6",
        # moved away before its customer goes: stays
        "UPDATE rental SET cust_id = 8 WHERE id = 70",
        "DELETE FROM cust WHERE id = 7",
        # deleted and inserted again twice in one round, a child made between the two
        "DELETE FROM cust WHERE id = 9",
        "INSERT INTO cust VALUES (9, 'c9', 'b')",
        "INSERT INTO rental VALUES (95, 9, 'between')",
        "DELETE FROM cust WHERE id = 9",
        "INSERT INTO cust VALUES (9, 'c9', 'c')",
        "INSERT INTO rental VALUES (96, 9, 'last')",
    )


def digest(db: Any, table: str) -> tuple[int, str]:
    """Count and hash of every row of ``table``, values as text, in key order."""
    rows = db.query(f"SELECT * FROM {table} ORDER BY {KEYS[table]}")
    text = json.dumps([[None if v is None else str(v) for v in r] for r in rows])
    return len(rows), hashlib.sha256(text.encode()).hexdigest()


def assert_same(src: Any, dst: Any, tables: list[str] = TABLES) -> None:
    for t in tables:
        a, b = digest(src, t), digest(dst, t)
        assert a == b, (
            t,
            src.query(f"SELECT * FROM {t} ORDER BY {KEYS[t]}")[:40],
            dst.query(f"SELECT * FROM {t} ORDER BY {KEYS[t]}")[:40],
        )


def channel(tmp: Path, src: Any, dst: Any, kind: str, tables: list[str] = TABLES) -> Path:
    cfg = rk.write_config(tmp / "sp.yaml", {"src": src}, dst, tables=tables)
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["locations"]["src"]["capture"] = kind if kind == "log" else True
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    return cfg


@pytest.mark.parametrize("kind", ["trigger", "log"])
def test_cascades_replicated_exactly_into_postgres(
    kind: str, log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = log_maria_db, pg_db
    src.execute(*SCHEMA)
    cfg = channel(tmp_path, src, dst, kind)
    # a child in another sync group than its cascading parent is refused, saying which
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["sync_groups"] = {"g": [t for t in TABLES if t != "tag"], "h": ["tag"]}
    split = tmp_path / "split.yaml"
    split.write_text(yaml.safe_dump(data), encoding="utf-8")
    _, _, per_location, _ = Channel.check_file(split)
    assert [p for p in per_location["src"] if "sync group" in p] == [
        "table tag: foreign key 't_c' to 'cust' has ON DELETE CASCADE and ON UPDATE CASCADE, "
        "which the rounds make at the target with the changes of 'cust': put 'tag' in the "
        "sync group of 'cust' (g)"
    ]
    # a SQLite target cannot take them: said before anything is installed
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["locations"]["cen"]["url"] = f"sqlite:///{tmp_path}/t.db"
    lite = tmp_path / "lite.yaml"
    lite.write_text(yaml.safe_dump(data), encoding="utf-8")
    _, _, per_location, _ = Channel.check_file(lite)
    assert len([p for p in per_location["src"] if "SQLite target (cen)" in p]) == 4
    source, problems, per_location, _ = Channel.check_file(cfg)
    assert not problems and not any(per_location.values()), per_location
    ch = Channel.from_file(cfg)
    ch.install()
    fill(src)
    ch.run(once=True, spark=spark)
    assert_same(src, dst)
    # the created target has the foreign keys (no cascade of its own): the cascade's rows
    # must go before their parents do
    fks = dst.query(
        "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = "
        "'public'::regnamespace"
    )
    assert fks[0][0] >= 3  # review refers to a non-unique index: left out there
    cascading_round(src)
    if kind == "log":
        # the cascading round on the direct path (database to database), the trigger case
        # stays in the driver: the events are followed the same on both
        data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
        data["spark"]["driver_round_max"] = 0
        cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
        ch = Channel.from_file(cfg)
    report = ch.run(once=True, spark=spark)
    assert [r.get("direct") for r in report.rounds] == [kind == "log"]
    if kind == "log":  # the direct path stages a cascade's tables as JSON text, saying so
        why = {w for r in report.rounds for w in (r.get("untyped") or {}).values()}
        assert why == {"in a cascade of foreign keys the round makes"}, report.rounds
    assert dst.query("SELECT id, note FROM rental WHERE cust_id = 2 ORDER BY id") == [(25, "new")]
    assert dst.query("SELECT cust_code FROM review WHERE id = 1") == [(None,)]
    assert dst.query("SELECT tag FROM tag WHERE cust_id = 33 ORDER BY tag") == [("a",), ("b",)]
    assert_same(src, dst)


def test_cascades_into_a_created_mariadb_target(
    log_maria_db: Any, maria_db: Any, tmp_path: Path, spark: Any
) -> None:
    """A MariaDB target syncpoint creates without foreign keys, trigger capture, the
    cascading round on the direct path (netted by the source; the events are staged apart
    by the driver all the same)."""
    src, dst = log_maria_db, maria_db
    src.execute(*SCHEMA)
    cfg = channel(tmp_path, src, dst, "trigger")
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["create_foreign_keys"] = False
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    ch = Channel.from_file(cfg)
    ch.install()
    fill(src)
    ch.run(once=True, spark=spark)
    cascading_round(src)
    data["spark"]["driver_round_max"] = 0
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    report = Channel.from_file(cfg).run(once=True, spark=spark)
    assert [(r["engine"], r["direct"]) for r in report.rounds] == [("spark", True)]
    assert_same(src, dst)


def test_a_case_only_key_change_cascades_without_losing_the_child(
    log_maria_db: Any, maria_db: Any, tmp_path: Path, spark: Any
) -> None:
    """A parent key in a case-insensitive collation changed 'abc' to 'ABC': InnoDB cascades
    it into the child whose key holds the foreign key column. At the target 'abc' and
    'ABC' are one key, so the child does not move: it takes the new text, and stays."""
    src, dst = log_maria_db, maria_db
    src.execute(
        "CREATE TABLE par (k varchar(10) COLLATE utf8mb4_general_ci PRIMARY KEY, v int) "
        "ENGINE=InnoDB",
        "CREATE TABLE kid (k varchar(10) COLLATE utf8mb4_general_ci NOT NULL, n int NOT NULL, "
        "PRIMARY KEY (k, n), CONSTRAINT k_p FOREIGN KEY (k) REFERENCES par (k) "
        "ON UPDATE CASCADE) ENGINE=InnoDB",
    )
    cfg = rk.write_config(
        tmp_path / "sp.yaml", {"src": src}, dst, tables=["par", "kid"],
        extra={"spark": {"driver_round_max": 1_000_000}},
    )  # fmt: skip
    ch = Channel.from_file(cfg)
    ch.install()
    src.execute(
        "INSERT INTO par VALUES ('abc', 1), ('def', 2)",
        "INSERT INTO kid VALUES ('abc', 1), ('abc', 2), ('def', 1)",
    )
    ch.run(once=True, spark=spark)
    src.execute("UPDATE par SET k = 'ABC' WHERE k = 'abc'")
    assert src.query("SELECT k, n FROM kid ORDER BY n, k") == [("ABC", 1), ("def", 1), ("ABC", 2)]
    assert ch.run(once=True, spark=spark).changes
    for t in ("par", "kid"):
        q = f"SELECT * FROM {t} ORDER BY 2, 1"
        assert dst.query(q) == src.query(q), t


def test_cascade_added_while_follow_runs(log_maria_db: Any, pg_db: Any, tmp_path: Path) -> None:
    """A foreign key made ON DELETE CASCADE while ``run --follow`` runs: the deletes it
    cascades reach the target. One whose parent is not replicated stops its child with the
    reason instead."""
    src, dst = log_maria_db, pg_db
    src.execute(
        "CREATE TABLE cust (id int PRIMARY KEY, code varchar(10) NOT NULL UNIQUE, "
        "name varchar(40)) ENGINE=InnoDB",
        "CREATE TABLE rental (id int PRIMARY KEY, cust_id int NOT NULL, note varchar(40), "
        "CONSTRAINT r_c FOREIGN KEY (cust_id) REFERENCES cust (id)) ENGINE=InnoDB",
        "CREATE TABLE outside (id int PRIMARY KEY) ENGINE=InnoDB",
        "CREATE TABLE lone (id int PRIMARY KEY, o int, CONSTRAINT l_o FOREIGN KEY (o) "
        "REFERENCES outside (id)) ENGINE=InnoDB",
    )
    src.execute(
        "INSERT INTO cust VALUES (1, 'c1', 'a'), (2, 'c2', 'b')",
        "INSERT INTO rental VALUES (10, 1, 'x'), (11, 1, 'y'), (20, 2, 'z')",
        "INSERT INTO outside VALUES (1), (2)",
        "INSERT INTO lone VALUES (1, 1), (2, 2)",
    )
    cfg = channel(tmp_path, src, dst, "log", tables=["cust", "rental", "lone"])
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    data["sync_groups"] = {"g": ["cust", "rental"], "h": ["lone"]}
    for t in data["tables"]:
        t["snapshot"] = "required"
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    ch = Channel.from_file(cfg)
    ch.install()
    snap = rk.syncpoint(cfg, "snapshot")
    assert snap.returncode == 0, snap.stderr[-2000:]
    follower = rk.start_syncpoint(cfg, "run", "--follow", "--interval", "0.2", log=tmp_path / "f")
    try:
        src.execute(
            "ALTER TABLE rental DROP FOREIGN KEY r_c, ADD CONSTRAINT r_c2 FOREIGN KEY "
            "(cust_id) REFERENCES cust (id) ON DELETE CASCADE",
            "ALTER TABLE lone DROP FOREIGN KEY l_o, ADD CONSTRAINT l_o2 FOREIGN KEY (o) "
            "REFERENCES outside (id) ON DELETE CASCADE",
        )
        src.execute("DELETE FROM cust WHERE id = 1", "DELETE FROM outside WHERE id = 1")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if dst.query("SELECT count(*) FROM rental") == [(1,)] and dst.query(
                "SELECT count(*) FROM cust"
            ) == [(1,)]:
                break
            time.sleep(0.3)
        assert_same(src, dst, ["cust", "rental"])
    finally:
        follower.terminate()
        follower.wait(30)
    # the child of a table outside the channel stopped before the delete reached it: its
    # target keeps both rows, and status says why
    assert dst.query("SELECT count(*) FROM lone") == [(2,)]
    st = rk.syncpoint(cfg, "status", "--json")
    doc = json.loads(st.stdout)
    stopped = {t["table"]: t["stopped"] for t in doc["integrate"]["cen"]["tables"]}
    assert stopped["lone"] and "outside" in json.dumps(stopped["lone"]), stopped
    assert not stopped["cust"] and not stopped["rental"]
    # the rule taken away: the row it deleted meanwhile is still missing at the target, so
    # the table stays stopped until a snapshot loads it again
    src.execute(
        "ALTER TABLE lone DROP FOREIGN KEY l_o2, ADD CONSTRAINT l_o3 FOREIGN KEY (o) "
        "REFERENCES outside (id)",
        "INSERT INTO lone VALUES (3, 2)",
    )
    again = rk.syncpoint(cfg, "run", "--once")
    assert again.returncode != 0 and "cascade not followed" in again.stdout + again.stderr
    assert dst.query("SELECT count(*) FROM lone") == [(2,)]
    snap = rk.syncpoint(cfg, "snapshot", "--tables", "lone", "--truncate", "--restart")
    assert snap.returncode == 0, snap.stdout[-2000:] + snap.stderr[-2000:]
    done = rk.syncpoint(cfg, "run", "--once")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    KEYS["lone"] = "id"
    assert_same(src, dst, ["cust", "rental", "lone"])


def norm(v: Any) -> str | None:
    """A value as text, the same at either vendor: booleans as 0/1, instants in UTC without
    a zone, binary as hex."""
    if v is None:
        return None
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).hex()
    if isinstance(v, datetime):
        if v.tzinfo is not None:
            v = v.astimezone(UTC).replace(tzinfo=None)
        return v.isoformat(sep=" ")
    return str(v)


def sakila_digest(db: Any, table: str) -> tuple[int, str]:
    """Count and hash of every row of a Sakila table, in key order; the geometry of
    ``address`` as its text (each vendor's own bytes differ)."""
    cols = [c for c in SAKILA_COLUMNS[table] if c != "location"]
    rows = db.query(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {sakila.key(table)}")
    text = json.dumps([[norm(v) for v in r] for r in rows])
    return len(rows), hashlib.sha256(text.encode()).hexdigest()


SAKILA_COLUMNS: dict[str, list[str]] = {}


def sakila_round(src: Any) -> None:
    """Deletes and key changes whose cascades Sakila's own foreign keys make."""
    src.execute(
        # payments of a deleted rental lose it (ON DELETE SET NULL)
        "DELETE FROM rental WHERE rental_id IN (1, 2)",
        # the trap: rental 3 deleted (its payment set null), made again, a payment for it
        "DELETE FROM rental WHERE rental_id = 3",
        "INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, staff_id) "
        "VALUES (3, '2006-01-01 10:00:00', 4, 4, 2)",
        "INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, "
        "payment_date) VALUES (300, 4, 2, 3, 1.50, '2006-01-01 10:00:00')",
        # ON UPDATE CASCADE: a customer renumbered (rentals, payments follow), a film
        # (film_actor and film_category move their keys, inventory follows), a language
        # (both of film's references), a staff member (rentals, payments, the store it
        # manages: the cycle). Not a store or a rental: their second unique key refuses a
        # moved key's upsert at the target before the old key's delete, cascade or not
        "UPDATE customer SET customer_id = 205 WHERE customer_id = 5",
        "UPDATE film SET film_id = 101 WHERE film_id = 1",
        "UPDATE language SET language_id = 12 WHERE language_id = 2",
        "UPDATE staff SET staff_id = 7 WHERE staff_id = 2",
        # a customer without rentals can go (RESTRICT otherwise)
        "DELETE FROM payment WHERE customer_id = 6",
        "DELETE FROM rental WHERE customer_id = 6",
        "DELETE FROM customer WHERE customer_id = 6",
    )


@pytest.mark.parametrize(
    ("kind", "into"), [("trigger", "postgres"), ("log", "postgres"), ("log", "mariadb")]
)
def test_sakila_as_shipped_replicates_with_its_cascades(
    kind: str, into: str, log_maria_db: Any, tmp_path: Path, spark: Any
) -> None:
    """Sakila's schema with its 22 cascading foreign keys, unchanged, into a PostgreSQL or
    MariaDB target syncpoint creates: validate says ok, and the rounds make the target
    equal to the source, cascades included."""
    target = (make_pg if into == "postgres" else make_mariadb)()
    src, dst = log_maria_db, next(target)
    try:
        sakila_into(kind, src, dst, tmp_path, spark)
    finally:
        next(target, None)


def sakila_into(kind: str, src: Any, dst: Any, tmp_path: Path, spark: Any) -> None:
    conn = src.connect(autocommit=True)
    sakila.create(conn)
    conn.close()
    assert src.query(
        "SELECT count(*) FROM information_schema.REFERENTIAL_CONSTRAINTS "
        "WHERE CONSTRAINT_SCHEMA = DATABASE() AND UPDATE_RULE = 'CASCADE'"
    ) == [(22,)]
    for t in sakila.TABLES:
        SAKILA_COLUMNS[t] = [
            r[0]
            for r in src.query(
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                "DATABASE() AND TABLE_NAME = %s ORDER BY ORDINAL_POSITION",
                (t,),
            )
        ]
    cfg = channel(tmp_path, src, dst, kind, tables=sakila.TABLES)
    _, problems, per_location, _ = Channel.check_file(cfg)
    assert not problems and not any(per_location.values()), per_location
    ch = Channel.from_file(cfg)
    ch.install()
    # loaded after install (the first round creates the target tables and copies the rows)
    conn = src.connect(autocommit=True)
    sakila.load(conn)
    conn.close()
    ch.run(once=True, spark=spark)
    sakila_round(src)
    ch.run(once=True, spark=spark)
    # the old rental 3's payment lost it, the new one's payment keeps it
    assert dst.query("SELECT payment_id, rental_id FROM payment WHERE payment_id IN (1, 2, 3, "
                     "300) ORDER BY 1") == [(1, None), (2, None), (3, None), (300, 3)]  # fmt: skip
    for t in sakila.TABLES:
        assert sakila_digest(src, t) == sakila_digest(dst, t), t


def writer(src: Any, seed: int, until: float) -> int:
    """Random transactions of one to three changes whose cascades cross each other: parents
    deleted and made again, children moved, keys and codes changed. Returns how many
    committed."""
    import random

    import pymysql

    rng = random.Random(seed)
    conn = src.connect(autocommit=False)
    cur = conn.cursor()
    done = 0

    fresh = iter(range(1000 + seed * 100_000, 1000 + (seed + 1) * 100_000))

    def n(top: int) -> int:
        return rng.randint(1, top)

    ops = [
        ("DELETE FROM cust WHERE id = %s", lambda: (n(12),)),
        # made again: 7 to 12 only (1 to 6 are renamed away, below, and never come back: a
        # key a cascade moved rows from, used again in the same round, stops the table)
        ("INSERT INTO cust VALUES (%s, %s, 'w')", lambda: (k := 6 + n(6), f"c{k}")),
        # new rentals take new keys: a middle row of a chain made again with a key a cascade
        # deleted in the same round is not followed yet (docs/log-capture.md)
        ("INSERT INTO rental VALUES (%s, %s, 'w')", lambda: (next(fresh), n(12))),
        ("INSERT INTO payment VALUES (%s, %s, 1.25)", lambda: (n(900), n(400))),
        ("UPDATE rental SET cust_id = %s WHERE id = %s", lambda: (n(12), n(400))),
        ("UPDATE cust SET code = %s WHERE id = %s", lambda: (f"c{n(12)}", n(12))),
        ("UPDATE cust SET id = %s WHERE id = %s", lambda: (100 + n(50), n(6))),
        ("INSERT INTO tag VALUES (%s, %s)", lambda: (n(12), rng.choice("abc"))),
        ("UPDATE review SET cust_code = %s WHERE id = %s", lambda: (f"c{n(12)}", n(10))),
    ]
    while time.monotonic() < until:
        try:
            for _ in range(rng.randint(1, 3)):
                sql, args = rng.choice(ops)
                cur.execute(sql, args())
            conn.commit()
            done += 1
        except pymysql.err.MySQLError:
            conn.rollback()
    conn.close()
    return done


@pytest.mark.parametrize("kind", ["trigger", "log"])
def test_cascades_under_writers(
    kind: str, log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    """Two writers whose transactions cascade across each other while rounds run (trigger
    capture orders records as rows are changed, log capture as transactions commit): the
    target ends equal."""
    import threading

    src, dst = log_maria_db, pg_db
    src.execute(*SCHEMA)
    cfg = channel(tmp_path, src, dst, kind)
    ch = Channel.from_file(cfg)
    ch.install()
    fill(src)
    until = time.monotonic() + 4
    counts: list[int] = []
    threads = [
        threading.Thread(target=lambda s=s: counts.append(writer(src, s, until))) for s in (1, 2)
    ]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        ch.run(once=True, spark=spark)
    for t in threads:
        t.join()
    ch.run(once=True, spark=spark)
    assert sum(counts) > 20
    assert_same(src, dst)


def test_middle_row_made_again_after_its_cascade_stops(
    log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    """A rental (with payments of its own) deleted by its customer's cascade and made again
    with the same key in the same round: whether the source's cascade took the old payments
    along depends on where the rental pointed at the delete, which the round's net rows do
    not tell. The group stops before anything of the round is applied, saying so; a snapshot
    of the tables named brings the target back equal to the source."""
    from syncpoint.errors import TableStopped

    src, dst = log_maria_db, pg_db
    src.execute(*SCHEMA)
    cfg = channel(tmp_path, src, dst, "log")
    ch = Channel.from_file(cfg)
    ch.install()
    fill(src)
    ch.run(once=True, spark=spark)
    assert_same(src, dst)
    src.execute(
        # moved to customer 4 before customer 5 goes, changed after: its payments stay, and
        # the round knows it (the move is kept apart from the net row)
        "UPDATE rental SET cust_id = 4 WHERE id = 50",
        "DELETE FROM cust WHERE id = 5",
        "UPDATE rental SET note = 'after' WHERE id = 50",
    )
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM payment WHERE rental_id = 50") == [(2,)]
    assert_same(src, dst)
    src.execute(
        # rentals 10-12 and payments 100-121 go with customer 1; rental 10 is made again
        # for customer 1 and rental 11 for customer 3: neither has payments at the source
        "DELETE FROM cust WHERE id = 1",
        "INSERT INTO cust VALUES (1, 'c1', 'again')",
        "INSERT INTO rental VALUES (10, 1, 'again')",
        "INSERT INTO rental VALUES (11, 3, 'elsewhere')",
        # made, given a payment, taken by its customer's cascade, made again elsewhere
        "INSERT INTO rental VALUES (83, 8, 'first')",
        "INSERT INTO payment VALUES (830, 83, 1.00)",
        "DELETE FROM cust WHERE id = 8",
        "INSERT INTO cust VALUES (8, 'c8', 'again')",
        "INSERT INTO rental VALUES (83, 4, 'again')",
        "UPDATE cust SET name = 'late' WHERE id = 6",
    )
    with pytest.raises(TableStopped) as stopped:
        ch.run(once=True, spark=spark)
    assert "made again" in str(stopped.value), stopped.value
    # nothing of the round was applied
    assert dst.query("SELECT name FROM cust WHERE id IN (1, 6) ORDER BY id") == [("n1",), ("n6",)]
    assert dst.query("SELECT count(*) FROM payment WHERE rental_id IN (10, 11, 12)") == [(6,)]
    st = rk.syncpoint(cfg, "status", "--json")
    doc = json.loads(st.stdout)
    why = {t["table"]: t["stopped"] for t in doc["integrate"]["cen"]["tables"]}
    said = str(why["rental"])
    assert "payment" in said and "snapshot --tables " in said, why
    assert all(why.values()), why
    # the way back it names: the tables the customer's cascades reach, loaded again
    names = said.split("snapshot --tables ")[1].split()[0]
    assert sorted(names.split(",")) == sorted(TABLES), said
    ch.snapshot(names.split(","), truncate=True, restart=True, spark=spark)
    ch.run(once=True, spark=spark)
    assert_same(src, dst)
