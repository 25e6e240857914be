-- Why a table cannot be published for UPDATE and DELETE, or NULL when it can: a publication
-- that publishes them makes the application's UPDATE and DELETE fail on a table without a
-- usable replica identity, so such a table is never put in it. Usable: FULL, or the primary
-- key (DEFAULT) or a chosen unique index (USING INDEX) holding every column of the key the
-- channel names (the decoder reads the old key from it). A partitioned table is checked
-- with each of its partitions: the UPDATE runs on the partition.
CREATE OR REPLACE FUNCTION ${schema}.${fn_identity}(p_rel oid, p_key text[]) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r      record;
    v_cols text[];
BEGIN
    FOR r IN SELECT c.oid, c.relreplident, c.relkind, c.oid::regclass::text AS name
               FROM pg_partition_tree(p_rel) p JOIN pg_class c ON c.oid = p.relid
              WHERE c.relkind IN ('r', 'p') OR p.relid = p_rel
              UNION
             SELECT c.oid, c.relreplident, c.relkind, c.oid::regclass::text
               FROM pg_class c WHERE c.oid = p_rel LOOP
        CONTINUE WHEN r.relreplident = 'f';
        IF r.relreplident = 'n' THEN
            RETURN format('%s has REPLICA IDENTITY NOTHING', r.name);
        END IF;
        SELECT array_agg(a.attname::text) INTO v_cols
          FROM pg_index ix
          JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = ANY (ix.indkey)
         WHERE ix.indrelid = r.oid
           AND CASE r.relreplident WHEN 'i' THEN ix.indisreplident ELSE ix.indisprimary END;
        IF v_cols IS NULL THEN
            RETURN format('%s has no %s', r.name, CASE r.relreplident WHEN 'i'
                          THEN 'replica identity index' ELSE 'primary key' END);
        END IF;
        IF p_key IS NOT NULL AND NOT (p_key <@ v_cols) THEN
            RETURN format('the key (%s) is not part of the replica identity of %s (%s)',
                          array_to_string(p_key, ', '), r.name, array_to_string(v_cols, ', '));
        END IF;
    END LOOP;
    RETURN NULL;
END
$fn$
