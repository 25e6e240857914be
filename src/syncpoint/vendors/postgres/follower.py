"""PostgreSQL's follower lock: a session advisory lock (``pg_try_advisory_lock``) on a hash
of the key. The session names the host and process in its ``application_name``, which
``pg_locks`` joined with ``pg_stat_activity`` finds for the one refused."""

from __future__ import annotations

from typing import Any

from syncpoint.vendors.followerlock import SessionLock, holder_text


class Lock(SessionLock):
    def _before(self) -> None:
        # application_name holds at most 63 bytes
        self.sql.run(self.conn, "name", (f"syncpoint follower {holder_text()}"[:63],))

    def _describe(self, row: Any) -> str:
        name, addr, pid = row
        who = str(name).removeprefix("syncpoint follower ") or "a session"
        return f"{who} (server session {pid} from {addr or 'a local socket'})"
