-- Columns of target tables in order, for many in one round trip (``describe`` asks for
-- one): each row led by the name asked for (%s, an array of qualified names), then name,
-- type as format_type writes it, nullable, key position (1-based: indkey is an int2vector,
-- whose subscripts start at 0), exact. A table that does not exist gives no row.
SELECT w.name, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       (SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(att, n)
         WHERE k.att = a.attnum),
       -- exact: the column's equality is that of its text (a type whose text is canonical
       -- and equality is identity, through domains; text or varchar in a deterministic
       -- collation, which breaks ties by the bytes): a key of such columns needs neither the
       -- spare of a net delete nor the coarse-key check (integratebase.key_is_exact)
       (WITH RECURSIVE b(oid, typtype, base) AS (
            SELECT ty.oid, ty.typtype, ty.typbasetype FROM pg_type ty WHERE ty.oid = a.atttypid
            UNION ALL
            SELECT ty.oid, ty.typtype, ty.typbasetype FROM b JOIN pg_type ty ON ty.oid = b.base
             WHERE b.typtype = 'd')
        SELECT b.oid = ANY ('{int2,int4,int8,text,varchar,uuid,date,bytea,bool}'::regtype[])
          FROM b WHERE b.typtype <> 'd')
       AND (a.attcollation = 0 OR (SELECT co.collisdeterministic FROM pg_collation co
                                    WHERE co.oid = a.attcollation))
FROM unnest(%s::text[]) AS w(name)
JOIN pg_attribute a ON a.attrelid = to_regclass(w.name) AND a.attnum > 0
  AND NOT a.attisdropped
LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
ORDER BY w.name, a.attnum
