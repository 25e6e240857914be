-- A round's look at the tables' large window (after, upto] without reading its records
-- (counting them read every record's heap tuple: most of a large round's plan), one row a
-- table: repl_key bounds that cover its records (NULL: it has none), and its DDL records
-- counted in the DDL log (written beside each of them). The queue's index (tablename,
-- trans_key, repl_key) gives each transaction's lowest and highest repl_key by two probes:
-- the transactions of the window are those from tick "after"'s xmax below tick "upto"'s
-- (stepped through one probe each, at most $raw{most} + 1 of them a table) and those open
-- at "after". Transactions the window leaves out (open at "upto", or writing a table of
-- the same name in another schema) may widen the bounds, never narrow them. many: the
-- table has more transactions than $raw{most} (its bounds are then not given; the caller
-- reads the records instead).
SELECT t.db_schema, t.tablename, s.many, s.lo, s.hi, s.ddl
  FROM unnest(%(schemas)s::text[], %(names)s::text[]) AS t(db_schema, tablename)
 CROSS JOIN LATERAL (
       WITH RECURSIVE x(trans_key, n) AS (
           SELECT f.trans_key, 1
             FROM (SELECT i.trans_key
                     FROM ${schema}.${items} AS i
                    WHERE i.tablename = t.tablename
                      AND i.trans_key >= pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{after})))
                      AND i.trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{upto})))
                    ORDER BY i.trans_key
                    LIMIT 1) AS f
           UNION ALL
           SELECT f.trans_key, x.n + 1
             FROM x
            CROSS JOIN LATERAL (
                  SELECT i.trans_key
                    FROM ${schema}.${items} AS i
                   WHERE i.tablename = t.tablename
                     AND i.trans_key > x.trans_key
                     AND i.trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{upto})))
                   ORDER BY i.trans_key
                   LIMIT 1) AS f
            WHERE x.n <= $raw{most}
       ), k(trans_key) AS (
           SELECT x.trans_key FROM x
           UNION
           SELECT o.trans_key
             FROM unnest(ARRAY(SELECT pg_snapshot_xip(${schema}.${fn_snap}($raw{after})))) AS o(trans_key)
            WHERE o.trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{upto})))
       )
       SELECT (SELECT count(*) FROM x) > $raw{most} AS many,
              min(b.lo) AS lo,
              max(b.hi) AS hi,
              (SELECT count(*)
                 FROM ${schema}.${ddl_log} AS d
                WHERE d.tablename = t.tablename
                  AND d.db_schema = t.db_schema
                  AND (d.trans_key >= pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{after})))
                       OR d.trans_key = ANY (ARRAY(SELECT pg_snapshot_xip(${schema}.${fn_snap}($raw{after})))))
                  AND d.trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{upto})))
                  AND NOT pg_visible_in_snapshot(d.trans_key, (SELECT ${schema}.${fn_snap}($raw{after})))
                  AND pg_visible_in_snapshot(d.trans_key, (SELECT ${schema}.${fn_snap}($raw{upto})))) AS ddl
         FROM k
        CROSS JOIN LATERAL (
              SELECT min(i.repl_key) AS lo, max(i.repl_key) AS hi
                FROM ${schema}.${items} AS i
               WHERE i.tablename = t.tablename AND i.trans_key = k.trans_key) AS b) AS s
