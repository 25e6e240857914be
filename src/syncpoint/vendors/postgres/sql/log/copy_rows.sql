-- Row records of a batch whose JSON content the decoder made (log/queue.py: the types it
-- writes as the trigger capture's projection would), in one COPY; the values as
-- insert.sql stores them.
COPY ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog, db_schema,
                         db_action, content, oldcontent, version, captured_at) FROM STDIN
