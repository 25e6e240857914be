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


@dataclass(slots=True)
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
    # ``new`` holds UNCHANGED (a TOASTed value the UPDATE left as it was)
    unchanged: bool = False


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
_RELID = struct.Struct("!I").unpack_from
_BEGIN = struct.Struct("!QqI").unpack_from  # final LSN, commit time, xid
_COMMIT = struct.Struct("!bQQ").unpack_from  # flags, commit LSN, end LSN


def _tuple(d: bytes, i: int) -> tuple[list[Any], int, bool]:
    """The values of a TupleData at ``i``, where it ends, and whether one is UNCHANGED."""
    # the hot loop of a drain: locals, no method calls per value
    (n,) = _H(d, i)
    i += 2
    out: list[Any] = []
    append = out.append
    unchanged = False
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
            unchanged = True
        else:
            raise ValueError(f"pgoutput: tuple value kind {chr(kind)!r} not expected (binary off)")
    return out, i, unchanged


def parse(
    messages: Iterable[bytes], relations: dict[int, Relation], after: int = 0
) -> list[Transaction]:
    """The whole transactions of a batch of messages, in commit order, but those whose
    commit record starts before ``after`` (an end LSN already stored: they end at or before
    it), which are passed over unread; ``relations`` is filled from the R messages of all
    (it lives as long as the decoding session, which sends a relation once)."""
    txns: list[Transaction] = []
    cur: Transaction | None = None
    changes: list[Change] = []
    passing = False  # in a transaction passed over
    get = relations.get
    for d in messages:
        # one message a row: row changes first (most messages), each parsed in place
        tag = d[0]
        if tag == 85:  # U
            if passing:
                continue
            (relid,) = _RELID(d, 1)
            k = d[5]
            old, old_kind, i = None, "", 5
            if k == 75 or k == 79:  # K, O
                old, i, _u = _tuple(d, 6)
                old_kind = "K" if k == 75 else "O"
            new, _i, unchanged = _tuple(d, i + 1)  # past N
            changes.append(Change("U", relid, new, old, old_kind, rel=get(relid),
                                  unchanged=unchanged))  # fmt: skip
        elif tag == 73:  # I
            if passing:
                continue
            (relid,) = _RELID(d, 1)
            new, _i, _u = _tuple(d, 6)  # past N
            changes.append(Change("I", relid, new, rel=get(relid)))
        elif tag == 68:  # D
            if passing:
                continue
            (relid,) = _RELID(d, 1)
            old, _i, _u = _tuple(d, 6)
            changes.append(Change("D", relid, old=old, old_kind=chr(d[5]), rel=get(relid)))
        elif tag == 66:  # B
            lsn, ts, xid = _BEGIN(d, 1)
            cur = Transaction(xid, lsn, _EPOCH + timedelta(microseconds=ts))
            changes = cur.changes
            passing = lsn < after
        elif tag == 67:  # C
            if cur is None:
                raise ValueError("pgoutput: Commit without Begin")
            cur.end_lsn = _COMMIT(d, 1)[2]
            if not passing:
                txns.append(cur)
            cur, passing = None, False
            changes = []
        elif tag == 82:  # R: read in every transaction, those passed over too
            b = _Buf(bytes(d))
            b.raw(1)
            relid, schema, name = b.take("!I"), b.string(), b.string()
            ident = chr(b.take("!B"))
            cols = []
            for _ in range(b.take("!h")):
                flags = b.take("!b")
                cname = b.string()
                cols.append((cname, b.take("!I"), b.take("!i"), bool(flags & 1)))
            relations[relid] = Relation(relid, schema, name, ident, cols)
        elif passing or tag == 89 or tag == 79:
            continue  # Y, O: types are looked up in the catalog; origins are not used
        elif tag == 84:  # T
            b = _Buf(bytes(d))
            b.raw(1)
            n = b.take("!i")
            b.take("!b")
            _add(cur, Change("T", relids=tuple(b.take("!I") for _ in range(n))))
        elif tag == 77:  # M
            b = _Buf(bytes(d))
            b.raw(1)
            flags = b.take("!b")
            b.take("!Q")
            prefix = b.string()
            content = b.raw(b.take("!i"))
            if flags & 1 and cur is not None:
                cur.changes.append(Change("M", prefix=prefix, content=content))
        else:
            raise ValueError(f"pgoutput: message {bytes(d[:1])!r} not expected")
        if cur is None and changes:
            raise ValueError("pgoutput: a row change outside a transaction")
    return txns


def _add(cur: Transaction | None, change: Change) -> None:
    if cur is None:
        raise ValueError("pgoutput: a row change outside a transaction")
    cur.changes.append(change)
