"""MariaDB as an integrate location: catalog, value conversions, upsert and delete.

Each value is read from the staged JSON text with ``JSON_VALUE`` and converted by MariaDB on
assignment under ``STRICT_ALL_TABLES``; any warning or note after an apply statement fails
the round (a value is never rounded). Deletes go through a temporary table of the target's
own key columns. docs/internals.md, "Values at the target".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.core.rounds import TableWindow
from syncpoint.core.types import NType
from syncpoint.errors import LocationError
from syncpoint.vendors.integratebase import ApplyColumn, ApplyTable, Integrate, Params
from syncpoint.vendors.mariadb.dialect import json_path
from syncpoint.vendors.mariadb.types import (
    coarser_key,
    collation,
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
        out = []
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
    def _value(self, col: ApplyColumn, p: Params) -> str:
        target = parse(col.type)
        src_json = col.source is not None and col.source.kind == "json"

        def pick(as_json: bool = False) -> str:
            def get(k: str) -> str:
                if as_json:
                    # a JSON column's text as a string (older records: the value nested);
                    # the text "null" is JSON null, apart from SQL NULL (JSON null here)
                    e = f"JSON_EXTRACT(s.content, {p.bind(json_path(k))})"
                    return f"IF(JSON_TYPE({e}) = 'NULL', NULL, JSON_UNQUOTE({e}))"
                return f"JSON_VALUE(s.content, {p.bind(json_path(k))})"

            expr = get(col.keys[-1])
            for k in reversed(col.keys[:-1]):
                # the first present key wins: a renamed column also reads its old name
                cond = f"JSON_CONTAINS_PATH(s.content, 'one', {p.bind(json_path(k))})"
                expr = f"(CASE WHEN {cond} THEN {get(k)} ELSE {expr} END)"
            return expr

        if src_json:
            return pick(True)
        if spatial(col.type):
            return _stored_geometry(f"FROM_BASE64({pick()})")
        if target.kind == "binary":
            return f"FROM_BASE64({pick()})"
        if target.kind == "timestamp":
            v = pick()
            off = f"RIGHT(REPLACE({v}, 'Z', '+00:00'), 6)"
            minutes = (
                f"(CAST(CONCAT(SUBSTRING({off}, 1, 1), '1') AS SIGNED) * "
                f"(CAST(SUBSTRING({off}, 2, 2) AS UNSIGNED) * 60 + "
                f"CAST(SUBSTRING({off}, 5, 2) AS UNSIGNED)))"
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

    def upsert(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
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
        self._delete(conn, round_id, w, t, "delete_fill")

    def _coarse_keys(self, conn: Any, round_id: str, w: TableWindow, t: ApplyTable) -> None:
        """Stop the table where the target's key would merge keys the source holds apart
        (``coarse_keys.sql``); keys without text columns compare as their JSON text does."""
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
