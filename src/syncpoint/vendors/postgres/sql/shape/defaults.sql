-- Column defaults of a table as SQL text (its oid given as regclass text).
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid)
  FROM pg_attrdef d
  JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
 WHERE d.adrelid = %s::regclass AND NOT a.attisdropped AND a.attgenerated = ''
