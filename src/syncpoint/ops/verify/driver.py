"""``verify`` of a small table without Spark: both sides read by the process's own
connections with the very SELECT Spark's readers run, each row reduced by ``canon`` as
Spark's executors reduce it, and compared key by key here.

Why: a Spark job costs a second or more of scheduling and Python workers whatever it reads,
and the session's start-up many seconds; a table of a few thousand rows is read and
compared here in milliseconds (``bench/verify_small.py`` measures both). The result is the
same list of differences the Spark path finds, so re-checks and repairs do not care which
path found them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

from syncpoint.ops.verify import canon

# per key: (rows seen with it, the first's content as read, its partition value)
Seen = dict[str, tuple[int, str | None, Any]]


def read_side(
    conn: Any,
    query: str,
    session_init: str | None,
    finish: Callable[[str | None, str], str | None] | None,
    key: list[str],
    columns: list[str],
    padded: frozenset[str],
    into: Seen,
) -> None:
    """Every row of ``query`` (``sp_part, content[, sp_fix]``) added to ``into``; the read
    transaction is ended (a PostgreSQL ``session_init`` SET is undone with it)."""
    cur = conn.cursor()
    try:
        if session_init:
            cur.execute(session_init)
        cur.execute(query)
        for part, content, *fix in _rows(cur):
            text = _text(content)
            if finish is not None:
                text = finish(text, (_text(fix[0]) or "") if fix else "")
            # only the key is made canonical here: rows are compared as read first, and
            # canonically only when their texts differ (most rows of an equal table are
            # the same text on both sides: the reduction would be most of the time)
            k = canon.key_text(text, key, padded)
            seen = into.get(k)
            into[k] = (1, text, part) if seen is None else (seen[0] + 1, *seen[1:])
    finally:
        conn.rollback()


def _rows(cur: Any) -> Iterable[Any]:
    while True:
        batch = cur.fetchmany(5000)
        if not batch:
            return
        yield from batch


def compare(
    a: Seen, b: Seen, limit: int, columns: list[str], padded: frozenset[str]
) -> list[tuple[str, str | None, str | None, Any]]:
    """(key text, source content, target content, partition value) of each key whose rows
    differ, in key order, at most ``limit`` (the same rule as ``spark/verify.row_diffs``)."""
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if x is not None and y is not None and x[0] == y[0]:
            if x[1] == y[1] or canon.row(x[1], columns, padded) == canon.row(y[1], columns, padded):
                continue
        part = (x or y)[2]  # type: ignore[index]
        out.append((k, x[1] if x else None, y[1] if y else None, part))
        if len(out) >= limit:
            break
    return out


def bucket(part: Any, lo: int, step: int) -> int:
    """The range number of a partition value, as ``spark/verify.range_sums`` numbers it."""
    if part is None:
        return -1
    return int(math.floor((int(part) - lo) / max(step, 1)))


def _text(v: Any) -> str | None:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).decode("utf-8")
    return json.dumps(v)
