"""Writing a round's net rows to ``{p}staging`` at the integrate location.

Spark's JDBC writer commits each partition on its own and may repeat a task, so the
staging write is not trusted by itself: every row carries the round's own id (a fresh id
per attempt), and the apply transaction compares the staged count per window with the
counts observed here, by the write job itself (an ``Observation``: no second pass, no
cache), before it applies anything (``Integrate._check_staged``). A partial,
doubled or foreign staging aborts the round; nothing half-staged is ever applied.

Where the target has a bulk path (``Integrate.stage_copy``: PostgreSQL's ``COPY``) and the
executors run syncpoint's own interpreter, each partition streams its rows in one COPY from
a Python executor instead of JDBC batches (the profile measured the JDBC insert as the
largest share of a round); the counts then come from the partitions themselves, and a task
repeated after its COPY committed makes the staged count too large, which the apply
transaction refuses as it refuses any other doubled staging.

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
    copy: tuple[str, str] | None = None,
) -> dict[int, int]:
    """Append the net rows, tagged with application, sync group and round, to ``table``;
    return how many rows of each window the job wrote (observed during the write itself,
    so the round is read, netted and staged by one Spark job). ``origins``: each row's
    origin is written too (windows carrying changes first made at several locations).
    ``copy``: (connection string, COPY statement) of the target's bulk path."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    if copy is not None:
        return _copy_staging(net, copy, application, group, round_id, parallel, origins)

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


def _copy_staging(
    net: Any,
    copy: tuple[str, str],
    application: str,
    group: str,
    round_id: str,
    parallel: bool,
    origins: bool,
) -> dict[int, int]:
    from pyspark.sql import functions as F

    rows = net.select(
        F.lit(application).alias("application_name"),
        F.lit(group).alias("sync_name"),
        F.lit(round_id).alias("round_id"),
        F.col("tbl").cast("int").alias("tbl"),
        "action",
        "content",
        "repl_key",
        (F.col("origin") if origins else F.lit(None).cast("string")).alias("origin"),
    ).coalesce(WRITE_PARTITIONS if parallel else 1)
    conninfo, statement = copy

    def write(part: Any) -> Any:
        import psycopg

        counts: dict[int, int] = {}
        with psycopg.connect(conninfo, connect_timeout=10) as conn:  # commits at the end
            with conn.cursor().copy(statement) as cp:
                for r in part:
                    cp.write_row(r)
                    counts[r[3]] = counts.get(r[3], 0) + 1
        yield counts

    total: dict[int, int] = {}
    for counts in rows.rdd.mapPartitions(write).collect():
        for t, n in counts.items():
            total[int(t)] = total.get(int(t), 0) + n
    return total
