SELECT schemaname, tablename, ordinal, colname, coltype, nullable, pk
  FROM ${cols_snapshot}
 ORDER BY schemaname, tablename, ordinal
