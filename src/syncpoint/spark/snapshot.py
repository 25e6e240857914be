"""Copying one chunk of a table's rows into ``{p}staging`` at the target (``snapshot``), and
reading rows for ``verify``: JDBC reads partitioned over the partition column, streamed
from reader to writer by Spark's executors; the driver receives only counts.

A chunk is read as ``numPartitions`` ranges of ``sp_part`` (the partition column), each
by its own connection to the source, in parallel where the vendor allows it (its
dialect's ``JDBC_PARALLEL``). Rows are written as staged upserts (action ``U``) of the
chunk's attempt id; the apply transaction compares the count observed by this very job
with what it finds staged (as rounds do), so a partial or repeated write is never applied.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from syncpoint.spark.read import FETCHSIZE
from syncpoint.spark.stage import BATCHSIZE

T = TypeVar("T")


def read_rows(
    spark: Any,
    url: str,
    props: dict[str, str],
    query: str,
    *,
    lo: int | None,
    hi: int | None,
    partitions: int,
    session_init: str | None,
    schema: str,
) -> Any:
    reader = (
        spark.read.format("jdbc")
        .option("url", url)
        .option("dbtable", f"({query}) sp_snap")
        .option("fetchsize", str(FETCHSIZE))
        .option("customSchema", schema)
    )
    if session_init:
        reader = reader.option("sessionInitStatement", session_init)
    for k, v in props.items():
        reader = reader.option(k, v)
    if partitions > 1 and lo is not None and hi is not None and hi > lo:
        reader = (
            reader.option("partitionColumn", "sp_part")
            .option("lowerBound", str(lo))
            .option("upperBound", str(hi))
            .option("numPartitions", str(partitions))
        )
    return reader.load()


def copy_chunk(
    spark: Any,
    source: tuple[str, dict[str, str]],
    query: str,
    target: tuple[str, dict[str, str]],
    staging: str,
    *,
    lo: int | None,
    hi: int | None,
    partitions: int,
    session_init: str | None,
    finish: Callable[[str | None, str], str | None] | None,
    application: str,
    sync_name: str,
    round_id: str,
    write_parallel: bool,
) -> int:
    """Copy the rows ``query`` selects into ``staging``; return how many were written."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    extra = ", sp_fix STRING" if finish else ""
    df = read_rows(
        spark,
        source[0],
        source[1],
        query,
        lo=lo,
        hi=hi,
        partitions=partitions,
        session_init=session_init,
        schema=f"content STRING{extra}",
    )
    content = F.col("content")
    if finish is not None:
        # useArrow=False says which UDF kind this is: left to infer, pyspark warns on stderr
        content = F.udf(finish, StringType(), useArrow=False)(F.col("content"), F.col("sp_fix"))
    obs = Observation()
    out = df.select(
        F.lit(application).alias("application_name"),
        F.lit(sync_name).alias("sync_name"),
        F.lit(round_id).alias("round_id"),
        F.lit(0).cast("int").alias("tbl"),
        F.lit("U").alias("action"),
        content.alias("content"),
        F.lit(0).cast("long").alias("repl_key"),
    ).observe(obs, F.count(F.lit(1)).alias("n"))
    if not write_parallel:
        out = out.coalesce(1)
    w = (
        out.write.format("jdbc")
        .option("url", target[0])
        .option("dbtable", staging)
        .option("isolationLevel", "READ_COMMITTED")
        .option("batchsize", str(BATCHSIZE))
    )
    for k, v in target[1].items():
        w = w.option(k, v)
    w.mode("append").save()
    return int(obs.get["n"])


def run_tasks(spark: Any, jobs: list[Any], task: Callable[[Any], T]) -> list[T]:
    """One Spark task per job (``task(job)`` runs in a Python worker and returns its
    counts); what they returned, in the jobs' order. The direct path's copies: Spark
    schedules, the rows go from database to database without passing through the JVM."""
    if not jobs:
        return []
    rdd = spark.sparkContext.parallelize(jobs, len(jobs))
    return list(rdd.map(task).collect())


def slots(spark: Any) -> int:
    """How many tasks Spark runs at once (its default parallelism): more tasks than that
    for one chunk only add each task's start-up."""
    return max(1, int(spark.sparkContext.defaultParallelism))


_warmed: dict[tuple[str, str], threading.Thread] = {}


def warm_workers(spark: Any, module: str) -> threading.Thread:
    """Start Spark's Python workers, each importing ``module``, in a thread: the first
    Python job of a session waits a second or more for them, which the snapshot's tick,
    bounds and catalog reads can hide. Spark keeps the workers for the tasks after, so a
    session does this once per module (the thread of the first call is returned again)."""
    key = (str(spark.sparkContext.applicationId), module)
    if key in _warmed:
        return _warmed[key]

    def task(_: int) -> int:
        importlib.import_module(module)
        return 0

    def run() -> None:
        try:
            n = slots(spark)
            spark.sparkContext.parallelize(range(n), n).map(task).collect()
        except Exception:  # noqa: BLE001 - the copy's own job will say what is wrong
            pass

    thread = _warmed[key] = threading.Thread(target=run, name="spark-warm-workers", daemon=True)
    thread.start()
    return thread
