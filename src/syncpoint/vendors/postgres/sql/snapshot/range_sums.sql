-- verify, where both sides write equal rows as equal text (same vendor, same column types):
-- per range of the partition column, the row count and a sum of 64-bit hashes of the row
-- as the capture writes it, computed here instead of shipping every row to Spark.
SELECT $raw{bucket} AS sp_bucket, count(*), sum(hashtextextended($raw{content}, 0)::numeric)
FROM $raw{table} sp_row
GROUP BY 1
