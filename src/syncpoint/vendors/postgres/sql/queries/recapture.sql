-- After a polled ALTER or CREATE, in its transaction: rows of the table captured again as
-- they are now, after the DDL record, under the new shape version (the content as the
-- capture writes it; settings pinned by the caller). The rows picked: for ALTER the
-- keys of the table's row records after the newest tick (written through the old
-- triggers, perhaps after the DDL), for CREATE every row (written before any trigger). An
-- UPDATE's old image is the row itself (the key did not move).
INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                               db_schema, db_action, content, oldcontent, version, captured_at)
SELECT r.k, s.stream_id || ':' || r.k, pg_current_xact_id(), s.location, %(table)s,
       current_database(), %(schema)s, $raw{action}, r.c, $raw{old}, %(version)s, clock_timestamp()
  FROM (SELECT nextval($lit{seq_q}::regclass) AS k, $raw{content} AS c
          FROM $raw{relation} AS sp_row
         WHERE $raw{rows}) AS r,
       ${schema}.${service} AS s
