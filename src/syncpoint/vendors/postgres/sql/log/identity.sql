-- The same verdict as fn_identity (install/030_fn_identity.sql) without it installed (for
-- validate): why the table cannot be published for UPDATE and DELETE, no row or NULL when
-- it can.
WITH rel AS (
    SELECT to_regclass(format('%%I.%%I', %(schema)s::text, %(table)s::text)) AS oid
), parts AS (
    SELECT c.oid, c.relreplident, c.oid::regclass::text AS name
      FROM rel, pg_partition_tree(rel.oid) p JOIN pg_class c ON c.oid = p.relid
     WHERE c.relkind IN ('r', 'p')
    UNION
    SELECT c.oid, c.relreplident, c.oid::regclass::text FROM rel JOIN pg_class c ON c.oid = rel.oid
), idx AS (
    SELECT parts.*,
           (SELECT array_agg(a.attname::text)
              FROM pg_index ix
              JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = ANY (ix.indkey)
             WHERE ix.indrelid = parts.oid
               AND CASE parts.relreplident WHEN 'i' THEN ix.indisreplident
                                           ELSE ix.indisprimary END) AS cols
      FROM parts
)
SELECT CASE WHEN relreplident = 'n' THEN format('%%s has REPLICA IDENTITY NOTHING', name)
            WHEN cols IS NULL THEN format('%%s has no %%s', name, CASE relreplident WHEN 'i'
                                          THEN 'replica identity index' ELSE 'primary key' END)
            WHEN %(key)s::text[] IS NOT NULL AND NOT (%(key)s::text[] <@ cols)
            THEN format('the key (%%s) is not part of the replica identity of %%s (%%s)',
                        array_to_string(%(key)s::text[], ', '), name,
                        array_to_string(cols, ', '))
       END
  FROM idx
 WHERE relreplident <> 'f'
 ORDER BY 1 NULLS LAST
 LIMIT 1
