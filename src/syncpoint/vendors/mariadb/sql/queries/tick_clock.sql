-- The clock, the start of the oldest other transaction that has changed rows (capture
-- writes the queue inside the application's transaction, so every transaction that captured
-- something and is still open is among them), the start of the oldest other transaction of
-- any kind (one that is taking a repl_key may not have changed a row yet: tick holes wait
-- for it), and whether this tick's own transaction (it holds the service row lock) is in the
-- list: INNODB_TRX is a cache that MariaDB refreshes only when nobody read it for 0.1 s, so
-- a list without our own transaction is older than the tick and proves nothing. Read before
-- the snapshot is taken. trx_started is the server's system time (not the session's
-- time_zone): made UTC here, or a server east of UTC would show open transactions younger
-- than they are and a tick would give up the holes they still hold keys in.
SELECT UTC_TIMESTAMP(6),
       (SELECT CONVERT_TZ(MIN(trx_started), 'SYSTEM', '+00:00') FROM information_schema.INNODB_TRX
         WHERE trx_mysql_thread_id <> CONNECTION_ID() AND trx_rows_modified > 0),
       (SELECT COUNT(*) FROM information_schema.INNODB_TRX
         WHERE trx_mysql_thread_id = CONNECTION_ID()),
       (SELECT CONVERT_TZ(MIN(trx_started), 'SYSTEM', '+00:00') FROM information_schema.INNODB_TRX
         WHERE trx_mysql_thread_id <> CONNECTION_ID())
