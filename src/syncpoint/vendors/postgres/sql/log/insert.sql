-- (Arrays are bound in binary: the text form escapes every element, the cost of a drain.)
-- A batch's records, in commit order (repl_key), all under the batch transaction's id: the
-- tick after its commit sees them.
INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                db_schema, db_action, content, oldcontent, version,
                                captured_at)
SELECT r.k, %(sid)s || ':' || r.k, pg_current_xact_id(), r.o, r.t, current_database(), r.s,
       r.a, r.c, r.oc, r.v, r.at
  FROM unnest(%(k)b::bigint[], %(o)b::text[], %(t)b::text[], %(s)b::text[], %(a)b::text[],
              %(c)b::text[], %(oc)b::text[], %(v)b::integer[], %(at)b::timestamptz[])
       AS r(k, o, t, s, a, c, oc, v, at)
