-- Columns whose equality is not that of their text ('abc' = 'ABC'): citext, and a
-- nondeterministic collation. Column name and why.
SELECT a.attname,
       CASE WHEN t.typname = 'citext' THEN 'of type citext'
            ELSE 'in the nondeterministic collation ' || co.collname END
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_collation co ON co.oid = a.attcollation
WHERE a.attrelid = to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped
  AND (t.typname = 'citext' OR co.collisdeterministic IS FALSE)
