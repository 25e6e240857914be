-- Bookkeeping columns on the table: the key version and one version (time|location) per
-- column group; rows that exist already start at key version 1 and the empty version.
ALTER TABLE $raw{target} $raw{add_columns}
---
-- Local writes stamp the versions; replicated ones (the origin setting is set) keep theirs.
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
    INSERT INTO $raw{tombstones} (table_name, key, kv, version)
    VALUES ($lit{table}, $raw{old_key}, OLD.$raw{kv}, v)
    ON CONFLICT (table_name, key, kv) DO UPDATE SET version = EXCLUDED.version;
    RETURN OLD;
END
$cdr$
---
CREATE TRIGGER $raw{trg_row} BEFORE INSERT OR UPDATE ON $raw{target}
FOR EACH ROW EXECUTE FUNCTION $raw{fn}()
---
CREATE TRIGGER $raw{trg_del} AFTER DELETE ON $raw{target}
FOR EACH ROW EXECUTE FUNCTION $raw{fn}()
---
-- Capture's function for the table made again for its columns now, at the same shape
-- version (the bookkeeping columns are no change of its shape).
SELECT $raw{make_capture}(t.id) FROM $raw{capture_tables} t
 WHERE t.relid = $raw{target_text}::regclass
---
INSERT INTO ${cdr} (table_name, resolution, groups, key) VALUES (%(table)s, %(resolution)s, %(groups)s, %(key)s)
