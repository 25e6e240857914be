-- Row records of one relation (and one set of columns) of a batch, their keys given in
-- commit order: the values (text, one JSON array a row) are cast back to their columns'
-- types and written as JSON by the trigger capture's projection
-- (install/110_fn_make_capture.sql), under the same settings: the same content, character
-- for character, made where the rows are written (nothing travels back to be sent again).
-- (Arrays are bound in binary: the text form escapes every element.)
INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                db_schema, db_action, content, oldcontent, version,
                                captured_at)
SELECT r.k, %(sid)s || ':' || r.k, pg_current_xact_id(), r.o, r.t, current_database(), r.s,
       r.a, $raw{content}, $raw{oldcontent}, r.v, r.at
  FROM unnest(%(k)b::bigint[], %(o)b::text[], %(t)b::text[], %(s)b::text[], %(a)b::text[],
              %(n)b::json[], %(od)b::json[], %(v)b::integer[], %(at)b::timestamptz[])
       AS r(k, o, t, s, a, n, od, v, at)
