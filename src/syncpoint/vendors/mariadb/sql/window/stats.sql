-- Size of a window at the capture location: bounds for Spark's partitions, a count.
SELECT min(q.repl_key), max(q.repl_key), count(*), min(q.captured_at) FROM ($raw{query}) q
