-- The table's trigger function (cdr add; made again where it wrote no deleted row).
-- Local writes stamp the versions; replicated ones (the origin setting is set) keep theirs;
-- a local delete writes the tombstone, with the row deleted.
CREATE OR REPLACE FUNCTION $raw{fn}() RETURNS trigger LANGUAGE plpgsql AS $cdr$
DECLARE
    v text;
BEGIN
    IF coalesce(current_setting($lit{origin_guc}, true), '') <> '' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    v := $raw{now};
    IF TG_OP = 'INSERT' THEN
        NEW.$raw{kv} := coalesce((SELECT max(tb.kv) + 1 FROM $raw{tombstones} tb
                                  WHERE tb.table_name = $lit{table}
                                    AND tb.key = $raw{new_key}), 1);
        $raw{stamp_all}
        RETURN NEW;
    ELSIF TG_OP = 'UPDATE' THEN
        NEW.$raw{kv} := OLD.$raw{kv};
        $raw{stamp_changed}
        RETURN NEW;
    END IF;
    INSERT INTO $raw{tombstones} (table_name, key, kv, version, deleted_row)
    VALUES ($lit{table}, $raw{old_key}, OLD.$raw{kv}, v, $raw{old_row})
    ON CONFLICT (table_name, key, kv) DO UPDATE
       SET version = EXCLUDED.version, deleted_at = EXCLUDED.deleted_at,
           deleted_row = EXCLUDED.deleted_row;
    RETURN OLD;
END
$cdr$
