"""Steps 1 and 2: the databases, the channel file, and capture installed.

Three SQLite files in the demo's folder: the sources ``dec01.db`` and ``dec02.db`` with the
shop's tables and some rows already there (``snapshot`` loads them), and the empty target
``cen.db``, whose tables the snapshot creates from the sources' columns. ``dec01`` also holds the
transport table its nightly extract fills (the gate step).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import yaml

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState
from syncpoint.ops.channel import Channel

# Few shuffle partitions for a few hundred rows; no progress bars between the demo's lines.
SPARK_CONF = {"spark.sql.shuffle.partitions": "2", "spark.ui.showConsoleProgress": "false"}
CHANNEL, APPLICATION, PREFIX, GROUP, GATE = "shop", "warehouse", "repl_", "shop", "nightly"


def create_databases(state: DemoState) -> None:
    """Fresh SQLite files (earlier ones in a kept folder are replaced)."""
    state.workdir.mkdir(parents=True, exist_ok=True)
    for loc in (*shop.LOCATIONS, shop.TARGET):
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{state.path(loc)}{suffix}").unlink(missing_ok=True)
        conn = sqlite3.connect(state.path(loc), isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")  # readers (rounds) never wait for writers
        if loc != shop.TARGET:
            for ddl in shop.SCHEMA:
                conn.execute(ddl)
            params = {
                "base": shop.ID_BASE[loc] + shop.EXISTING_OFFSET,
                "customers": shop.EXISTING["customers"],
                "orders": shop.EXISTING["orders"],
                "lines": shop.EXISTING["order_lines"],
            }
            for stmt in shop.EXISTING_ROWS:
                conn.execute(stmt, params)
        if loc == shop.LOCATIONS[0]:
            conn.execute(shop.TRANSPORT_SCHEMA)
        conn.close()
    state.results["databases"] = {
        loc: {
            "path": str(state.path(loc)),
            "role": "integrate (target)" if loc == shop.TARGET else "capture (source)",
            "tables": [] if loc == shop.TARGET else list(shop.TABLES),
        }
        for loc in (*shop.LOCATIONS, shop.TARGET)
    }
    state.event("databases", databases=state.results["databases"])


def channel_data(state: DemoState) -> dict[str, Any]:
    locations: dict[str, Any] = {
        loc: {"url": state.url(loc), "capture": True} for loc in shop.LOCATIONS
    }
    locations[shop.TARGET] = {"url": state.url(shop.TARGET), "integrate": True}
    return {
        "channel": CHANNEL,
        "application": APPLICATION,
        "prefix": PREFIX,
        "locations": locations,
        "tables": [{"name": t} for t in shop.TABLES],
        "sync_groups": {GROUP: list(shop.TABLES)},
        # the demo shows Spark applying the rounds, small as they are
        "spark": {"master": state.spark_master, "conf": SPARK_CONF, "driver_round_max": 0},
        "transport": {
            "gate": GATE,
            "location": shop.LOCATIONS[0],
            "tables": [shop.TRANSPORT_TABLE],
        },
    }


def write_config(state: DemoState) -> None:
    """The channel file: two capture locations, one integrate location, one sync group."""
    data = channel_data(state)
    state.config = state.workdir / "syncpoint.yaml"
    state.config.write_text(
        "# written by `syncpoint demo`: a working channel (try `syncpoint -c THIS_FILE status`)\n"
        + yaml.safe_dump(data, sort_keys=False),
        encoding="utf-8",
    )
    state.channel = Channel.from_file(state.config)
    state.results["config"] = {"path": str(state.config), "channel": data}
    state.event("config", path=str(state.config), channel=data)


def install(state: DemoState) -> None:
    """Capture objects (change queue, triggers, tick) at both sources; nothing at the target
    until the first round, which creates its control tables and the replicated tables."""
    done = state.ch.install()
    st = state.ch.capture_status()
    state.results["install"] = {
        loc: {
            "result": done.get(loc),
            "tables": {t["table"]: t["status"] for t in st[loc].get("tables", [])},
            "trigger_names": [t["trigger_name"] for t in st[loc].get("tables", [])],
        }
        for loc in shop.LOCATIONS
    }
    state.event("install", install=state.results["install"])
