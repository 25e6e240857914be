"""The SparkSession from the channel's ``spark:`` settings (master, jars, packages, conf).

Debian's JDBC driver jars are used unless the config names others. Debian's sqlite-jdbc
keeps its native library outside the jar, hence the ``java.library.path`` option.
"""

from __future__ import annotations

import os
from typing import Any

from syncpoint.config import SparkConfig

DEBIAN_JARS = (
    "/usr/share/java/postgresql.jar",
    "/usr/share/java/mariadb-java-client.jar",
    "/usr/share/java/sqlite-jdbc.jar",
)
JNI_DIR = "/usr/lib/x86_64-linux-gnu/jni"

_session: Any = None


def get_session(cfg: SparkConfig) -> Any:
    """One SparkSession per process: the first call builds it, later calls reuse it."""
    global _session
    if _session is not None:
        return _session
    from pyspark.sql import SparkSession

    jars = cfg.jars if cfg.jars is not None else [j for j in DEBIAN_JARS if os.path.exists(j)]
    b = (
        SparkSession.builder.master(cfg.master)
        .appName("syncpoint")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", f"-Djava.library.path={JNI_DIR}")
        .config("spark.executor.extraJavaOptions", f"-Djava.library.path={JNI_DIR}")
        .config("spark.sql.shuffle.partitions", "8")
    )
    if jars:
        b = b.config("spark.jars", ",".join(jars))
    if cfg.packages:
        b = b.config("spark.jars.packages", ",".join(cfg.packages))
    for k, v in cfg.conf.items():
        b = b.config(k, v)
    _session = b.getOrCreate()
    _session.sparkContext.setLogLevel("ERROR")
    return _session


def stop_session() -> None:
    global _session
    if _session is not None:
        _session.stop()
        _session = None
