SELECT l.id, l.relid, l.schemaname, l.tablename, l.version, l.shape::text, t.actions,
       t.status, t.key_columns
  FROM ${schema}.${log_tables} l JOIN ${schema}.${tables} t ON t.id = l.id
