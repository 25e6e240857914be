-- Local writes (the origin table is empty) stamp the versions with an UPDATE of the row;
-- replicated ones keep theirs. An update stamps only when a column of some group changed
-- (so the stamp's own UPDATE does not stamp again).
CREATE TRIGGER $raw{trg_ai} AFTER INSERT ON $raw{target}
WHEN NOT EXISTS (SELECT 1 FROM ${origin})
BEGIN
  UPDATE $raw{target}
     SET $raw{kv} = coalesce((SELECT max(tb.kv) + 1 FROM ${tombstones} AS tb
                               WHERE tb.table_name = $raw{table} AND tb.key = $raw{new_key}), 1),
         $raw{stamp_all}
   WHERE $raw{new_match};
END
---
CREATE TRIGGER $raw{trg_au} AFTER UPDATE ON $raw{target}
WHEN NOT EXISTS (SELECT 1 FROM ${origin}) AND ($raw{any_changed})
BEGIN
  UPDATE $raw{target} SET $raw{kv} = OLD.$raw{kv}, $raw{stamp_changed} WHERE $raw{new_match};
END
---
INSERT INTO ${cdr} (table_name, resolution, groups, key)
VALUES (:table, :resolution, :groups, :key)
