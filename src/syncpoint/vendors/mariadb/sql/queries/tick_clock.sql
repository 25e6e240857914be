-- The clock, then the start of the oldest other transaction that has changed rows (capture
-- writes the queue inside the application's transaction, so every transaction that captured
-- something and is still open is among them). Read before the snapshot is taken.
-- UTC_TIMESTAMP(6) is the statement's start, so it is read before the subquery runs.
SELECT UTC_TIMESTAMP(6),
       (SELECT MIN(trx_started) FROM information_schema.INNODB_TRX
         WHERE trx_mysql_thread_id <> CONNECTION_ID() AND trx_rows_modified > 0)
