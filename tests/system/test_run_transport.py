"""``run`` consumes transport tables through the channel's gate (docs/recipes.md, issue "Gates").

A batch producer fills a transport table at an operational location in its gate turn;
``syncpoint run --once`` then takes the consumer turn and loads the table in full into the
integrate location; a second run finds nothing new and touches nothing; a producer turn that
failed keeps ``run`` from loading half a batch.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml

import syncpoint
from tests.system import roundkit as rk


def channel(tmp_path: Path) -> tuple[Path, Path, Path]:
    ops, cen = tmp_path / "ops.db", tmp_path / "cen.db"
    with sqlite3.connect(ops) as c:
        c.execute("CREATE TABLE daily (day TEXT PRIMARY KEY, total NUMERIC)")
    sqlite3.connect(cen).close()
    cfg = tmp_path / "sp.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "channel": "shop",
                "application": "wh",
                "locations": {
                    "ops": {"url": f"sqlite:///{ops}", "capture": True},
                    "cen": {"url": f"sqlite:///{cen}", "integrate": True},
                },
                "transport": {"gate": "nightly", "location": "ops", "tables": ["daily"]},
                "spark": {"master": "local[2]"},
            }
        )
    )
    return cfg, ops, cen


def produce(ops: Path, rows: list[tuple[str, int]], fail: bool = False) -> None:
    try:
        with syncpoint.gate(f"sqlite:///{ops}", "nightly", role="producer", purge_tables=["daily"]):
            with sqlite3.connect(ops) as c:
                c.executemany("INSERT INTO daily VALUES (?, ?)", rows)
            if fail:
                raise RuntimeError("the extract failed half way")
    except RuntimeError:
        pass


def test_run_loads_transport_tables_through_the_gate(tmp_path: Path) -> None:
    cfg, ops, cen = channel(tmp_path)
    produce(ops, [("2026-11-20", 10), ("2026-11-21", 12)])

    r = rk.syncpoint(cfg, "run", "--once", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    (t,) = json.loads(r.stdout)["transport"]
    assert (t["gate"], t["loaded"], t["tables"]) == ("nightly", True, {"daily": {"cen": 2}})
    with sqlite3.connect(cen) as c:
        assert c.execute("SELECT day, total FROM daily ORDER BY day").fetchall() == [
            ("2026-11-20", 10),
            ("2026-11-21", 12),
        ]

    # nothing new: the next run loads nothing and says so
    r = rk.syncpoint(cfg, "run", "--once")
    assert r.returncode == 0 and "transport: gate nightly:" in r.stdout, r.stdout + r.stderr

    # the next batch replaces the previous one (the producer purged what was loaded)
    produce(ops, [("2026-11-22", 7)])
    assert rk.syncpoint(cfg, "run", "--once").returncode == 0
    with sqlite3.connect(cen) as c:
        assert c.execute("SELECT day, total FROM daily").fetchall() == [("2026-11-22", 7)]

    # a failed producer turn leaves OperationalSysLoading: run loads nothing of it
    produce(ops, [("2026-11-23", 99)], fail=True)
    r = rk.syncpoint(cfg, "run", "--once", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    (t,) = json.loads(r.stdout)["transport"]
    assert t["loaded"] is False
    with sqlite3.connect(cen) as c:
        assert c.execute("SELECT day FROM daily").fetchall() == [("2026-11-22",)]
    st = rk.syncpoint(cfg, "gate", "status", "nightly", "--json")
    assert json.loads(st.stdout)["state"] == "OperationalSysLoading", st.stdout
