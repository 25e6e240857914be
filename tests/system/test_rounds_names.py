"""Hostile names through rounds (docs/guarantees.md §7): a table and columns named with quotes,
backticks, semicolons, dots, spaces, mixed case and reserved words replicate exactly
between every pair of vendors, and nothing else in the target is touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite

pytestmark = pytest.mark.spark
VENDORS = ["postgres", "mariadb", "sqlite"]
PAIRS = [(a, b) for a in VENDORS for b in VENDORS]
TABLE = 'Ord"er; select'
COLS = ["select", 'a"b', "x.y", "MixedCase", "sp ace", "back`tick"]


def q(vendor: str, name: str) -> str:
    if vendor == "mariadb":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def create(db: Any) -> None:
    v = db.vendor
    typ = {"postgres": "integer", "mariadb": "int", "sqlite": "INTEGER"}[v]
    txt = {"postgres": "text", "mariadb": "text", "sqlite": "TEXT"}[v]
    cols = [f"{q(v, COLS[0])} {typ} PRIMARY KEY"] + [f"{q(v, c)} {txt}" for c in COLS[1:]]
    db.execute(f"CREATE TABLE {q(v, TABLE)} ({', '.join(cols)})")
    db.execute(f"CREATE TABLE canary ({q(v, 'id')} {typ})")


def write(db: Any, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
    conn = db.connect(autocommit=db.vendor == "sqlite")
    cur = conn.cursor()
    for s, params in statements:
        cur.execute(s.replace("%s", "?") if db.vendor == "sqlite" else s, params)
    conn.commit()
    conn.close()


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    mk = {"postgres": make_pg, "mariadb": make_mariadb}
    gens = [mk[v]() if v in mk else make_sqlite(tmp_path) for v in request.param]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


@pytest.mark.parametrize("pair", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_hostile_names_replicate_exactly(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    create(src)
    dst.execute(
        {
            "postgres": "CREATE TABLE canary (id integer)",
            "mariadb": "CREATE TABLE canary (id int)",
            "sqlite": "CREATE TABLE canary (id INTEGER)",
        }[dst.vendor]
    )
    quoted = '"' + TABLE.replace('"', '""') + '"'
    name = f"public.{quoted}" if src.vendor == "postgres" else quoted
    data = {
        "channel": "names",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": name, "snapshot": "none"}],
    }
    (tmp_path / "n.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "n.yaml")
    ch.install()
    v = src.vendor
    cols = ", ".join(q(v, c) for c in COLS)
    ins = f"INSERT INTO {q(v, TABLE)} ({cols}) VALUES (%s, %s, %s, %s, %s, %s)"
    write(
        src,
        [
            (ins, (1, "it's", 'say "hi"', "a.b", "Mixed", "`tick`")),
            (ins, (2, "two", None, ";", "--", "DROP TABLE canary")),
            (f"UPDATE {q(v, TABLE)} SET {q(v, 'x.y')} = %s WHERE {q(v, 'select')} = %s", ("z", 1)),
            (f"DELETE FROM {q(v, TABLE)} WHERE {q(v, 'select')} = %s", (2,)),
        ],
    )
    ch.run(once=True, spark=spark)
    w = dst.vendor
    got = dst.query(f"SELECT {', '.join(q(w, c) for c in COLS)} FROM {q(w, TABLE)}")
    assert got == [(1, "it's", "z", "a.b", "Mixed", "`tick`")]
    assert dst.query("SELECT count(*) FROM canary") == [(0,)]
