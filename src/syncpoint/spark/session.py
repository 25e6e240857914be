"""The SparkSession from the channel's ``spark:`` settings (master, jars, packages, conf).

The JDBC driver jars and the Java properties they need are given by the caller (the
vendors' dialects say which), unless the config names jars; local Python workers run this
interpreter; under spark-submit the launcher's settings win; the JVM's own output is kept off
stdout (``send_jvm_output_to``); the session may start in a thread while the caller reads
(``prestart``). Why: docs/internals.md, "The Spark session".
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from syncpoint.config import SparkConfig
from syncpoint.spark.classcache import ClassCache


def launched_by_spark_submit() -> bool:
    """spark-submit starts the JVM first and hands the Python process its gateway."""
    return bool(os.environ.get("PYSPARK_GATEWAY_PORT"))


_session: Any = None
_output: dict[str, Any] = {"log_file": None, "verbose": False, "said": None}


def send_jvm_output_to(log_file: str | None, verbose: bool = False) -> None:
    """Where the JVM started by ``get_session`` writes: ``log_file`` (appended), or with
    ``verbose`` the terminal's stderr (never stdout). Call before the first session."""
    _output.update(log_file=log_file, verbose=verbose)


def on_jvm_output(say: Any) -> None:
    """``say(path)`` is called once, when a JVM first writes to the log file."""
    _output["said"] = say


@contextmanager
def _jvm_output() -> Iterator[dict[str, Any]]:
    """Popen's stdout/stderr for the JVM: the log file (appended), or with ``verbose`` the
    terminal's stderr; nothing (inherited) otherwise. Given to the JVM's process alone, so
    that a session started by a thread takes no output of the process's other threads."""
    log_file, verbose = _output["log_file"], _output["verbose"]
    if verbose:
        yield {"stdout": sys.stderr.fileno()}
        return
    if log_file is None:
        yield {}
        return
    os.makedirs(os.path.dirname(os.path.abspath(log_file)), exist_ok=True)
    fd = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    say, _output["said"] = _output["said"], None
    if say is not None:
        say(log_file)
    try:
        yield {"stdout": fd, "stderr": fd}
    finally:
        os.close(fd)


def _launch(options: dict[str, str], class_cache: bool) -> None:
    """Start the driver JVM with the session's options (those a running JVM cannot take,
    such as its Java options, included) and its output where ``send_jvm_output_to`` said;
    with ``class_cache``, with the class archive of ``classcache``."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:  # type: ignore[attr-defined]
        return
    cache = ClassCache.of(options) if class_cache else None
    launch = dict(options)
    if cache is not None:
        _add_java_options(launch, "spark.driver.extraJavaOptions", cache.java_options())
    conf = SparkConf(loadDefaults=False).setAll(list(launch.items()))
    try:
        with _jvm_output() as popen_kwargs:
            gateway = launch_gateway(conf, popen_kwargs=popen_kwargs)
    except BaseException:
        if cache is not None:
            cache.abandon()
        raise
    if cache is not None:
        cache.launched(gateway.proc)
    SparkContext._ensure_initialized(gateway=gateway)  # type: ignore[attr-defined]


def _add_java_options(options: dict[str, str], key: str, extra: str) -> None:
    """Join ``extra`` to the JVM options under ``key``: the user's own are kept."""
    if extra:
        options[key] = f"{options[key]} {extra}" if options.get(key) else extra


_lock = threading.Lock()
_prestart: threading.Thread | None = None


def prestart(
    cfg: SparkConfig, jars: Sequence[str] = (), java_properties: Mapping[str, str] | None = None
) -> None:
    """Start the session in a thread, so that the JVM starts while the caller goes on
    reading; ``get_session`` then waits for it (or, had it failed, starts it itself and
    raises the error there)."""
    global _prestart
    with _lock:
        if _session is not None or _prestart is not None:
            return

        def start() -> None:
            try:
                get_session(cfg, jars, java_properties)
            except Exception:  # noqa: BLE001 - get_session in the caller's thread says why
                pass

        _prestart = threading.Thread(target=start, name="spark-prestart", daemon=True)
        _prestart.start()


def get_session(
    cfg: SparkConfig,
    jars: Sequence[str] = (),
    java_properties: Mapping[str, str] | None = None,
) -> Any:
    """One SparkSession per process: the first call builds it, later calls reuse it.
    ``jars``: the JDBC drivers, unless the config names its own; ``java_properties``: Java
    system properties the drivers need (``syncpoint.ops.session`` passes the vendors')."""
    with _lock:
        return _session if _session is not None else _build(cfg, jars, java_properties)


def _build(cfg: SparkConfig, jars: Sequence[str], java_properties: Mapping[str, str] | None) -> Any:
    global _session
    from pyspark.sql import SparkSession

    jars = list(cfg.jars) if cfg.jars is not None else list(jars)
    props = dict(java_properties or {})
    submitted = launched_by_spark_submit()
    if not submitted and cfg.master.startswith("local"):
        # Python workers run syncpoint's own functions (verify, snapshot): they must be this
        # interpreter, the one syncpoint is installed in, not whatever ``python3`` PATH finds
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    options = {
        "spark.app.name": "syncpoint",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "8",
        # stage bars overwrite each other and syncpoint's own lines
        "spark.ui.showConsoleProgress": "false",
    }
    if not submitted:  # spark-submit's --master (or its default) stands
        options["spark.master"] = cfg.master
    if jars:
        options["spark.jars"] = ",".join(jars)
    if cfg.packages:
        options["spark.jars.packages"] = ",".join(cfg.packages)
    conf = dict(cfg.conf)
    if props:
        opts = " ".join(f"-D{k}={v}" for k, v in props.items())
        for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
            _add_java_options(conf, key, opts)
    options.update(conf)
    if not submitted:
        _launch(options, cfg.class_cache)
    b = SparkSession.builder
    for k, v in options.items():
        b = b.config(k, v)
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


def started() -> bool:
    """Whether this process has a session, or one starting (``prestart``), or a JVM that
    spark-submit started for it."""
    return _session is not None or _prestart is not None or launched_by_spark_submit()


def active_master() -> str | None:
    """The master of the session this process started, if it started one."""
    return str(_session.sparkContext.master) if _session is not None else None


def stop_session() -> None:
    global _session, _prestart
    if _prestart is not None:
        _prestart.join()
        _prestart = None
    with _lock:
        if _session is not None:
            _session.stop()
            _session = None
