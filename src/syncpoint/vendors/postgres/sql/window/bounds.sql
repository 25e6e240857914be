-- Size of a window at the capture location, for a round: bounds for its reads' ranges and a
-- count (stats.sql without the oldest capture time, which the queue's text of every
-- record's time would cost).
SELECT min(q.repl_key), max(q.repl_key), count(*) FROM ($raw{query}) q
