"""``syncpoint gate`` as users run it: exit codes, messages, failed and killed runs (S35),
``--wait``, and where the gate lives (``--url``, ``--location``, the channel file)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from syncpoint.core.gate import State
from syncpoint.ops.gate import Gate


def sp(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, wait: bool = True):
    cmd = [sys.executable, "-m", "syncpoint.cli.main", *args]
    full_env = {**os.environ, **(env or {})}
    if not wait:
        return subprocess.Popen(cmd, cwd=cwd, env=full_env, text=True, stderr=subprocess.PIPE)
    return subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=120)


def state(db) -> State:
    st = Gate(db.url, "g").status()
    assert st is not None
    return st.row.state


def test_failed_producer_blocks_next_producer_until_reset(any_db) -> None:
    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "sh", "-c", "exit 5")
    assert r.returncode == 1, r.stderr
    assert "exited with status 5" in r.stderr and "OperationalSysLoading" in r.stderr
    assert state(any_db) is State.OPERATIONAL_SYS_LOADING

    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "true")
    assert r.returncode == 3, r.stderr
    err = " ".join(r.stderr.split())  # rich may wrap long lines
    for part in ("'g'", "OperationalSysLoading", "host ", "pid ", "sh -c 'exit 5'", " s ago"):
        assert part in err, part
    assert "gate reset g" in err

    r = sp("gate", "status", "g", "--url", any_db.url, "--json")
    assert r.returncode == 0
    st = json.loads(r.stdout)
    assert st["state"] == "OperationalSysLoading"
    assert st["holder"]["command"] == "sh -c 'exit 5'" and st["age_s"] >= 0

    r = sp("gate", "reset", "g", "--to", "OperationalSysLoaded", "--url", any_db.url, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["from"] == "OperationalSysLoading"
    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "true")
    assert r.returncode == 0, r.stderr
    assert state(any_db) is State.OPERATIONAL_SYS_LOADED


def test_killed_command_blocks_next_producer(any_db) -> None:
    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "sh", "-c", "kill -9 $$")
    assert r.returncode == 1
    assert "killed by SIGKILL" in r.stderr
    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "true")
    assert r.returncode == 3
    assert state(any_db) is State.OPERATIONAL_SYS_LOADING


@pytest.mark.parametrize("failpoint", ["gate_after_take", "gate_before_release"])
def test_syncpoint_killed_at_each_step_blocks_until_reset(any_db, tmp_path, failpoint) -> None:
    marker = tmp_path / "ran"
    r = sp(
        "gate", "produce", "g", "--url", any_db.url, "--", "touch", str(marker),
        env={"SYNCPOINT_FAILPOINT": failpoint},
    )  # fmt: skip
    assert r.returncode == -9
    assert marker.exists() is (failpoint == "gate_before_release")
    assert state(any_db) is State.OPERATIONAL_SYS_LOADING
    # the consumer does not read what the dead producer may have half written
    r = sp("gate", "consume", "g", "--url", any_db.url, "--json", "--", "true")
    assert r.returncode == 3
    assert json.loads(r.stdout)["error"] == "gate_busy"
    r = sp("gate", "produce", "g", "--url", any_db.url, "--", "true")
    assert r.returncode == 3
    assert "(no longer running)" in " ".join(r.stderr.split())
    assert sp("gate", "reset", "g", "--to", "warehouse-loaded", "--url", any_db.url).returncode == 0
    assert sp("gate", "produce", "g", "--url", any_db.url, "--", "true").returncode == 0


def test_failed_consumer_blocks_next_consumer_until_reset(any_db) -> None:
    assert sp("gate", "produce", "g", "--url", any_db.url, "--", "true").returncode == 0
    r = sp("gate", "consume", "g", "--url", any_db.url, "--", "false")
    assert r.returncode == 1
    assert state(any_db) is State.WAREHOUSE_LOADING
    # the producer waits for the consumer, and gives up when --wait runs out
    r = sp("gate", "produce", "g", "--url", any_db.url, "--wait", "0.3", "--json", "--", "true")
    assert r.returncode == 3
    assert json.loads(r.stdout)["error"] == "gate_busy"
    r = sp("gate", "consume", "g", "--url", any_db.url, "--json", "--", "true")
    assert r.returncode == 3
    out = json.loads(r.stdout)
    assert out["error"] == "gate_refused" and out["gate"]["state"] == "WarehouseLoading"
    assert out["gate"]["holder"]["command"] == "false"
    assert (
        sp("gate", "reset", "g", "--to", "OperationalSysLoaded", "--url", any_db.url).returncode
        == 0
    )
    assert sp("gate", "consume", "g", "--url", any_db.url, "--", "true").returncode == 0
    assert state(any_db) is State.WAREHOUSE_LOADED


def test_consumer_waits_for_the_running_producer(any_db, tmp_path) -> None:
    go, consumed = tmp_path / "go", tmp_path / "consumed"
    loop = f"while [ ! -f {go} ]; do sleep 0.05; done"
    producer = sp("gate", "produce", "g", "--url", any_db.url, "--", "sh", "-c", loop, wait=False)
    consumer = None
    try:
        for _ in range(400):
            st = Gate(any_db.url, "g").status()
            if st and st.row.state is State.OPERATIONAL_SYS_LOADING:
                break
            time.sleep(0.05)
        consumer = sp(
            "gate", "consume", "g", "--url", any_db.url, "--wait", "60", "--",
            "touch", str(consumed), wait=False,
        )  # fmt: skip
        time.sleep(1.0)  # give a broken gate the chance to let the consumer in early
        assert not consumed.exists()
        assert consumer.poll() is None
        go.touch()
        assert producer.wait(60) == 0
        assert consumer.wait(60) == 0, consumer.stderr.read() if consumer.stderr else ""
    finally:
        go.touch()
        for p in (producer, consumer):
            if p is not None and p.poll() is None:
                p.kill()
    assert consumed.exists()
    assert state(any_db) is State.WAREHOUSE_LOADED


def test_usage_errors_touch_nothing(sqlite_db) -> None:
    r = sp("gate", "produce", "g", "--url", sqlite_db.url)
    assert r.returncode == 2 and "give the command" in r.stderr
    r = sp("gate", "produce", "g", "--url", sqlite_db.url, "--", "no-such-command-xyz")
    assert r.returncode == 2 and "not found" in r.stderr
    r = sp("gate", "reset", "g", "--to", "Loadedish", "--url", sqlite_db.url)
    assert r.returncode == 2 and "WarehouseLoaded" in r.stderr
    assert Gate(sqlite_db.url, "g").status() is None
    r = sp("gate", "status", "g", "--url", sqlite_db.url)
    assert r.returncode == 1 and "does not exist" in r.stderr
    r = sp("gate", "status", "--url", sqlite_db.url, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["gates"] == []


def _config(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "syncpoint.yaml"
    p.write_text(body)
    return p


def test_gate_location_comes_from_the_channel_file(tmp_path) -> None:
    a, b, c = (f"sqlite:///{tmp_path / n}.db" for n in "abc")
    cfg = _config(
        tmp_path,
        f"channel: shop\nprefix: shp_\nlocations:\n"
        f"  src: {{url: '{a}', capture: true}}\n"
        f"  cen: {{url: '{b}', integrate: true}}\n"
        f"  dw2: {{url: '{c}', integrate: true}}\n"
        "transport: {gate: nightly, location: src, tables: [tr]}\n",
    )
    r = sp("-c", str(cfg), "gate", "produce", "nightly", "--", "true")
    assert r.returncode == 0, r.stderr
    assert Gate(a, "nightly", prefix="shp_").status() is not None  # the transport location
    assert Gate(b, "nightly", prefix="shp_").status() is None
    r = sp("-c", str(cfg), "gate", "status", "nightly", "--location", "cen")
    assert r.returncode == 1
    r = sp("-c", str(cfg), "gate", "status", "--location", "nope")
    assert r.returncode == 2 and "cen, dw2, src" in r.stderr
    r = sp("-c", str(cfg), "gate", "status", "--location", "src", "--url", a)
    assert r.returncode == 2

    two = _config(
        tmp_path,
        f"channel: shop\nlocations:\n  cen: {{url: '{b}', integrate: true}}\n"
        f"  dw2: {{url: '{c}', integrate: true}}\n",
    )
    r = sp("-c", str(two), "gate", "status")
    assert r.returncode == 2 and "give --location" in " ".join(r.stderr.split())
    one = _config(tmp_path, f"channel: shop\nlocations:\n  cen: {{url: '{b}', integrate: true}}\n")
    assert sp("-c", str(one), "gate", "reset", "x", "--to", "WarehouseLoaded").returncode == 0
    assert Gate(b, "x").status() is not None  # the only integrate location, prefix repl_
    empty = tmp_path / "empty"
    empty.mkdir()
    r = sp("gate", "status", cwd=empty)
    assert r.returncode == 2 and "--url" in r.stderr


def test_sigterm_reaches_the_command_and_leaves_loading(sqlite_db, tmp_path) -> None:
    started = tmp_path / "started"
    p = sp(
        "gate", "produce", "g", "--url", sqlite_db.url, "--", "sh", "-c",
        f"touch {started}; exec sleep 60", wait=False,
    )  # fmt: skip
    try:
        for _ in range(400):
            if started.exists():
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 1
        assert p.stderr is not None and "killed by SIGTERM" in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
    assert state(sqlite_db) is State.OPERATIONAL_SYS_LOADING


def test_slow_live_producer_is_not_overtaken(any_db, tmp_path) -> None:
    go = tmp_path / "go"
    loop = f"while [ ! -f {go} ]; do sleep 0.05; done"
    first = sp("gate", "produce", "g", "--url", any_db.url, "--", "sh", "-c", loop, wait=False)
    try:
        for _ in range(400):
            st = Gate(any_db.url, "g").status()
            if st and st.row.state is State.OPERATIONAL_SYS_LOADING:
                break
            time.sleep(0.05)
        r = sp("gate", "produce", "g", "--url", any_db.url, "--wait", "1", "--", "true")
        assert r.returncode == 3
        assert "(a process with that pid is running)" in " ".join(r.stderr.split())
        assert first.poll() is None
        st = Gate(any_db.url, "g").status()
        assert st is not None and st.row.pid == first.pid  # still the first producer's turn
        go.touch()
        assert first.wait(60) == 0
    finally:
        go.touch()
        if first.poll() is None:
            first.kill()
    assert state(any_db) is State.OPERATIONAL_SYS_LOADED
