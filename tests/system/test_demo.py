"""``syncpoint demo``: the command a new user runs first. It exits 0 only when every check
passed, reports rounds, receive stamps and gate turns, and a kept folder is a working
channel. Each test runs the whole demo (its own Spark) as a separate process."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]
SYNCPOINT = [str(Path(sys.executable).with_name("syncpoint"))]
FAST = ["--seconds", "2", "--spark-master", "local[2]"]
TABLES = ("customers", "orders", "order_lines")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SYNCPOINT, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.long(60)
def test_demo_json_reports_rounds_stamps_gate_and_passing_checks(tmp_path: Path) -> None:
    r = _run("demo", "--json", *FAST, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads(r.stdout)  # one JSON document, nothing else on stdout
    res = data["results"]
    assert data["ok"] is True and data["kept"] is False
    assert not Path(data["workdir"]).exists()  # the temporary folder is gone
    names = [c["check"] for c in data["checks"]]
    assert all(c["ok"] for c in data["checks"]), [c for c in data["checks"] if not c["ok"]]
    for t in TABLES:
        assert f"{t}: cen equals dec01 ∪ dec02" in names
    assert (
        "no orphan rows at cen" in names
        and "status: backlog 0 everywhere, no table stopped" in names
    )

    # the writers committed and rolled back at both sources; rounds read exactly their changes
    writers = res["writers"]
    assert sorted(writers) == ["dec01", "dec02"]
    assert all(w["committed"] > 0 and w["rolled_back"] > 0 for w in writers.values())
    rounds = res["rounds"]
    assert rounds and rounds[0]["phase"] == "opening" and rounds[-1]["phase"] == "final"
    assert all(r["group"] == "shop" and r["integrate"] == "cen" for r in rounds)
    assert sum(r["changes"] for r in rounds) == sum(w["total_changes"] for w in writers.values())
    for t, counts in res["tables"].items():
        assert counts["target"] == sum(counts["sources"].values()) > 0, t
        assert counts["target_sha256"] == counts["sources_sha256"], t

    # status after the last round: every (location, table) at its sync point, backlog 0
    rows = res["status"]["integrate"]["cen"]["tables"]
    assert len(rows) == 6
    assert all(r["backlog"] == 0 and r["position"] == r["sync_point"] for r in rows)

    # receive stamps: both sources stamped, leader and trailer among them
    stamps = res["stamps"]
    assert stamps["table"] == "repl_stin_shop_cen"
    assert sorted(stamps["locations"]) == ["dec01", "dec02"]
    for loc, s in stamps["locations"].items():
        assert s["cap_begin"] is not None
        assert datetime.fromisoformat(s["cap_begin"]) >= datetime.fromisoformat(
            writers[loc]["last_change_at"]
        )
    assert {stamps["row"]["leader_cap_loc"], stamps["row"]["trailer_cap_loc"]} <= {"dec01", "dec02"}

    # the gate: producer, consumer, then a consumer with nothing to load
    producer, consumer, again = res["gate"]["turns"]
    assert (producer["found"], producer["during"], producer["after"]) == (
        "WarehouseLoaded",
        "OperationalSysLoading",
        "OperationalSysLoaded",
    )
    assert producer["filled"] > 0
    assert consumer["loaded"] and consumer["found"] == "OperationalSysLoaded"
    assert consumer["tables"] == {"daily_totals": {"cen": producer["filled"]}}
    assert consumer["after"] == "WarehouseLoaded"
    assert not again["loaded"] and again["after"] == "WarehouseLoaded"

    # purge emptied both queues
    assert all(p["queued_after"] == 0 and p["purged"] > 0 for p in res["purge"].values())

    # two SQLite sites both ways: groups kept apart, one conflict decided alike at both
    # sites, a re-insert after a delete; the checks above include the sites' equality
    cdr = res["cdr"]
    assert cdr["built"] and cdr["sites"] == ["paris", "lisbon"]
    assert cdr["rows"]["paris"] == cdr["rows"]["lisbon"]
    assert cdr["rows"]["paris"][0] == [1, "blue mug", 10, "11.50", "EUR"]
    assert cdr["conflicts"] == {
        "paris": [["[2]", "pricing", "local"]],
        "lisbon": [["[2]", "pricing", "remote"]],
    }


def _status(config: Path, cwd: Path) -> dict[str, Any]:
    st = _run("-c", str(config), "status", "--json", cwd=cwd)
    assert st.returncode == 0, st.stdout + st.stderr
    data: dict[str, Any] = json.loads(st.stdout)
    return data


@pytest.mark.long(85)
def test_demo_text_keeps_a_working_channel(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    r = _run("demo", "--keep", str(work), *FAST, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    text = r.stdout
    assert "starting Spark (local[2])" in text
    assert "round 1 group shop → cen" in text
    assert "PASS customers: cen equals dec01 ∪ dec02" in text
    assert "FAIL" not in text
    assert "conflict at lisbon: key [2], group pricing: remote won" in text
    assert "PASS product 3 added again after its delete: key version 2 at both sites" in text
    assert "PASS: all " in text and f"files kept in {work}" in text
    assert sorted(p.name for p in work.glob("*.db")) == [
        "cen.db",
        "dec01.db",
        "dec02.db",
        "lisbon.db",
        "paris.db",
    ]
    bidi = _status(work / "bidi.yaml", tmp_path)
    assert {s: c["total"] for s, c in bidi["conflicts"].items()} == {"paris": 1, "lisbon": 1}

    # the kept folder is a working channel: status reads it, from anywhere
    st = _status(work / "syncpoint.yaml", tmp_path)
    rows = st["integrate"]["cen"]["tables"]
    assert {(r["location"], r["table"]) for r in rows} == {
        (loc, t) for loc in ("dec01", "dec02") for t in TABLES
    }
    assert all(r["backlog"] == 0 and r["stopped"] is None for r in rows)
    assert all(st["capture"][loc]["pending"] == 0 for loc in ("dec01", "dec02"))  # purged
    # status shows the receive stamps and the gate as they stand after the demo
    stamps = st["receive_stamps"]["cen"]
    assert stamps["table"] == "repl_stin_shop_cen"
    assert {stamps["stamps"]["leader_cap_loc"], stamps["stamps"]["trailer_cap_loc"]} <= {
        "dec01",
        "dec02",
    }
    assert all(stamps["locations"][loc]["cap_begin"] for loc in ("dec01", "dec02"))
    (gate,) = st["gates"]["dec01"]
    assert (gate["gate"], gate["state"]) == ("nightly", "WarehouseLoaded")
    text_status = _run("-c", str(work / "syncpoint.yaml"), "status", cwd=tmp_path).stdout
    assert "receive stamps (repl_stin_shop_cen): leader" in text_status
    assert "gate nightly: WarehouseLoaded" in text_status
