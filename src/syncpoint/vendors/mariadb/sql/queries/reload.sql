-- The whole table, to capture it again as INSERT records (after a TRUNCATE, or when a watched
-- table appears again), a chunk at a time in key order. The rows are read with shared locks:
-- writers still open are waited for and their records come first; later writers wait and
-- their records come after these. The records are written by recapture_insert.sql with
-- VALUES (a plain INSERT ... SELECT would hold the AUTO-INC table lock of {prefix}items while
-- it waits for row locks, and an application writer holding one of those rows while its
-- trigger waits for that AUTO-INC lock would deadlock: its statement would fail).
SELECT $raw{row}, $raw{key}
  FROM ${table} AS src
 WHERE $raw{after}
 ORDER BY $raw{order}
 LIMIT $raw{limit}
  LOCK IN SHARE MODE
