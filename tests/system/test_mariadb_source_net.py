"""A MariaDB source's netting on the direct path into MariaDB (``window/ops_out_net.sql``,
its lines loaded by ``LOAD DATA``): the rows it stages are exactly those the driver's
netting (``core/netting.net_rows``, the rule Spark's path shares) makes of the same
records, for texts LOAD DATA must read back as they were (tab, newline, carriage return,
backslash, ``\\N``, non-ASCII) and keys that differ only by case or a trailing space."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from syncpoint.core import netting
from syncpoint.vendors.mariadb import round_direct
from tests.conftest import Db

TBL = 7
# (repl_key, db_action, content, oldcontent, dbid, key text of content, of oldcontent)
RECORDS: list[tuple[Any, ...]] = [
    (1, "INSERT", '{"k": "a", "v": "x\ty"}', None, "src", '["a"]', None),
    (2, "INSERT", '{"k": "A", "v": "back\\\\slash \\\\N"}', None, "src", '["A"]', None),
    (
        3,
        "UPDATE",
        '{"k": "a", "v": "new\nline"}',
        '{"k": "a", "v": "x\ty"}',
        "src",
        '["a"]',
        '["a"]',
    ),  # fmt: skip
    # a key move and back: the move deletes the old key (sub -1) and upserts the new one
    (
        4,
        "UPDATE",
        '{"k": "b", "v": "moved"}',
        '{"k": "a", "v": "new\nline"}',
        "src",
        '["b"]',
        '["a"]',
    ),  # fmt: skip
    (
        5,
        "UPDATE",
        '{"k": "a", "v": "back"}',
        '{"k": "b", "v": "moved"}',
        "src",
        '["a"]',
        '["b"]',
    ),  # fmt: skip
    (6, "DELETE", None, '{"k": "A", "v": "back\\\\slash \\\\N"}', "src", None, '["A"]'),
    (7, "INSERT", '{"k": "A", "v": "again\r"}', None, "o\tther", '["A"]', None),  # reinserted
    (8, "INSERT", '{"k": "x ", "v": null}', None, "src", '["x "]', None),
    (9, "INSERT", '{"k": "x", "v": "é ✓ 😀"}', None, "src", '["x"]', None),
    (10, "DELETE", None, '{"k": "gone"}', "src", None, '["gone"]'),
    (11, "UPDATE", '{"k": "c", "v": 2}', '{"k": "c", "v": 1}', "src", '["c"]', '["c"]'),
    (12, "UPDATE", '{"k": "c", "v": 3}', '{"k": "c", "v": 2}', "src", '["c"]', '["c"]'),
    (13, "UPDATE", '{"k": "C", "v": 3}', '{"k": "c", "v": 3}', "src", '["C"]', '["c"]'),
    (99, "INSERT", '{"k": "late"}', None, "src", '["late"]', None),  # past the window
]


def test_a_mariadb_window_nets_at_the_source_as_the_driver_nets(maria_db: Db) -> None:
    maria_db.execute(
        # the queue's texts in a collation that folds case and trailing spaces: the
        # netting compares bytes all the same
        "CREATE TABLE q (repl_key BIGINT PRIMARY KEY, db_action VARCHAR(10), "
        "content LONGTEXT COLLATE utf8mb4_general_ci, "
        "oldcontent LONGTEXT COLLATE utf8mb4_general_ci, dbid VARCHAR(50), "
        "sp_key LONGTEXT COLLATE utf8mb4_general_ci, "
        "sp_old_key LONGTEXT COLLATE utf8mb4_general_ci) ENGINE=InnoDB",
        "CREATE TABLE stg (application_name VARCHAR(200), sync_name VARCHAR(200), "
        "round_id VARCHAR(64), tbl INT, action CHAR(1), content LONGTEXT, repl_key BIGINT, "
        "origin VARCHAR(50), sp_key LONGTEXT, sp_sub SMALLINT) ENGINE=InnoDB",
    )
    conn = maria_db.connect()
    try:
        conn.cursor().executemany("INSERT INTO q VALUES (%s, %s, %s, %s, %s, %s, %s)", RECORDS)
    finally:
        conn.close()
    capture = SimpleNamespace(vendor="mariadb", url=maria_db.url)
    target = SimpleNamespace(url=maria_db.url, idents={"staging": "stg"})
    (job,) = round_direct.copies(
        capture, target, "SELECT * FROM q", tbl=TBL, application="a\tpp\\x", group="g",
        round_id="r1", lo=1, hi=13, count=13, slots=2,
    )  # fmt: skip
    tbl, n, records = round_direct.copy_ops(job)

    want = netting.net_rows((TBL, *r[:7]) for r in RECORDS if r[0] <= 13)
    assert (tbl, records) == (TBL, 13)
    got = maria_db.query(
        "SELECT application_name, sync_name, round_id, tbl, action, content, repl_key, origin "
        "FROM stg ORDER BY repl_key, sp_sub"
    )
    assert n == len(got) == len(want.rows)
    assert {r[:4] for r in got} == {("a\tpp\\x", "g", "r1", TBL)}
    assert sorted(r[4:] for r in got) == sorted((a, c, rk, o) for _, a, c, rk, o in want.rows)
