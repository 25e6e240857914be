"""``uninstall`` on every vendor: after install, a round (control tables, staging, receive
stamps at the integrate location) and the gate table, the whole catalog of the capture and
the integrate location is what it was before install; another prefix's objects stay;
``--keep-positions`` keeps exactly positions, sync points and stamps; ``plan --uninstall``
shows the drops and changes nothing."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from syncpoint.ops.gate import gate
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark

CATALOG = {
    "postgres": [
        "SELECT c.relkind::text, c.relname::text FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', "
        "'information_schema', 'pg_toast')",
        "SELECT 'fn', p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')",
        "SELECT 'tg', tgname::text FROM pg_trigger WHERE NOT tgisinternal",
        "SELECT 'et', evtname::text FROM pg_event_trigger",
        "SELECT 'ty', t.typname::text FROM pg_type t JOIN pg_namespace n "
        "ON n.oid = t.typnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')",
    ],
    "mariadb": [
        "SELECT table_type, table_name FROM information_schema.tables "
        "WHERE table_schema = DATABASE()",
        "SELECT routine_type, routine_name FROM information_schema.routines "
        "WHERE routine_schema = DATABASE()",
        "SELECT 'tg', trigger_name FROM information_schema.triggers "
        "WHERE trigger_schema = DATABASE()",
        "SELECT table_name, index_name FROM information_schema.statistics "
        "WHERE table_schema = DATABASE()",
    ],
    "sqlite": ["SELECT type, name FROM sqlite_master WHERE name <> 'sqlite_sequence'"],
}


def catalog(db: Any) -> set[tuple[str, str]]:
    return {(str(a), str(b)) for q in CATALOG[db.vendor] for a, b in db.query(q)}


def make(vendor: str, tmp: Path) -> Any:
    return {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor, lambda: make_sqlite(tmp))()


def config(path: Path, src: Any, dst: Any, prefix: str) -> Path:
    rk.write_config(path, {"src": src}, dst, extra={"prefix": prefix})
    return path


@pytest.mark.long(40, **{"postgres": 75})
@pytest.mark.parametrize("vendor", ["postgres", "mariadb", "sqlite"])
def test_uninstall_restores_both_catalogs(vendor: str, tmp_path: Path, spark: Any) -> None:
    gens = [make(vendor, tmp_path), make(vendor, tmp_path)]
    src, dst = (next(g) for g in gens)
    try:
        rk.setup_source(src)
        rk.setup_target(dst, audit=False)
        # another channel's prefix at both locations: never touched
        other = Channel.from_file(config(tmp_path / "other.yaml", src, dst, "other_"))
        other.install()
        with gate(dst.url, "g1", prefix="other_"):
            pass
        before = {"src": catalog(src), "dst": catalog(dst)}
        assert any("other_" in n for _, n in before["dst"])

        cfg = config(tmp_path / "syncpoint.yaml", src, dst, "repl_")
        ch = Channel.from_file(cfg)
        ch.install()
        sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
        ch.run(once=True, spark=spark)
        with gate(dst.url, "g1", prefix="repl_"):
            pass
        if vendor == "postgres":
            # a snapshot killed after a chunk was staged leaves its typed staging behind
            r = rk.syncpoint(
                cfg,
                "snapshot",
                # through Spark's direct path (a table this small is otherwise copied by the
                # driver, which stages nothing typed)
                env={
                    "SYNCPOINT_FAILPOINT": "snapshot_after_stage",
                    "SYNCPOINT_SNAPSHOT_DRIVER_ROWS": "0",
                },
                timeout=600,
            )
            assert r.returncode == -signal.SIGKILL, r.stderr
            assert any(n.startswith("repl_snapstage_") for _, n in catalog(dst))
        installed = {"src": catalog(src), "dst": catalog(dst)}
        made = installed["dst"] - before["dst"]
        for name in (
            "repl_stream_positions",
            "repl_sync_points",
            "repl_table_stops",
            "repl_staging",
            "repl_stin_shop_cen",
            "repl_stin_detail",
            "repl_load_state",
        ):
            assert any(n == name for _, n in made), name

        # plan --uninstall shows the drops and changes nothing
        r = rk.syncpoint(cfg, "plan", "--uninstall", "--json")
        assert r.returncode == 0, r.stderr
        plan = json.loads(r.stdout)
        assert any("repl_stream_positions" in s for s in plan["cen"])
        assert any("repl_items" in s for s in plan["src"])
        assert not any("other_" in s for ss in plan.values() for s in ss)
        assert {"src": catalog(src), "dst": catalog(dst)} == installed

        # --keep-positions keeps positions, sync points and stamps, nothing else
        r = rk.syncpoint(cfg, "uninstall", "--keep-positions")
        assert r.returncode == 0, r.stderr
        assert catalog(src) == before["src"]
        kept = catalog(dst) - before["dst"]
        want = {
            "repl_stream_positions",
            "repl_sync_points",
            "repl_stin_shop_cen",
            "repl_stin_detail",
        }
        assert want <= {n for _, n in kept}
        # and only what belongs to them (their indexes, row types, MariaDB's index rows)
        assert all(any(w in a or w in b for w in want) for a, b in kept), kept

        r = rk.syncpoint(cfg, "uninstall")
        assert r.returncode == 0, r.stderr
        assert {"src": catalog(src), "dst": catalog(dst)} == before
        r = rk.syncpoint(cfg, "uninstall")  # idempotent
        assert r.returncode == 0, r.stderr
        assert {"src": catalog(src), "dst": catalog(dst)} == before
    finally:
        for g in gens:
            next(g, None)
