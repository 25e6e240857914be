"""One follower per channel and application: a lock held at each integrate location for as
long as ``run --follow`` runs (docs/operations.md, "One follower per application").

The lock belongs to the session, never to a row: the server (or, for a SQLite file, the
kernel) drops it when the holder's connection or process ends, a SIGKILLed follower's too,
so nothing is left to clean up and nothing waits for a timeout. Each vendor's
``follower.py`` says how it takes the lock and how the refused one learns who holds it
(host and process); ``SessionLock`` is what the servers share.

The key is the channel's prefix, channel and application name: two channels, or two
applications of one channel, each have their follower.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import socket
from typing import Any

from syncpoint import vendors
from syncpoint.errors import WorkFailed
from syncpoint.vendors.sqlfiles import SqlFiles


def holder_text() -> str:
    """Who this process is: ``host pid N``."""
    return f"{socket.gethostname()} pid {os.getpid()}"


def holder_named(holder: str) -> bool:
    """Whether ``holder`` names its host and process (MariaDB's can only be told while its
    connection runs the statement that names it: between two of them, and after a killed
    holder's last one, it is a bare connection)."""
    return re.match(r"\S+ pid \d+", holder) is not None


def holder_gone(holder: str) -> bool:
    """Whether ``holder`` (a ``holder_text``, maybe followed by where it is connected from)
    names a process of this host that has ended."""
    m = re.match(r"(\S+) pid (\d+)", holder)
    if m is None or m.group(1) != socket.gethostname():
        return False
    try:
        os.kill(int(m.group(2)), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class FollowerLock:
    """The follower lock of ``key`` at one location (``url``)."""

    def __init__(self, location: str, url: str, key: str) -> None:
        self.location, self.url, self.key = location, url, key

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another process holds it."""
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def held(self) -> bool:
        """Whether this process still holds the lock it took."""
        raise NotImplementedError

    def holder(self) -> str | None:
        """Who holds the lock now (None: nobody), read without taking it."""
        raise NotImplementedError

    def alive(self) -> bool | None:
        """Whether the lock is still this process's, taking it again if its session ended:
        None when that cannot be told now (the location cannot be reached)."""
        if self.held():
            return True
        self.release()
        try:
            return self.acquire()
        except WorkFailed:
            return None


class SessionLock(FollowerLock):
    """A lock of a server session, run through ``vendors/<vendor>/sql/follower/*.sql``:
    ``try_lock`` and ``holder`` take the lock's name."""

    def __init__(self, location: str, url: str, key: str) -> None:
        super().__init__(location, url, key)
        self.sql = SqlFiles(vendors.vendor_of(url), "follower", location=location)
        self.conn: Any = None

    @property
    def name(self) -> str:
        return f"syncpoint follower {self.key}"

    def acquire(self) -> bool:
        self.conn = vendors.connect(self.url, location=self.location, autocommit=True)
        self._before()
        got = bool(self.sql.run(self.conn, "try_lock", (self.name,)).fetchone()[0])
        if got:
            self._after()
        else:
            self.release()
        return got

    def _before(self) -> None:
        """Before the lock is asked for (PostgreSQL names the session)."""

    def _after(self) -> None:
        """Once the lock is held (MariaDB starts its naming statement)."""

    def held(self) -> bool:
        if self.conn is None:
            return False
        try:
            self.sql.run(self.conn, "alive").fetchone()
            return True
        except Exception:  # noqa: BLE001 - a lost session: its lock went with it
            return False

    def release(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()  # ending the session drops the lock
            self.conn = None

    def holder(self) -> str | None:
        conn = vendors.connect(self.url, location=self.location, autocommit=True)
        try:
            row = self.sql.run(conn, "holder", (self.name,)).fetchone()
        finally:
            conn.close()
        return None if row is None else self._describe(row)

    def _describe(self, row: Any) -> str:
        raise NotImplementedError


def follower_lock(location: str, url: str, key: str) -> FollowerLock:
    """The follower lock of the vendor of ``url``."""
    module = importlib.import_module(f"syncpoint.vendors.{vendors.vendor_of(url)}.follower")
    return module.Lock(location, url, key)  # type: ignore[no-any-return]
