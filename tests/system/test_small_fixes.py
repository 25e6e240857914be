"""What a user hits on the command line: a path ``init`` cannot write, a stop of a table taken
out of the channel, a long stop reason in the status table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_sqlite
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql


def test_init_into_a_path_it_cannot_write_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = rk.syncpoint(tmp_path / "none.yaml", "init", "/proc/syncpoint-test")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "cannot write" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.spark
def test_stop_of_a_removed_table_is_forgotten_and_long_reasons_print_whole(
    tmp_path: Path, spark: Any
) -> None:
    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    rk.setup_source(src)
    path = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    ch = Channel.from_file(path)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
    ch.run(once=True, spark=spark)
    sql(src, "ALTER TABLE parent RENAME COLUMN name TO label")
    with pytest.raises(TableStopped, match="RENAME COLUMN name TO label"):
        ch.run(once=True, spark=spark)
    done = rk.syncpoint(path, "status", env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if "stopped: src parent:" in ln)
    assert "RENAME COLUMN name TO label" in line and "ddl_policy" in line
    # the user takes parent (and child, which refers to it) out of the channel
    data = yaml.safe_load(path.read_text())
    data["tables"] = [{"name": "audit_x", "snapshot": "none"}]
    src.execute("CREATE TABLE audit_x (id INTEGER PRIMARY KEY)")
    data["sync_groups"] = {}
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM repl_table_stops") == [(0,)]
    for g in gens:
        next(g, None)
