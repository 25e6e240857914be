"""Quiet output: a round's stdout holds syncpoint's own lines only, Spark's and the JVM's
log goes to the log file (``--verbose``: stderr), and ``--json`` output is one JSON
document and nothing else, with or without ``--verbose``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark

SPARK_NOISE = re.compile(r"log4j|WARN |NativeCodeLoader|incubator|\[Stage |SparkContext|Utils:")
OUR_LINE = re.compile(
    r"^cen: group g: 2 tables, \d+ changes read, \d+ rows applied in [\d.]+ s"
    r"(, [\d,.e+-]+ changes/s)?, sync points src@\d+$"
)


@pytest.fixture
def pair(tmp_path: Path) -> Any:
    from tests.conftest import make_sqlite

    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


@pytest.mark.long(55)
def test_a_round_prints_its_own_lines_and_spark_logs_to_the_file(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    # rounds this small are netted by run itself: this test is about Spark's output
    spark = {"master": "local[2]", "driver_round_max": 0}
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst, extra={"spark": spark})
    assert rk.syncpoint(cfg, "install").returncode == 0
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    log = tmp_path / "logs" / "spark.log"
    done = rk.syncpoint(cfg, "run", "--once", env={"SYNCPOINT_LOG_FILE": str(log)})
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines and all(OUR_LINE.match(ln) for ln in lines), done.stdout
    assert "2 changes read, 2 rows applied" in done.stdout
    assert not SPARK_NOISE.search(done.stdout + done.stderr), done.stderr
    assert done.stderr.strip() == f"Spark's log: {log}"
    assert SPARK_NOISE.search(log.read_text(errors="replace"))  # the JVM wrote there

    # --json: one document on stdout; --verbose: Spark's log on stderr, never on stdout
    sql(src, "INSERT INTO child (id, parent_id, ver) VALUES (10, 1, 'c1')")
    done = rk.syncpoint(cfg, "--verbose", "run", "--once", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["changes"] == 1 and report["rounds"][0]["seconds"] >= 0
    assert SPARK_NOISE.search(done.stderr)
    assert rk.same(src, dst)[0]
