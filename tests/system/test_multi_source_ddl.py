"""Several sources into one target table: a DDL event from one source never changes how
another source's rows are applied. The case found: ``b`` renames ``note`` to ``remark``
under ``ddl_policy: apply``; ``a``'s next insert, which still has ``note``, must stop the
table with the reason instead of arriving with its note left out."""

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

pytestmark = pytest.mark.spark

ORDERS = "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount TEXT, note TEXT)"


def test_a_rename_at_one_source_stops_the_table_instead_of_dropping_anothers_values(
    tmp_path: Path, spark: Any
) -> None:
    gens = [make_sqlite(tmp_path) for _ in range(3)]
    a, b, dst = (next(g) for g in gens)
    for db in (a, b):
        db.execute(ORDERS)
    path = rk.write_config(tmp_path / "sp.yaml", {"a": a, "b": b}, dst, tables=["orders"])
    data = yaml.safe_load(path.read_text())
    data["tables"] = [{"name": "orders", "ddl_policy": "apply", "snapshot": "none"}]
    data["sync_groups"] = {}
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    sql(a, "INSERT INTO orders VALUES (1, 1, '1.00', 'from a')")
    sql(b, "INSERT INTO orders VALUES (2, 2, '2.00', 'from b')")
    ch.run(once=True, spark=spark)
    sql(b, "ALTER TABLE orders RENAME COLUMN note TO remark")
    sql(b, "INSERT INTO orders VALUES (3, 3, '3.00', 'b after')")
    ch.run(once=True, spark=spark)  # b's rename applied at the target
    assert dst.query("SELECT id, remark FROM orders ORDER BY id") == [
        (1, "from a"),
        (2, "from b"),
        (3, "b after"),
    ]
    sql(a, "INSERT INTO orders VALUES (7, 1, '1.00', 'a-note')")
    with pytest.raises(TableStopped, match="carry column.s. note"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM orders WHERE id = 7") == [(0,)]
    st = ch.integrate_status()["cen"]["tables"]
    assert any(r["stopped"] and "note" in r["stopped"] for r in st if r["location"] == "a")
    for g in gens:
        next(g, None)
