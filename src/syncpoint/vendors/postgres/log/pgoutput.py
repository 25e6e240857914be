"""A reader of the ``pgoutput`` logical decoding messages (protocol version 1, text values),
as ``pg_logical_slot_peek_binary_changes`` returns them: one message a row.

Only what log capture needs: transactions (Begin ... Commit) with their commit LSNs and
times, relations (columns, types, which are the replica identity), row changes with their
values as text (``None`` for NULL, ``UNCHANGED`` for a TOASTed value an UPDATE left as it
was), TRUNCATE, and transactional logical messages (how syncpoint's own event triggers and
``set_origin`` speak to the decoder). The format is PostgreSQL's "Logical Replication
Message Formats" chapter.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

# a TOASTed column an UPDATE did not change: pgoutput sends no value for it
UNCHANGED: Any = type("Unchanged", (), {"__repr__": lambda self: "UNCHANGED"})()
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass
class Relation:
    relid: int
    schema: str
    name: str
    identity: str  # d(efault), n(othing), f(ull), i(ndex)
    columns: list[tuple[str, int, int, bool]]  # name, type oid, typmod, part of the identity


@dataclass
class Change:
    kind: str  # I, U, D, T (truncate), M (message)
    relid: int = 0
    new: list[Any] | None = None
    old: list[Any] | None = None
    old_kind: str = ""  # K (identity columns only) or O (whole row) or "" (none sent)
    relids: tuple[int, ...] = ()
    prefix: str = ""
    content: bytes = b""
    # the relation as its last R message before this change described it (a later one,
    # after an ALTER, describes the later rows only)
    rel: Relation | None = None


@dataclass
class Transaction:
    xid: int
    final_lsn: int
    commit_time: datetime
    end_lsn: int = 0
    changes: list[Change] = field(default_factory=list)


def lsn_text(lsn: int) -> str:
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def lsn_int(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


class _Buf:
    def __init__(self, data: bytes):
        self.d, self.i = data, 0

    def take(self, fmt: str) -> Any:
        v = struct.unpack_from(fmt, self.d, self.i)
        self.i += struct.calcsize(fmt)
        return v[0]

    def string(self) -> str:
        end = self.d.index(b"\0", self.i)
        s = self.d[self.i : end].decode("utf-8")
        self.i = end + 1
        return s

    def raw(self, n: int) -> bytes:
        s = self.d[self.i : self.i + n]
        self.i += n
        return s


_H = struct.Struct("!h").unpack_from
_I = struct.Struct("!i").unpack_from


def _tuple(b: _Buf) -> list[Any]:
    # the hot loop of a drain: locals, no method calls per value
    d, i = b.d, b.i
    (n,) = _H(d, i)
    i += 2
    out: list[Any] = []
    append = out.append
    for _ in range(n):
        kind = d[i]
        i += 1
        if kind == 116:  # t
            (size,) = _I(d, i)
            i += 4
            append(d[i : i + size].decode("utf-8"))
            i += size
        elif kind == 110:  # n
            append(None)
        elif kind == 117:  # u
            append(UNCHANGED)
        else:
            raise ValueError(f"pgoutput: tuple value kind {chr(kind)!r} not expected (binary off)")
    b.i = i
    return out


def parse(
    messages: Iterable[bytes], relations: dict[int, Relation], after: int = 0
) -> list[Transaction]:
    """The whole transactions of a batch of messages, in commit order, but those whose
    commit record starts before ``after`` (an end LSN already stored: they end at or before
    it), which are passed over unread; ``relations`` is filled from the R messages of all
    (it lives as long as the decoding session, which sends a relation once)."""
    txns: list[Transaction] = []
    cur: Transaction | None = None
    passing = False  # in a transaction passed over
    for data in messages:
        b = _Buf(bytes(data))
        tag = b.raw(1)
        if tag == b"B":
            lsn, ts, xid = b.take("!Q"), b.take("!q"), b.take("!I")
            cur = Transaction(xid, lsn, _EPOCH + timedelta(microseconds=ts))
            passing = lsn < after
        elif tag == b"C":
            b.take("!b")
            b.take("!Q")
            end = b.take("!Q")
            if cur is None:
                raise ValueError("pgoutput: Commit without Begin")
            cur.end_lsn = end
            if not passing:
                txns.append(cur)
            cur, passing = None, False
        elif passing and tag != b"R":
            continue
        elif tag == b"R":
            relid, schema, name = b.take("!I"), b.string(), b.string()
            ident = chr(b.take("!B"))
            cols = []
            for _ in range(b.take("!h")):
                flags = b.take("!b")
                cname = b.string()
                cols.append((cname, b.take("!I"), b.take("!i"), bool(flags & 1)))
            relations[relid] = Relation(relid, schema, name, ident, cols)
        elif tag in (b"Y", b"O"):
            continue  # types are looked up in the catalog; origins are not used
        elif tag == b"I":
            relid = b.take("!I")
            b.raw(1)  # N
            _add(cur, Change("I", relid, new=_tuple(b), rel=relations.get(relid)))
        elif tag == b"U":
            relid = b.take("!I")
            k = b.raw(1).decode()
            old, old_kind = None, ""
            if k in ("K", "O"):
                old, old_kind = _tuple(b), k
                b.raw(1)  # N
            new = _tuple(b)
            _add(cur, Change("U", relid, new, old, old_kind, rel=relations.get(relid)))
        elif tag == b"D":
            relid = b.take("!I")
            k = b.raw(1).decode()
            _add(cur, Change("D", relid, old=_tuple(b), old_kind=k, rel=relations.get(relid)))
        elif tag == b"T":
            n = b.take("!i")
            b.take("!b")
            _add(cur, Change("T", relids=tuple(b.take("!I") for _ in range(n))))
        elif tag == b"M":
            flags = b.take("!b")
            b.take("!Q")
            prefix = b.string()
            content = b.raw(b.take("!i"))
            if flags & 1 and cur is not None:
                cur.changes.append(Change("M", prefix=prefix, content=content))
        else:
            raise ValueError(f"pgoutput: message {tag!r} not expected")
    return txns


def _add(cur: Transaction | None, change: Change) -> None:
    if cur is None:
        raise ValueError("pgoutput: a row change outside a transaction")
    cur.changes.append(change)
