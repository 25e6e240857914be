"""Writing a round's net rows to ``{p}staging`` at the integrate location.

Spark's JDBC writer commits each partition on its own and may repeat a task, so the
staging write is not trusted by itself: every row carries the round's own id (a fresh id
per attempt), and the apply transaction compares the staged count per window with the
counts observed here, by the write job itself (an ``Observation``: no second pass, no
cache), before it applies anything (``Integrate._check_staged``). A partial,
doubled or foreign staging aborts the round; nothing half-staged is ever applied.

Where the target has a bulk path (``Integrate.stage_files``, with the CSV options its
loader reads) and the executors write to a disk the driver reads (a local master), the job
writes the rows as CSV files instead (``write_staging_files``: Spark's own file commit keeps exactly
one output of each task, however often it ran) and the driver streams the files' bytes
into one COPY; the profile measured the JDBC insert as the largest share of a round, and
handing rows to Python executors costs about as much again as writing them as files.

A vendor that takes one writer at a time (``JDBC_PARALLEL = False``) is written by one
partition. Batch inserts are rewritten into multi-row statements by the drivers where
their JDBC options (``dialect.spark_jdbc``) say so.
"""

from __future__ import annotations

from typing import Any

BATCHSIZE = 10_000
WRITE_PARTITIONS = 2


def write_staging(
    net: Any,
    url: str,
    props: dict[str, str],
    table: str,
    *,
    application: str,
    group: str,
    round_id: str,
    parallel: bool,
    windows: list[int],
    origins: bool = False,
) -> dict[int, int]:
    """Append the net rows, tagged with application, sync group and round, to ``table``;
    return how many rows of each window the job wrote (observed during the write itself,
    so the round is read, netted and staged by one Spark job). ``origins``: each row's
    origin is written too (windows carrying changes first made at several locations)."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    obs = Observation()
    out = net.select(
        F.lit(application).alias("application_name"),
        F.lit(group).alias("sync_name"),
        F.lit(round_id).alias("round_id"),
        F.col("tbl").cast("int").alias("tbl"),
        "action",
        "content",
        "repl_key",
        *(["origin"] if origins else []),
    ).observe(obs, *[F.count_if(F.col("tbl") == w).alias(f"w{w}") for w in windows])
    out = out.coalesce(WRITE_PARTITIONS if parallel else 1)
    w = (
        out.write.format("jdbc")
        .option("url", url)
        .option("dbtable", table)
        .option("isolationLevel", "READ_COMMITTED")
        .option("batchsize", str(BATCHSIZE))
    )
    for k, v in props.items():
        w = w.option(k, v)
    w.mode("append").save()
    got = obs.get
    return {t: int(got[f"w{t}"]) for t in windows if int(got[f"w{t}"])}


def write_staging_files(
    net: Any,
    directory: str,
    *,
    application: str,
    group: str,
    round_id: str,
    windows: list[int],
    csv_options: dict[str, str],
    origins: bool = False,
) -> tuple[dict[int, int], list[str]]:
    """Write the staging rows (the columns of ``write_staging``, ``origin`` always last) as
    CSV files under ``directory`` (which must not exist), written with the target loader's
    ``csv_options``; return the rows of each window, observed during the write, and the
    files in order."""
    import glob
    import os

    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    obs = Observation()
    out = net.select(
        F.lit(application).alias("application_name"),
        F.lit(group).alias("sync_name"),
        F.lit(round_id).alias("round_id"),
        F.col("tbl").cast("int").alias("tbl"),
        "action",
        "content",
        "repl_key",
        (F.col("origin") if origins else F.lit(None).cast("string")).alias("origin"),
    ).observe(obs, *[F.count_if(F.col("tbl") == w).alias(f"w{w}") for w in windows])
    out.coalesce(WRITE_PARTITIONS).write.options(**csv_options).csv(directory)
    got = obs.get
    files = sorted(glob.glob(os.path.join(directory, "part-*")))
    return {t: int(got[f"w{t}"]) for t in windows if int(got[f"w{t}"])}, files
