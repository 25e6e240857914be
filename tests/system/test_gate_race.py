"""S33, the gate race: producers and consumers started at one instant on a fresh database,
hundreds of turns, on each vendor. An independent oracle checks docs/guarantees.md §6:

- critical sections never overlap: every section appends ``enter``/``exit`` lines to one
  shared log with O_APPEND (one write per line), so the file's order is the order of the
  writes; entries and exits must alternate, and each entry's clock must follow the
  previous exit's (CLOCK_MONOTONIC is system-wide);
- every row a producer committed to the transport table was loaded by a consumer exactly
  once, so none was purged unseen and none loaded twice.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from syncpoint.core.gate import State
from syncpoint.ops.gate import Gate

pytestmark = pytest.mark.slow

PRODUCERS, CONSUMERS, TURNS, ROWS = 6, 6, 20, 3

WORKER = textwrap.dedent(
    """
    import os, random, sys, time
    from syncpoint import gate
    from syncpoint.errors import GateRefused
    from syncpoint.vendors import connect

    url, role, wid, turns, rows, log, stop, start_at = sys.argv[1:9]
    wid, turns, rows, start_at = int(wid), int(turns), int(rows), float(start_at)
    ph = "?" if url.startswith("sqlite") else "%s"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def say(*parts):
        os.write(fd, (" ".join(str(p) for p in parts) + "\\n").encode())

    def transaction():
        conn = connect(url)
        cur = conn.cursor()
        if url.startswith("sqlite"):
            cur.execute("BEGIN IMMEDIATE")
        return conn, cur

    def section(turn, t):
        say("enter", role, wid, t, time.monotonic_ns())
        say("took", wid, t, role, turn.found, sum(turn.purged.values()))
        conn, cur = transaction()
        if role == "producer":
            ids = [f"{wid}-{t}-{i}" for i in range(rows)]
            for i in ids:
                cur.execute(f"INSERT INTO transport (id) VALUES ({ph})", (i,))
            conn.commit()
            say("produced", wid, t, *ids)
        else:
            cur.execute("SELECT id FROM transport")
            got = [r[0] for r in cur.fetchall()]
            for i in got:
                cur.execute(f"INSERT INTO loaded (id, wid, t) VALUES ({ph}, {ph}, {ph})",
                            (i, wid, t))
            conn.commit()
            say("consumed", wid, t, len(got))
        conn.close()
        say("exit", role, wid, t, time.monotonic_ns())

    time.sleep(max(0.0, start_at - time.time()))
    t = refused = 0
    while True:
        if role == "producer" and t == turns:
            break
        try:
            with gate(url, "race", role, wait=2.0 if role == "consumer" else 120,
                      purge_tables=["transport"] if role == "producer" else ()) as turn:
                section(turn, t)
            t += 1
        except GateRefused:
            # Busy (wait ran out) or refused: another process of the same role holds the
            # gate (the gate's table reads that as a failed run; nothing fails here). Try again.
            refused += 1
            if role == "consumer" and os.path.exists(stop):
                break
            time.sleep(random.uniform(0.02, 0.2))
    say("done", role, wid, t, refused)
    """
)


def _setup(db) -> None:
    db.execute(
        "CREATE TABLE transport (id varchar(40))",
        "CREATE TABLE loaded (id varchar(40), wid integer, t integer)",
    )


def _check_log(lines: list[str]) -> tuple[set[str], int, int]:
    """The overlap check; returns the produced ids and the number of sections per role."""
    produced: set[str] = set()
    open_section: tuple[str, str, str] | None = None
    last_exit_ns = 0
    turns: Counter[str] = Counter()
    for n, line in enumerate(lines, 1):
        kind, *rest = line.split()
        if kind == "enter":
            role, wid, t, ns = rest
            assert open_section is None, f"line {n}: {line!r} enters while {open_section} is in"
            assert int(ns) >= last_exit_ns, f"line {n}: entered before the previous exit"
            open_section = (role, wid, t)
            turns[role] += 1
        elif kind == "exit":
            role, wid, t, ns = rest
            assert open_section == (role, wid, t), f"line {n}: exit of a section not open"
            open_section, last_exit_ns = None, int(ns)
        elif kind in ("produced", "consumed", "took"):
            assert open_section is not None and open_section[1:] == tuple(rest[:2]), (
                f"line {n}: work outside its own section"
            )
            if kind == "produced":
                produced.update(rest[2:])
    assert open_section is None
    return produced, turns["producer"], turns["consumer"]


def test_gate_race(any_db, tmp_path: Path) -> None:
    _setup(any_db)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    log, stop = tmp_path / "sections.log", tmp_path / "producers-done"
    start_at = time.time() + 4.0
    roles = ["producer"] * PRODUCERS + ["consumer"] * CONSUMERS
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(script),
                any_db.url,
                role,
                str(i),
                str(TURNS),
                str(ROWS),
                str(log),
                str(stop),
                str(start_at),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for i, role in enumerate(roles)
    ]
    try:
        for p in procs[:PRODUCERS]:
            assert p.wait(240) == 0, p.stderr.read() if p.stderr else ""
        stop.touch()
        for p in procs[PRODUCERS:]:
            assert p.wait(60) == 0, p.stderr.read() if p.stderr else ""
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    lines = log.read_text().splitlines()
    produced, producer_turns, consumer_turns = _check_log(lines)
    assert producer_turns == PRODUCERS * TURNS
    assert consumer_turns >= 1
    found = Counter(" ".join(ln.split()[3:5]) for ln in lines if ln.startswith("took"))
    assert found["producer WarehouseLoaded"] >= 1  # turns that purged
    assert found["producer OperationalSysLoaded"] >= 1  # turns that appended
    assert len(produced) == PRODUCERS * TURNS * ROWS
    loaded = [r[0] for r in any_db.query("SELECT id FROM loaded")]
    dupes = [i for i, c in Counter(loaded).items() if c > 1]
    assert not dupes, f"loaded twice: {dupes[:10]}"
    assert set(loaded) == produced, (
        f"never loaded (purged unseen): {sorted(produced - set(loaded))[:10]}"
    )
    st = Gate(any_db.url, "race").status()
    assert st is not None and st.row.state is State.WAREHOUSE_LOADED
    assert st.row.turns == 2 * (producer_turns + consumer_turns)
    refusals = sum(int(ln.split()[4]) for ln in lines if ln.startswith("done"))
    print(
        f"{any_db.vendor}: {producer_turns} producer and {consumer_turns} consumer turns, "
        f"{refusals} refusals or waits that ran out, {len(produced)} rows loaded once; "
        f"states found: {dict(found)}"
    )
