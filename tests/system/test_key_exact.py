"""Which target keys are equal exactly when their text is (``Integrate.key_is_exact``, read
with the target's shape), and what a round does with each: an exact key skips the spare of
its net deletes and the coarse-key check (statements of their own, about as costly as the
upsert), a key the target may hold equal under another text (citext, numeric, a
case-insensitive or PAD SPACE collation, ...) keeps both. No Spark: the catalog readings,
and PostgreSQL to PostgreSQL rounds on the direct path (the driver's threads)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from syncpoint import vendors
from syncpoint.config import TableName
from syncpoint.ops.channel import Channel
from syncpoint.vendors.integratebase import apply_table
from tests.conftest import Db, make_sqlite

# key type at the target, the source's type of the key (its vendor's), exact?
PG_KEYS = [
    ("bigint", "bigint", True),
    ("smallint", "integer", True),
    ("text", "text", True),
    ("varchar(20)", "character varying(10)", True),
    ("varchar(20)", "text", True),  # a longer text stops the table, never arrives cut
    ('text COLLATE "C"', "text", True),
    ("uuid", "uuid", True),
    ("date", "date", True),
    ("bytea", "bytea", True),
    ("boolean", "boolean", True),
    ("dtext", "dtext", True),  # a domain over text, from the same domain
    ("dtext", "text", False),  # not known to be text here (its name): taken as not exact
    ("citext", "text", False),
    ("text COLLATE ci", "text", False),  # nondeterministic
    ("character(4)", "character(4)", False),  # blanks do not count
    ("numeric", "numeric", False),  # 1.0 = 1.00
    ("double precision", "double precision", False),  # 0 = -0
    ("timestamptz", "timestamptz", False),
    ("dnum", "numeric", False),  # a domain over numeric
    ("bigint", "text", False),  # '1' and '01' would be one row
    ("uuid", "text", False),  # upper and lower case hex
]


def _exact(vendor: str, url: str, ref: TableName, key_source: str, src_vendor: str) -> bool:
    integ = vendors.get(vendor).Integrate("cen", url, "repl_")
    conn = integ.connect()
    try:
        shape = integ.describe(conn, ref)
    finally:
        conn.close()
    assert shape is not None
    parse = vendors.get(src_vendor).types.parse
    return integ.key_is_exact(apply_table(shape, ("k",), {"k": parse(key_source), "v": None}))


def test_key_is_exact_postgres(pg_db: Db) -> None:
    pg_db.execute(
        "CREATE EXTENSION IF NOT EXISTS citext",
        "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
        "CREATE DOMAIN dtext AS text",
        "CREATE DOMAIN dnum AS numeric",
        *(f"CREATE TABLE t{i} (k {typ} PRIMARY KEY, v text)" for i, (typ, _, _) in
          enumerate(PG_KEYS)),
    )  # fmt: skip
    got = [
        _exact("postgres", pg_db.url, TableName(schema="public", name=f"t{i}"), src, "postgres")
        for i, (_, src, _) in enumerate(PG_KEYS)
    ]
    assert list(zip(PG_KEYS, got, strict=True)) == [(k, k[2]) for k in PG_KEYS]


MARIA_KEYS = [
    ("bigint", "bigint", True),
    ("int unsigned", "bigint", True),
    ("varchar(20) COLLATE utf8mb4_nopad_bin", "text", True),  # what syncpoint creates
    ("varbinary(20)", "bytea", True),
    ("varchar(20) COLLATE utf8mb4_bin", "text", False),  # PAD SPACE: 'a' = 'a '
    ("varchar(20) COLLATE utf8mb4_general_ci", "text", False),
    ("char(4) COLLATE utf8mb4_nopad_bin", "text", False),  # trailing blanks dropped
    ("binary(4)", "bytea", False),  # zero bytes padded
    ("decimal(10,2)", "numeric", False),
    ("year", "integer", False),  # 24 is 2024
    ("bigint", "text", False),
]


def test_key_is_exact_mariadb(maria_db: Db) -> None:
    maria_db.execute(
        *(f"CREATE TABLE t{i} (k {typ} PRIMARY KEY, v text)" for i, (typ, _, _) in
          enumerate(MARIA_KEYS)),
    )  # fmt: skip
    got = [
        _exact("mariadb", maria_db.url, TableName(name=f"t{i}"), src, "postgres")
        for i, (_, src, _) in enumerate(MARIA_KEYS)
    ]
    assert list(zip(MARIA_KEYS, got, strict=True)) == [(k, k[2]) for k in MARIA_KEYS]


SQLITE_KEYS = [
    ("INTEGER PRIMARY KEY", "INTEGER", True),  # the rowid
    ("BIGINT PRIMARY KEY", "INTEGER", True),
    ("TEXT PRIMARY KEY", "TEXT", True),
    ("TEXT COLLATE NOCASE PRIMARY KEY", "TEXT", False),
    ("TEXT COLLATE RTRIM PRIMARY KEY", "TEXT", False),
    ("TEXT UNIQUE COLLATE NOCASE", "TEXT", False),  # the unique index compares NOCASE
    ("REAL PRIMARY KEY", "REAL", False),
    ("NUMERIC PRIMARY KEY", "NUMERIC", False),
    ("TEXT", "TEXT", False),  # no unique index: the key's collation unread
    ("INTEGER PRIMARY KEY", "TEXT", False),
]


@pytest.fixture
def lite(tmp_path: Path) -> Iterator[Db]:
    yield from make_sqlite(tmp_path)


def test_key_is_exact_sqlite(lite: Db) -> None:
    lite.execute(
        *(f"CREATE TABLE t{i} (k {typ}, v TEXT)" for i, (typ, _, _) in enumerate(SQLITE_KEYS))
    )
    got = [
        _exact("sqlite", lite.url, TableName(name=f"t{i}"), src, "sqlite")
        for i, (_, src, _) in enumerate(SQLITE_KEYS)
    ]
    assert list(zip(SQLITE_KEYS, got, strict=True)) == [(k, k[2]) for k in SQLITE_KEYS]


@pytest.fixture
def two_pg() -> Iterator[tuple[Db, Db]]:
    from tests.conftest import make_pg

    gens = [make_pg(), make_pg()]
    made = [next(g) for g in gens]
    yield made[0], made[1]
    for g in gens:
        next(g, None)


SPARE_OR_COARSE = {
    "delete_spare", "typed_delete_spare", "coarse_keys", "typed_coarse_keys",
}  # fmt: skip


@pytest.mark.parametrize("typed", [True, False], ids=["typed", "json-text"])
def test_a_round_spares_and_checks_only_keys_not_exact(
    two_pg: tuple[Db, Db], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: bool
) -> None:
    """A text key (a table syncpoint creates) and a citext key (made at the target), the
    same changes: the round's statements for the text key are the plain delete, no
    coarse-key check and an upsert that leaves the key as it is; the citext key's delete
    spares, its upserts are checked and set the key (the source's text). Both targets end
    equal to the source (citext: by text, the source's)."""
    from syncpoint.vendors.postgres import round_direct
    from syncpoint.vendors.postgres.integrate import PostgresIntegrate

    src, dst = two_pg
    src.execute(
        "CREATE TABLE tk (k text PRIMARY KEY, v text)",
        "CREATE TABLE ck (k text PRIMARY KEY, v text)",
    )
    dst.execute(
        "CREATE EXTENSION IF NOT EXISTS citext", "CREATE TABLE ck (k citext PRIMARY KEY, v text)"
    )
    data = {
        "channel": "kx",
        "application": "kx",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": f"public.{t}", "snapshot": "none"} for t in ("tk", "ck")],
        "spark": {"driver_round_max": 0},
    }
    (tmp_path / "kx.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "kx.yaml")
    ch.install()
    ran: list[tuple[str, str | None]] = []
    sets: dict[str | None, str] = {}  # the upsert's ON CONFLICT action, by table
    run = PostgresIntegrate.run

    def spy(self: Any, conn: Any, name: str, params: Any = (), table: str | None = None,
            **raw: str) -> Any:  # fmt: skip
        ran.append((name, table or raw.get("table")))
        if "on_conflict" in raw:
            sets[table or raw["table"]] = raw["on_conflict"]
        return run(self, conn, name, params, table, **raw)

    monkeypatch.setattr(PostgresIntegrate, "run", spy)
    if not typed:
        monkeypatch.setattr(round_direct, "typed_stage", lambda *a, **k: None)
    for t in ("tk", "ck"):
        src.execute(f"INSERT INTO {t} SELECT 'k' || g, 'v' || g FROM generate_series(1, 20) g")
    assert ch.run(once=True).changes == 40
    ran.clear()
    for t in ("tk", "ck"):
        src.execute(
            f"UPDATE {t} SET v = 'changed' WHERE k IN ('k1', 'k2')",
            f"DELETE FROM {t} WHERE k IN ('k3', 'k4')",
            f"INSERT INTO {t} VALUES ('k21', 'new')",
        )
    report = ch.run(once=True)
    assert report.changes == 10, report.rounds
    assert all(r["direct"] and bool(r["typed"]) == typed for r in report.rounds if r["changes"])
    by_table: dict[str, set[str]] = {"public.tk": set(), "public.ck": set()}
    for name, table in ran:
        if table in by_table:
            by_table[table].add(name)
    assert not by_table["public.tk"] & SPARE_OR_COARSE, by_table
    spare = {"typed_delete_spare", "typed_coarse_keys"} if typed else {"delete_spare",
                                                                        "coarse_keys"}  # fmt: skip
    assert spare <= by_table["public.ck"], by_table
    # the upsert sets the citext key (the row takes the source's text), not the text key
    key_set = re.compile(r'(^|[ ,])"?k"? = EXCLUDED\."?k"?')
    assert key_set.search(sets["public.ck"]) and not key_set.search(sets["public.tk"]), sets
    for t in ("tk", "ck"):
        q = f"SELECT k::text, v FROM {t} ORDER BY 1"
        assert dst.query(q) == src.query(q), t


def test_one_instant_in_two_session_time_zones_is_one_key(
    two_pg: tuple[Db, Db], tmp_path: Path
) -> None:
    """A timestamptz key (not exact: its delete spares what the window upserts) written by
    sessions of different TimeZone settings: trigger capture pins the text of every
    timestamptz to UTC, so the update from one session and the delete from another are
    one key's changes, netted into the delete; were they two texts, the delete would spare
    the row the update upserts and the target would keep a row the source deleted."""
    src, dst = two_pg
    src.execute("CREATE TABLE tz (k timestamptz PRIMARY KEY, v text)")
    data = {
        "channel": "tz",
        "application": "tz",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.tz", "snapshot": "none"}],
        "spark": {"driver_round_max": 0},
    }
    (tmp_path / "tz.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "tz.yaml")
    ch.install()
    src.execute(
        "SET TimeZone = 'Asia/Tokyo'",
        "INSERT INTO tz VALUES ('2024-01-01 09:00:00+09', 'a'), ('2024-01-02 00:00:00+00', 'b')",
    )
    ch.run(once=True)
    assert dst.query("SELECT count(*) FROM tz") == [(2,)]
    src.execute(
        "SET TimeZone = 'America/New_York'",
        "UPDATE tz SET v = 'changed' WHERE k = '2024-01-01 00:00:00+00'",
        "UPDATE tz SET v = 'kept' WHERE k = '2024-01-02 00:00:00+00'",
    )
    src.execute("SET TimeZone = 'Asia/Tokyo'", "DELETE FROM tz WHERE v = 'changed'")
    ch.run(once=True)
    q = "SELECT k, v FROM tz ORDER BY 1"
    assert dst.query(q) == src.query(q)
    assert len(src.query(q)) == 1
