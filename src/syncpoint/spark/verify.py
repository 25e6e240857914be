"""``verify`` on Spark: per-key-range row counts and checksums of each side, then the rows
of the ranges that differ compared key by key.

Each side (the target table, or the union of the source tables feeding it) is read over
JDBC in parallel ranges of the partition column, as the capture writes rows (JSON
content); ``canon`` (plain Python, run in the executors) reduces each row to its key text
and a canonical text of its values, hashed with ``xxhash64``. Per range: the count and the
sum of the hashes (as decimal(38,0): no overflow). Only these per-range figures, and the
differing rows (at most ``limit``), reach the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncpoint.spark.snapshot import read_rows


@dataclass(frozen=True)
class Side:
    url: str
    props: dict[str, str]
    query: str  # SELECT sp_part, content[, sp_fix] ...
    session_init: str | None
    finish: Callable[[str | None, str], str | None] | None
    lo: int | None
    hi: int | None
    parallel: bool


def _frame(
    spark: Any, side: Side, key: list[str], columns: list[str], padded: frozenset[str]
) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from syncpoint.ops.verify.canon import key_and_hash_text

    extra = ", sp_fix STRING" if side.finish else ""
    df = read_rows(
        spark,
        side.url,
        side.props,
        side.query,
        lo=side.lo,
        hi=None if side.hi is None else side.hi + 1,
        partitions=4 if side.parallel else 1,
        session_init=side.session_init,
        schema=f"content STRING{extra}",
    )
    content = F.col("content")
    if side.finish is not None:
        # useArrow=False names the UDF's kind: left to infer it, pyspark warns on stderr
        finish = F.udf(side.finish, StringType(), useArrow=False)
        content = finish(F.col("content"), F.col("sp_fix"))
    kh = F.udf(
        lambda c: key_and_hash_text(c, key, columns, padded),
        StructType([StructField("k", StringType()), StructField("h", StringType())]),
        useArrow=False,
    )
    return (
        df.select(F.col("sp_part").cast("long").alias("sp_part"), content.alias("content"))
        .withColumn("kh", kh(F.col("content")))
        .select("sp_part", "content", F.col("kh.k").alias("k"), F.col("kh.h").alias("h"))
    )


def _union(
    spark: Any, sides: list[Side], key: list[str], columns: list[str], padded: frozenset[str]
) -> Any:
    frames = [_frame(spark, s, key, columns, padded) for s in sides]
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


def range_sums(
    spark: Any,
    sides: list[Side],
    key: list[str],
    columns: list[str],
    lo: int,
    step: int,
    padded: frozenset[str] = frozenset(),
) -> dict[int, tuple[int, int]]:
    """Per range number (-1: partition value NULL or not an integer column): count and
    checksum of the rows of ``sides`` together."""
    from pyspark.sql import functions as F

    df = _union(spark, sides, key, columns, padded)
    bucket = F.when(F.col("sp_part").isNull(), F.lit(-1)).otherwise(
        F.floor((F.col("sp_part") - F.lit(lo)) / F.lit(max(step, 1)))
    )
    agg = (
        df.withColumn("b", bucket.cast("long"))
        .groupBy("b")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.sum(F.xxhash64("h").cast("decimal(38,0)")).alias("s"),
        )
    )
    return {int(r["b"]): (int(r["n"]), int(r["s"])) for r in agg.collect()}


def row_diffs(
    spark: Any,
    sources: list[Side],
    targets: list[Side],
    key: list[str],
    columns: list[str],
    limit: int,
    padded: frozenset[str] = frozenset(),
) -> list[tuple[str, str | None, str | None]]:
    """(key text, source content, target content) of every key whose rows differ (absent
    on one side: None), at most ``limit``; duplicates of a key on one side count too."""
    from pyspark.sql import functions as F

    a = (
        _union(spark, sources, key, columns, padded)
        .groupBy("k")
        .agg(
            F.count(F.lit(1)).alias("an"), F.first("h").alias("ah"), F.first("content").alias("ac")
        )
    )
    b = (
        _union(spark, targets, key, columns, padded)
        .groupBy("k")
        .agg(
            F.count(F.lit(1)).alias("bn"), F.first("h").alias("bh"), F.first("content").alias("bc")
        )
    )
    j = a.join(b, "k", "full_outer").where(
        F.col("ah").isNull()
        | F.col("bh").isNull()
        | (F.col("ah") != F.col("bh"))
        | (F.col("an") != F.col("bn"))
    )
    return [(r["k"], r["ac"], r["bc"]) for r in j.orderBy("k").limit(limit).collect()]
