"""Writing a round's net rows to ``{p}staging`` at the integrate location.

Spark's JDBC writer commits each partition on its own and may repeat a task, so the
staging write is not trusted by itself: every row carries the round's own id (a fresh id
per attempt), and the apply transaction compares the staged count per window with the
counts computed here before it applies anything (``Integrate._check_staged``). A partial,
doubled or foreign staging aborts the round; nothing half-staged is ever applied.

SQLite takes one writer at a time: one partition. Elsewhere the batch inserts are
rewritten into multi-row statements by the drivers (``reWriteBatchedInserts`` /
``rewriteBatchedStatements``).
"""

from __future__ import annotations

from typing import Any

BATCHSIZE = 10_000
WRITE_PARTITIONS = 2


def staged_counts(net: Any) -> dict[int, int]:
    return {int(r["tbl"]): int(r["count"]) for r in net.groupBy("tbl").count().collect()}


def write_staging(
    net: Any,
    url: str,
    props: dict[str, str],
    table: str,
    *,
    application: str,
    round_id: str,
    vendor: str,
) -> None:
    """Append the net rows, tagged with the application and round, to ``table`` (quoted)."""
    from pyspark.sql import functions as F

    out = net.select(
        F.lit(application).alias("application_name"),
        F.lit(round_id).alias("round_id"),
        F.col("tbl").cast("int").alias("tbl"),
        "action",
        "content",
        "repl_key",
    )
    out = out.coalesce(1 if vendor == "sqlite" else WRITE_PARTITIONS)
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
