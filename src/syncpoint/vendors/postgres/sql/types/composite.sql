-- A composite type's attributes in order: name and type as SQL.
SELECT a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_type t
  JOIN pg_attribute a ON a.attrelid = t.typrelid
 WHERE t.oid = %s AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum
