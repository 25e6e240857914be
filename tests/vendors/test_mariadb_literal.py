"""MariaDB string literals: ``dialect.literal`` reads back as the very value on a session
syncpoint opens (whose SQL mode has NO_BACKSLASH_ESCAPES), in a statement, in a comparison
with the bound value, and inside a trigger body (which keeps the mode it was created in)."""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.vendors.mariadb import dialect

VALUES = [
    "plain",
    "it's",
    "''",
    "back\\slash",
    "\\",
    "ends with \\",
    "\\'",
    "\\\\'' \\n \\0 \\x00",
    "nul\0inside",
    "\0",
    'double "quoted" %s %(x)s',
    "ÿñ ✓ 🚀",
    "",
]


@pytest.fixture
def conn(maria_db: Any) -> Any:
    c = dialect.connect(maria_db.url, autocommit=True)
    yield c
    c.close()


def test_the_session_mode_is_the_one_literals_are_written_for(conn: Any) -> None:
    cur = conn.cursor()
    cur.execute("SELECT @@SESSION.sql_mode")
    assert "NO_BACKSLASH_ESCAPES" in cur.fetchone()[0].split(",")


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("collate", [False, True])
def test_a_literal_reads_back_as_its_value(conn: Any, value: str, collate: bool) -> None:
    cur = conn.cursor()
    cur.execute("SET @bound = %s", (value,))
    # no parameters in this statement: PyMySQL would read a % in the literal as its own
    lit = dialect.literal(value, collate)
    cur.execute(f"SELECT {lit}, {lit} = @bound, LENGTH({lit}) = LENGTH(@bound)")
    got, same, same_length = cur.fetchone()
    assert got == value
    assert same == 1 and same_length == 1


def test_literals_in_a_trigger_body_keep_their_value(conn: Any) -> None:
    cur = conn.cursor()
    cur.execute("CREATE TABLE src (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE seen (n INT, v LONGTEXT)")
    inserts = "; ".join(
        f"INSERT INTO seen VALUES ({i}, {dialect.literal(v)})" for i, v in enumerate(VALUES)
    )
    cur.execute(f"CREATE TRIGGER src_ai AFTER INSERT ON src FOR EACH ROW BEGIN {inserts}; END")
    # the trigger runs under the mode stored with it, whatever the inserting session's mode
    cur.execute("SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
    cur.execute("INSERT INTO src VALUES (1)")
    cur.execute("SELECT n, v FROM seen ORDER BY n")
    assert [v for _, v in cur.fetchall()] == VALUES
