"""Bad input to ``snapshot`` and ``verify``: a table not in the channel, a location that does
not capture, a table without a key, a target whose columns cannot hold the source's. Each
is a clear error with exit 2, and nothing is copied (no Spark is started for it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import SyncpointError
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb
from tests.system import roundkit as rk
from tests.system import snapkit as sk


def channel(src: Any, dst: Any, tmp: Path, **extra: Any) -> tuple[Channel, Path]:
    path = sk.config(tmp / "sp.yaml", {"src": src}, dst, **extra)
    return Channel.from_file(path), path


def refused(call: Any, *words: str) -> None:
    with pytest.raises(SyncpointError) as exc:
        call()
    assert exc.value.exit_code == 2
    text = str(exc.value) + " ".join(getattr(exc.value, "problems", []) or [])
    for w in words:
        assert w in text, text


def test_bad_tables_and_locations_are_refused(pg_db: Any, sqlite_db: Any, tmp_path: Path) -> None:
    sk.seed(pg_db, 10)
    ch, path = channel(pg_db, sqlite_db, tmp_path)
    refused(lambda: ch.snapshot(["nope"]), "nope")
    refused(lambda: ch.snapshot(location="cen"), "cen", "not a capture location")
    refused(lambda: ch.verify(["nope"]), "nope")
    r = rk.syncpoint(path, "snapshot", "--location", "nowhere")
    assert r.returncode == 2 and "nowhere" in r.stderr
    assert sqlite_db.query("SELECT count(*) FROM sqlite_master WHERE name = 'items'") == [(0,)]


def test_a_table_without_key_is_refused(pg_db: Any, sqlite_db: Any, tmp_path: Path) -> None:
    pg_db.execute("CREATE TABLE items (id bigint, name text)", "INSERT INTO items VALUES (1, 'a')")
    ch, _ = channel(pg_db, sqlite_db, tmp_path)
    refused(lambda: ch.snapshot(), "no primary key")


def test_a_target_that_cannot_hold_the_source_is_refused(maria_db: Any, tmp_path: Path) -> None:
    sk.seed(maria_db, 10)
    gen = make_mariadb()
    dst = next(gen)
    try:
        dst.execute(
            "CREATE TABLE items (id bigint PRIMARY KEY, name varchar(3), amount decimal(4,2), "
            "ver varchar(40) NOT NULL)"
        )
        ch, path = channel(maria_db, dst, tmp_path)
        refused(lambda: ch.snapshot(), "cannot hold", "'amount'", "no column 'updated_at'")
        assert dst.query("SELECT count(*) FROM items") == [(0,)]
    finally:
        next(gen, None)
    data = yaml.safe_load(path.read_text())
    data["tables"][0]["snapshot_partition"] = "nope"
    path.write_text(yaml.safe_dump(data))
    refused(lambda: Channel.from_file(path).snapshot(), "partition column 'nope'")
