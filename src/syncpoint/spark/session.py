"""The SparkSession from the channel's ``spark:`` settings (master, jars, packages, conf).

The JDBC driver jars and the Java properties they need are given by the caller (the
vendors' dialects say which), unless the config names jars; local Python workers run this
interpreter; under spark-submit the launcher's
settings win; the JVM's own output is kept off stdout while it starts
(``send_jvm_output_to``). Why: docs/internals.md, "The Spark session".
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from syncpoint.config import SparkConfig


def launched_by_spark_submit() -> bool:
    """spark-submit starts the JVM first and hands the Python process its gateway."""
    return bool(os.environ.get("PYSPARK_GATEWAY_PORT"))


_session: Any = None
_output: dict[str, Any] = {"log_file": None, "verbose": False}


def send_jvm_output_to(log_file: str | None, verbose: bool = False) -> None:
    """Where the JVM started by ``get_session`` writes: ``log_file`` (appended), or with
    ``verbose`` the terminal's stderr (never stdout). Call before the first session."""
    _output.update(log_file=log_file, verbose=verbose)


@contextmanager
def _jvm_fds() -> Iterator[None]:
    """Point fds 1 and 2 at the log file (or fd 1 at stderr) while the JVM is launched."""
    log_file, verbose = _output["log_file"], _output["verbose"]
    if log_file is None and not verbose:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = (os.dup(1), os.dup(2))
    target = None
    try:
        if verbose:
            os.dup2(2, 1)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(log_file)), exist_ok=True)
            target = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(target, 1)
            os.dup2(target, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, target):
            if fd is not None:
                os.close(fd)


def get_session(
    cfg: SparkConfig,
    jars: Sequence[str] = (),
    java_properties: Mapping[str, str] | None = None,
) -> Any:
    """One SparkSession per process: the first call builds it, later calls reuse it.
    ``jars``: the JDBC drivers, unless the config names its own; ``java_properties``: Java
    system properties the drivers need (``syncpoint.ops.session`` passes the vendors')."""
    global _session
    if _session is not None:
        return _session
    from pyspark.sql import SparkSession

    jars = list(cfg.jars) if cfg.jars is not None else list(jars)
    props = dict(java_properties or {})
    submitted = launched_by_spark_submit()
    if not submitted and cfg.master.startswith("local"):
        # Python workers run syncpoint's own functions (verify, snapshot): they must be this
        # interpreter, the one syncpoint is installed in, not whatever ``python3`` PATH finds
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    b = SparkSession.builder
    if not submitted:  # spark-submit's --master (or its default) stands
        b = b.master(cfg.master)
    b = (
        b.appName("syncpoint")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "8")
        # stage bars overwrite each other and syncpoint's own lines
        .config("spark.ui.showConsoleProgress", "false")
    )
    conf = dict(cfg.conf)
    if props:
        opts = " ".join(f"-D{k}={v}" for k, v in props.items())
        for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
            # the user's own JVM options are kept: the drivers' properties join them
            conf[key] = f"{conf[key]} {opts}" if conf.get(key) else opts
    if jars:
        b = b.config("spark.jars", ",".join(jars))
    if cfg.packages:
        b = b.config("spark.jars.packages", ",".join(cfg.packages))
    for k, v in conf.items():
        b = b.config(k, v)
    with _jvm_fds():
        _session = b.getOrCreate()
    if props and submitted:
        # the driver JVM was started by spark-submit, without the options above: a driver
        # reads its properties when it first loads (no connection has been made yet)
        system = _session.sparkContext._jvm.java.lang.System
        for k, v in props.items():
            system.setProperty(k, v)
    # a log file (or --verbose) can afford Spark's warnings; an unredirected caller only errors
    chosen = _output["log_file"] is not None or _output["verbose"]
    _session.sparkContext.setLogLevel("WARN" if chosen else "ERROR")
    return _session


def active_master() -> str | None:
    """The master of the session this process started, if it started one."""
    return str(_session.sparkContext.master) if _session is not None else None


def stop_session() -> None:
    global _session
    if _session is not None:
        _session.stop()
        _session = None
