-- Records of transactions the tick "upto" sees committed, and their lines in the DDL log;
-- ticks before it (the tick itself stays: the next window starts there).
DELETE FROM ${schema}.${items}
 WHERE trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}(%(upto)s)))
   AND pg_visible_in_snapshot(trans_key, (SELECT ${schema}.${fn_snap}(%(upto)s)))
---
DELETE FROM ${schema}.${ddl_log}
 WHERE trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}(%(upto)s)))
   AND pg_visible_in_snapshot(trans_key, (SELECT ${schema}.${fn_snap}(%(upto)s)))
---
DELETE FROM ${schema}.${ticks} WHERE tick_id < %(upto)s
