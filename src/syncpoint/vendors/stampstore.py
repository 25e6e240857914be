"""Reading and writing receive stamps at an integrate location (docs/objects.md ``{p}stin_*``).

The rules live in ``core/stamps.py``; the SQL in each vendor's ``sql/stamps/``. This module
only moves values between them. ``record`` runs inside the caller's open apply transaction,
so a stamp commits together with the positions it relies on and is never ahead of the data.
``ensure`` creates the tables and must run outside that transaction (MariaDB commits DDL).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from syncpoint import vendors
from syncpoint.core import stamps
from syncpoint.vendors.sqlfiles import SqlFiles


class StampStore:
    def __init__(self, vendor: str, prefix: str, channel: str, integrate_loc: str):
        self.vendor = vendor
        self.dialect = vendors.get(vendor).dialect
        self.channel = channel
        self.integrate_loc = integrate_loc
        self.idents = {
            "stin": f"{prefix}stin_{channel}_{integrate_loc}",
            "detail": f"{prefix}stin_detail",
        }
        self.sql = SqlFiles(vendor, "stamps", self.idents)

    @property
    def table_name(self) -> str:
        return self.idents["stin"]

    def ensure(self, conn: Any) -> None:
        cur = conn.cursor()
        for stmt in self.sql.statements("create"):
            cur.execute(stmt)
        conn.commit()  # a no-op where the driver autocommitted the DDL (SQLite here)

    def read(self, conn: Any) -> dict[str, tuple[datetime | None, int | None]]:
        cur = conn.cursor()
        cur.execute(self.sql.one("read"), (self.channel, self.integrate_loc))
        return {loc: (self.dialect.py_time(t), ctx) for loc, t, ctx in cur.fetchall()}

    def current(self, conn: Any, locations: list[str]) -> stamps.ReceiveStamps:
        have = self.read(conn)
        return stamps.leader_trailer({loc: have.get(loc, (None, None))[0] for loc in locations})

    def record(
        self,
        conn: Any,
        locations: list[str],
        candidates: dict[str, tuple[datetime | None, int]],
    ) -> stamps.ReceiveStamps:
        """Move stamps to ``candidates`` (location -> (time or None, sync point context)) and
        rewrite the leader/trailer row; all inside the caller's open transaction."""
        cur = conn.cursor()
        cur.execute(self.sql.one("lock"), (self.channel, self.integrate_loc))
        have = self.read(conn)
        previous = {loc: have.get(loc, (None, None))[0] for loc in locations}
        new = stamps.advance(previous, {k: v[0] for k, v in candidates.items()})
        for loc in locations:
            moved = new.get(loc) != previous.get(loc)
            if not moved and loc in have:
                continue
            t = new.get(loc)
            ctx = candidates[loc][1] if moved else have.get(loc, (None, None))[1]
            cur.execute(self.sql.one("delete_location"), (self.channel, self.integrate_loc, loc))
            cur.execute(
                self.sql.one("insert_location"),
                (
                    self.channel,
                    self.integrate_loc,
                    loc,
                    self.dialect.db_time(t),
                    stamps.epoch_seconds(t) if t else None,
                    ctx,
                ),
            )
        result = stamps.leader_trailer(new)
        cur.execute(self.sql.one("clear"))
        lead, trail = result.leader, result.trailer
        cur.execute(
            self.sql.one("insert"),
            (
                lead.location if lead else None,
                self.dialect.db_time(lead.cap_begin) if lead else None,
                lead.cap_begin_int if lead else None,
                trail.location if trail else None,
                self.dialect.db_time(trail.cap_begin) if trail else None,
                trail.cap_begin_int if trail else None,
            ),
        )
        return result

    def report(self, conn: Any, locations: list[str]) -> dict[str, Any] | None:
        """For ``status``: leader, trailer and each location's stamp with its age in seconds;
        None when no run has written stamps here yet. Reads only."""
        from datetime import UTC, datetime

        from syncpoint.errors import LocationError

        try:
            with self.dialect.translated():
                row = self.row(conn)
                have = self.read(conn)
        except LocationError:
            conn.rollback()
            return None
        conn.rollback()
        now = datetime.now(UTC)
        locs = {}
        for loc in locations:
            t, ctx = have.get(loc, (None, None))
            locs[loc] = {
                "cap_begin": t,
                "cap_begin_int": stamps.epoch_seconds(t) if t else None,
                "age_seconds": round((now - t).total_seconds(), 3) if t else None,
                "sync_point": ctx,
            }
        return {"table": self.table_name, "stamps": row, "locations": locs}

    def row(self, conn: Any) -> dict[str, Any] | None:
        """The leader/trailer row as stored (for status and tests)."""
        cur = conn.cursor()
        cur.execute(self.sql.one("select"))
        r = cur.fetchone()
        if r is None:
            return None
        keys = (
            "leader_cap_loc",
            "leader_cap_begin",
            "leader_cap_begin_int",
            "trailer_cap_loc",
            "trailer_cap_begin",
            "trailer_cap_begin_int",
            "updated_at",
        )
        out = dict(zip(keys, r, strict=True))
        for k in ("leader_cap_begin", "trailer_cap_begin", "updated_at"):
            out[k] = self.dialect.py_time(out[k])
        return out
