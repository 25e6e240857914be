"""MariaDB capture records each row as stored, also where a trigger's ``NEW`` is not what
MariaDB writes: an UPDATE that changes nothing on a table with ``ON UPDATE
CURRENT_TIMESTAMP`` (``NEW`` shows the statement's time, the row keeps its old one). And
where ``NEW`` is what is stored: defaults, generated columns (virtual and stored), values
cut by a non-strict session, the application's BEFORE triggers, its AFTER triggers ordered
after ours. Each record's content is compared with the row read back from the table."""

from __future__ import annotations

import json
import time
from typing import Any

from test_mariadb_capture_support import Cap, install

from syncpoint.config import TableConfig
from syncpoint.vendors.mariadb import catalog
from syncpoint.vendors.mariadb.encode import row_json

AUTO = """CREATE TABLE t (
  id INT PRIMARY KEY,
  r VARCHAR(10) NOT NULL,
  n INT DEFAULT 7,
  lu TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  lu6 DATETIME(6) NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  plain DATETIME NULL,
  g VARCHAR(30) AS (CONCAT(r, '-', n)) VIRTUAL,
  s INT AS (n * 3) STORED,
  z VARCHAR(5) DEFAULT 'q'
) ENGINE=InnoDB"""

# The same table without a primary key: the row is found again by its other values.
KEYLESS = AUTO.replace("id INT PRIMARY KEY", "id INT NOT NULL")


def stored(cap: Cap, row_id: int) -> dict[str, Any]:
    """The row as the table holds it, encoded as the capture (and the snapshot) encode it."""
    conn = cap.db.connect(autocommit=True)
    try:
        cur = conn.cursor()
        cols = catalog.columns(cur, cap.db.name, cap.table)
        sql = row_json(cols, "s").replace("%", "%%")
        cur.execute(f"SELECT {sql} FROM t s WHERE s.id = %s", (row_id,))
        return dict(json.loads(cur.fetchone()[0]))
    finally:
        conn.close()


def last_row(cap: Cap, after: int) -> tuple[int, dict[int, dict[str, Any]]]:
    """The newest captured content per id after position ``after``."""
    upto, recs = cap.window(after)
    out: dict[int, dict[str, Any]] = {}
    for r in recs:
        if r.row is not None:
            out[int(r.row["id"])] = dict(r.row)
    return upto, out


def check_cases(db: Any, ddl: str, key: list[str] | None = None) -> None:
    db.execute(ddl)
    db.execute(
        "INSERT INTO t (id, r, lu, lu6) VALUES "
        "(1, 'a', '2001-01-01 00:00:00', '2001-01-01 00:00:00.5'), "
        "(2, 'b', '2001-01-01 00:00:00', '2001-01-01 00:00:00.5'), "
        "(3, 'c', '2001-01-01 00:00:00', NULL)"
    )
    cap = install(db, TableConfig(name="t", key=key))
    pos = cap.tick()
    time.sleep(1.1)  # the statement's time differs from the stored one by a second at least
    db.execute("UPDATE t SET r = r", "UPDATE t SET n = n WHERE id = 2")  # changed 0
    if key is None:  # the same through INSERT ... ON DUPLICATE KEY UPDATE
        db.execute("INSERT INTO t (id, r) VALUES (1, 'a') ON DUPLICATE KEY UPDATE r = 'a'")
    pos2, got = last_row(cap, pos)
    for i in (1, 2, 3):
        assert got[i] == stored(cap, i), i
        assert got[i]["lu"] == "2001-01-01T00:00:00+00:00", got[i]
    # an UPDATE that changes only a temporal column, or a column besides: the new values
    db.execute(
        "UPDATE t SET lu = '2002-02-02 00:00:00' WHERE id = 1",
        "UPDATE t SET lu6 = NOW(6) WHERE id = 3",
        "UPDATE t SET n = 8 WHERE id = 2",
    )
    _, got = last_row(cap, pos2)
    for i in (1, 2, 3):
        assert got[i] == stored(cap, i), i
    assert got[1]["lu"] == "2002-02-02T00:00:00+00:00"
    assert got[2]["lu"] != "2001-01-01T00:00:00+00:00"  # auto-updated, and recorded so
    assert got[2]["s"] == 24 and got[2]["g"] == "b-8"


