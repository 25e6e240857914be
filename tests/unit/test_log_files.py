"""Spark's log: one file per process in the default folder (a follower's log is not mixed
with the commands run beside it), the folder keeping the newest files only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from syncpoint.cli import common

WHERE = "from syncpoint.cli.common import spark_log_file; print(spark_log_file())"


def test_each_process_has_its_own_log_file(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    env.pop("SYNCPOINT_LOG_FILE", None)
    files = {
        subprocess.run(
            [sys.executable, "-c", WHERE], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(files) == 2
    assert all(f.startswith(str(tmp_path / "syncpoint" / "spark-")) for f in files), files


def test_the_default_folder_keeps_the_newest_logs(tmp_path: Path) -> None:
    for i in range(common.KEEP_LOGS + 5):
        f = tmp_path / f"spark-{1000 + i}.log"
        f.write_text("x")
        os.utime(f, (time.time() - 1000 + i, time.time() - 1000 + i))
    (tmp_path / "other.log").write_text("mine")
    common._prune_logs(str(tmp_path))
    left = sorted(p.name for p in tmp_path.glob("spark-*.log"))
    assert len(left) == common.KEEP_LOGS and left[0] == "spark-1005.log"
    assert (tmp_path / "other.log").exists()
