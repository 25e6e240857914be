-- A batch's records, in commit order (repl_key), all under the batch transaction's id: the
-- tick after its commit sees them.
INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                db_schema, db_action, content, oldcontent, version,
                                captured_at)
SELECT r.k, %(sid)s || ':' || r.k, pg_current_xact_id(), r.o, r.t, current_database(), r.s,
       r.a, r.c, r.oc, r.v, r.at
  FROM unnest(%(k)s::bigint[], %(o)s::text[], %(t)s::text[], %(s)s::text[], %(a)s::text[],
              %(c)s::text[], %(oc)s::text[], %(v)s::integer[], %(at)s::timestamptz[])
       AS r(k, o, t, s, a, c, oc, v, at)