def test_noop_update_records_the_stored_timestamp(maria_db: Any) -> None:
    check_cases(maria_db, AUTO)


def test_noop_update_records_the_stored_timestamp_without_a_key(maria_db: Any) -> None:
    check_cases(maria_db, KEYLESS, key=["id"])


def test_new_is_stored_row_for_defaults_generated_and_application_triggers(
    maria_db: Any,
) -> None:
    maria_db.execute(AUTO)
    cap = install(maria_db, "t")
    # the application's triggers, made after ours: a BEFORE trigger changing the row, an
    # AFTER trigger ordered after ours (it cannot change the row: MariaDB refuses that)
    maria_db.execute(
        "CREATE TABLE side (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB",
        "CREATE TRIGGER app_bu BEFORE UPDATE ON t FOR EACH ROW SET NEW.z = UPPER(NEW.z)",
        "CREATE TRIGGER app_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.r = LOWER(NEW.r)",
        f"CREATE TRIGGER app_au AFTER UPDATE ON t FOR EACH ROW FOLLOWS "
        f"{cap.cap.names.trigger('t', 'U')} INSERT INTO side (v) VALUES (NEW.r)",
    )
    pos = cap.tick()
    maria_db.execute(
        "SET SESSION sql_mode = ''",
        "INSERT INTO t (id, r) VALUES (1, 'ABCDEFGHIJKLMNOP')",  # cut to 10, lowered
        "INSERT INTO t (id, r, n) VALUES (2, 'B', NULL)",  # defaults, NULL generated
        "INSERT INTO t (id, r, z) VALUES (3, 'c', 'x')",
        "UPDATE t SET r = r WHERE id = 3",  # the BEFORE trigger makes it a change
        "UPDATE t SET n = n",  # row 2's NULLs
    )
    _, got = last_row(cap, pos)
    for i in (1, 2, 3):
        assert got[i] == stored(cap, i), i
    assert got[1]["r"] == "abcdefghij" and got[3]["z"] == "X"


SAKILA_FILM = """CREATE TABLE film (
  film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(128) NOT NULL,
  rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes'),
  note TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci"""


def test_types_keep_labels_charset_and_collation(maria_db: Any) -> None:
    """ENUM/SET labels as declared, the collation of a column in another one than
    utf8mb4_bin; a capture installed by an earlier version (its snapshot of the columns in
    lower case, without collations) takes the new reading without an ALTER record when
    this version is installed over it; a change of collation is an ALTER."""
    maria_db.execute(SAKILA_FILM)
    cap = install(maria_db, "film")
    conn = cap.conn()
    try:
        shape = cap.cap.describe(conn, cap.ref)
    finally:
        conn.close()
    assert shape is not None
    types = {c.name: c.type for c in shape.columns}
    suffix = " character set utf8mb3 collate utf8mb3_general_ci"
    assert types["rating"] == "enum('G','PG','PG-13','R','NC-17')" + suffix
    assert types["special_features"].startswith("set('Trailers','Commentaries',")
    assert types["title"] == "varchar(128)" + suffix
    assert types["note"] == "text"  # utf8mb4_bin: the default of created tables

    pos = cap.tick()
    snap = cap.cap.names.obj("cols_snapshot")
    maria_db.execute(  # as an earlier version wrote it
        f"UPDATE `{snap}` SET coltype = LOWER(REPLACE(coltype, %(s)s, ''))", params={"s": suffix}
    )
    assert cap.poll() == 1  # no install since: the older reading differs, an ALTER record
    maria_db.execute(  # as an earlier version wrote it, once more
        f"UPDATE `{snap}` SET coltype = LOWER(REPLACE(coltype, %(s)s, ''))", params={"s": suffix}
    )
    pos = cap.tick()
    install(maria_db, "film")  # the install of this version over the earlier one
    assert cap.poll() == 0
    _, recs = cap.window(pos, "film")
    assert recs == []
    rows = maria_db.query(f"SELECT colname, coltype FROM `{snap}` WHERE colname = 'rating'")
    assert rows == [("rating", types["rating"])]
    maria_db.execute("ALTER TABLE film MODIFY title VARCHAR(128) COLLATE utf8mb3_bin NOT NULL")
    assert cap.poll() == 1  # a real change of collation is an ALTER
