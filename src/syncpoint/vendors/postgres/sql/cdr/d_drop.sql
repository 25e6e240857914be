DROP TABLE IF EXISTS pg_temp.${d}
