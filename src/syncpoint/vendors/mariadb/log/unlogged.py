"""Log capture's own writes at the source kept out of the binary log, where the user may.

A tick of log capture writes every captured row into ``{prefix}items`` (the drain), stamps
the service row and the ticks, and a purge deletes those rows again. In the binary log each
of these writes is a row event with the whole row, so that capture made the log about
three times what the application wrote; and the drain then read its own transactions back
only to skip them (no watched table). A session whose user has BINLOG ADMIN (or SUPER) may
``SET SESSION sql_log_bin = 0``: the tick and the purge run so, and write nothing to the
binary log. Without the privilege they run as before, written to the log.

Nothing reads those events: the drain skips syncpoint's tables but the origin marks, and
the origin marks (``set_origin``) are never written in such a session: ``sql_log_bin`` is
set back to 1 before the connection is handed back, or the connection is closed. A native
replica of the source then holds syncpoint's tables as install left them (docs/log-capture.md,
"Own writes and the binary log").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pymysql

from syncpoint.vendors.sqlfiles import SqlFiles

SQL = SqlFiles("mariadb", "log")

NO_PRIVILEGE = 1227  # ER_SPECIFIC_ACCESS_DENIED_ERROR: needs SUPER or BINLOG ADMIN
PRIVILEGES = ("BINLOG ADMIN", "SUPER", "ALL PRIVILEGES")


@contextmanager
def unlogged(conn: Any) -> Iterator[bool]:
    """Run the block with the session's writes kept out of the binary log if the user may;
    yield whether they are. The caller's open transaction is committed first (the variable
    cannot change inside one; a tick and a purge commit it anyway)."""
    conn.commit()
    cur = conn.cursor()
    off = _switch(cur, 0)
    try:
        yield off
    finally:
        if off:
            try:
                conn.rollback()  # whatever the block left open is not kept
                if not _switch(cur, 1):
                    raise RuntimeError("sql_log_bin could not be set back to 1")
            except BaseException:
                # a session that may still write past the binary log is never used again
                conn.close()
                raise


def _switch(cur: Any, value: int) -> bool:
    try:
        cur.execute(SQL.one("sql_log_bin"), (int(value),))
    except pymysql.err.Error as exc:
        if exc.args and exc.args[0] == NO_PRIVILEGE:
            return False
        raise
    return True


def note(conn: Any) -> str:
    """What ``validate`` and ``plan`` say: whether the tick's and purge's writes will be kept
    out of the binary log here, by which privilege, or what to grant."""
    conn.rollback()  # reads only so far; the variable cannot change inside a transaction
    cur = conn.cursor()
    with unlogged(conn) as off:
        pass
    cur.execute(SQL.one("current_user"))
    user = str(cur.fetchone()[0])
    cur.execute(SQL.one("grants"))
    # the global grants only: ALL PRIVILEGES on a database gives neither
    grants = "\n".join(
        str(r[0]) for r in cur.fetchall() if " ON *.* " in str(r[0]).upper()
    ).upper()
    conn.rollback()
    if off:
        why = next((p for p in PRIVILEGES if p in grants), "a role's privilege")
        return f"queue writes kept out of the binary log: yes ({why})"
    name, _, host = user.rpartition("@")
    return (
        "queue writes kept out of the binary log: no: grant BINLOG ADMIN to "
        f"'{name}'@'{host}' (GRANT BINLOG ADMIN ON *.* TO '{name}'@'{host}'), else each "
        "captured row is written to the binary log twice more, queued and purged"
    )
