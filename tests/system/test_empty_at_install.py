"""A table that holds no row when ``install`` puts its triggers in place needs no
snapshot: install records it as loaded at the integrate locations, and ``run`` goes on
for it; a table that holds rows is still refused until ``snapshot`` loads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_sqlite
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = pytest.mark.spark

FULL = {
    "postgres": "CREATE TABLE full_t (id bigint PRIMARY KEY, v text)",
    "mariadb": "CREATE TABLE full_t (id bigint PRIMARY KEY, v text) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE full_t (id INTEGER PRIMARY KEY, v TEXT)",
}
PREFIX = {"postgres": "public.", "mariadb": "", "sqlite": ""}


@pytest.mark.parametrize("any_db", ["postgres", "mariadb", "sqlite"], indirect=True)
def test_run_goes_on_for_a_table_empty_at_install(any_db: Any, tmp_path: Path, spark: Any) -> None:
    src = any_db
    sk.seed(src, 0)  # items: empty
    src.execute(FULL[src.vendor], "INSERT INTO full_t VALUES (1, 'there before install')")
    (tmp_path / "t").mkdir()
    gen = make_sqlite(tmp_path / "t")
    dst = next(gen)
    try:
        p = PREFIX[src.vendor]
        path = sk.config(tmp_path / "syncpoint.yaml", {"src": src}, dst)
        data = yaml.safe_load(path.read_text())
        data["tables"].append({"name": f"{p}full_t"})
        path.write_text(yaml.safe_dump(data))
        ch = Channel.from_file(path)
        ch.install()
        src.execute(
            "INSERT INTO items (id, name, amount, ver) VALUES (1, 'after install', 2.5, 'a')",
            "INSERT INTO items (id, name, amount, ver) VALUES (2, 'second', 1, 'b')",
            "UPDATE items SET ver = 'c' WHERE id = 2",
        )
        with pytest.raises(TableStopped) as info:
            ch.run(once=True, spark=spark)
        # the table holding rows at install is refused, the empty one is not
        assert "full_t" in str(info.value) and "never loaded" in str(info.value)
        assert "items" not in str(info.value).replace("full_t", "")
        assert rk.rows(dst, "items", sk.COLS) == rk.rows(src, "items", sk.COLS)
        assert len(rk.rows(dst, "items", sk.COLS)) == 2
    finally:
        next(gen, None)
