"""One follower per channel and application: a lock held at each integrate location for as
long as ``run --follow`` runs (docs/operations.md, "One follower per application").

The lock belongs to the session, never to a row: the server (or, for a SQLite file, the
kernel) drops it when the holder's connection or process ends, a SIGKILLed follower's too,
so nothing is left to clean up and nothing waits for a timeout.

- PostgreSQL: a session advisory lock (``pg_try_advisory_lock``); the holding session's
  ``application_name`` names the host and process, and ``pg_locks`` finds that session;
- MariaDB: a named lock (``GET_LOCK(name, 0)``); ``IS_USED_LOCK`` finds the connection,
  and the process list the statement it runs: a thread keeps a long ``SLEEP`` that names
  the host and process going on it, a second at a time (MariaDB has no other name of a
  connection that another session can read, without performance_schema);
- SQLite: an exclusive ``flock`` on a file beside the database (``<file>.follower.lock``)
  holding the host and process id.

The key is the channel's prefix, channel and application name: two channels, or two
applications of one channel, each have their follower.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

from syncpoint import vendors
from syncpoint.errors import WorkFailed
from syncpoint.vendors.sqlfiles import SqlFiles


def holder_text() -> str:
    """Who this process is: ``host pid N``."""
    return f"{socket.gethostname()} pid {os.getpid()}"


@dataclass
class FollowerLock:
    """The follower lock of ``key`` at one location (``url``)."""

    location: str
    url: str = field(repr=False)
    key: str
    conn: Any = None
    file: Any = None
    waiter: threading.Thread | None = None  # MariaDB: the statement that names the holder
    conn_id: int | None = None
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def _file(self) -> str | None:
        path = vendors.of_url(self.url).dialect.file_of(self.url)
        return None if path is None else os.path.abspath(path) + ".follower.lock"

    @property
    def _sql(self) -> SqlFiles:
        return SqlFiles(vendors.vendor_of(self.url), "follower", location=self.location)

    @property
    def _name(self) -> str:
        # MariaDB's lock names are at most 64 characters: a digest of the key
        return "syncpoint follower " + hashlib.sha1(self.key.encode()).hexdigest()[:40]

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another process holds it."""
        path = self._file
        if path is not None:
            fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                return False
            fh.seek(0)
            fh.truncate()
            fh.write(holder_text() + "\n")
            fh.flush()
            self.file = fh
            return True
        self.conn = vendors.connect(self.url, location=self.location, autocommit=True)
        if vendors.vendor_of(self.url) == "postgres":
            self._sql.run(self.conn, "name", ((f"syncpoint follower {holder_text()}")[:63],))
        got = self._sql.run(self.conn, "try_lock", (self._name,)).fetchone()[0]
        if not got:
            self.release()
        elif vendors.vendor_of(self.url) == "mariadb":
            self.conn_id = int(self._sql.run(self.conn, "connection_id").fetchone()[0])
            self.stopping.clear()
            self.waiter = threading.Thread(target=self._show, name="follower-lock", daemon=True)
            self.waiter.start()
        return bool(got)

    def _show(self) -> None:
        try:
            while not self.stopping.is_set():
                cur = self._sql.run(
                    self.conn, "show_holder", (f"syncpoint follower {holder_text()}",)
                )
                cur.fetchall()
        except Exception:  # noqa: BLE001 - the connection ended: alive() sees the thread gone
            pass

    def alive(self) -> bool | None:
        """Whether the lock is still held by this process: None when that cannot be told
        now (the location cannot be reached; asked again later)."""
        if self.file is not None:
            return True
        if self.waiter is not None:
            if self.waiter.is_alive():
                return True
            self.release()  # its statement ended with the connection, and the lock with it
        elif self.conn is not None:
            try:
                self._sql.run(self.conn, "alive").fetchone()
                return True
            except Exception:  # noqa: BLE001 - a lost session: its lock went with it
                self.release()
        try:
            return self.acquire()
        except WorkFailed:
            return None

    def release(self) -> None:
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.truncate(0)
            self.file.close()  # closing the file drops the flock
            self.file = None
        if self.waiter is not None:
            self.stopping.set()
            if self.waiter.is_alive():  # busy in its statement: ended from another connection
                with contextlib.suppress(Exception):
                    other = vendors.connect(self.url, location=self.location, autocommit=True)
                    try:
                        self._sql.run(other, "end", (self.conn_id,))
                    finally:
                        other.close()
                self.waiter.join(timeout=10)
            self.waiter = None
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()  # ending the session drops the lock
            self.conn = None

    def holder(self) -> str | None:
        """Who holds the lock now (None: nobody), read without taking it."""
        path = self._file
        if path is not None:
            if not os.path.exists(path):
                return None
            with open(path, "a+", encoding="utf-8") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    fh.seek(0)
                    return fh.read().strip() or "another process"
                return None
        conn = vendors.connect(self.url, location=self.location, autocommit=True)
        try:
            row = self._sql.run(conn, "holder", (self._name,)).fetchone()
        finally:
            conn.close()
        if row is None:
            return None
        if vendors.vendor_of(self.url) == "postgres":
            name, addr, pid = row
            who = str(name).removeprefix("syncpoint follower ") or "a session"
            return f"{who} (server session {pid} from {addr or 'a local socket'})"
        user, host, conn_id, info = row
        named = re.search(r"'syncpoint follower ([^']*)'", str(info or ""))
        where = f"connection {conn_id} of {user} from {host}"
        return f"{named.group(1)} ({where})" if named else where
