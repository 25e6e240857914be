"""The SparkSession from the channel's ``spark:`` settings (master, jars, packages, conf).

Debian's JDBC jars unless the config names others (sqlite-jdbc's native library found by
``jni_dir``); local Python workers run this interpreter; under spark-submit the launcher's
settings win; the JVM's own output is kept off stdout while it starts
(``send_jvm_output_to``). Why: docs/internals.md, "The Spark session".
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint.config import SparkConfig

DEBIAN_JARS = (
    "/usr/share/java/postgresql.jar",
    "/usr/share/java/mariadb-java-client.jar",
    "/usr/share/java/sqlite-jdbc.jar",
)
SQLITE_JNI = "libsqlitejdbc.so"


def jni_dir() -> str | None:
    """The folder holding sqlite-jdbc's native library: this machine's multiarch JNI folder
    first (``/usr/lib/<multiarch>/jni``), then any other Debian JNI folder that has it."""
    import glob
    import sysconfig

    arch = sysconfig.get_config_var("MULTIARCH")
    candidates = [f"/usr/lib/{arch}/jni"] if arch else []
    candidates += sorted(os.path.dirname(p) for p in glob.glob(f"/usr/lib/*/jni/{SQLITE_JNI}"))
    candidates.append("/usr/lib/jni")
    for d in candidates:
        if os.path.exists(os.path.join(d, SQLITE_JNI)):
            return d
    return None


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


def get_session(cfg: SparkConfig) -> Any:
    """One SparkSession per process: the first call builds it, later calls reuse it."""
    global _session
    if _session is not None:
        return _session
    from pyspark.sql import SparkSession

    jars = cfg.jars if cfg.jars is not None else [j for j in DEBIAN_JARS if os.path.exists(j)]
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
    jni = jni_dir()
    if jni:
        opts = (
            f"-Djava.library.path={jni} -Dorg.sqlite.lib.path={jni} "
            f"-Dorg.sqlite.lib.name={SQLITE_JNI}"
        )
        b = b.config("spark.driver.extraJavaOptions", opts)
        b = b.config("spark.executor.extraJavaOptions", opts)
    if jars:
        b = b.config("spark.jars", ",".join(jars))
    if cfg.packages:
        b = b.config("spark.jars.packages", ",".join(cfg.packages))
    for k, v in cfg.conf.items():
        b = b.config(k, v)
    with _jvm_fds():
        _session = b.getOrCreate()
    if jni and submitted:
        # the driver JVM was started by spark-submit, without the options above: sqlite-jdbc
        # reads these when it first loads (no SQLite connection has been made yet)
        system = _session.sparkContext._jvm.java.lang.System
        system.setProperty("org.sqlite.lib.path", jni)
        system.setProperty("org.sqlite.lib.name", SQLITE_JNI)
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
