"""PostgreSQL as an integrate location: catalog, value conversions, upsert and delete.

Values stay exact by never passing through Python or Spark types: the staged ``content`` is
the change record's JSON text, parsed once per row as ``jsonb`` (which keeps every digit of
a number) and converted by PostgreSQL itself to the target column's type:
``(c->>'col')::<type as format_type writes it>``, with three exceptions: ``bytea`` from
base64 (``decode``), a JSON column from its text (JSON null is the text ``null``, apart
from SQL NULL), ``json``/``jsonb`` from another type's nested value, and a
constrained ``numeric(p,s)``, whose cast would round silently: a value that does not equal
its rounded form fails the statement instead ("value does not fit"); so does any value a
narrower column would round or cut (``fitted``, ``unsized``; a domain converts as its base
type, ``_based``). The transaction runs
with ``TIME ZONE 'UTC'`` (offset-less timestamps are UTC) and ``SET CONSTRAINTS ALL
DEFERRED`` (deferrable foreign keys are checked at COMMIT).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.core.rounds import TableWindow
from syncpoint.errors import DuplicateKey, LocationError
from syncpoint.vendors.integratebase import ApplyColumn, ApplyTable, Integrate, Params, typed_owner
from syncpoint.vendors.postgres.types import parse

# An explicit cast cuts a text or bit string to the type's length without a word
# ('abcdefg'::varchar(5) is 'abcde'): values are cast to the type without its length, and
# the INSERT's or UPDATE's assignment to the column checks it, so a value too long stops
# the table as any value the column refuses does ("value too long for type ...").
_SIZED = re.compile(
    r"^(character varying|varchar|character|char|bpchar|bit varying|varbit|bit)"
    r"\s*\(\s*\d+\s*\)",
    re.IGNORECASE,
)
_UNSIZED = {
    "character varying": "character varying",
    "varchar": "character varying",
    "character": "bpchar",  # "character" alone is character(1)
    "char": "bpchar",
    "bpchar": "bpchar",
    "bit varying": "bit varying",
    "varbit": "bit varying",
    "bit": "bit varying",  # "bit" alone is bit(1); the assignment checks the length
}


def unsized(type_: str) -> str:
    """``type_`` without the length an explicit cast would cut a value to (arrays too)."""
    t = type_.strip()
    m = _SIZED.match(t)
    return t if m is None else _UNSIZED[m.group(1).lower()] + t[m.end() :]


# A cast to a type with a modifier rounds or cuts a value to it without a word, on an
# explicit cast and on assignment alike: a timestamp, time or interval to its fractional
# digits ('10:00:00.7'::time(0) is 10:00:01), an interval to its fields ('1 day
# 03:00'::interval day is 1 day), the elements of a numeric(p,s) array to its scale. Such a
# value is compared with its cast to the type without the modifier, and one that differs
# stops the table ("value does not fit").
_MODIFIER = re.compile(r"\(\s*\d+\s*(,\s*-?\d+\s*)?\)")
_INTERVAL = re.compile(r"^interval\b[^\[]*", re.IGNORECASE)


def unmodified(type_: str) -> str:
    """``type_`` without its modifier (precision, scale, an interval's fields)."""
    t = type_.strip()
    if _INTERVAL.match(t):
        return _INTERVAL.sub("interval", t)
    return _MODIFIER.sub("", t)


def does_not_fit(v: str, type_: str) -> str:
    """The expression that fails the statement, naming the type and the value ``v``."""
    return f"('value does not fit {type_}: ' || {v}::text)::{type_}"


def _element(type_: str) -> str:
    """An array type's element type (format_type writes one ``[]`` whatever the
    dimensions); any other type as it is."""
    t = type_.strip()
    return t[: -len("[]")].strip() if t.endswith("[]") else t


def rounds_float(col: ApplyColumn) -> bool:
    """Whether the column is a float (or an array of floats) that a value from the source
    may not fit exactly (anything but a float as narrow or narrower)."""
    element = _element(col.type)
    target = parse(element)
    if target.kind != "float":
        return False
    s = col.source
    if element != col.type.strip():  # the source's elements: a PostgreSQL array's type
        d = s.declared if s is not None else ""
        ok = s is not None and s.source_vendor == "postgres" and _element(d) != d.strip()
        s = parse(_element(d)) if ok else None
    return not (s is not None and s.kind == "float" and (s.bits or 64) <= (target.bits or 64))


def rounds_money(col: ApplyColumn) -> bool:
    """Whether the column is money that a value from the source (not money) may not fit."""
    return col.type == "money" and not (col.source is not None and col.source.declared == "money")


def offset_text(col: ApplyColumn) -> bool:
    """Whether the column's source may write a timestamp's text with an offset that is not
    UTC's (any but a PostgreSQL source, whose times are written at UTC)."""
    s = col.source
    return (
        s is not None and s.source_vendor != "postgres" and s.kind in ("timestamp", "time", "text")
    )


def drops_time(col: ApplyColumn) -> bool:
    """Whether the column is a date or a time the source's timestamps go into: the cast
    of a timestamp's text to a date drops its time ('2024-01-01 10:00'::date is
    2024-01-01), to a time its date, without a word."""
    s = col.source
    return s is not None and s.kind == "timestamp" and parse(col.type).kind in ("date", "time")


def cuts_blanks(col: ApplyColumn) -> bool:
    """Whether the column is a varchar(n) a text from the source may be longer than."""
    target, s = parse(col.type), col.source
    if target.kind != "text" or target.fixed or target.length is None or "[" in col.type:
        return False
    return s is None or s.kind != "text" or s.length is None or s.length > target.length


def shifts_offset(col: ApplyColumn) -> bool:
    """Whether the column is a timestamp without time zone fed by text that may carry an
    offset (``offset_text``): the apply takes such a time at UTC, which the input of a
    timestamp would drop."""
    target = parse(col.type)
    return target.kind == "timestamp" and not target.tz and offset_text(col)


def shifts_time_offset(col: ApplyColumn) -> bool:
    """Whether the column is a time without time zone fed by text that may carry an offset
    ('10:00:00+02:00', which the input of a time would drop): the apply takes it at UTC.
    MariaDB's TIME has no offset."""
    target, s = parse(col.type), col.source
    if target.kind != "time" or target.tz or not offset_text(col) or drops_time(col):
        return False
    return not (s is not None and s.source_vendor == "mariadb" and s.kind == "time")


def staged_as_text(col: ApplyColumn) -> bool:
    """Whether the typed path stages the column's values as text (its COPY would round or
    cut them into the column's type: the apply checks them as ``fitted`` does; or drop a
    time's offset: the apply takes it at UTC, as ``_text_value`` does)."""
    return (
        rounds_float(col) or drops_time(col) or rounds_money(col) or shifts_offset(col)
        or shifts_time_offset(col)
    )  # fmt: skip


def fitted(v: str, col: ApplyColumn) -> str | None:
    """``v`` (text, or a value of the type without its modifier) cast to the column's
    type, failing where the cast would round or cut it; None where a cast never does (a
    length-limited text or bit string: its assignment checks; a constrained numeric: its
    own check)."""
    target = parse(col.type)
    t = col.type
    if rounds_float(col):
        # a float holds the value when it reads back as the same number: the source wrote
        # its value's shortest exact digits (a narrower float's read the same), so only a
        # wider source, an exact numeric or an integer can come rounded ('0.123456789'
        # into real is 0.12345679, 2^53 + 1 into double precision is 2^53)
        n = "numeric[]" if t.strip().endswith("[]") else "numeric"
        return (
            f"(CASE WHEN {v}::{n} = {v}::{t}::text::{n} THEN {v}::{t} "
            f"ELSE {does_not_fit(v, t)} END)"
        )
    if drops_time(col):
        # a date holds a timestamp at midnight; a time holds none (its date is lost)
        same = f"{v}::timestamp = {v}::date" if target.kind == "date" else "false"
        return f"(CASE WHEN {same} THEN {v}::{t} ELSE {does_not_fit(v, t)} END)"
    if rounds_money(col):
        # money rounds to the locale's cents ('12.345'::money is 12.35)
        same = f"{v}::numeric = {v}::money::numeric"
        return f"(CASE WHEN {same} THEN {v}::money ELSE {does_not_fit(v, t)} END)"
    if cuts_blanks(col):
        # the assignment refuses a text longer than varchar(n) but cuts the blanks past n
        # without a word ('ab   ' into varchar(2) is 'ab'): such a value fails here, any
        # other goes to the assignment (whose refusal names the type)
        width = int(target.length or 0)
        fits = f"char_length({v}) <= {width} OR char_length(rtrim({v}, ' ')) > {width}"
        return (
            f"(CASE WHEN {fits} THEN {v}::{unsized(t)} "
            f"ELSE ('value does not fit {t}: ' || {v})::integer::{unsized(t)} END)"
        )
    base = unmodified(t)
    if base == t or unsized(t) != t or (target.kind == "decimal" and not t.endswith("]")):
        return None
    # an interval compares equal to another of the same length ('1 mon' = '30 days'): its
    # text tells them apart
    same = (
        f"{v}::{base}::text = {v}::{t}::text" if _INTERVAL.match(t) else f"{v}::{base} = {v}::{t}"
    )
    return f"(CASE WHEN {same} THEN {v}::{t} ELSE {does_not_fit(v, t)} END)"


class PostgresIntegrate(Integrate):
    vendor = "postgres"

    def begin(self, conn: Any) -> None:
        self.__dict__.pop("_bases", None)  # domains are read again in each transaction
        self.run(conn, "begin")

    def check(self, conn: Any) -> list[str]:
        """The privileges the first snapshot or run needs here (control tables, created
        target tables)."""
        from syncpoint.vendors.postgres import dialect, privileges

        with dialect.translated(self.location):
            found = privileges.integrate(conn)
        self.end_read(conn)
        return found

    def check_targets(self, conn: Any, targets: list[TableName]) -> list[str]:
        from syncpoint.vendors.postgres import dialect, privileges

        with dialect.translated(self.location):
            found = privileges.targets(conn, targets, self.location)
        self.end_read(conn)
        return found

    def upgrade_staging(self, conn: Any, staging: TableShape) -> None:
        """Also the direct path's columns, and unlogged (each once)."""
        super().upgrade_staging(conn, staging)
        if staging.column("sub") is None:
            self.begin(conn)
            self.run(conn, "staging_ops_columns")
            self.commit(conn)
        row = self.run(conn, "staging_logged", (self.q(self.idents["staging"]),)).fetchone()
        self.end_read(conn)
        if row and row[0]:
            self.begin(conn)
            self.run(conn, "staging_unlogged")
            self.commit(conn)

    def stage_rows(
        self,
        conn: Any,
        application: str,
        group: str,
        round_id: str,
        rows: Sequence[tuple[int, str, str, int, str | None]],
    ) -> str:
        """The net rows of a round netted by the driver in one COPY stream (a few
        microseconds a row, where an INSERT per row costs tens)."""
        self.begin(conn)
        with self.dialect.translated(self.location):
            with conn.cursor().copy(self.one("staging_copy")) as cp:
                for r in rows:
                    cp.write_row((application, group, round_id, *r))
        self.commit(conn)
        return "bulk"

    def stage_upserts(
        self, conn: Any, application: str, sync_name: str, round_id: str, contents: list[str]
    ) -> None:
        """A small snapshot chunk's rows in one COPY stream, inside the caller's
        transaction (a pipelined INSERT per row cost most of a small table's snapshot)."""
        with self.dialect.translated(self.location):
            with conn.cursor().copy(self.one("staging_copy")) as cp:
                for c in contents:
                    cp.write_row((application, sync_name, round_id, 0, "U", c, 0, None))

    # CSV as COPY reads it: quotes doubled, NULL an empty unquoted field, an empty string
    # "" (Spark's defaults for both), and no whitespace trimmed (Spark trims by default)
    staging_csv = {
        "quote": '"',
        "escape": '"',
        "ignoreLeadingWhiteSpace": "false",
        "ignoreTrailingWhiteSpace": "false",
        "header": "false",
        "encoding": "UTF-8",
        "lineSep": "\n",
    }

    def stage_files(self, conn: Any, files: list[str]) -> None:
        """Spark's CSV files into the staging table by one COPY, their bytes as written
        (nothing is parsed here)."""
        self.begin(conn)
        with self.dialect.translated(self.location):
            with conn.cursor().copy(self.one("staging_copy_csv")) as cp:
                for path in files:
                    with open(path, "rb") as f:
                        while chunk := f.read(1 << 20):
                            cp.write(chunk)
        self.commit(conn)

    def resolve(self, target: TableName, explicit: bool, source_vendor: str) -> TableName:
        if target.schema_ and (explicit or source_vendor == "postgres"):
            return target
        return TableName(schema="public", name=target.name)

    def _regclass_text(self, t: TableName) -> str:
        return self.qualified(t)

    def loose_keys(self, conn: Any, table: TableShape, key: Sequence[str]) -> dict[str, str]:
        rows = self.run(
            conn, "loose_keys", (self._regclass_text(table.ref),), table=str(table.ref)
        ).fetchall()
        self.end_read(conn)
        return {str(n): str(why) for n, why in rows if n in key}

    def describe(self, conn: Any, target: TableName) -> TableShape | None:
        # columns_many.sql of one table: one statement of the catalog for either
        cur = self.run(conn, "columns_many", ([self._regclass_text(target)],), table=str(target))
        rows = cur.fetchall()
        self.end_read(conn)
        if not rows:
            return None
        cols = tuple(
            Column(n, t, bool(nl), int(pk) if pk else None, bool(ex))
            for _, n, t, nl, pk, ex in rows
        )
        table = self.with_uniques(conn, TableShape(target, cols), self._regclass_text(target))
        self.end_read(conn)
        return table

    def describe_many(self, conn: Any, targets: list[TableName]) -> dict[str, TableShape | None]:
        """``describe`` of many targets in two queries (columns, unique indexes)."""
        names = {self._regclass_text(t): t for t in targets}
        cols: dict[str, list[Column]] = {}
        for w, n, t, nl, pk, ex in self.run(conn, "columns_many", (list(names),)).fetchall():
            cols.setdefault(str(w), []).append(
                Column(n, t, bool(nl), int(pk) if pk else None, bool(ex))
            )
        uniques: dict[str, list[tuple[Any, Any]]] = {}
        for w, name, col in self.run(conn, "unique_indexes_many", (list(names),)).fetchall():
            uniques.setdefault(str(w), []).append((name, col))
        self.end_read(conn)
        out: dict[str, TableShape | None] = {}
        for text, t in names.items():
            shape = TableShape(t, tuple(cols[text])) if text in cols else None
            out[str(t)] = None if shape is None else self.uniques_of(shape, uniques.get(text, []))
        return out

    def ensure_types(self, conn: Any, types: list[Any], add_labels: bool) -> list[str]:
        from syncpoint.vendors.postgres import owntypes

        if not types:
            return []
        with self.dialect.translated(self.location):
            return owntypes.ensure(conn, types, add_labels)

    def foreign_keys(
        self, conn: Any, targets: list[TableName]
    ) -> list[tuple[TableName, TableName]]:
        names = [self._regclass_text(t) for t in targets]
        by_text: dict[str, TableName] = {}
        for t, n in zip(targets, names, strict=True):
            r = self.run(conn, "regclass", (n,)).fetchone()
            if r and r[0]:
                by_text[r[0]] = t
        rows = self.run(conn, "foreign_keys", (list(by_text),)).fetchall()
        self.end_read(conn)
        return [(by_text[c], by_text[p]) for c, p in rows if c in by_text and p in by_text]

    # -- values ------------------------------------------------------------------------
    def _value(self, col: ApplyColumn, p: Params) -> str:
        target = parse(col.type)
        src_json = col.source is not None and col.source.kind == "json"

        def pick(as_json: bool) -> str:
            op = "->" if as_json else "->>"
            expr = f"(s.c{op}{p.bind(col.keys[-1])}::text)"
            for k in reversed(col.keys[:-1]):
                # the first present key wins: a renamed column also reads its old name
                expr = (
                    f"(CASE WHEN s.c ? {p.bind(k)}::text "
                    f"THEN (s.c{op}{p.bind(k)}::text) ELSE {expr} END)"
                )
            return expr

        if src_json:
            # a JSON column's text as a string (older records: the value nested; ->> gives
            # its text either way); the string "null" is JSON null, SQL NULL is absent/null
            return f"{pick(False)}::{unsized(col.type)}"
        if target.kind == "json":
            return f"NULLIF({pick(True)}, 'null'::jsonb)::{col.type}"
        return self._text_value(pick(False), self._based(col))

    def _text_value(self, v: str, col: ApplyColumn) -> str:
        """The column's value from its text ``v`` (a staged value of the type without its
        modifier on the typed path): binary from base64, a constrained numeric or a value
        the cast would round checked, a length-limited type left to the assignment."""
        target = parse(col.type)
        if target.kind == "binary":
            return f"decode({v}, 'base64')"
        if shifts_offset(col):
            # a timestamp's text with an offset (a SQLite source's) is the time at UTC, as
            # at a MariaDB target: the cast to timestamp would drop the offset
            v = f"(({v})::timestamptz AT TIME ZONE 'UTC')::text"
        elif shifts_time_offset(col):
            # a time's text with an offset ('10:00:00+02:00') likewise: the cast to time
            # would drop it; read as a time with time zone it is 08:00:00 at UTC
            v = (
                f"(CASE WHEN ({v}) ~ '(Z|[+-][0-9]{{2}}(:[0-9]{{2}})?)$' "
                f"THEN (({v})::timetz AT TIME ZONE 'UTC')::text ELSE {v} END)"
            )
        if target.kind == "decimal" and target.precision is not None:
            return (
                f"(CASE WHEN {v}::numeric = {v}::numeric({target.precision},{target.scale}) "
                f"THEN {v}::{col.type} "
                f"ELSE ('value does not fit {col.type}: ' || {v})::numeric END)"
            )
        fit = fitted(v, col)
        return fit if fit is not None else f"{v}::{unsized(col.type)}"

    # A domain's value is converted as its base type's is, and the INSERT's or UPDATE's
    # assignment to the column checks the domain: an explicit cast to a domain over
    # varchar(5) cuts a value to 5 characters as the cast to varchar(5) does, and one over
    # bytea would read the record's base64 as the bytes' escaped text. The base types of
    # a table's domains are read at the start of its apply (``_know``).
    _DOMAIN_KINDS = frozenset(
        ("int", "decimal", "float", "bool", "text", "binary", "date", "time", "timestamp")
    )

    def _know(self, conn: Any, columns: Sequence[ApplyColumn]) -> None:
        """Read the base types of the domains among ``columns``' types (once each)."""
        bases: dict[str, str | None] = self.__dict__.setdefault("_bases", {})
        # an array of domains converts as its base type's array: its element type is read
        names = {_element(c.type) for c in columns}
        ask = {n for n in names if n not in bases and parse(n).kind == "other" and "[" not in n}
        while ask:
            found = dict(self.run(conn, "domain_bases", (sorted(ask),)).fetchall())
            for name in ask:
                bases[name] = found.get(name)
            # a domain over a domain: its base's base
            ask = {b for b in found.values() if b not in bases and parse(b).kind == "other"}

    def _based(self, col: ApplyColumn) -> ApplyColumn:
        """``col`` as its domain's base type where the column's type is a domain whose
        values convert as that type's do (json and other types keep the domain's cast)."""
        bases: dict[str, str | None] = self.__dict__.get("_bases", {})
        element = _element(col.type)
        t, seen = element, 0
        while bases.get(t) is not None and seen < 8:
            t, seen = str(bases[t]), seen + 1
        if t == element or parse(t).kind not in self._DOMAIN_KINDS:
            return col
        if element != col.type:
            if "[" in t or parse(t).kind == "binary":
                return col  # a domain over an array; bytea elements are not base64
            # an array of domains: the base type's array (whose cast of a varchar(5) or
            # numeric(4,1) array cuts or rounds no more than the base's: ``fitted``)
            return replace(col, type=t + col.type[len(element) :])
        return replace(col, type=t)

    # -- typed staging (the direct path: vendors/postgres/round_direct.py) --------------
    # A column's value goes the way ``_value`` takes it from the JSON text, in two halves:
    # the source's task takes the text out of the record (``typed_source_value``), the
    # target's COPY reads it into the staged type (the column's type without its modifier,
    # or text for a type made in the database), and the apply casts it to the column's type
    # as ``_value`` did (``_typed_value``): every value ends the same on both ways.
    @staticmethod
    def _typed_kind(col: ApplyColumn) -> str:
        if col.source is not None and col.source.kind == "json":
            return "text"  # a JSON column's text, as a string
        return parse(col.type).kind

    def typed_staged_type(self, col: ApplyColumn, base: str, builtin: bool) -> str:
        if self._typed_kind(col) == "binary":
            return "bytea"
        if staged_as_text(col):
            return "text"  # the COPY would round or cut it: the apply checks
        return base if builtin else "text"

    def typed_source_value(self, col: ApplyColumn) -> str:
        """The column's value out of an operation's record ``o.c`` (jsonb), as text or
        bytea; NULL for a delete's non-key columns (a delete reads its key only)."""
        from syncpoint.vendors.postgres.dialect import literal

        k = literal(col.keys[0])
        kind = self._typed_kind(col)
        if kind == "json":
            v = f"NULLIF(o.c -> {k}, 'null'::jsonb)::text"
        elif kind == "binary":
            v = f"decode(o.c ->> {k}, 'base64')"
        else:
            v = f"(o.c ->> {k})"
        return v if col.pk else f"CASE WHEN o.action = 'U' THEN {v} END"

    def _typed_value(self, col: ApplyColumn) -> str:
        v = f"s.{self.q(col.name)}"
        based = self._based(col)
        if based is not col:
            return self._text_value(v, based)  # a domain: staged as text
        if shifts_offset(col) or shifts_time_offset(col):
            return self._text_value(v, col)  # staged as text, its offset taken at UTC
        target = parse(col.type)
        kind = self._typed_kind(col)
        if kind == "binary":
            return v
        if kind == "decimal" and target.precision is not None:
            return (
                f"(CASE WHEN {v}::numeric = {v}::numeric({target.precision},{target.scale}) "
                f"THEN {v}::{col.type} "
                f"ELSE ('value does not fit {col.type}: ' || {v})::numeric END)"
            )
        fit = fitted(v, col)
        return fit if fit is not None else f"{v}::{unsized(col.type)}"

    def typed_counts(self, conn: Any) -> dict[int, int]:
        out = {}
        self._typed_upserts: dict[int, int] = {}
        for tbl, typed in self._typed.items():
            n, ups = self.run(conn, "typed_rows", staging=self.q(typed.name)).fetchone()
            out[tbl], self._typed_upserts[tbl] = int(n), int(ups)
        return out

    def typed_cleanup(self, conn: Any, application: str, group: str) -> None:
        """Drop the typed stagings of earlier attempts of this application's sync group
        (crashed rounds), inside the apply transaction, and this round's own (applied)."""
        start = typed_owner(self.prefix, application, group)
        mine = {t.name for t in self._typed.values()}
        have = [str(r[0]) for r in self.run(conn, "prefix_tables").fetchall()]
        for name in have:
            if name.startswith(start) and name not in mine:
                self.run(conn, "drop_table", target=self.q(name))

    def typed_done(self, conn: Any) -> None:
        for typed in self._typed.values():
            self.run(conn, "drop_table", target=self.q(typed.name))

    def _typed_upsert(self, conn: Any, w: TableWindow, t: ApplyTable, typed: Any) -> None:
        values = ", ".join(self._typed_value(c) for c in t.columns)
        columns = ", ".join(self.q(c.name) for c in t.columns)
        staging = self.q(typed.name)
        self._coarse_keys(conn, w, t, None, staging)  # the delete-then-insert merges them too
        if not t.keyed:
            self._typed_delete(conn, t, typed, "U")
            self.run(
                conn, "typed_insert", table=str(t.target.ref),
                target=self.qualified(t.target.ref), columns=columns, values=values,
                staging=staging,
            )  # fmt: skip
            return
        key = ", ".join(self.q(k) for k in t.key)
        on_conflict = self._on_conflict(t)
        left, inserted = self._typed_fresh(conn, t, columns, values, staging)
        if inserted == getattr(self, "_typed_upserts", {}).get(w.tbl):
            return  # every upsert was a new row (counted in this transaction)
        self.run(
            conn, "typed_upsert", table=str(t.target.ref), target=self.qualified(t.target.ref),
            columns=columns, values=values, key=key, on_conflict=on_conflict, staging=staging,
            rest=left,
        )  # fmt: skip

    @staticmethod
    def _int_key(t: ApplyTable) -> bool:
        """Whether the key is one column of an integer type (ordered and compared the same
        way by the staging's values and the target's index, whatever the collations)."""
        return len(t.key_columns) == 1 and parse(t.key_columns[0].type).kind == "int"

    def _typed_fresh(
        self, conn: Any, t: ApplyTable, columns: str, values: str, staging: str
    ) -> tuple[str, int]:
        """Insert the window's upserts whose integer key is above the target's greatest or
        below its least (new rows, as a window's inserts mostly are) by a plain INSERT; the
        condition of the upserts left for the upsert ("TRUE": all of them, as for any other
        key), and how many were inserted."""
        if not self._int_key(t):
            return "TRUE", 0
        col = t.key_columns[0]
        target = self.qualified(t.target.ref)
        low, top = self.run(
            conn, "typed_bounds", table=str(t.target.ref), target=target, key=self.q(col.name)
        ).fetchone()
        v = self._typed_value(col)
        fresh = "TRUE" if top is None else f"({v} > {int(top)} OR {v} < {int(low)})"
        try:
            with conn.transaction():
                cur = self.run(
                    conn, "typed_fresh", table=str(t.target.ref), target=target,
                    columns=columns, values=values, staging=staging, fresh=fresh,
                )  # fmt: skip
        except LocationError as exc:
            # a unique value another row of the window gives up, a row of the window it
            # references (a foreign key to its own table), an exclusion: in position order
            # the upsert meets them as the source did
            state = str(getattr(exc.__cause__, "sqlstate", "") or "")
            if not (isinstance(exc, DuplicateKey) or state.startswith("23")):
                raise
            return "TRUE", 0
        return f"({fresh}) IS NOT TRUE", int(cur.rowcount)

    def _typed_delete(self, conn: Any, t: ApplyTable, typed: Any, action: str) -> None:
        keys = t.key_columns
        one = t.target.column(keys[0].name) if len(keys) == 1 else None
        if (
            action == "D"
            and t.keyed
            and self._int_key(t)
            and self.key_is_exact(t)
            and one
            and not one.nullable
        ):
            self.run(
                conn, "typed_delete_any", table=str(t.target.ref),
                target=self.qualified(t.target.ref), key=self.q(keys[0].name),
                value=self._typed_value(keys[0]), staging=self.q(typed.name),
            )  # fmt: skip
            return
        values = ", ".join(f"{self._typed_value(c)} AS k{i}" for i, c in enumerate(keys))
        if action == "D" and not self.key_is_exact(t):
            self.run(
                conn, "typed_delete_spare", table=str(t.target.ref),
                target=self.qualified(t.target.ref), values=values, match=self._match(t),
                spare=self._match(t, "u"), staging=self.q(typed.name), keys=self._keys(t),
                found=self._match(t, "x"),
            )  # fmt: skip
            return
        self.run(
            conn, "typed_delete", (action,), table=str(t.target.ref),
            target=self.qualified(t.target.ref), values=values, match=self._match(t),
            staging=self.q(typed.name),
        )  # fmt: skip

    def _coarse_keys(
        self, conn: Any, w: TableWindow, t: ApplyTable, round_id: str | None, staging: str | None
    ) -> None:
        """Stop the table where the target's key would merge keys the source holds apart
        (``coarse_keys.sql``, ``typed_coarse_keys.sql`` for a typed ``staging``): a text
        key equal to another text here (citext); and keys of another kind than the
        target's (a text '01' and '1', a number 1.0 and 1 into an integer) that the window
        upserts as two source keys and the target holds as one. A row an earlier round
        wrote is not told apart from the source row of another text that now takes its
        key (the target keeps no source text of an integer): docs/types.md."""
        keys = t.key_columns
        text = [i for i, c in enumerate(keys) if parse(c.type).kind == "text"]
        if (not text and not self.mixed_key(t)) or self.key_is_exact(t):
            return  # the common case: the target tells apart every key the source does

        def as_text(expr: str) -> str:
            return f'({expr})::text COLLATE "C"'

        def shown(alias: str, k: str) -> str:
            parts = [as_text(f"{alias}.{k}{i}" if k else f"{alias}.{self.q(c.name)}")
                     for i, c in enumerate(keys)]  # fmt: skip
            return parts[0] if len(parts) == 1 else f"concat_ws(', ', {', '.join(parts)})"

        tc = [f"t.{self.q(c.name)}" for c in keys]
        differs = " OR ".join(
            f"{as_text(tc[i])} IS DISTINCT FROM {as_text(f'u.k{i}')}" for i in text
        )
        deleted = " AND ".join(
            f"{as_text(tc[i])} = {as_text(f'd.k{i}')}" if i in text
            else f"{tc[i]} IS NOT DISTINCT FROM d.k{i}"
            for i in range(len(keys))
        )  # fmt: skip
        tokens = dict(
            table=str(t.target.ref), target=self.qualified(t.target.ref),
            spare=self._match(t, "u"), differs=differs or "false", deleted=deleted,
            old_text=shown("t", ""), new_text=shown("u", "r"),
            group=", ".join(f"u.k{i}" for i in range(len(keys))),
            texts=", ".join(as_text(f"u.r{i}") for i in range(len(keys))),
        )  # fmt: skip
        if staging is not None:
            # the source's text of the key: the JSON text the staging nets by (a string
            # without its quotes where the key is one column)
            texts = ["(s.sp_key::jsonb #>> '{}')"] if len(keys) == 1 else ["s.sp_key"]
            texts += ["NULL::text"] * (len(keys) - 1)
            values = ", ".join(
                f"{self._typed_value(c)} AS k{i}, {texts[i]} AS r{i}" for i, c in enumerate(keys)
            )
            found = self.run(conn, "typed_coarse_keys", values=values, staging=staging, **tokens)
        else:
            p = self._spare_params(str(round_id), w)  # every origin's part of the window

            def raw(c: ApplyColumn) -> str:  # the first present name, as ``_value`` reads
                names = ", ".join(f"s.c ->> {p.bind(k)}::text" for k in c.keys)
                return f"COALESCE({names})"

            values = ", ".join(
                f"{self._value(c, p)} AS k{i}, {raw(c)} AS r{i}" for i, c in enumerate(keys)
            )
            found = self.run(conn, "coarse_keys", p, values=values, **tokens)
        row = found.fetchone()
        if row is not None:
            raise self.coarse_key(w, t, row[0], row[1])

    def _match(self, t: ApplyTable, alias: str = "d") -> str:
        match = []
        for i, c in enumerate(t.key_columns):
            tc = t.target.column(c.name)
            # = can use the key's index; a user-named key may hold NULLs
            op = "=" if tc is not None and not tc.nullable else "IS NOT DISTINCT FROM"
            match.append(f"t.{self.q(c.name)} {op} {alias}.k{i}")
        return " AND ".join(match)

    def _on_conflict(self, t: ApplyTable) -> str:
        """Every column, the key's too: a key equal at the target whose text differs
        (citext 'abc' and 'ABC', numeric 1.0 and 1.00) takes the source's text; an exact
        key (``key_is_exact``) has that text already, and is not set."""
        cols = self.set_columns(t)
        if not cols:
            return "NOTHING"
        return "UPDATE SET " + ", ".join(
            f"{self.q(c.name)} = EXCLUDED.{self.q(c.name)}" for c in cols
        )

    def upsert(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        self._know(conn, t.columns)
        typed = self._typed_of(w, t)
        if typed is not None:
            self._typed_upsert(conn, w, t, typed)
            return
        self._coarse_keys(conn, w, t, round_id, None)  # the delete-then-insert merges them too
        if not t.keyed:
            self._delete(conn, round_id, w, t, "replace_delete")
            self._insert_staged(conn, round_id, w, t)
            return
        p = self._params(round_id, w)
        values = ", ".join(self._value(c, p) for c in t.columns)
        columns = ", ".join(self.q(c.name) for c in t.columns)
        key = ", ".join(self.q(k) for k in t.key)
        on_conflict = self._on_conflict(t)
        self.run(
            conn,
            "upsert",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            columns=columns,
            values=values,
            key=key,
            on_conflict=on_conflict,
        )

    def delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        self._know(conn, t.columns)
        typed = self._typed_of(w, t)
        if typed is not None:
            self._typed_delete(conn, t, typed, "D")
            return
        # a key equal exactly when its text is (key_is_exact): nothing to spare
        self._delete(conn, round_id, w, t, "delete" if self.key_is_exact(t) else "delete_spare")

    def _delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, sql: str) -> None:
        p = self._spare_params(round_id, w) if sql == "delete_spare" else self._params(round_id, w)
        values = self._key_values(t, p)
        self.run(
            conn,
            sql,
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            values=values,
            match=self._match(t),
            spare=self._match(t, "u"),
            keys=self._keys(t),
            found=self._match(t, "x"),
        )

    def _key_values(self, t: ApplyTable, p: Any) -> str:
        """The staged key columns' values as ``k0, k1, ...`` (the delete's and the prune's
        select list)."""
        return ", ".join(f"{self._value(c, p)} AS k{i}" for i, c in enumerate(t.key_columns))

    def prune(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, where: str) -> None:
        self._know(conn, t.key_columns)
        p = self._params(round_id, w)
        values = self._key_values(t, p)
        self.run(
            conn,
            "snapshot_prune",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            values=values,
            match=self._match(t),
            range=where,
        )

    def _keys(self, t: ApplyTable) -> str:
        """The target row's key columns as ``_match`` names a staged row's (k0, k1, ...)."""
        return ", ".join(f"t.{self.q(c.name)} AS k{i}" for i, c in enumerate(t.key_columns))

    # -- cascades the capture could not see (integratebase._cascade) --------------------
    def cascade_positions(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, pos: str
    ) -> None:
        self._know(conn, t.key_columns)
        p = self._params(round_id, w)
        values = ", ".join(f"{self._value(c, p)} AS {self.q(c.name)}" for c in t.key_columns)
        self.run(conn, "cascade_positions", p, table=str(t.target.ref), pos=pos, values=values)
        columns = ", ".join(self.q(k) for k in t.key)
        self.run(conn, "cascade_positions_index", pos=pos, columns=columns)

    def cascade_events(
        self, conn: Any, round_id: str, tbl: int, columns: list[ApplyColumn]
    ) -> list[tuple[Any, ...]]:
        self._know(conn, columns)
        p = Params(round_id=round_id, tbl=tbl)
        values = ", ".join(self._value(c, p) for c in columns)
        return [tuple(r) for r in self.run(conn, "cascade_events", p, values=values).fetchall()]
