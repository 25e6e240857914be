"""The net effect of a round's change records per key, as DataFrame -> DataFrame steps.

The same rule as ``core/netting.py`` (the reference; the tests compare both):

- ``split_moves``: every row record becomes the operation(s) it means: INSERT -> upsert of
  ``sp_key``; DELETE -> delete of ``sp_old_key``; UPDATE -> upsert of ``sp_key``, preceded
  (``sub`` 0 before 1) by a delete of ``sp_old_key`` when the key changed. One pass over the
  input (an ``explode``), so the JDBC source is read once.
- ``net``: per (window, key) the last operation by ``(repl_key, sub)`` wins (``max_by`` on
  a struct: a hash aggregate, no sort of the whole round). A record without its key columns
  fails the job: netting on a missing key would merge unrelated rows.

Contents stay the JSON text the capture wrote: Spark never parses a value.
"""

from __future__ import annotations

from typing import Any


def split_moves(df: Any) -> Any:
    """Columns out: tbl, key, sub, action ('U' upsert / 'D' delete), content, repl_key,
    dbid (where the change was first made)."""
    from pyspark.sql import functions as F

    a = F.col("db_action")
    deleted = a == "DELETE"
    moved = (
        (a == "UPDATE") & F.col("sp_old_key").isNotNull() & (F.col("sp_old_key") != F.col("sp_key"))
    )
    key = F.when(deleted, F.col("sp_old_key")).otherwise(F.col("sp_key"))
    missing = F.raise_error(F.lit("a change record lacks its key columns"))
    main = F.struct(
        F.when(key.isNull(), missing).otherwise(key).alias("key"),
        F.when(deleted, 0).otherwise(1).alias("sub"),
        F.when(deleted, "D").otherwise("U").alias("action"),
        F.when(deleted, F.col("oldcontent")).otherwise(F.col("content")).alias("content"),
    )
    old = F.struct(
        F.col("sp_old_key").alias("key"),
        F.lit(0).alias("sub"),
        F.lit("D").alias("action"),
        F.col("oldcontent").alias("content"),
    )
    # an array of one operation, two for a key move (no lambda: cheaper per row)
    ops = F.when(moved, F.array(old, main)).otherwise(F.array(main))
    return (
        df.where(a.isin("INSERT", "UPDATE", "DELETE"))
        .select("tbl", "repl_key", _dbid(df), F.explode(ops).alias("o"))
        .select(
            "tbl",
            F.col("o.key").alias("key"),
            F.col("o.sub").alias("sub"),
            F.col("o.action").alias("action"),
            F.col("o.content").alias("content"),
            "repl_key",
            "dbid",
        )
    )


def _dbid(df: Any) -> Any:
    from pyspark.sql import functions as F

    return F.col("dbid") if "dbid" in df.columns else F.lit(None).cast("string").alias("dbid")


def net(ops: Any) -> Any:
    """Columns out: tbl, action, content, repl_key, origin: one row per (tbl, key)."""
    from pyspark.sql import functions as F

    last = F.max_by(
        F.struct("action", "content", "repl_key", "dbid"), F.struct("repl_key", "sub")
    ).alias("last")
    return (
        ops.groupBy("tbl", "key")
        .agg(last)
        .select(
            "tbl",
            F.col("last.action").alias("action"),
            F.col("last.content").alias("content"),
            F.col("last.repl_key").alias("repl_key"),
            F.col("last.dbid").alias("origin"),
        )
    )


def net_changes(df: Any) -> Any:
    return df.transform(split_moves).transform(net)
