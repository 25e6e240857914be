-- Records in the queue (not yet purged), per table.
SELECT tablename, COUNT(*) FROM ${items} GROUP BY tablename
