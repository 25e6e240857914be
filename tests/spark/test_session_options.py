"""The channel's own ``spark.driver.extraJavaOptions`` reach the driver JVM together with the
Java properties the JDBC drivers need (neither replaces the other)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.spark

PROBE = textwrap.dedent(
    """
    import json
    from syncpoint import vendors
    from syncpoint.config import SparkConfig
    from syncpoint.ops.session import get_session

    cfg = SparkConfig(
        master="local[1]",
        conf={"spark.driver.extraJavaOptions": "-Dsyncpoint.probe=kept"},
    )
    s = get_session(cfg)
    system = s.sparkContext._jvm.java.lang.System
    _, props = vendors.jvm_setup()
    print(json.dumps({
        "probe": system.getProperty("syncpoint.probe"),
        "drivers": {k: system.getProperty(k) for k in props},
        "wanted": dict(props),
    }))
    """
)


def test_user_jvm_options_and_driver_properties_both_reach_the_driver() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["probe"] == "kept"
    assert got["drivers"] == got["wanted"]
