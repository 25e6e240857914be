"""Row encoding for SQLite capture: the SQL expressions the triggers use, and the Python step
that gives REAL and BLOB values their final form when a tick makes records readable.

Triggers write an exact, cheap *raw form* (a REAL as ``[m, k]`` with ``x == m * 2**-k``, a
BLOB as hex; the record's ``fix`` column says which columns); ``tick()`` rewrites those
records to shortest float text and base64 before stamping them, so readers only ever see
final content. Why (SQLite's own float printing is not exact): docs/internals.md, "Capture
on SQLite".
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Sequence

from syncpoint.vendors.sqlite.names import FRAGMENTS

# json_object takes at most SQLITE_MAX_FUNCTION_ARG (127 on older builds) arguments.
PAIRS_PER_CALL = 60

# Binary exponents of finite doubles, subnormals included: one {prefix}pow2 row each.
EXPONENTS = range(-1074, 1024)


def pow2_rows() -> list[tuple[float, int, float, float]]:
    """(lo, k, v1, v2) rows of {prefix}pow2: |x| in [lo, 2*lo) times v1 * v2 (= 2**k, split
    so neither factor overflows) is an integer in [2**52, 2**53)."""
    rows = []
    for e in EXPONENTS:
        k = 52 - e
        rows.append((math.ldexp(1.0, e), k, math.ldexp(1.0, k // 2), math.ldexp(1.0, k - k // 2)))
    return rows


def real_expr(v: str, pow2_table: str) -> str:
    """SQL for a REAL value ``v``: ``'Infinity'``, ``'-Infinity'`` or ``json_array(m, k)``
    with ``v == m * 2**-k`` exactly (``pow2_table``: the table's name, unquoted)."""
    sign = f"(CASE WHEN {v} < 0 THEN -1 ELSE 1 END)"
    exact = FRAGMENTS.text(
        "trigger/real_general.sql", idents={"pow2": pow2_table}, raw={"v": v, "sign": sign}
    ).strip()
    # zero has no binary exponent (and -0.0 compares equal to it: its sign is lost)
    return (
        f"CASE WHEN {v} = 0 THEN json_array(0, 0) WHEN {v} = 1e999 THEN 'Infinity' "
        f"WHEN {v} = -1e999 THEN '-Infinity' ELSE {exact} END"
    )


def value_expr(v: str, pow2_table: str) -> str:
    """SQL for one column value ``v`` as json_object takes it (a column declared JSON is
    text like any other: its JSON ``null`` stays apart from SQL NULL, and text that is not
    JSON never makes the application's statement fail)."""
    return (
        f"CASE typeof({v}) WHEN 'real' THEN {real_expr(v, pow2_table)} "
        f"WHEN 'blob' THEN hex({v}) ELSE {v} END"
    )


def object_expr(pairs: Sequence[tuple[str, str]], literal: Callable[[str], str]) -> str:
    """SQL building one JSON object text from (column name, value expression) pairs,
    in order; wide tables are spliced from several json_object calls."""
    chunks = [pairs[i : i + PAIRS_PER_CALL] for i in range(0, len(pairs), PAIRS_PER_CALL)]
    calls = [
        "json_object(" + ", ".join(f"{literal(name)}, {expr}" for name, expr in chunk) + ")"
        for chunk in chunks
    ]
    if len(calls) == 1:
        return calls[0]
    inner = [f"substr({c}, 2, length({c}) - 2)" for c in calls]
    return "('{' || " + " || ',' || ".join(inner) + " || '}')"


def letters_expr(values: Sequence[str]) -> str:
    """SQL for the storage-class letters of the values, in order (n, i, r, t, b)."""
    return " || ".join(f"substr(typeof({v}), 1, 1)" for v in values) or "''"


def fix_expr(parts: Sequence[str]) -> str:
    """The ``fix`` column: the letters (content|oldcontent) when a REAL or BLOB is present."""
    joined = " || '|' || ".join(f"({p})" for p in parts)
    return f"CASE WHEN ({joined}) GLOB '*[rb]*' THEN {joined} END"


# -- the Python half: raw forms -> final content ------------------------------------------

_decoder = json.JSONDecoder()


def split_object(text: str) -> list[tuple[str, str]]:
    """The top-level (raw key, raw value) texts of a JSON object, untouched."""
    out: list[tuple[str, str]] = []
    i = _skip(text, 0)
    if text[i] != "{":
        raise ValueError("not a JSON object")
    i = _skip(text, i + 1)
    if text[i] == "}":
        return out
    while True:
        _, end = _decoder.raw_decode(text, i)
        key = text[i:end]
        i = _skip(text, end)
        if text[i] != ":":
            raise ValueError("malformed JSON object")
        i = _skip(text, i + 1)
        _, end = _decoder.raw_decode(text, i)
        out.append((key, text[i:end]))
        i = _skip(text, end)
        if text[i] == "}":
            return out
        if text[i] != ",":
            raise ValueError("malformed JSON object")
        i = _skip(text, i + 1)


def _skip(text: str, i: int) -> int:
    while text[i] in " \t\r\n":
        i += 1
    return i


def finish_value(letter: str, raw: str) -> str:
    """The final JSON text of one raw value (see the module docstring)."""
    if letter == "r" and raw.startswith("["):
        m, k = json.loads(raw)
        return repr(math.ldexp(m, -k))
    if letter == "b" and raw.startswith('"'):
        return json.dumps(base64.b64encode(bytes.fromhex(json.loads(raw))).decode("ascii"))
    return raw


def finish(text: str | None, letters: str) -> str | None:
    """Rewrite a captured object's REAL and BLOB values into their final form."""
    if text is None or not any(c in "rb" for c in letters):
        return text
    pairs = split_object(text)
    if len(pairs) != len(letters):
        raise ValueError(f"{len(pairs)} values but {len(letters)} type letters")
    body = ",".join(f"{k}:{finish_value(c, v)}" for (k, v), c in zip(pairs, letters, strict=True))
    return "{" + body + "}"


def finish_record(
    content: str | None, oldcontent: str | None, fix: str
) -> tuple[str | None, str | None]:
    """``fix`` is ``<content letters>|<oldcontent letters>`` (either part may be empty)."""
    new_letters, _, old_letters = fix.partition("|")
    return finish(content, new_letters), finish(oldcontent, old_letters)
