-- Watched tables under log capture (no capture trigger to look at).
SELECT t.schemaname, t.tablename, t.status, t.actions, t.debug, t.reason
  FROM ${schema}.${tables} t
 ORDER BY t.schemaname, t.tablename
