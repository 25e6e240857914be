"""The direct path's pieces that run without a database: the operations a MariaDB source's
records are split into (as PostgreSQL's ``window/ops_out.sql`` splits them at the source),
and how many copies a local master runs at once in the driver's threads."""

from __future__ import annotations

import os

from syncpoint.ops.session import local_slots
from syncpoint.vendors.postgres.round_direct import operations

HEAD = ("app", "g", "r1", 7)


def test_records_split_into_operations() -> None:
    rows = [
        (1, "INSERT", '{"id": 1}', None, "src", "[1]", "[null]"),
        (2, "UPDATE", '{"id": 1, "a": 2}', '{"id": 1}', "src", "[1]", "[1]"),
        (3, "UPDATE", b'{"id": 5}', b'{"id": 1}', "src", b"[5]", b"[1]"),  # the key moved
        (4, "DELETE", None, '{"id": 5}', "src", "[null]", "[5]"),
    ]
    assert list(operations(rows, HEAD)) == [
        (*HEAD, "U", '{"id": 1}', 1, "src", "[1]", 1),
        (*HEAD, "U", '{"id": 1, "a": 2}', 2, "src", "[1]", 1),
        (*HEAD, "U", '{"id": 5}', 3, "src", "[5]", 1),
        (*HEAD, "D", '{"id": 1}', 3, "src", "[1]", -1),
        (*HEAD, "D", '{"id": 5}', 4, "src", "[5]", 0),
    ]


def test_local_masters_slots() -> None:
    assert local_slots("local") == 1
    assert local_slots("local[2]") == 2
    assert local_slots("local[3,2]") == 3
    assert local_slots("local[*]") == (os.cpu_count() or 1)
    assert local_slots("spark://host:7077") == 0
    assert local_slots("yarn") == 0
