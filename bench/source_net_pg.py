"""What a record's key stored beside its JSON at capture would save a warm W1 round on the
direct path (PostgreSQL to PostgreSQL), measured before it is built.

On a private PostgreSQL instance (``private_pg.py``), after a warm-up round:

1. one W1 round (``--changes`` in W1's proportions, as ``apply_pg.py``), its steps timed
   from outside (plan, the copies, the target's netting, the apply), and the source SQL of
   its typed copies (``window/ops_out_typed.sql`` as the round rendered it) recorded;
2. the same window's records read by one backend three ways, interleaved ``--repeat``
   times, each backend's CPU seconds: ``now``: the typed operations as the round makes them
   (every record's JSON parsed as jsonb, every operation sent, the target nets them);
   ``stored``: the key columns' JSON text stored beside the record (here added to the
   queue and filled by an UPDATE), the operations netted at the source by that text
   (``DISTINCT ON`` the key, last by repl_key and sub) and only the net operations'
   records parsed; ``half``: the same for the keys of one hash half (what one of two
   tasks split by key would do: each reads the whole window). ``now``'s statement is
   checked to give the round's own operations, ``stored``'s to give exactly the net of
   ``now``'s (netted here by core/netting.py's rule) and the halves together ``stored``'s;
3. the capture's cost of storing the key: the table's generated capture function as
   installed, and the same function writing ``to_jsonb`` of the key beside each JSON (the
   new row's and the old row's), each on a table of its own, W1's statements on each in
   turns (``--capture-rows`` inserted), each statement's backend CPU seconds;
   ``--key-cast``: the key's text as its type writes it (``::text``), and an UPDATE record
   (written by the row trigger only where the old key equals the new) with its new key
   only; ``--capture-only``: this step alone.

Nothing of 2 and 3 is syncpoint's code: they are the measurements that decide whether to
change the queue's layout.

    .venv/bin/python bench/source_net_pg.py [--changes 480000] [--repeat 3] [--key-cast]
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import ORDERS, channel_file, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402
from profile_round import timed  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
COLS = ("id", "customer_id", "amount", "status", "note", "updated_at")
SUBS = (
    "unnest(CASE WHEN r.db_action = 'DELETE' THEN '{0}'::smallint[] "
    "WHEN r.db_action = 'UPDATE' AND r.old_key <> r.new_key THEN '{-1,1}'::smallint[] "
    "ELSE '{1}'::smallint[] END) AS sub"
)


def backend_cpu(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def records(lo: int, hi: int, extra: str = "") -> str:
    """The window's row records by their repl_key range (the window's snapshot conditions
    are left out: they cost both ways the same)."""
    return (
        f"SELECT q.repl_key, q.db_action, q.content, q.oldcontent{extra} "
        f"FROM repl_items q WHERE q.tablename = 'orders' "
        f"AND q.repl_key >= {lo} AND q.repl_key < {hi}"
    )


def values(key_value: str) -> str:
    rest = "".join(f", CASE WHEN o.action = 'U' THEN (o.c ->> '{c}') END" for c in COLS[1:])
    return f", {key_value}{rest}"


def now_sql(lo: int, hi: int) -> str:
    """ops_out_typed.sql as the round renders it for ``orders``, over ``records``."""
    return f"""SELECT o.repl_key::bigint, o.sub::smallint, o.action::text, o.key::text
       {values("(o.c ->> 'id')")}
  FROM (SELECT m.repl_key, m.sub, CASE WHEN m.sub = 1 THEN 'U' ELSE 'D' END AS action,
               CASE WHEN m.sub = 1 THEN m.new_key ELSE m.old_key END AS key,
               CASE WHEN m.sub = 1 THEN m.new ELSE m.old END AS c
          FROM (SELECT r.*, {SUBS}
                  FROM (SELECT j.*, COALESCE((j.new -> 'id')::text, 'null') AS new_key,
                               COALESCE((j.old -> 'id')::text, 'null') AS old_key
                          FROM (SELECT r.repl_key, r.db_action,
                                       CASE WHEN r.db_action <> 'DELETE'
                                            THEN r.content::jsonb END AS new,
                                       CASE WHEN r.db_action <> 'INSERT'
                                            THEN r.oldcontent::jsonb END AS old
                                  FROM ({records(lo, hi)}) r OFFSET 0) j OFFSET 0) r) m) o"""


def stored_sql(lo: int, hi: int, where: str = "") -> str:
    """The key stored beside the JSON (sp_k, sp_ok): the operations netted by it first,
    only the net upserts' JSON parsed; a net delete's key value is its key's text."""
    rows = records(lo, hi, ", q.sp_k AS new_key, q.sp_ok AS old_key")
    return f"""SELECT o.repl_key::bigint, o.sub::smallint, o.action::text, o.key::text
       {values("CASE WHEN o.action = 'U' THEN (o.c ->> 'id') ELSE o.key::jsonb #>> '{}' END")}
  FROM (SELECT n.repl_key, n.sub, n.key, CASE WHEN n.sub = 1 THEN 'U' ELSE 'D' END AS action,
               CASE WHEN n.sub = 1 THEN n.content::jsonb END AS c
          FROM (SELECT DISTINCT ON (m.key COLLATE "C") m.*
                  FROM (SELECT s.repl_key, s.content, s.sub,
                               CASE WHEN s.sub = 1 THEN s.new_key ELSE s.old_key END AS key
                          FROM (SELECT r.*, {SUBS} FROM ({rows}) r) s) m {where}
                 ORDER BY m.key COLLATE "C", m.repl_key DESC, m.sub DESC) n OFFSET 0) o"""


