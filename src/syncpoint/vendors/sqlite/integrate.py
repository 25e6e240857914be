"""SQLite as an integrate location: catalog, value conversions, upsert and delete.

SQLite's JSON functions cannot address every column name (a key holding ``.`` or ``"`` is
a path error in 3.40) and turn numbers into floats, so the apply reads the round's staged
rows back from ``{p}staging`` in position order and converts each value in Python, then
binds it to one ``INSERT ... ON CONFLICT DO UPDATE`` (or ``DELETE``) per row, inside the
round's ``BEGIN IMMEDIATE`` transaction. The conversion follows the target column's
affinity, so that the stored value is what SQLite would store had the source written it:

- numbers keep the digits of the JSON text: bound as that text to INTEGER, NUMERIC and
  TEXT columns, as a float to REAL columns; a number (or a text SQLite reads as one) that
  an INTEGER, NUMERIC or REAL column would hold as a float reading back as another number
  fails (SQLite keeps an integer within 64 bits, any other number as the nearest float);
- binary (base64 in the record) is decoded to a BLOB; booleans become 1/0;
- ``"Infinity"``/``"-Infinity"`` into a REAL column become infinities; ``"NaN"`` fails
  (SQLite would store NULL), as does a number too large for a float;
- nested JSON (a JSON column) is written back as JSON text, numbers unchanged.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.core.rounds import TableWindow
from syncpoint.core.types import NType
from syncpoint.errors import LocationError
from syncpoint.vendors.integratebase import ApplyColumn, ApplyTable, Integrate
from syncpoint.vendors.sqlite.types import affinity

CHUNK = 5000


class Num(str):
    """A JSON number, kept as the text it was written with."""


def decode(text: str) -> Any:
    return json.loads(text, parse_float=Num, parse_int=Num)


def dumps(v: Any) -> str:
    """JSON text of a decoded value; numbers exactly as they were written."""
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


# A number's text SQLite reads as a number in an INTEGER, NUMERIC or REAL column (and a
# column without affinity takes the number bound): an integer within 64 bits as it is,
# any other as the nearest float, which keeps only about 17 digits
# ('12345678901234567890' is 1.2345678901234567e+19, '0.12345678901234567890' is
# 0.12345678901234568). Such a value must read back as the same number, or the table stops.
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
_INT64 = (-(2**63), 2**63 - 1)


def _whole64(text: str) -> bool:
    t = text.strip()
    digits = t[1:] if t[:1] in "+-" else t
    return digits.isdigit() and _INT64[0] <= int(t) <= _INT64[1]


def stored_exactly(text: str, aff: str, column: str) -> None:
    """Fail where the column would hold the number ``text`` as a float that reads back as
    another number (an integer within 64 bits into an INTEGER or NUMERIC column is kept)."""
    if aff not in ("INTEGER", "NUMERIC", "REAL", "BLOB") or not _NUMBER.fullmatch(text):
        return
    if aff != "REAL" and _whole64(text):
        return
    f = float(text)
    if math.isinf(f) or Decimal(repr(f)) != Decimal(text.strip()):
        raise ValueError(
            f"{column}: the value {text.strip()} does not fit the column exactly (of "
            f"affinity {aff}, SQLite would hold {f!r}); widen it (TEXT keeps every digit)"
        )


def convert(v: Any, aff: str, source: NType | None, column: str) -> Any:
    """A decoded JSON value as the value to bind for a column of affinity ``aff``."""
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, dict | list):
        return dumps(v)
    # a float source's values are floats already (their shortest digits): never checked
    floats = source is not None and source.kind == "float"
    if isinstance(v, Num):
        if not floats:
            stored_exactly(v, aff, column)
        if aff == "REAL":
            return float(v)
        if aff == "BLOB":
            return int(v) if v.lstrip("-").isdigit() else float(v)
        return str(v)
    if isinstance(v, str):
        if source is not None and source.kind == "binary" and aff != "TEXT":
            try:
                return base64.b64decode(v, validate=True)
            except binascii.Error as exc:
                raise ValueError(f"{column}: not base64 binary: {exc}") from None
        numeric = source is None or source.kind in ("float", "decimal")
        if aff == "REAL" and numeric and v in ("NaN", "Infinity", "-Infinity"):
            if v != "NaN":
                return math.inf if v == "Infinity" else -math.inf
            raise ValueError(f"{column}: NaN cannot be stored in SQLite (it becomes NULL)")
        if aff != "BLOB" and not floats:  # a column without affinity keeps a text as it is
            stored_exactly(v, aff, column)
        return v
    return v


def _exact(declared: str, binary: Any) -> bool:
    """Whether a column's equality is its value's text's: an INTEGER affinity, or a TEXT
    affinity that every unique index holding the column compares in BINARY (``binary``,
    from columns.sql)."""
    aff = affinity(declared)
    return aff == "INTEGER" or (aff == "TEXT" and bool(binary))


class SqliteIntegrate(Integrate):
    vendor = "sqlite"

    def begin(self, conn: Any) -> None:
        self.run(conn, "begin")

    def resolve(self, target: TableName, explicit: bool, source_vendor: str) -> TableName:
        return TableName(name=target.name)

    def loose_keys(self, conn: Any, table: TableShape, key: Sequence[str]) -> dict[str, str]:
        rows = self.run(conn, "loose_keys", (table.ref.name,), table=str(table.ref)).fetchall()
        return {str(n): str(why) for n, why in rows if n in key}

    def describe(self, conn: Any, target: TableName) -> TableShape | None:
        rows = self.run(conn, "columns", (target.name,), table=str(target)).fetchall()
        if not rows:
            return None
        cols = tuple(
            Column(str(n), str(t or ""), bool(nl), int(pk) if pk else None, _exact(str(t or ""), b))
            for n, t, nl, pk, b in rows
        )
        return self.with_uniques(conn, TableShape(target, cols), target.name)

    def foreign_keys(
        self, conn: Any, targets: list[TableName]
    ) -> list[tuple[TableName, TableName]]:
        by_name = {t.name: t for t in targets}
        out: list[tuple[TableName, TableName]] = []
        for t in targets:
            for (parent,) in self.run(conn, "foreign_keys", (t.name,)).fetchall():
                if parent in by_name:
                    out.append((t, by_name[parent]))
        return out

    # -- rows --------------------------------------------------------------------------
    def _rows(self, conn: Any, round_id: str, w: TableWindow, action: str) -> Iterator[Any]:
        cur = self.run(conn, "staged_rows", (round_id, w.tbl, action))
        while True:
            chunk = cur.fetchmany(CHUNK)
            if not chunk:
                return
            for (content,) in chunk:
                yield decode(content)

    def _bind(self, row: Any, cols: tuple[ApplyColumn, ...], table: TableName) -> list[Any]:
        out = []
        for c in cols:
            key = next((k for k in c.keys if k in row), c.keys[-1])
            try:
                out.append(convert(row.get(key), affinity(c.type), c.source, c.name))
            except ValueError as exc:
                raise LocationError(
                    f"SQLite: {exc}; nothing of this round was applied",
                    location=self.location,
                    table=str(table),
                ) from None
        return out

    def _many(self, conn: Any, sql: str, rows: Iterator[list[Any]], table: str) -> None:
        cur = conn.cursor()
        batch: list[list[Any]] = []
        with self.dialect.translated(self.location, table):
            for r in rows:
                batch.append(r)
                if len(batch) >= CHUNK:
                    cur.executemany(sql, batch)
                    batch = []
            if batch:
                cur.executemany(sql, batch)

    def upsert(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        if not t.keyed:
            self._delete(conn, round_id, w, t, "U")
            sql = self.one(
                "insert",
                target=self.qualified(t.target.ref),
                columns=", ".join(self.q(c.name) for c in t.columns),
                values=", ".join("?" for _ in t.columns),
            )
            rows = (
                self._bind(r, t.columns, t.target.ref) for r in self._rows(conn, round_id, w, "U")
            )
            self._many(conn, sql, rows, str(t.target.ref))
            return
        self._coarse_keys(conn, round_id, w, t)
        # every column, the key's too: a key equal in the target's collation whose text
        # differs ('abc' and 'ABC' under NOCASE) takes the source's text (an exact key
        # has it already)
        cols = self.set_columns(t)
        on_conflict = (
            "UPDATE SET " + ", ".join(f"{self.q(c.name)} = excluded.{self.q(c.name)}" for c in cols)
            if cols
            else "NOTHING"
        )
        sql = self.one(
            "upsert",
            target=self.qualified(t.target.ref),
            columns=", ".join(self.q(c.name) for c in t.columns),
            values=", ".join("?" for _ in t.columns),
            key=", ".join(self.q(k) for k in t.key),
            on_conflict=on_conflict,
        )
        rows = (self._bind(r, t.columns, t.target.ref) for r in self._rows(conn, round_id, w, "U"))
        self._many(conn, sql, rows, str(t.target.ref))

    def _mixed_keys(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        """Stop the table where two source keys the window upserts, of another kind than
        the target key's (a text '01' and '1' into an INTEGER), are one key here
        (``mixed_keys.sql``). A row an earlier round wrote is not told apart from the
        source row of another text that now takes its key: docs/types.md."""
        if not self.mixed_key(t):
            return
        keys = t.key_columns
        cols = ", ".join(self.q(c.name) for c in keys)
        self.run(conn, "mixed_keys", columns=cols, target=self.qualified(t.target.ref))
        fill = self.one("spare_insert", values=", ".join("?" for _ in range(len(keys) + 1)))
        lo, hi = self._whole(w)  # every origin's part of the window

        def raw(r: Any) -> str:  # the source's text of the key
            texts = [r.get(next((k for k in c.keys if k in r), c.keys[-1])) for c in keys]
            one = texts[0] if len(texts) == 1 else None
            return str(one) if isinstance(one, str) else dumps(texts)

        ups = (
            [*self._bind(r, keys, t.target.ref), raw(r)]
            for n in range(lo, hi + 1)
            for r in self._rows(conn, round_id, replace(w, tbl=n), "U")
        )
        self._many(conn, fill, ups, str(t.target.ref))
        row = self.run(conn, "mixed_found", columns=cols).fetchone()
        self.run(conn, "coarse_drop")
        if row is not None:
            raise self.coarse_key(w, t, row[0], row[1])

    def _coarse_keys(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        """Stop the table where the target's key would merge keys the source holds apart
        (``coarse_keys.sql``, and ``_mixed_keys``); a key whose index compares every
        column byte for byte (BINARY, the default) or holds no text skips it."""
        keys = t.key_columns
        if self.key_is_exact(t):
            return
        self._mixed_keys(conn, round_id, w, t)
        found: dict[str, dict[str, str]] = {}
        for index, col, coll in self.run(conn, "key_collations", (t.target.ref.name,)):
            found.setdefault(str(index), {})[str(col)] = str(coll)
        colls = next((c for c in found.values() if set(c) == set(t.key)), None)
        if colls is None or all(v.upper() == "BINARY" for v in colls.values()):
            return
        names = [f"k{i}" for i in range(len(keys))]
        self.run(conn, "spare_keys", columns=", ".join(names))
        fill = self.one("spare_insert", values=", ".join("?" for _ in keys))
        lo, hi = self._whole(w)  # every origin's part of the window
        parts = [replace(w, tbl=n) for n in range(lo, hi + 1)]
        ups = (
            self._bind(r, keys, t.target.ref)
            for part in parts
            for r in self._rows(conn, round_id, part, "U")
        )
        self._many(conn, fill, ups, str(t.target.ref))
        self.run(conn, "coarse_deletes", columns=", ".join(names))
        fill = self.one("coarse_insert", values=", ".join("?" for _ in keys))
        dels = (
            self._bind(r, keys, t.target.ref)
            for part in parts
            for r in self._rows(conn, round_id, part, "D")
        )
        self._many(conn, fill, dels, str(t.target.ref))

        def shown(cols: list[str]) -> str:
            parts = [f"{c} COLLATE BINARY" for c in cols]
            return parts[0] if len(parts) == 1 else " || ', ' || ".join(parts)

        tc = [f"t.{self.q(c.name)}" for c in keys]
        coll = [self.q(colls.get(c.name, "BINARY")) for c in keys]
        pairs = list(zip(tc, names, coll, strict=True))
        row = self.run(
            conn, "coarse_keys", table=str(t.target.ref), target=self.qualified(t.target.ref),
            spare=" AND ".join(f"{a} IS u.{n} COLLATE {k}" for a, n, k in pairs),
            same=" AND ".join(f"{a} IS u.{n} COLLATE BINARY" for a, n, _ in pairs),
            deleted=" AND ".join(f"{a} IS d.{n} COLLATE BINARY" for a, n, _ in pairs),
            old_text=shown(tc), new_text=shown([f"u.{n}" for n in names]),
            group=", ".join(f"u.{n} COLLATE {k}" for _, n, k in pairs),
            texts=" || ',' || ".join(f"quote(u.{n})" for n in names),
        ).fetchone()  # fmt: skip
        self.run(conn, "coarse_drop")
        if row is not None:
            raise self.coarse_key(w, t, row[0], row[1])

    def delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        keys = t.key_columns
        if self.key_is_exact(t):
            # a key equal exactly when its text is (key_is_exact): nothing to spare
            self._delete(conn, round_id, w, t, "D")
            return
        names = [f"k{i}" for i in range(len(keys))]
        self.run(conn, "spare_keys", columns=", ".join(names))
        fill = self.one("spare_insert", values=", ".join("?" for _ in keys))
        lo, hi = self._whole(w)  # every origin's part of the window
        ups = (
            self._bind(r, keys, t.target.ref)
            for n in range(lo, hi + 1)
            for r in self._rows(conn, round_id, replace(w, tbl=n), "U")
        )
        self._many(conn, fill, ups, str(t.target.ref))
        target = self.qualified(t.target.ref)
        sql = self.one(
            "delete_spare",
            target=target,
            match=" AND ".join(f"{self.q(c.name)} IS ?" for c in keys),
            spare=" AND ".join(
                f"{target}.{self.q(c.name)} IS u.{n}" for c, n in zip(keys, names, strict=True)
            ),
        )
        rows = (self._bind(r, keys, t.target.ref) for r in self._rows(conn, round_id, w, "D"))
        self._many(conn, sql, rows, str(t.target.ref))
        self.run(conn, "spare_drop")

    def prune(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, where: str) -> None:
        keys = t.key_columns
        names = [f"k{i}" for i in range(len(keys))]
        target = self.qualified(t.target.ref)
        typed = ", ".join(f"{self.q(c.name)} AS {n}" for c, n in zip(keys, names, strict=True))
        self.run(conn, "snapshot_keys", table=str(t.target.ref), target=target, columns=typed)
        fill = self.one("spare_insert", values=", ".join("?" for _ in keys))
        rows = (self._bind(r, keys, t.target.ref) for r in self._rows(conn, round_id, w, "U"))
        self._many(conn, fill, rows, str(t.target.ref))
        self.run(
            conn,
            "snapshot_prune",
            table=str(t.target.ref),
            target=target,
            range=where,
            columns=", ".join(names),
            spare=" AND ".join(
                f"{target}.{self.q(c.name)} IS u.{n}" for c, n in zip(keys, names, strict=True)
            ),
        )

    def _delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, action: str) -> None:
        keys = t.key_columns
        sql = self.one(
            "delete",
            target=self.qualified(t.target.ref),
            match=" AND ".join(f"{self.q(c.name)} IS ?" for c in keys),
        )
        rows = (self._bind(r, keys, t.target.ref) for r in self._rows(conn, round_id, w, action))
        self._many(conn, sql, rows, str(t.target.ref))
