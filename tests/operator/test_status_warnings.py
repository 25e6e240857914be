"""``status`` warnings and the JSON Schema of ``status --json``: a stopped table, a gate held
in a Loading state, a location not integrated, a queue past its threshold; in text and JSON,
and the document valid against ``syncpoint/observe/status.schema.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import syncpoint
from syncpoint.cli.status import collect
from syncpoint.errors import TableStopped
from syncpoint.observe.warnings import KINDS
from syncpoint.ops.channel import Channel
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

SCHEMA = json.loads(
    (Path(syncpoint.__file__).parent / "observe" / "status.schema.json").read_text("utf-8")
)


def validate(doc: Any) -> None:
    jsonschema.validate(json.loads(json.dumps(doc, default=str)), SCHEMA)


@pytest.fixture
def pair(tmp_path: Path) -> Any:
    """A PostgreSQL source (it can drop a column under its triggers) and a SQLite target."""
    from tests.conftest import make_pg, make_sqlite

    gens = [make_pg(), make_sqlite(tmp_path)]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def kinds(doc: dict[str, Any]) -> list[tuple[str, str | None]]:
    return sorted((w["kind"], w["subject"]) for w in doc["warnings"])


@pytest.mark.spark
def test_each_warning_appears_in_text_and_json_and_follows_the_schema(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    rk.setup_source(src)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    ch = Channel.from_file(cfg)
    ch.install()
    # before any round: every source is not integrated yet, nothing else is wrong
    doc = collect(ch)
    validate(doc)
    assert kinds(doc) == [("not_integrated", "src")]
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    ch.run(once=True, spark=spark)
    doc = collect(ch)
    validate(doc)
    assert doc["warnings"] == []  # integrated just now, queue small, no gate, nothing stopped

    # low thresholds: the queue (2 records) and the stamp's age count now
    rk.write_config(
        cfg,
        {"src": src},
        dst,
        extra={"warnings": {"not_integrated_s": 0.001, "gate_loading_s": 0.001, "queue_rows": 1}},
    )
    ch = Channel.from_file(cfg)
    # a producer turn that fails leaves its gate in OperationalSysLoading
    with pytest.raises(RuntimeError):
        with syncpoint.gate(dst.url, "nightly", role="producer"):
            raise RuntimeError("the extract failed")
    # a destructive DDL event stops the table's rounds
    sql(src, "ALTER TABLE child DROP COLUMN note")
    sql(src, "INSERT INTO child (id, parent_id, qty, ver) VALUES (10, 1, 1, 'c1')")
    with pytest.raises(TableStopped):
        ch.run(once=True, spark=spark)
    doc = collect(ch)
    validate(doc)
    assert kinds(doc) == [
        ("gate_stuck", "nightly"),
        ("not_integrated", "src"),
        ("queue_growing", None),
        ("table_stopped", "public.child"),
    ]
    by_kind = {w["kind"]: w for w in doc["warnings"]}
    assert "DROP COLUMN note" in by_kind["table_stopped"]["message"]
    # the other table of its sync group waits for it, and says why (its lag grows)
    rows = {t["table"]: t for t in doc["integrate"]["cen"]["tables"]}
    assert rows["public.parent"]["held"] == "its sync group g waits for stopped public.child"
    assert "held" not in rows["public.child"]
    assert "gate reset" in by_kind["gate_stuck"]["message"]
    assert by_kind["queue_growing"]["value"] >= 3 and by_kind["queue_growing"]["threshold"] == 1
    assert set(by_kind) <= set(KINDS)

    # the command line: the same warnings in JSON (valid) and as text lines
    done = rk.syncpoint(cfg, "status", "--json")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    validate(printed)
    assert kinds(printed) == kinds(doc)
    text = rk.syncpoint(cfg, "status")
    warned = [ln for ln in text.stdout.splitlines() if ln.startswith("warning: ")]
    assert len(warned) == 4, text.stdout
    assert any("gate nightly has been OperationalSysLoading" in ln for ln in warned)
    assert "  held: src public.parent: its sync group g waits for stopped" in text.stdout


def test_an_unreachable_location_is_a_warning_and_the_schema_holds(tmp_path: Path) -> None:
    cfg = tmp_path / "sp.yaml"
    cfg.write_text(
        "channel: shop\n"
        "locations:\n"
        "  src: {url: 'postgresql://nobody@127.0.0.1:1/none', capture: true, integrate: true}\n"
        f"  cen: {{url: 'sqlite:///{tmp_path}/cen.db', capture: true, integrate: true}}\n"
        "tables: [{name: public.t}]\n",
        encoding="utf-8",
    )
    doc = collect(Channel.from_file(cfg))
    validate(doc)
    assert ("unreachable", None) in kinds(doc)
    assert all(w["kind"] in KINDS for w in doc["warnings"])
    # src fails every part of its status (capture, integrate, stamps, gates, conflicts...)
    # for one reason: said once, not once per part
    said = [w["location"] for w in doc["warnings"] if w["kind"] == "unreachable"]
    assert "src" in said and said.count("src") == 1, doc["warnings"]
    text = rk.syncpoint(cfg, "status")
    lines = text.stdout.splitlines()
    assert sum(ln.startswith("src: ") and "cannot connect" in ln for ln in lines) == 1, lines
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**json.loads(json.dumps(doc, default=str)), "warnings": [{}]}, SCHEMA)
