"""MariaDB as an integrate location: catalog, value conversions, upsert and delete.

Each value is read from the staged JSON text with ``JSON_VALUE`` and converted by MariaDB on
assignment under ``STRICT_ALL_TABLES``; any warning or note after an apply statement fails
the round (a value is never rounded). Deletes go through a temporary table of the target's
own key columns. docs/internals.md, "Values at the target".
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.core.rounds import TableWindow
from syncpoint.core.types import NType
from syncpoint.errors import LocationError
from syncpoint.vendors.integratebase import ApplyColumn, ApplyTable, Integrate, Params, typed_owner
from syncpoint.vendors.mariadb import dialect as mariadb_dialect
from syncpoint.vendors.mariadb.dialect import json_path
from syncpoint.vendors.mariadb.types import (
    bare,
    coarser_key,
    collation,
    enum_labels,
    exact,
    exact_column,
    parse,
    spatial,
)

_OFFSET = "'(Z|[+-][0-9]{2}:[0-9]{2})$'"


def _stored_geometry(b: str) -> str:
    """The bytes MariaDB stores for a spatial value (SRID, then WKB) from the EWKB that
    capture writes (``encode.ewkb``; plain WKB: SRID 0). Records of earlier versions hold the
    stored bytes themselves: their fifth byte is WKB's byte order (1), where EWKB has the
    high byte of its type (0x20 or 0)."""
    fifth = f"ASCII(SUBSTRING({b}, 5, 1))"
    unflagged = (
        f"CONCAT(SUBSTRING({b}, 6, 4), SUBSTRING({b}, 1, 4), CHAR({fifth} & 223), "
        f"SUBSTRING({b}, 10))"
    )
    return (
        f"(CASE WHEN {b} IS NULL THEN NULL WHEN {fifth} = 1 THEN {b} "
        f"WHEN {fifth} & 32 THEN {unflagged} ELSE CONCAT(X'00000000', {b}) END)"
    )


# Source kinds whose values PostgreSQL's capture writes as JSON strings or numbers: their
# text (``->>``) is what JSON_VALUE gives MariaDB's upsert. Others (booleans, and what this
# does not know) take JSON_VALUE's rules in full (typed_source_text).
_TEXT_KINDS = frozenset(
    ("int", "decimal", "float", "text", "binary", "date", "time", "timestamp", "interval",
     "uuid")
)  # fmt: skip
_LOBS = ("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob",
         "longblob")  # fmt: skip


# MariaDB rounds or cuts some values on assignment without a warning, strict mode or
# not: a number with a fraction into an integer column ('1.5' is 2, '-0.4' is 0; a
# TINYINT(1) too), a number with more digits than a DOUBLE holds (an exact numeric's
# 0.12345678901234567890, an integer past 2^53), a time
# with more fractional digits than a DATETIME(n), TIMESTAMP(n) or TIME(n) keeps
# ('10:00:00.7' into DATETIME(0) is 10:00:00). Such a value is checked before it is
# assigned, and one that would change fails the statement naming it ("Truncated incorrect
# INTEGER value: 'value does not fit int: 1.5'"; a LOCAL load's warning, which the load
# lets through as none). A source column whose values always fit is not checked (integers
# into an integer column, times of no more fractional digits).
_WHOLE = "'^-?[0-9]+$'"
_FLOAT_PLACES = re.compile(
    r"\s*(?:float|double(?:\s+precision)?|real)\s*\(\s*\d+\s*,\s*(\d+)\s*\)", re.I
)


def fitted(v: str, col: ApplyColumn) -> str:
    """``v`` (an expression of the column's value as assigned) checked where MariaDB's
    assignment would round or cut it without a warning."""
    target = parse(col.type)
    src = col.source
    word = bare(col.type).split("(")[0].strip().lower()
    if word == "year":
        # YEAR reads 1 to 99 as two-digit years (24 is 2024) and a text '0' as 2000: only
        # a year of four digits in its range goes in as it is, 0 as 0000
        fail = f"CAST(CONCAT('value does not fit year: ', {v}) AS SIGNED)"
        four = f"{v} REGEXP '^[0-9]{{4}}$' AND CAST({v} AS UNSIGNED) BETWEEN 1901 AND 2155"
        return (
            f"(CASE WHEN {v} IS NULL OR ({four}) THEN {v} "
            f"WHEN {v} REGEXP '^0+$' THEN '0000' ELSE {fail} END)"
        )
    same_labels = src is not None and bare(src.declared) == bare(col.type)
    labels = enum_labels(col.type) if word in ("enum", "set") and not same_labels else None
    if labels is not None:
        # an ENUM takes a text equal to a label in its collation as the label ('A' is 'a'
        # in a case-insensitive one, 'a ' is 'a' in any that pads) and a number's text
        # that is no label as the label of that position: only a label byte for byte goes
        # in. A SET likewise each of its labels, and writes them in its own order, once
        # each ('b,a,a' is 'a,b'): only its own text of labels byte for byte goes in.
        fail = f"CAST(CONCAT('value does not fit the {word} of its labels: ', {v}) AS SIGNED)"
        b = f"CAST(CONVERT({v} USING utf8mb4) AS BINARY)"
        hexes = [f"X'{label.encode().hex()}'" for label in labels]
        if word == "enum":
            same = f"{b} IN ({', '.join(hexes)})"
        else:
            found = ", ".join(f"IF(FIND_IN_SET({h}, {b}) > 0, {h}, NULL)" for h in hexes)
            same = f"{b} = CAST(CONCAT_WS(',', {found}) AS BINARY)"
        return f"(CASE WHEN {v} IS NULL OR {same} THEN {v} ELSE {fail} END)"
    fail = f"CAST(CONCAT('value does not fit {col.type}: ', {v}) AS SIGNED)"
    if target.kind in ("int", "bool") and not (src is not None and src.kind in ("int", "bool")):
        d = f"CAST({v} AS DECIMAL(65,30))"
        whole = f"{v} REGEXP {_WHOLE} OR {d} = FLOOR({d})"
        return f"(CASE WHEN {v} IS NULL OR {whole} THEN {v} ELSE {fail} END)"
    bits = target.bits or 64
    places = _FLOAT_PLACES.match(bare(col.type))
    if (
        target.kind == "float"
        and places is not None
        and not (src is not None and bare(src.declared) == bare(col.type))
    ):
        # a FLOAT(m,d) or DOUBLE(m,d) rounds every value to d decimals, a float's too,
        # without a word: only a value of at most d decimals goes in (compared as a
        # decimal that is the same number as the value)
        d = f"CAST({v} AS DECIMAL(65,30))"
        fits = (
            f"CAST({d} AS DOUBLE) = CAST({v} AS DOUBLE) AND {d} = ROUND({d}, {int(places[1])})"
        )
        plain = re.sub(r"\(\s*\d+\s*,\s*\d+\s*\)", "", col.type, count=1)
        rest = fitted(v, dataclasses.replace(col, type=plain))
        return f"(CASE WHEN {v} IS NULL OR {fits} THEN {rest} ELSE {fail} END)"
    if target.kind == "float" and not (
        src is not None and src.kind == "float" and (src.bits or 64) <= bits
    ):
        # a DOUBLE holds the value when it reads back as the same number (its shortest
        # digits, as CAST gives them); compared as decimals, whole digits only past 1e34
        back = f"CAST(CAST({v} AS DOUBLE) AS CHAR)"

        def equal(scale: int) -> str:
            return f"CAST({back} AS DECIMAL(65,{scale})) = CAST({v} AS DECIMAL(65,{scale}))"

        exact = f"CASE WHEN ABS(CAST({v} AS DOUBLE)) < 1e34 THEN {equal(30)} ELSE {equal(0)} END"
        if bits == 32:
            # a FLOAT holds single precision: the double must be one (0.5, not 0.1, whose
            # float is 0.10000000149011612); a float source's own values are
            exact = f"({exact}) AND CAST(CAST({v} AS FLOAT) AS DOUBLE) = CAST({v} AS DOUBLE)"
        return f"(CASE WHEN {v} IS NULL OR {exact} THEN {v} ELSE {fail} END)"
    p = target.precision
    if target.kind in ("timestamp", "time") and p is not None and p < 6:
        if src is not None and src.kind == target.kind and (src.precision or 0) <= p:
            return v
        as_ = "TIME" if target.kind == "time" else "DATETIME"
        same = f"CAST({v} AS {as_}(6)) = CAST({v} AS {as_}({int(p)}))"
        return f"(CASE WHEN {v} IS NULL OR {same} THEN {v} ELSE {fail} END)"
    return v


def _bit(declared: str) -> bool:
    return bare(declared).split("(")[0].strip().lower() == "bit"


def typed_refusal(t: ApplyTable) -> str | None:
    """Why a table's rows are not staged typed on the direct path (its window is staged as
    JSON text and applied as before), or None."""
    if not t.keyed:
        return "the target has no unique index on the key (rows deleted and inserted)"
    if mariadb_dialect.UPSERT_ANY_UNIQUE and t.target.other_uniques(t.key):
        return "the target has a unique index on other columns (rows deleted and inserted)"
    for c in t.key_columns:
        kind = parse(c.type).kind
        if kind == "text" and not exact(collation(c.type) or ""):
            return f"key column {c.name} compares in a collation that folds (checked on JSON)"
        if c.type.strip().lower().split(" ")[0] in _LOBS:
            return f"key column {c.name} is a {c.type.split(' ')[0]}"
    for c in t.columns:
        # MariaDB's own spatial values load by the JSON path's expression (typed_json_set);
        # PostgreSQL's typed load has no such column
        ours = c.source is not None and c.source.source_vendor == "mariadb"
        if spatial(c.type) and not ours:
            return f"column {c.name} is spatial ({c.type})"
    return None


class _Literals(Params):
    """Values written into the statement as literals (a ``LOAD DATA`` binds none), each
    reading as the bound value in every SQL mode."""

    def bind(self, value: Any) -> str:
        return mariadb_dialect.literal(str(value))


class MariadbIntegrate(Integrate):
    vendor = "mariadb"

    def check(self, conn: Any) -> list[str]:
        from syncpoint.vendors.mariadb import privileges
        from syncpoint.vendors.mariadb.catalog import server_problem

        problem = server_problem(conn.cursor())
        found = [] if problem else privileges.integrate(conn.cursor(), self.location)
        self.end_read(conn)
        return [f"location {self.location}: {problem}"] if problem else found

    def upgrade_staging(self, conn: Any, staging: TableShape) -> None:
        """Also the direct path's columns (once)."""
        super().upgrade_staging(conn, staging)
        if staging.column("sp_sub") is None:
            self.begin(conn)
            self.run(conn, "staging_ops_columns")
            self.commit(conn)

    def resolve(self, target: TableName, explicit: bool, source_vendor: str) -> TableName:
        if explicit and target.schema_:
            return target
        return TableName(name=target.name)

    def loose_keys(self, conn: Any, table: TableShape, key: Sequence[str]) -> dict[str, str]:
        from syncpoint.vendors.mariadb.types import collation, exact

        out = {}
        for k in key:
            col = table.column(k)
            name = collation(col.type) if col is not None else None
            if name is not None and not exact(name):
                out[k] = f"in collation {name} (case, accents or trailing spaces fold)"
        return out

    def describe(self, conn: Any, target: TableName) -> TableShape | None:
        cur = self.run(conn, "columns", (target.schema_, target.name), table=str(target))
        rows = cur.fetchall()
        self.end_read(conn)
        if not rows:
            return None
        cols = tuple(
            Column(str(n), str(t), bool(nl), int(pk) if pk else None, exact_column(str(t)))
            for n, t, nl, pk in rows
        )
        table = self.with_uniques(conn, TableShape(target, cols), target.schema_, target.name)
        self.end_read(conn)
        return table

    def key_notes(
        self, ref: TableName, table: TableShape, key: Sequence[str], source: dict[str, NType]
    ) -> list[str]:
        out = super().key_notes(ref, table, key, source)
        for k in key:
            have, src = table.column(k), source.get(k)
            why = coarser_key(have.type, src) if have is not None and src is not None else None
            if why is not None:
                out.append(
                    f"warning: target {ref}: key column {k} compares in collation {why}, "
                    "which holds equal keys the source holds apart (case, accents or "
                    "trailing spaces): such rows would become one row here. Give the "
                    f"column a collation such as utf8mb4_nopad_bin (ALTER TABLE ... MODIFY "
                    f"{k} ... COLLATE utf8mb4_nopad_bin), as tables syncpoint creates have"
                )
        return out

    def foreign_keys(
        self, conn: Any, targets: list[TableName]
    ) -> list[tuple[TableName, TableName]]:
        out: list[tuple[TableName, TableName]] = []
        for schema in {t.schema_ for t in targets}:
            by_name = {t.name: t for t in targets if t.schema_ == schema}
            for child, parent in self.run(conn, "foreign_keys", (schema,)).fetchall():
                if child in by_name and parent in by_name:
                    out.append((by_name[child], by_name[parent]))
        self.end_read(conn)
        return out

    # -- values ------------------------------------------------------------------------
    def _value(
        self, col: ApplyColumn, p: Params, fit: bool = True, doc: str = "s.content"
    ) -> str:
        """The column's value out of the staged JSON text (``doc``: an expression of it);
        checked where the assignment would round or cut it (``fitted``), unless ``fit`` is
        false."""
        target = parse(col.type)
        src_json = col.source is not None and col.source.kind == "json"

        def pick(as_json: bool = False) -> str:
            def get(k: str) -> str:
                if as_json:
                    # a JSON column's text as a string (older records: the value nested);
                    # the text "null" is JSON null, apart from SQL NULL (JSON null here)
                    e = f"JSON_EXTRACT({doc}, {p.bind(json_path(k))})"
                    return f"IF(JSON_TYPE({e}) = 'NULL', NULL, JSON_UNQUOTE({e}))"
                return f"JSON_VALUE({doc}, {p.bind(json_path(k))})"

            expr = get(col.keys[-1])
            for k in reversed(col.keys[:-1]):
                # the first present key wins: a renamed column also reads its old name
                cond = f"JSON_CONTAINS_PATH({doc}, 'one', {p.bind(json_path(k))})"
                expr = f"(CASE WHEN {cond} THEN {get(k)} ELSE {expr} END)"
            return expr

        if src_json:
            return pick(True)
        out = self._converted(col, target, pick)
        return fitted(out, col) if fit else out

    @staticmethod
    def _converted(col: ApplyColumn, target: NType, pick: Any) -> str:
        if spatial(col.type):
            return _stored_geometry(f"FROM_BASE64({pick()})")
        if _bit(col.type) and col.source is not None and _bit(col.source.declared):
            # MariaDB's BIT is captured as its number (encode.py), whose text a BIT would
            # take as bytes ('5' as 0x35): assigned as the number
            return f"CAST({pick()} AS UNSIGNED)"
        if target.kind == "binary":
            return f"FROM_BASE64({pick()})"
        if target.kind == "timestamp":
            v = pick()
            off = f"RIGHT(REPLACE({v}, 'Z', '+00:00'), 6)"
            # signed throughout: a negative offset times an UNSIGNED is out of range
            minutes = (
                f"(CAST(CONCAT(SUBSTRING({off}, 1, 1), '1') AS SIGNED) * "
                f"(CAST(SUBSTRING({off}, 2, 2) AS SIGNED) * 60 + "
                f"CAST(SUBSTRING({off}, 5, 2) AS SIGNED)))"
            )
            base = f"CAST(REGEXP_REPLACE({v}, {_OFFSET}, '') AS DATETIME(6))"
            return (
                f"(CASE WHEN {v} REGEXP {_OFFSET} "
                f"THEN DATE_SUB({base}, INTERVAL {minutes} MINUTE) ELSE {v} END)"
            )
        return pick()

    def _warnings(self, conn: Any, table: TableName) -> None:
        found = conn.show_warnings()
        if found:
            level, code, text = found[0][:3]
            raise LocationError(
                f"MariaDB: {text} ({level} {code}): a value does not fit the target column; "
                "nothing of this round was applied. Widen the target column",
                location=self.location,
                table=str(table),
            )

    # -- typed staging (the direct path: mariadb/round_direct.py) --------------------------
    # From MariaDB, a column's value is ``_value``'s own expression over the line's JSON in
    # the load (``typed_json_set``). From PostgreSQL it goes the way ``_value`` takes it
    # from the JSON text, in two halves:
    # the source's task takes out of the record the text JSON_VALUE would give
    # (``typed_load``'s first list), LOAD DATA assigns it to the staged column (the target
    # column's own type), or sets the column by ``_value``'s expression over it where
    # ``_value`` converts by one (binary, timestamps); the apply copies typed values.
    def typed_staged_type(self, col: ApplyColumn, t: ApplyTable) -> str:
        return f"{col.type} NULL"

    def typed_index(self, t: ApplyTable) -> str:
        """An index on the staged key where the delete looks upserts of its key up (a key
        not exact: ``_typed_delete``)."""
        if self.key_is_exact(t):
            return ""
        return f", INDEX ({', '.join(self.q(c.name) for c in t.key_columns)})"

    @staticmethod
    def typed_source_text(col: ApplyColumn) -> str:
        """PostgreSQL SQL of the text JSON_VALUE gives of the column's value in the record
        ``o.c`` (jsonb): a string's text, a number's, 1 or 0 for true or false, NULL for
        null, an object or an array; for a JSON column, its text (the JSON string) as the
        upsert reads it, NULL for JSON null, and a nested value (records of old versions)
        fails the typed copy (the round stages as JSON text)."""
        from syncpoint.vendors.postgres.dialect import literal

        k = literal(col.keys[0])
        x, text = f"(o.c -> {k})", f"(o.c ->> {k})"
        if col.source is not None and col.source.kind == "json":
            return (
                f"CASE jsonb_typeof({x}) WHEN 'string' THEN {text} WHEN 'null' THEN NULL "
                f"ELSE ('a JSON column holds a nested value: ' || {x}::text)::integer::text "
                "END"
            )
        if col.source is not None and col.source.kind in _TEXT_KINDS:
            return text
        return (
            f"CASE jsonb_typeof({x}) WHEN 'string' THEN {text} WHEN 'number' THEN {text} "
            f"WHEN 'boolean' THEN CASE WHEN {x} = 'true'::jsonb THEN '1' ELSE '0' END END"
        )

    def typed_load(self, col: ApplyColumn, i: int) -> tuple[list[str], list[str], list[str]]:
        """The column's source values (PostgreSQL SQL over ``o``), LOAD DATA fields and SET
        assignments."""
        v = self.typed_source_text(col)

        def sent(e: str) -> str:  # a delete carries its key columns only
            return e if col.pk else f"CASE WHEN o.action = 'U' THEN {e} END"

        name = self.q(col.name)
        target = parse(col.type)
        src_json = col.source is not None and col.source.kind == "json"
        if not src_json and target.kind == "binary":
            var = f"@b{i}"
            return [sent(v)], [var], [f"{name} = FROM_BASE64({var})"]
        if not src_json and target.kind == "timestamp":
            # ``_value``: an offset at the end (Z, +hh:mm) is taken off the time; the
            # source's own UTC (+00:00, Z) is only cut off there, so LOAD DATA reads the
            # time as ``_value``'s CAST does; another offset goes to ``_value``'s
            # expression itself; a value without one is assigned as it is
            t = f"({v})"
            utc = (
                f"CASE WHEN right({t}, 6) IN ('+00:00', '-00:00') THEN left({t}, -6) "
                f"WHEN right({t}, 1) = 'Z' THEN left({t}, -1) END"
            )
            off = "'(Z|[+-][0-9]{2}:[0-9]{2})$'"
            other = f"CASE WHEN ({utc}) IS NULL AND {t} ~ {off} THEN {t} END"
            plain = f"CASE WHEN ({utc}) IS NULL AND NOT {t} ~ {off} THEN {t} END"
            exprs = [utc, other, plain]
            a, b, c = f"@a{i}", f"@o{i}", f"@p{i}"
            full = self._value_of(col, b)
            value = (
                f"CASE WHEN {c} IS NOT NULL THEN {c} "
                f"WHEN {a} IS NOT NULL THEN CAST({a} AS DATETIME(6)) ELSE {full} END"
            )
            return [sent(e) for e in exprs], [a, b, c], [f"{name} = {fitted(value, col)}"]
        if fitted("@v", col) != "@v":
            var = f"@v{i}"  # assigned through ``fitted``'s check
            return [sent(v)], [var], [f"{name} = {fitted(var, col)}"]
        return [sent(v)], [name], []

    def typed_json_set(self, col: ApplyColumn) -> str:
        """The column's ``SET`` assignment in the typed load of MariaDB's own records
        (``typed_load_json.sql``): ``_value``'s expression itself, over the line's JSON text
        (``@sp_content``, in the staging's collation as ``s.content`` is) and with its JSON
        paths written as literals, assigned to a column of the target column's type in a
        session of the apply's SQL mode and time zone: the value the JSON path's upsert
        assigns, and a value it would refuse warns (the load fails). A delete's row (the
        key's old JSON) sets the key columns only, as the JSON path's delete reads them."""
        value = self._value(col, _Literals(), doc="(@sp_content COLLATE utf8mb4_bin)")
        if not col.pk:
            value = f"CASE WHEN @sp_action = 'U' THEN {value} END"
        return f"{self.q(col.name)} = {value}"

    def _value_of(self, col: ApplyColumn, var: str) -> str:
        """``_value``'s expression of a timestamp over ``var`` instead of the JSON text."""
        expr = self._value(col, Params(), fit=False)
        out = re.sub(r"JSON_VALUE\(s\.content, %\(\w+\)s\)", var, expr)
        if "%(" in out or "s.content" in out:
            raise ValueError(f"unexpected value expression {expr!r}")
        return out

    def typed_counts(self, conn: Any) -> dict[int, int]:
        out = {}
        for tbl, typed in self._typed.items():
            n, _ = self.run(conn, "typed_rows", staging=self.q(typed.name)).fetchone()
            out[tbl] = int(n)
        return out

    def typed_committed(self, conn: Any, application: str, group: str) -> None:
        """After the commit of a round staged typed (a DROP commits in MariaDB): drop this
        round's typed stagings and those of earlier attempts of the sync group (a round
        killed before its commit, or after it before this, left its own; no round can
        still apply them: their positions moved, or the round id is gone)."""
        start = typed_owner(self.prefix, application, group)
        have = [str(r[0]) for r in self.run(conn, "prefix_tables").fetchall()]
        for name in have:
            if name.startswith(start):
                self.run(conn, "typed_drop", staging=self.q(name))
        self.end_read(conn)

    def _typed_upsert(self, conn: Any, t: ApplyTable, typed: Any) -> None:
        self.run(
            conn, "typed_upsert", table=str(t.target.ref), target=self.qualified(t.target.ref),
            columns=", ".join(self.q(c.name) for c in t.columns),
            values=", ".join(f"s.{self.q(c.name)}" for c in t.columns),
            on_conflict=", ".join(
                f"{self.q(c.name)} = VALUES({self.q(c.name)})"
                for c in self.set_columns(t) or t.key_columns[:1]
            ),
            staging=self.q(typed.name),
        )  # fmt: skip
        self._warnings(conn, t.target.ref)

    def _typed_delete(self, conn: Any, t: ApplyTable, typed: Any) -> None:
        keys = t.key_columns

        def match(alias: str) -> str:
            return " AND ".join(f"t.{self.q(c.name)} <=> {alias}.{self.q(c.name)}" for c in keys)

        # a key equal exactly when its text is (key_is_exact): nothing to spare
        exact = self.key_is_exact(t)
        self.run(
            conn, "typed_delete" if exact else "typed_delete_spare", table=str(t.target.ref),
            target=self.qualified(t.target.ref), staging=self.q(typed.name), match=match("d"),
            spare=match("u"),
        )  # fmt: skip
        self._warnings(conn, t.target.ref)

    def upsert(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        typed = self._typed_of(w, t)
        if typed is not None:
            self._typed_mixed_keys(conn, w, t, typed)
            self._typed_upsert(conn, t, typed)
            return
        self._coarse_keys(conn, round_id, w, t)  # the delete-then-insert merges them too
        if not t.keyed or (self.dialect.UPSERT_ANY_UNIQUE and t.target.other_uniques(t.key)):
            # ON DUPLICATE KEY UPDATE acts on any unique index: with one on other columns
            # it could update another key's row. Delete the keys' rows, then insert.
            self._delete(conn, round_id, w, t, "replace_fill")
            self._insert_staged(conn, round_id, w, t)
            self._warnings(conn, t.target.ref)
            return
        p = self._params(round_id, w)
        values = ", ".join(self._value(c, p) for c in t.columns)
        # every column, the key's too: a key equal in the target's collation whose text
        # differs ('abc' and 'ABC') takes the source's text (an exact key has it already;
        # ON DUPLICATE KEY UPDATE needs one assignment: the key's, where no other column)
        cols = self.set_columns(t) or list(t.key_columns[:1])
        on_conflict = ", ".join(f"{self.q(c.name)} = VALUES({self.q(c.name)})" for c in cols)
        self.run(
            conn,
            "upsert",
            p,
            table=str(t.target.ref),
            target=self.qualified(t.target.ref),
            columns=", ".join(self.q(c.name) for c in t.columns),
            values=values,
            on_conflict=on_conflict,
        )
        self._warnings(conn, t.target.ref)

    def delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        typed = self._typed_of(w, t)
        if typed is not None:
            self._typed_delete(conn, t, typed)
            return
        self._delete(conn, round_id, w, t, "delete_fill")

    def _mixed_keys(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        """Stop the table where two source keys the window upserts are one key here
        (``mixed_keys.sql``). A row an earlier round wrote is not told apart from the
        source row of another text that now takes its key: docs/types.md."""
        if self.key_is_exact(t) or not self.mixed_key(t):
            return
        p = self._spare_params(round_id, w)  # every origin's part of the window
        keys = t.key_columns

        def raw(c: ApplyColumn) -> str:  # the first present name, as ``_value`` reads
            names = ", ".join(f"JSON_VALUE(s.content, {p.bind(json_path(k))})" for k in c.keys)
            return names if len(c.keys) == 1 else f"COALESCE({names})"

        texts = [raw(c) for c in keys]
        found = self.run(
            conn, "mixed_keys", p, table=str(t.target.ref), target=self.qualified(t.target.ref),
            columns=", ".join(self.q(c.name) for c in keys),
            values=", ".join(self._value(c, p) for c in keys),
            raw=texts[0] if len(texts) == 1 else f"JSON_ARRAY({', '.join(texts)})",
        ).fetchone()  # fmt: skip
        self._warnings(conn, t.target.ref)
        if found is not None:
            raise self.coarse_key(w, t, found[0], found[1])

    def _typed_mixed_keys(self, conn: Any, w: TableWindow, t: ApplyTable, typed: Any) -> None:
        """``_mixed_keys`` over a typed staging (one row a source key: two upserts of one
        key here are two source keys, whose texts the staging does not keep)."""
        if self.key_is_exact(t) or not self.mixed_key(t):
            return
        cols = [f"s.{self.q(c.name)}" for c in t.key_columns]
        shown = cols[0] if len(cols) == 1 else f"CONCAT_WS(', ', {', '.join(cols)})"
        found = self.run(
            conn, "typed_mixed_keys", table=str(t.target.ref), staging=self.q(typed.name),
            columns=", ".join(cols), shown=f"CAST({shown} AS CHAR)",
        ).fetchone()  # fmt: skip
        if found is not None:
            raise self.coarse_key(w, t, found[0], None, int(found[1]))

    def _coarse_keys(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        """Stop the table where the target's key would merge keys the source holds apart
        (``coarse_keys.sql``, and ``_mixed_keys``); keys without text columns compare as
        their JSON text does."""
        self._mixed_keys(conn, round_id, w, t)
        keys = t.key_columns
        text = {c.name for c in keys if parse(c.type).kind == "text"}
        if self.key_is_exact(t) or all(
            exact(collation(c.type) or "") for c in keys if c.name in text
        ):
            return  # no text, or compared byte for byte (the key columns syncpoint creates)
        p = self._spare_params(round_id, w)  # every origin's part of the window
        cols = ", ".join(self.q(c.name) for c in keys)
        target = self.qualified(t.target.ref)
        name = str(t.target.ref)
        values = ", ".join(self._value(c, p) for c in keys)
        self.run(
            conn, "spare_keys", p, table=name, target=target, columns=cols, values=values,
            index=self._spare_index(conn, t),
        )  # fmt: skip
        self._warnings(conn, t.target.ref)

        def bytewise(expr: str, c: ApplyColumn) -> str:
            if c.name in text:
                return f"CONVERT({expr} USING utf8mb4) COLLATE utf8mb4_nopad_bin"
            return expr

        def shown(alias: str, collate: str = "") -> str:
            parts = [f"CONVERT({alias}.{self.q(c.name)} USING utf8mb4){collate}" for c in keys]
            return parts[0] if len(parts) == 1 else f"CONCAT_WS(', ', {', '.join(parts)})"

        def both(a: str, b: str, c: ApplyColumn) -> str:
            return f"{bytewise(a, c)} <=> {bytewise(b, c)}"

        col = {c.name: f"{self.q(c.name)}" for c in keys}
        same = " AND ".join(both(f"t.{col[c.name]}", f"u.{col[c.name]}", c) for c in keys)
        deleted = " AND ".join(both(f"t.{col[c.name]}", self._value(c, p), c) for c in keys)
        spare = " AND ".join(f"t.{col[c.name]} <=> u.{col[c.name]}" for c in keys)
        distinct = ", ".join(bytewise(f"u.{col[c.name]}", c) for c in keys)
        found = self.run(
            conn, "coarse_keys", p, table=name, target=target, spare=spare, same=same,
            deleted=deleted, columns=", ".join(f"u.{col[c.name]}" for c in keys),
            old_text=shown("t"), new_text=shown("u"), bytes=distinct,
            new_exact=shown("u", " COLLATE utf8mb4_nopad_bin"),
        ).fetchone()  # fmt: skip
        if found is not None:
            raise self.coarse_key(w, t, found[0], found[1])

    def _delete(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, fill: str) -> None:
        keys = t.key_columns
        cols = ", ".join(self.q(c.name) for c in keys)
        target = self.qualified(t.target.ref)
        name = str(t.target.ref)
        self.run(conn, "delete_keys", table=name, target=target, columns=cols)
        p = self._params(round_id, w)
        values = ", ".join(self._value(c, p) for c in keys)
        self.run(conn, fill, p, table=name, columns=cols, values=values)
        self._warnings(conn, t.target.ref)
        match = " AND ".join(f"t.{self.q(c.name)} <=> d.{self.q(c.name)}" for c in keys)
        if fill == "replace_fill" or self.key_is_exact(t):
            # a key equal exactly when its text is (key_is_exact): nothing to spare
            self.run(conn, "delete", table=name, target=target, match=match)
            return
        p["spare_lo"], p["spare_hi"] = self._whole(w)
        self.run(
            conn, "spare_keys", p, table=name, target=target, columns=cols, values=values,
            index=self._spare_index(conn, t),
        )  # fmt: skip
        self._warnings(conn, t.target.ref)
        spare = " AND ".join(f"t.{self.q(c.name)} <=> u.{self.q(c.name)}" for c in keys)
        self.run(conn, "delete_spare", table=name, target=target, match=match, spare=spare)

    def prune(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, where: str) -> None:
        keys = t.key_columns
        cols = ", ".join(self.q(c.name) for c in keys)
        target, name = self.qualified(t.target.ref), str(t.target.ref)
        p = self._params(round_id, w)
        p["spare_lo"] = p["spare_hi"] = w.tbl  # the chunk's rows alone
        self.run(
            conn, "spare_keys", p, table=name, target=target, columns=cols,
            values=", ".join(self._value(c, p) for c in keys), index=self._spare_index(conn, t),
        )  # fmt: skip
        self._warnings(conn, t.target.ref)
        spare = " AND ".join(f"t.{self.q(c.name)} <=> u.{self.q(c.name)}" for c in keys)
        self.run(conn, "snapshot_prune", table=name, target=target, range=where, spare=spare)

    def _spare_index(self, conn: Any, t: ApplyTable) -> str:
        """The spare keys' index: a TEXT or BLOB column, which has no other way into an
        index, by the prefix the target's primary key takes of it (so the index fits as the
        key does); none where that key has no such prefix (the lookups scan, no error)."""
        ref = t.target.ref
        prefix = {
            str(n): int(n_)
            for n, n_ in self.run(conn, "key_prefixes", (ref.schema_, ref.name), table=str(ref))
        }
        lobs = ("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob",
                "mediumblob", "longblob")  # fmt: skip
        parts = []
        for c in t.key_columns:
            col = t.target.column(c.name)
            lob = col is not None and col.type.strip().lower().split(" ")[0] in lobs
            if lob and c.name not in prefix:
                return ""
            parts.append(f"{self.q(c.name)}({prefix[c.name]})" if lob else self.q(c.name))
        return f"(INDEX ({', '.join(parts)}))"

    # -- cascades the capture could not see (integratebase._cascade) --------------------
    def _checked(self, conn: Any, t: ApplyTable) -> None:
        self._warnings(conn, t.target.ref)

    def relax_foreign_keys(self, conn: Any, on: bool) -> bool:
        # the session's setting: also keeps a target's own cascading foreign keys from
        # repeating the cascade the round makes
        self.run(conn, "foreign_key_checks", value="0" if on else "1")
        return True

    def cascade_positions(
        self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable, pos: str
    ) -> None:
        p = self._params(round_id, w)
        self.run(
            conn,
            "cascade_positions",
            p,
            table=str(t.target.ref),
            pos=pos,
            target=self.qualified(t.target.ref),
            columns=", ".join(self.q(k) for k in t.key),
            values=", ".join(self._value(c, p) for c in t.key_columns),
        )
        self._warnings(conn, t.target.ref)

    def cascade_events(
        self, conn: Any, round_id: str, tbl: int, columns: list[ApplyColumn]
    ) -> list[tuple[Any, ...]]:
        p = Params(round_id=round_id, tbl=tbl)
        values = ", ".join(self._value(c, p) for c in columns)
        return [tuple(r) for r in self.run(conn, "cascade_events", p, values=values).fetchall()]
