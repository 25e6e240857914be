"""SQLite's follower lock: an exclusive ``flock`` on ``<file>.follower.lock`` beside the
database, holding the host and process id; the kernel drops it with the process. (A
database file is reached from one host, so a file lock beside it is seen by every
follower that can reach it.)"""

from __future__ import annotations

import contextlib
import fcntl
import os
from typing import Any

from syncpoint import vendors
from syncpoint.vendors.followerlock import FollowerLock, holder_text


class Lock(FollowerLock):
    def __init__(self, location: str, url: str, key: str) -> None:
        super().__init__(location, url, key)
        self.file: Any = None

    @property
    def path(self) -> str:
        db = vendors.of_url(self.url).dialect.file_of(self.url)
        return os.path.abspath(db) + ".follower.lock"

    def acquire(self) -> bool:
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
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

    def held(self) -> bool:
        return self.file is not None

    def release(self) -> None:
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.truncate(0)
            self.file.close()  # closing the file drops the flock
            self.file = None

    def holder(self) -> str | None:
        if not os.path.exists(self.path):  # status must not make the file
            return None
        with open(self.path, "a+", encoding="utf-8") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                return fh.read().strip() or "another process"
            return None
