/* syncpoint tick %(nonce)s */
-- A tick's wait for a fresh transaction list: the cache is refreshed by the first read after
-- 0.1 s without one. Waiting inside a statement that carries the tick's nonce, so that a
-- list another session's read refreshes meanwhile shows this tick (tick_clock.sql) and
-- counts as well.
SELECT SLEEP(%(wait)s)
