INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema, tablename,
                                  version, captured_at)
SELECT r.k, pg_current_xact_id(), r.a, r.s, r.t, r.v, r.at
  FROM unnest(%(k)b::bigint[], %(a)b::text[], %(s)b::text[], %(t)b::text[],
              %(v)b::integer[], %(at)b::timestamptz[]) AS r(k, a, s, t, v, at)