def copy_out(base: str, sql: str) -> tuple[float, list[bytes]]:
    """One backend's CPU seconds for ``COPY (sql) TO STDOUT``, and the lines."""
    with psycopg.connect(f"{base}/src") as c:
        pid = c.info.backend_pid
        c.execute("SET work_mem = '64MB'")  # the source-side sort in memory
        t0 = backend_cpu(pid)
        buf = io.BytesIO()
        with c.cursor().copy(f"COPY ({sql}) TO STDOUT") as cp:
            for b in cp:
                buf.write(bytes(b))
        return backend_cpu(pid) - t0, [ln for ln in buf.getvalue().split(b"\n") if ln]


def net(lines: list[bytes]) -> list[bytes]:
    """core/netting.py's rule on typed operations: per key, the last by (repl_key, sub)."""
    last: dict[bytes, tuple[tuple[int, int], bytes]] = {}
    for ln in lines:
        f = ln.split(b"\t")
        at = (int(f[0]), int(f[1]))
        if f[3] not in last or at > last[f[3]][0]:
            last[f[3]] = (at, ln)
    return sorted(v[1] for v in last.values())


def keyed_capture(body: str, name: str, cast: bool = False) -> str:
    """The generated capture function ``body`` renamed ``name`` and writing the key's JSON
    text beside each record's JSON (new row: sp_k, old row: sp_ok); ``cast``: the key's text
    as its type writes it, and an UPDATE record's new key only (the row trigger writes an
    UPDATE only where the old key equals the new)."""
    cols = "content, oldcontent, version, captured_at)"
    subs = [
        ("public.repl_capture_1()", f"public.{name}()", 1),
        (f"{cols} SELECT", "content, oldcontent, sp_k, sp_ok, version, captured_at) SELECT", 3),
        ("q.sp_c, q.sp_oc, 1, sp_at", "q.sp_c, q.sp_oc, q.kk, q.ok, 1, sp_at", 3),
        (
            "row_to_json(n.*)::text AS sp_c, NULL::text AS sp_oc",
            "row_to_json(n.*)::text AS sp_c, NULL::text AS sp_oc, to_jsonb(n.id)::text AS kk, "
            "NULL::text AS ok",
            1,
        ),
        (
            "NULL::text AS sp_c, row_to_json(o.*)::text AS sp_oc",
            "NULL::text AS sp_c, row_to_json(o.*)::text AS sp_oc, NULL::text AS kk, "
            "to_jsonb(o.id)::text AS ok",
            1,
        ),
        (
            "s.shape::text AS sp_c, NULL::text AS sp_oc",
            "s.shape::text AS sp_c, NULL::text AS sp_oc, NULL::text AS kk, NULL::text AS ok",
            1,
        ),
        (f"{cols} VALUES", "content, oldcontent, sp_k, sp_ok, version, captured_at) VALUES", 3),
        (
            "row_to_json(NEW)::text, row_to_json(OLD)::text, 1",
            "row_to_json(NEW)::text, row_to_json(OLD)::text, to_jsonb((NEW).id)::text, "
            "to_jsonb((OLD).id)::text, 1",
            1,
        ),
        (
            "NULL, row_to_json(OLD)::text, 1",
            "NULL, row_to_json(OLD)::text, NULL, to_jsonb((OLD).id)::text, 1",
            1,
        ),
        (
            "row_to_json(NEW)::text, NULL, 1",
            "row_to_json(NEW)::text, NULL, to_jsonb((NEW).id)::text, NULL, 1",
            1,
        ),
    ]
    if cast:
        subs = [
            (old, new.replace("to_jsonb((OLD).id)::text, 1", "NULL, 1"), n)
            if old.startswith("row_to_json(NEW)::text, row_to_json(OLD)")
            else (old, new, n)
            for old, new, n in subs
        ]
        subs = [
            (old, re.sub(r"to_jsonb\(([^()]*(?:\([^()]*\))?[^()]*)\)::text", r"(\1)::text", new), n)
            for old, new, n in subs
        ]
    for old, new, count in subs:
        if body.count(old) != count:
            raise SystemExit(f"the generated capture function changed: {old!r}")
        body = body.replace(old, new)
    return body


