"""``python -m syncpoint`` and ``spark-submit .../syncpoint/__main__.py run --once``: the
launcher's ``--master`` wins over the channel's ``spark.master``, and sqlite-jdbc's native
library is found without the launcher being told where it is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import syncpoint
from syncpoint.vendors.sqlite.dialect import JNI_LIBRARY, jni_dir
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql


def test_python_dash_m_syncpoint_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "syncpoint", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "validate" in done.stdout


def test_the_sqlite_jni_folder_is_found_for_this_machine() -> None:
    found = jni_dir()
    assert found is not None and os.path.exists(os.path.join(found, JNI_LIBRARY))


@pytest.mark.long(70)
@pytest.mark.slow
def test_spark_submit_master_wins_and_run_once_applies(sqlite_db: Any, tmp_path: Path) -> None:
    import pyspark

    from tests.conftest import make_sqlite

    gen = make_sqlite(tmp_path)
    dst = next(gen)
    rk.setup_source(sqlite_db)
    path = rk.write_config(tmp_path / "sp.yaml", {"src": sqlite_db}, dst)
    data = yaml.safe_load(path.read_text())
    # the launcher's local[2] must win; the round goes through Spark however small
    data["spark"] = {"master": "local[1]", "driver_round_max": 0}
    data["tables"] = [{"name": n, "snapshot": "none"} for n in ("parent", "child")]
    path.write_text(yaml.safe_dump(data))
    assert rk.syncpoint(path, "install").returncode == 0
    sql(sqlite_db, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
    env = dict(os.environ)
    env["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    env["PYSPARK_PYTHON"] = sys.executable
    src_dir = str(Path(syncpoint.__file__).parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src_dir, env.get("PYTHONPATH")]))
    submit = str(Path(sys.executable).with_name("spark-submit"))
    main = str(Path(syncpoint.__file__).with_name("__main__.py"))
    done = subprocess.run(
        [submit, "--master", "local[2]", "--jars", "/usr/share/java/sqlite-jdbc.jar", main,
         "-c", str(path), "run", "--once", "--json"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["spark_master"] == "local[2]" and report["changes"] == 1
    assert dst.query("SELECT id, name FROM parent") == [(1, "a")]
    next(gen, None)
