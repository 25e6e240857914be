-- Row records of one relation (and one set of columns) of a batch, their keys given in
-- commit order. %(rows)s is one JSON array, a record an element:
-- [key, origin, schema, table, action, version, commit time, new values, old values];
-- the values (text, as the log sent them) are cast back to their columns' types and
-- written as JSON by the trigger capture's projection (install/110_fn_make_capture.sql),
-- under the same settings: the same content, character for character, made where the
-- rows are written. One document a group: one parse on the server, no array of texts to
-- escape on either side.
INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                db_schema, db_action, content, oldcontent, version,
                                captured_at)
SELECT (r->>0)::bigint, %(sid)s || ':' || (r->>0), pg_current_xact_id(), r->>1, r->>3,
       current_database(), r->>2, r->>4, $raw{content}, $raw{oldcontent}, (r->>5)::integer,
       (r->>6)::timestamptz
  FROM jsonb_array_elements(%(rows)s::jsonb) AS e(r)
