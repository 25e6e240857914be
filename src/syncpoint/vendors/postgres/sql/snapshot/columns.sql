-- Columns of a table in order, each with its base type (domains resolved), the base type's
-- typtype and typcategory: the projection of install/110_fn_make_capture.sql depends on them.
WITH RECURSIVE b(attnum, attname, typ) AS (
    SELECT a.attnum, a.attname, a.atttypid FROM pg_attribute a
    WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT b.attnum, b.attname, t.typbasetype
    FROM b JOIN pg_type t ON t.oid = b.typ WHERE t.typtype = 'd'
)
SELECT b.attname, format_type(b.typ, NULL), t.typtype, t.typcategory
FROM b JOIN pg_type t ON t.oid = b.typ
WHERE t.typtype <> 'd'
ORDER BY b.attnum
