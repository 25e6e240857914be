"""Shared pieces of the round scenarios: schemas with related tables per vendor, channel
files, writer processes (long transactions, rollbacks, rows referring to each other), an
append-only audit at the target, the oracle (row-for-row checksums), and running the
``syncpoint`` command as a separate process."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

SRC = {
    "postgres": [
        "CREATE TABLE parent (id bigint PRIMARY KEY, name text, amount numeric(12,2), "
        "ver text NOT NULL, updated_at timestamptz)",
        "CREATE TABLE child (id bigint PRIMARY KEY, parent_id bigint NOT NULL "
        "REFERENCES parent (id), qty integer, ver text NOT NULL, note text)",
    ],
    "mariadb": [
        "CREATE TABLE parent (id bigint PRIMARY KEY, name text, amount decimal(12,2), "
        "ver varchar(40) NOT NULL, updated_at datetime(6)) ENGINE=InnoDB",
        "CREATE TABLE child (id bigint PRIMARY KEY, parent_id bigint NOT NULL, qty int, "
        "ver varchar(40) NOT NULL, note text, FOREIGN KEY (parent_id) REFERENCES parent (id)) "
        "ENGINE=InnoDB",
    ],
    "sqlite": [
        "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT, amount NUMERIC, "
        "ver TEXT NOT NULL, updated_at TEXT)",
        "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL "
        "REFERENCES parent (id), qty INTEGER, ver TEXT NOT NULL, note TEXT)",
    ],
}

AUDIT = {
    "postgres": [
        "CREATE TABLE audit (tbl text, ver text, op text)",
        "CREATE FUNCTION audit_f() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME, NEW.ver, TG_OP); RETURN NEW; END $$",
        "CREATE TRIGGER parent_audit AFTER INSERT OR UPDATE ON parent "
        "FOR EACH ROW EXECUTE FUNCTION audit_f()",
        "CREATE TRIGGER child_audit AFTER INSERT OR UPDATE ON child "
        "FOR EACH ROW EXECUTE FUNCTION audit_f()",
    ],
    "mariadb": [
        "CREATE TABLE audit (tbl varchar(20), ver varchar(40), op varchar(10)) ENGINE=InnoDB",
        "CREATE TRIGGER pa_i AFTER INSERT ON parent FOR EACH ROW "
        "INSERT INTO audit VALUES ('parent', NEW.ver, 'INSERT')",
        "CREATE TRIGGER pa_u AFTER UPDATE ON parent FOR EACH ROW "
        "INSERT INTO audit VALUES ('parent', NEW.ver, 'UPDATE')",
        "CREATE TRIGGER ch_i AFTER INSERT ON child FOR EACH ROW "
        "INSERT INTO audit VALUES ('child', NEW.ver, 'INSERT')",
        "CREATE TRIGGER ch_u AFTER UPDATE ON child FOR EACH ROW "
        "INSERT INTO audit VALUES ('child', NEW.ver, 'UPDATE')",
    ],
    "sqlite": [
        "CREATE TABLE audit (tbl TEXT, ver TEXT, op TEXT)",
        "CREATE TRIGGER pa_i AFTER INSERT ON parent BEGIN "
        "INSERT INTO audit VALUES ('parent', NEW.ver, 'INSERT'); END",
        "CREATE TRIGGER pa_u AFTER UPDATE ON parent BEGIN "
        "INSERT INTO audit VALUES ('parent', NEW.ver, 'UPDATE'); END",
        "CREATE TRIGGER ch_i AFTER INSERT ON child BEGIN "
        "INSERT INTO audit VALUES ('child', NEW.ver, 'INSERT'); END",
        "CREATE TRIGGER ch_u AFTER UPDATE ON child BEGIN "
        "INSERT INTO audit VALUES ('child', NEW.ver, 'UPDATE'); END",
    ],
}

TABLES = {
    "postgres": ["public.parent", "public.child"],
    "mariadb": ["parent", "child"],
    "sqlite": ["parent", "child"],
}


def setup_source(db: Any) -> None:
    db.execute(*SRC[db.vendor])


def setup_target(db: Any, with_fk: bool = True, audit: bool = True) -> None:
    """Target tables made beforehand (used as they are): with foreign keys for the cut."""
    stmts = list(SRC[db.vendor])
    if not with_fk:
        stmts = [s.replace(" REFERENCES parent (id)", "") for s in stmts]
        stmts = [s.replace(", FOREIGN KEY (parent_id) REFERENCES parent (id)", "") for s in stmts]
    db.execute(*stmts)
    if audit:
        db.execute(*AUDIT[db.vendor])


def write_config(
    path: Path,
    sources: dict[str, Any],
    target: Any,
    *,
    app: str = "wh",
    tables: list[str] | None = None,
    extra: dict[str, Any] | None = None,
    snapshot: str = "none",
) -> Path:
    vendor = next(iter(sources.values())).vendor
    names = tables or TABLES[vendor]
    data: dict[str, Any] = {
        "channel": "shop",
        "application": app,
        "locations": {
            **{n: {"url": db.url, "capture": True} for n, db in sources.items()},
            "cen": {"url": target.url, "integrate": True},
        },
        "tables": [{"name": n, "snapshot": snapshot} for n in names],
        "sync_groups": {"g": [n.split(".")[-1] for n in names]},
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    data.update(extra or {})
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def syncpoint(
    cfg: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    e = dict(os.environ)
    e.pop("SYNCPOINT_FAILPOINT", None)
    e.update(env or {})
    exe = str(Path(sys.executable).with_name("syncpoint"))
    return subprocess.run(
        [exe, "-c", str(cfg), *args], capture_output=True, text=True, env=e, timeout=timeout
    )


def start_syncpoint(
    cfg: Path, *args: str, log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    exe = str(Path(sys.executable).with_name("syncpoint"))
    e = dict(os.environ)
    e.pop("SYNCPOINT_FAILPOINT", None)
    e.update(env or {})
    return subprocess.Popen(
        [exe, "-c", str(cfg), *args], stdout=log.open("wb"), stderr=subprocess.STDOUT, env=e
    )


# -- oracle ----------------------------------------------------------------------------------
def norm(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float | Decimal):
        return format(Decimal(str(v)).normalize(), "f")
    if isinstance(v, datetime):
        if v.tzinfo is not None:
            v = v.astimezone(UTC).replace(tzinfo=None)
        return v.isoformat(sep=" ")
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).hex()
    if isinstance(v, str):
        try:
            return format(Decimal(v).normalize(), "f")
        except Exception:  # noqa: BLE001 - not a number: plain text
            pass
        try:
            d = datetime.fromisoformat(v)
            if d.tzinfo is not None:
                d = d.astimezone(UTC).replace(tzinfo=None)
            return d.isoformat(sep=" ")
        except ValueError:
            return v
    return v


def rows(db: Any, table: str, columns: str = "*") -> list[tuple[Any, ...]]:
    return sorted(
        tuple(norm(v) for v in r) for r in db.query(f"SELECT {columns} FROM {table} ORDER BY 1")
    )


def checksum(rs: list[tuple[Any, ...]]) -> str:
    return hashlib.sha256(json.dumps(rs, default=str).encode()).hexdigest()


COLS = {"parent": "id, name, amount, ver, updated_at", "child": "id, parent_id, qty, ver, note"}


def same(src: Any, dst: Any) -> tuple[bool, str]:
    """Target equals source row for row (checksums of normalized rows)."""
    for t, cols in COLS.items():
        a, b = rows(src, t, cols), rows(dst, t, cols)
        if checksum(a) != checksum(b):
            missing = [r for r in a if r not in b][:3]
            extra = [r for r in b if r not in a][:3]
            return (
                False,
                f"{t}: source {len(a)} rows, target {len(b)}; missing {missing} extra {extra}",
            )
    return True, ""


def duplicates(dst: Any) -> list[tuple[Any, ...]]:
    return dst.query("SELECT tbl, ver, count(*) FROM audit GROUP BY tbl, ver HAVING count(*) > 1")


def orphans(dst: Any) -> int:
    return int(
        dst.query(
            "SELECT count(*) FROM child c LEFT JOIN parent p ON p.id = c.parent_id "
            "WHERE p.id IS NULL"
        )[0][0]
    )


# -- writers ----------------------------------------------------------------------------------
def _ph(vendor: str) -> str:
    return "?" if vendor == "sqlite" else "%s"


def amount(vendor: str, cents: int) -> Any:
    value = Decimal(cents) / 100
    return str(value) if vendor == "sqlite" else value  # sqlite3 binds no Decimal


def writer(vendor: str, url: str, no: int, seconds: float, seed: int) -> None:
    """Random related-table transactions: ~20% roll back, some stay open for seconds."""
    from syncpoint.vendors import connect

    rng = random.Random(seed)
    p = _ph(vendor)
    rnd = {"postgres": "random()", "mariadb": "RAND()", "sqlite": "random()"}[vendor]
    conn = connect(url)
    cur = conn.cursor()
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        n += 1
        try:
            if vendor == "sqlite":
                cur.execute("BEGIN IMMEDIATE")
            for _ in range(rng.randint(1, 4)):
                ver = f"{no}-{n}-{rng.getrandbits(40)}"
                roll = rng.random()
                if roll < 0.35:
                    pid = no + 16 * (n * 10 + rng.randint(0, 9))
                    cur.execute(
                        f"INSERT INTO parent (id, name, amount, ver, updated_at) VALUES "
                        f"({p}, {p}, {p}, {p}, {p})",
                        (
                            pid,
                            f"p{pid} ✓",
                            amount(vendor, rng.randint(0, 10**9)),
                            ver,
                            datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" "),
                        ),
                    )
                    if rng.random() < 0.7:
                        cid = pid * 7 + rng.randint(0, 5)
                        cur.execute(
                            f"INSERT INTO child (id, parent_id, qty, ver, note) VALUES "
                            f"({p}, {p}, {p}, {p}, {p})",
                            (cid, pid, rng.randint(-5, 50), ver + "c", None),
                        )
                elif roll < 0.6:
                    cur.execute(
                        f"UPDATE parent SET amount = amount + 1, ver = {p} WHERE id = "
                        f"(SELECT id FROM (SELECT id FROM parent ORDER BY {rnd} LIMIT 1) x)",
                        (ver,),
                    )
                elif roll < 0.75:
                    cur.execute(
                        f"UPDATE child SET parent_id = (SELECT id FROM (SELECT id FROM parent "
                        f"ORDER BY {rnd} LIMIT 1) y), qty = qty + 1, ver = {p} WHERE id = "
                        f"(SELECT id FROM (SELECT id FROM child ORDER BY {rnd} LIMIT 1) x)",
                        (ver,),
                    )
                elif roll < 0.9:
                    cur.execute(
                        f"DELETE FROM child WHERE id = (SELECT id FROM (SELECT id FROM "
                        f"child ORDER BY {rnd} LIMIT 1) x)"
                    )
                else:
                    cur.execute(f"SELECT id FROM parent ORDER BY {rnd} LIMIT 1")
                    r = cur.fetchone()
                    if r:
                        cur.execute(f"DELETE FROM child WHERE parent_id = {p}", (r[0],))
                        cur.execute(f"DELETE FROM parent WHERE id = {p}", (r[0],))
            if rng.random() < 0.08:
                time.sleep(rng.uniform(1.0, 3.0))  # a transaction that stays open
            if rng.random() < 0.2:
                conn.rollback()
            else:
                conn.commit()
        except Exception:  # noqa: BLE001 - deadlocks, lock waits, duplicate ids: the
            # transaction did not happen; the oracle is the source's final state
            try:
                conn.rollback()
            except Exception:  # noqa: BLE001
                conn = connect(url)
                cur = conn.cursor()
        time.sleep(rng.uniform(0, 0.05))
    conn.close()


def run_writers(vendor: str, url: str, count: int, seconds: float) -> list[Any]:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=writer, args=(vendor, url, i, seconds, 1000 + i)) for i in range(count)
    ]
    for pr in procs:
        pr.start()
    return procs


def wait_until(pred: Any, timeout: float, step: float = 1.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return bool(pred())
