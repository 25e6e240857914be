-- Bookkeeping columns on the table: the key version and one version (time|location) per
-- column group; rows that exist already start at key version 1 and the empty version.
ALTER TABLE $raw{target} $raw{add_columns}
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
