-- The target rows of a snapshot chunk's range whose key the chunk did not copy: the source
-- had deleted them when the chunk was read (docs/internals.md, "Snapshot: the hand-over").
-- The chunk's keys are in temp.${spare}, indexed; the comparison takes the target
-- column's collation, as the upsert's key does.
CREATE INDEX temp.${spare_idx} ON ${spare} ($raw{columns})
---
DELETE FROM $raw{target}
 WHERE ($raw{range})
   AND NOT EXISTS (SELECT 1 FROM temp.${spare} u WHERE $raw{spare})
---
DROP TABLE temp.${spare}
