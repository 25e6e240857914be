"""MariaDB's follower lock: a named lock (``GET_LOCK(name, 0)``, names of at most 64
characters: a digest of the key). MariaDB keeps no name of a connection that another
session can read (without performance_schema), so a thread keeps a statement that names the
host and process running on the lock's connection, a second at a time: ``IS_USED_LOCK`` and
the process list find it. Stopping ends that connection with ``KILL CONNECTION``."""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from typing import Any

from syncpoint import vendors
from syncpoint.vendors.followerlock import SessionLock, holder_text


class Lock(SessionLock):
    def __init__(self, location: str, url: str, key: str) -> None:
        super().__init__(location, url, key)
        self.waiter: threading.Thread | None = None
        self.conn_id: int | None = None
        self.stopping = threading.Event()

    @property
    def name(self) -> str:
        return "syncpoint follower " + hashlib.sha1(self.key.encode()).hexdigest()[:40]

    def _after(self) -> None:
        self.conn_id = int(self.sql.run(self.conn, "connection_id").fetchone()[0])
        self.stopping.clear()
        self.waiter = threading.Thread(target=self._show, name="follower-lock", daemon=True)
        self.waiter.start()

    def _show(self) -> None:
        try:
            while not self.stopping.is_set():
                named = f"syncpoint follower {holder_text()}"
                self.sql.run(self.conn, "show_holder", (named,)).fetchall()
        except Exception:  # noqa: BLE001 - the connection ended: held() sees the thread gone
            pass

    def held(self) -> bool:
        return self.waiter is not None and self.waiter.is_alive()

    def release(self) -> None:
        if self.waiter is not None:
            self.stopping.set()
            if self.waiter.is_alive():  # busy in its statement: ended from another connection
                with contextlib.suppress(Exception):
                    other = vendors.connect(self.url, location=self.location, autocommit=True)
                    try:
                        self.sql.run(other, "end", (self.conn_id,))
                    finally:
                        other.close()
                self.waiter.join(timeout=10)
            self.waiter = None
        super().release()

    def _describe(self, row: Any) -> str:
        user, host, conn_id, info = row
        named = re.search(r"'syncpoint follower ([^']*)'", str(info or ""))
        where = f"connection {conn_id} of {user} from {host}"
        return f"{named.group(1)} ({where})" if named else where
