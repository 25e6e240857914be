"""What waits in the WAL for log capture, read without writing (``status``): the commit
time of the oldest change not yet read into the queue, per table, so that the lag counts
changes the queue does not hold yet (no follower draining, or one whose drains fail).

It peeks the slot (``log/unread_peek.sql``: the slot does not move) between drains, under
the drains' own lock taken only if free: a drain running now means the queue is being
filled, and nothing is peeked. Only the messages' headers are read (Begin's commit time,
Relation's name, the relation of each change), not the rows.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

PEEK_MESSAGES = 500
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def oldest_unread(
    conn: Any, sql: Any, slot: str, pub: str, key: str, decoded: int
) -> dict[str, datetime] | None:
    """``{"schema.table": commit time of its oldest unread change}`` over the first
    transactions after ``decoded`` (a table absent: none in them), or None when it cannot
    be told now (a drain holds the slot, or it is in use by another session)."""
    try:
        with conn.transaction():
            if not conn.execute(sql.one("log/try_lock.sql"), {"key": key}).fetchone()[0]:
                return None
            try:
                rows = (
                    conn.cursor(binary=True)
                    .execute(
                        sql.one("log/unread_peek.sql"),
                        {"slot": slot, "n": PEEK_MESSAGES, "pub": pub},
                    )
                    .fetchall()
                )
            finally:
                conn.execute(sql.one("log/unlock.sql"), {"key": key})
    except psycopg.Error:
        return None  # the slot is active elsewhere (a reader streaming it), or gone
    return first_changes([bytes(r[0]) for r in rows], decoded)


def first_changes(messages: list[bytes], decoded: int) -> dict[str, datetime]:
    out: dict[str, datetime] = {}
    names: dict[int, str] = {}
    when: datetime | None = None
    for m in messages:
        tag = m[:1]
        if tag == b"B":
            final_lsn, ts = struct.unpack_from("!Qq", m, 1)
            # a transaction at or before what the queue stores was read already
            when = _EPOCH + timedelta(microseconds=ts) if final_lsn >= decoded else None
        elif tag == b"C":
            when = None
        elif tag == b"R":
            (relid,) = struct.unpack_from("!I", m, 1)
            schema, rest = m[5:].split(b"\0", 1)
            name = rest.split(b"\0", 1)[0]
            names[relid] = f"{schema.decode()}.{name.decode()}"
        elif tag in (b"I", b"U", b"D") and when is not None:
            (relid,) = struct.unpack_from("!I", m, 1)
            if relid in names:
                out.setdefault(names[relid], when)
        elif tag == b"T" and when is not None:
            (n,) = struct.unpack_from("!i", m, 1)
            for relid in struct.unpack_from(f"!{n}I", m, 6):
                if relid in names:
                    out.setdefault(names[relid], when)
    return out
