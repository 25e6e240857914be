/* syncpoint tick %(nonce)s */
-- The clock, the start of the oldest other transaction that has changed rows (capture
-- writes the queue inside the application's transaction, so every transaction that captured
-- something and is still open is among them), the start of the oldest other transaction of
-- any kind (one that is taking a repl_key may not have changed a row yet: tick holes wait
-- for it), and whether the list shows this tick's own transaction running this very
-- statement (its row's trx_query holds the tick's nonce, first in the text because the view
-- keeps 1,024 characters of it): INNODB_TRX is a cache that MariaDB refreshes only when
-- nobody read it for 0.1 s, and a list made during an earlier transaction of this
-- connection (the previous tick) shows the same thread id but misses the transactions
-- opened since. One reference to INNODB_TRX: one version of the cache for every column.
-- Then what the cache holds, for the size check (the view is cut without a sign once the
-- cache reaches 16 MiB; stream.py, _complete). Read before the snapshot is taken.
-- trx_started is the server's system time (not the session's time_zone): made UTC here, or
-- a server east of UTC would show open transactions younger than they are and a tick would
-- give up the holes they still hold keys in.
SELECT UTC_TIMESTAMP(6),
       CONVERT_TZ(MIN(IF(trx_mysql_thread_id <> CONNECTION_ID() AND trx_rows_modified > 0,
                         trx_started, NULL)), 'SYSTEM', '+00:00'),
       COALESCE(SUM(trx_mysql_thread_id = CONNECTION_ID()
                    AND LOCATE(%(nonce)s, trx_query) > 0), 0),
       CONVERT_TZ(MIN(IF(trx_mysql_thread_id <> CONNECTION_ID(), trx_started, NULL)),
                  'SYSTEM', '+00:00'),
       COUNT(*),
       COALESCE(SUM(COALESCE(LENGTH(trx_query), 0) + COALESCE(LENGTH(trx_last_foreign_key_error), 0)), 0),
       (SELECT COUNT(*) FROM information_schema.INNODB_LOCKS),
       (SELECT COALESCE(SUM(COALESCE(LENGTH(lock_data), 0) + LENGTH(lock_table)
                            + COALESCE(LENGTH(lock_index), 0)), 0)
          FROM information_schema.INNODB_LOCKS),
       (SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS)
  FROM information_schema.INNODB_TRX
