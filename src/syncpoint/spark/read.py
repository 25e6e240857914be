"""Reading change records of a round's windows over JDBC, partitioned on ``repl_key``.

The SELECT comes from the capture location's vendor (``Integrate.read_query``): the
capture's ``changes_query`` for the window, restricted to row changes after the last
applied TRUNCATE and not originating at the target, with each record's key columns
extracted *by the source database* as JSON text (``sp_key`` from ``content``, ``sp_old_key``
from ``oldcontent``). Spark's own JSON reader goes through ``double`` and would merge
decimal keys that differ beyond 17 digits; the source writes one value the same way every
time, so equal text means equal key.

Partitions: ``repl_key`` bounds come from a cheap count at the source (``lowerBound`` and
``upperBound`` only set the stride, they filter nothing); one partition per
``ROWS_PER_PARTITION`` records up to ``MAX_PARTITIONS`` (each is a connection to the
source); a vendor whose dialect says ``JDBC_PARALLEL = False`` reads in one.
``fetchsize`` makes a driver stream instead of loading a window at once. Credentials
travel in the JDBC properties, never in the URL, and Spark redacts them in plans and logs.
"""

from __future__ import annotations

import math
from typing import Any

ROWS_PER_PARTITION = 50_000
MAX_PARTITIONS = 4
FETCHSIZE = 10_000
SCHEMA = (
    "repl_key BIGINT, db_action STRING, content STRING, oldcontent STRING, "
    "dbid STRING, sp_key STRING, sp_old_key STRING"
)


def partitions(count: int, parallel: bool) -> int:
    if not parallel:
        return 1
    return max(1, min(MAX_PARTITIONS, math.ceil(count / ROWS_PER_PARTITION)))


def read_window(
    spark: Any,
    url: str,
    props: dict[str, str],
    query: str,
    *,
    tbl: int,
    parallel: bool,
    lo: int,
    hi: int,
    count: int,
) -> Any:
    """The records of one window as a DataFrame with a ``tbl`` column added."""
    from pyspark.sql import functions as F

    reader = (
        spark.read.format("jdbc")
        .option("url", url)
        .option("dbtable", f"({query}) sp_window")
        .option("fetchsize", str(FETCHSIZE))
        .option("customSchema", SCHEMA)
    )
    for k, v in props.items():
        reader = reader.option(k, v)
    n = partitions(count, parallel)
    if n > 1:
        reader = (
            reader.option("partitionColumn", "repl_key")
            .option("lowerBound", str(lo))
            .option("upperBound", str(hi + 1))
            .option("numPartitions", str(n))
        )
    return reader.load().withColumn("tbl", F.lit(tbl))