def capture_cost(base: str, rows: int, repeat: int, cast: bool) -> dict[str, list[float]]:
    admin = psycopg.connect(f"{base}/src", autocommit=True)
    # both functions write into the one queue, which has the key's columns for both
    admin.execute(
        "ALTER TABLE repl_items ADD COLUMN IF NOT EXISTS sp_k text, "
        "ADD COLUMN IF NOT EXISTS sp_ok text"
    )
    body = admin.execute("SELECT pg_get_functiondef('repl_capture_1'::regproc)").fetchone()[0]
    admin.execute(body.replace("public.repl_capture_1()", "public.cap_json()"))
    admin.execute(keyed_capture(body, "cap_key", cast))
    for t, fn in (("o_json", "cap_json"), ("o_key", "cap_key")):
        admin.execute(f"CREATE TABLE {t} (LIKE orders INCLUDING ALL)")
        admin.execute(
            f"CREATE TRIGGER i AFTER INSERT ON {t} REFERENCING NEW TABLE AS sp_new "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()"
        )
        admin.execute(f"CREATE TRIGGER u AFTER UPDATE ON {t} FOR EACH ROW EXECUTE FUNCTION {fn}()")
        admin.execute(
            f"CREATE TRIGGER d AFTER DELETE ON {t} REFERENCING OLD TABLE AS sp_old "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()"
        )
    admin.close()
    out: dict[str, list[float]] = collections.defaultdict(list)
    for rep in range(repeat):
        for t in ("o_json", "o_key") if rep % 2 == 0 else ("o_key", "o_json"):
            b = rep * 10 * rows
            text = "".join(
                f"{i}\t{i % 1000}\t{i % 100000 / 100:.2f}\tnew\tnote {i}\t2024-01-01 00:00:00+00\n"
                for i in range(b + 1, b + rows + 1)
            )
            with psycopg.connect(f"{base}/src", autocommit=True) as s:
                pid = s.info.backend_pid
                t0 = backend_cpu(pid)
                with s.cursor().copy(f"COPY {t} FROM STDIN") as cp:
                    cp.write(text)
                t1 = backend_cpu(pid)
                s.execute(
                    f"UPDATE {t} SET amount = amount + 1, status = 'paid' "
                    "WHERE id > %s AND id <= %s",
                    (b, b + rows // 2),
                )
                t2 = backend_cpu(pid)
                s.execute(f"DELETE FROM {t} WHERE id > %s", (b + rows - rows // 10,))
                t3 = backend_cpu(pid)
            out[f"{t} copy"].append(t1 - t0)
            out[f"{t} update"].append(t2 - t1)
            out[f"{t} delete"].append(t3 - t2)
    return out


def window_study(
    base: str, src: Any, ch: Any, w1: tuple[int, int, int], repeat: int, loads: list[float]
) -> None:
    """Steps 1 and 2: the round, then the window read three ways."""
    from syncpoint.ops import round as round_mod
    from syncpoint.vendors.postgres import round_direct, snapshot_direct

    n_ins, n_upd, n_del = w1
    make_changes(src, 0, n_ins, n_upd, n_del)
    ch.run(once=True)  # warm-up: the target, the control tables
    lo = int(src.execute("SELECT max(repl_key) FROM repl_items").fetchone()[0]) + 1
    make_changes(src, 10 * n_ins, n_ins, n_upd, n_del)
    hi = int(src.execute("SELECT max(repl_key) FROM repl_items").fetchone()[0]) + 1

    steps: dict[str, list[float]] = collections.defaultdict(list)
    for m in ("plan", "_copy_direct", "apply"):
        timed(round_mod.GroupRound, m, steps)
    timed(round_direct, "net", steps)
    sqls: list[str] = []
    inner = snapshot_direct.copy_range

    def spy(job: Any) -> Any:
        sqls.append(job.out_sql)
        return inner(job)

    round_direct.copy_range = spy  # type: ignore[assignment]
    t = time.perf_counter()
    report = ch.run(once=True)
    took = time.perf_counter() - t
    round_direct.copy_range = inner  # type: ignore[assignment]
    loads.append(os.getloadavg()[0])
    print(
        f"W1 round: {report.changes:,} changes in {took:.2f} s "
        f"({report.changes / took:,.0f}/s); load average {loads[-1]:.1f}"
    )
    print("  " + ", ".join(f"{k.strip('_')} {sum(v):.2f} s" for k, v in steps.items()))

    round_ops: list[bytes] = []
    for sql in sqls:
        body = sql.strip().removeprefix("COPY (").removesuffix(") TO STDOUT")
        round_ops += copy_out(base, body)[1]
    _, now_ops = copy_out(base, now_sql(lo, hi))
    if sorted(now_ops) != sorted(round_ops):
        raise SystemExit("the stand-in for ops_out_typed.sql differs from the round's")

    src.execute("ALTER TABLE repl_items ADD COLUMN sp_k text, ADD COLUMN sp_ok text")
    src.execute(
        "UPDATE repl_items SET "
        "sp_k = CASE WHEN db_action <> 'DELETE' "
        "THEN COALESCE((content::jsonb -> 'id')::text, 'null') END, "
        "sp_ok = CASE WHEN db_action <> 'INSERT' "
        "THEN COALESCE((oldcontent::jsonb -> 'id')::text, 'null') END "
        "WHERE tablename = 'orders' AND repl_key >= %s AND repl_key < %s",
        (lo, hi),
    )
    src.execute("VACUUM ANALYZE repl_items")
    ways = {
        "now": now_sql(lo, hi),
        "stored": stored_sql(lo, hi),
        "half": stored_sql(lo, hi, "WHERE hashtext(m.key) & 1 = 0"),
    }
    cpu: dict[str, list[float]] = collections.defaultdict(list)
    out: dict[str, list[bytes]] = {}
    for rep in range(repeat):
        for name in ways if rep % 2 == 0 else reversed(ways):
            secs, lines = copy_out(base, ways[name])
            cpu[name].append(secs)
            out[name] = lines
    other = copy_out(base, stored_sql(lo, hi, "WHERE hashtext(m.key) & 1 = 1"))[1]
    exact = net(out["now"]) == sorted(out["stored"]) == sorted(out["half"] + other)
    loads.append(os.getloadavg()[0])
    print(
        f"\nthe window's source read, one backend, CPU s (median of {repeat}; "
        f"load average {loads[-1]:.1f}); stored's operations are now's netted: {exact}"
    )
    for name in ways:
        print(
            f"  {name:7s} {statistics.median(cpu[name]):6.2f} s  "
            f"({', '.join(f'{x:.2f}' for x in cpu[name])}); {len(out[name]):,} operations"
        )
    now = statistics.median(cpu["now"])
    print(
        f"  stored / now: {statistics.median(cpu['stored']) / now:.2f}; "
        f"two halves / now: {2 * statistics.median(cpu['half']) / now:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--capture-rows", type=int, default=100_000)
    ap.add_argument(
        "--key-cast",
        action="store_true",
        help="the capture writes the key's text as its type writes it, and an UPDATE's once",
    )
    ap.add_argument("--capture-only", action="store_true", help="the capture's cost only")
    args = ap.parse_args()
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd

    from syncpoint.ops.channel import Channel

    loads = [os.getloadavg()[0]]
    with private_cluster() as base:
        admin = psycopg.connect(f"{base}/postgres", autocommit=True)
        for n in ("src", "dst"):
            admin.execute(f'CREATE DATABASE "{n}"')
        admin.close()
        src = psycopg.connect(f"{base}/src", autocommit=True)
        src.execute(ORDERS)
        ch = Channel.from_file(
            channel_file(f"{base}/src", f"{base}/dst", "local[2]", driver_round_max=0)
        )
        ch.install()
        if not args.capture_only:
            window_study(base, src, ch, (n_ins, n_upd, n_del), args.repeat, loads)
        cost = capture_cost(base, args.capture_rows, args.repeat, args.key_cast)
        loads.append(os.getloadavg()[0])
        print(
            f"\ncapture, backend CPU s per statement ({args.capture_rows:,} rows inserted; "
            f"median of {args.repeat}; load average {loads[-1]:.1f})"
        )
        for what in ("copy", "update", "delete"):
            a = statistics.median(cost[f"o_json {what}"])
            b = statistics.median(cost[f"o_key {what}"])
            print(f"  {what:7s} JSON only {a:6.2f}  with the key {b:6.2f}  ratio {b / a:.2f}")
        src.close()
    print(f"\nload average over the run: {' '.join(f'{x:.1f}' for x in loads)}")


if __name__ == "__main__":
    main()
